// The size bound of every error text the host sends (a status's details, an
// init failure's reasons). Texts can be as large as what caused them: an error
// quoting a 50 MiB `__provider`, a provider throwing a 1 MiB message. Sent
// whole, they break the client instead of informing it:
//
// - the text travels in the `grpc-message` trailer, percent-encoded: newlines
//   and every byte of a non-ASCII character take three bytes there;
// - a grpc-js client (1.14, default options) never completes a call whose
//   encoded `grpc-message` is over ≈100 KB (measured: 100 000 bytes answer,
//   110 000 never do), and later calls on that connection wait too;
// - the engine's grpc-go client refuses trailers over 16 MiB with only
//   `received metadata size exceeds hard limit`, losing the text altogether.
//
// 8 KiB of text is at most 24 KiB encoded, a quarter of what grpc-js takes,
// with room for the init-failure trailer (which repeats the text, base64'd,
// beside its reasons), and is more than any ordinary message or Python
// traceback needs. Longer texts keep their head (the method, the resource,
// what failed) and their tail (a traceback's exception line), and say how much
// was cut between them.

/** The most bytes (UTF-8) of one error text sent to the engine. */
export const MAX_ERROR_TEXT_BYTES = 8 * 1024;

/** The most bytes of the subject put before a cut text (a URN can be of any length). */
const MAX_SUBJECT_BYTES = 1024;

/**
 * `text` as it is when it fits in `max` bytes of UTF-8 (the common case: not
 * a byte changes); otherwise its head and tail around `… [N bytes cut] …`,
 * `max` bytes at most, N the bytes left out, and no UTF-8 character (nor
 * UTF-16 surrogate pair) split. A cut text that does not begin with
 * `subject` (what failed: "Create urn:…") gets `subject: ` before it, so
 * that even a user's huge message, once cut, says where it came from.
 */
export function boundErrorText(text: string, max: number = MAX_ERROR_TEXT_BYTES, subject = ""): string {
  // Under max/3 UTF-16 units the text is under max bytes whatever it holds.
  if (text.length <= max / 3) return text;
  let total = Buffer.byteLength(text, "utf8");
  if (total <= max) return text;
  if (subject !== "" && !text.startsWith(subject)) {
    text = `${boundErrorText(subject, MAX_SUBJECT_BYTES)}: ${text}`;
    total = Buffer.byteLength(text, "utf8");
  }
  // The marker's length depends on N, which depends on what is kept: size it for the largest N.
  const room = Math.max(0, max - Buffer.byteLength(marker(total), "utf8"));
  const head = leadingBytes(text, Math.ceil(room / 2));
  const tail = trailingBytes(text, room - head.length);
  return head.toString("utf8") + marker(total - head.length - tail.length) + tail.toString("utf8");
}

function marker(cut: number): string {
  return `… [${cut} bytes cut] …`;
}

/** The first whole characters of `text` within `bytes` bytes of UTF-8. */
function leadingBytes(text: string, bytes: number): Buffer {
  // At most `bytes` UTF-16 units can fit; never end on the first half of a pair.
  let part = text.slice(0, bytes);
  if (isHighSurrogate(part.charCodeAt(part.length - 1))) part = part.slice(0, -1);
  const buf = Buffer.from(part, "utf8");
  if (buf.length <= bytes) return buf;
  let end = bytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

/** The last whole characters of `text` within `bytes` bytes of UTF-8. */
function trailingBytes(text: string, bytes: number): Buffer {
  if (bytes <= 0) return Buffer.alloc(0);
  let part = text.slice(-bytes);
  if (isLowSurrogate(part.charCodeAt(0))) part = part.slice(1);
  const buf = Buffer.from(part, "utf8");
  if (buf.length <= bytes) return buf;
  let start = buf.length - bytes;
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return buf.subarray(start);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * A list of error texts (an init failure's reasons) within `max` bytes in
 * all: unchanged when it fits; otherwise the reasons that fit whole (the
 * first one bounded if even it does not), then one entry saying how many
 * more, and how many bytes, were cut.
 */
export function boundErrorTexts(texts: readonly string[], max: number = MAX_ERROR_TEXT_BYTES): string[] {
  const sizes = texts.map((t) => Buffer.byteLength(t, "utf8"));
  let total = 0;
  for (const n of sizes) total += n;
  if (total <= max) return [...texts];
  const room = max - Buffer.byteLength(listMarker(texts.length, total), "utf8");
  const out: string[] = [];
  let used = 0;
  let i = 0;
  for (; i < texts.length && used + sizes[i] <= room; i++) {
    out.push(texts[i]);
    used += sizes[i];
  }
  if (i === 0) {
    const first = boundErrorText(texts[0], room);
    out.push(first);
    used = Buffer.byteLength(first, "utf8");
    i = 1;
  }
  let cut = 0;
  for (let j = i; j < sizes.length; j++) cut += sizes[j];
  if (i < texts.length) out.push(listMarker(texts.length - i, cut));
  return out;
}

function listMarker(count: number, bytes: number): string {
  return `… [${count} more (${bytes} bytes) cut] …`;
}
