// Frames on the worker channel (the twin of python-stub/protocol.py's Channel):
//
//   Content-Length: <bytes of JSON>\r\n
//   Binary-Length: <bytes of tail>\r\n
//   \r\n
//   <JSON-RPC message><binary tail>
//
// Buffers inside a message travel in the tail and appear in the JSON as
// {"$bin": [offset, length]}. No line or JSON-size limit applies to the tail,
// so 400 MiB property bags cross without base64 or string-length limits.

const HEADER_END = Buffer.from("\r\n\r\n");
const MAX_HEADER = 4096;
/** Frames larger than this gather in a buffer of their own (see FrameDecoder.push). */
const FILL_OVER = 1 << 20;

export class FrameError extends Error {
  override name = "FrameError";
}

/** A tail part larger than this is written as it is; smaller ones are copied in with what precedes them. */
const WRITE_ALONE = 64 * 1024;

/**
 * The buffers of one frame, to be written in order: the header, the JSON and
 * the small tail parts after it in one buffer; each large tail part as it is,
 * without a copy (and small parts between large ones joined).
 */
export function encodeFrame(message: unknown): Buffer[] {
  const tail: Buffer[] = [];
  let offset = 0;
  const json = JSON.stringify(withBinRefs(message, (b) => {
    tail.push(b);
    const ref = { $bin: [offset, b.length] };
    offset += b.length;
    return ref;
  }));
  const jsonLength = Buffer.byteLength(json, "utf8");
  const header = `Content-Length: ${jsonLength}\r\nBinary-Length: ${offset}\r\n\r\n`;
  let i = 0;
  let size = header.length + jsonLength;
  while (i < tail.length && tail[i].length <= WRITE_ALONE) size += tail[i++].length;
  const first = Buffer.allocUnsafe(size);
  let at = first.write(header, 0, "latin1");
  at += first.write(json, at, "utf8");
  for (let j = 0; j < i; j++) at += tail[j].copy(first, at);
  const parts: Buffer[] = [first];
  while (i < tail.length) {
    if (tail[i].length > WRITE_ALONE) {
      parts.push(tail[i++]);
      continue;
    }
    const start = i;
    let n = 0;
    while (i < tail.length && tail[i].length <= WRITE_ALONE) n += tail[i++].length;
    parts.push(i === start + 1 ? tail[start] : Buffer.concat(tail.slice(start, i), n));
  }
  return parts;
}

/** A copy of `value` with each buffer replaced by its reference; the caller's objects are left alone. */
function withBinRefs(value: unknown, ref: (b: Buffer) => unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Buffer.isBuffer(value)) return ref(value);
  if (value instanceof Uint8Array) return ref(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  if (Array.isArray(value)) return value.map((v) => withBinRefs(v, ref));
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    if (v !== undefined) out[k] = withBinRefs(v, ref);
  }
  return out;
}

/** `value` (fresh from JSON.parse, so ours to change) with each reference replaced by its slice of the tail. */
function resolveBinRefs(value: unknown, tail: Buffer): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = resolveBinRefs(value[i], tail);
    return value;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1 && keys[0] === "$bin") {
    const ref = obj.$bin;
    if (!Array.isArray(ref) || ref.length !== 2 || !ref.every((n) => Number.isInteger(n) && n >= 0) || ref[0] + ref[1] > tail.length) {
      throw new FrameError(`malformed $bin reference ${JSON.stringify(ref)} (tail is ${tail.length} bytes)`);
    }
    return tail.subarray(ref[0], ref[0] + ref[1]);
  }
  for (const k of keys) {
    const v = obj[k];
    const resolved = resolveBinRefs(v, tail);
    if (resolved === v) continue; // only a reference changes identity
    // JSON.parse makes "__proto__" an own key; assigning to it would set the prototype instead.
    if (k === "__proto__") Object.defineProperty(obj, k, { value: resolved, writable: true, enumerable: true, configurable: true });
    else obj[k] = resolved;
  }
  return obj;
}

/**
 * Incremental decoder: push what the socket gives, get whole messages back.
 * Chunks are kept as a list and joined once per frame, so a large frame that
 * arrives in many pieces costs one copy, not one per piece.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private frame?: { headerLength: number; jsonLength: number; binLength: number };
  /** A large frame's own buffer while it arrives, and how much of it has. */
  private filling?: Buffer;
  private filled = 0;

  push(chunk: Buffer): unknown[] {
    const messages: unknown[] = [];
    if (this.filling) {
      const n = Math.min(chunk.length, this.filling.length - this.filled);
      chunk.copy(this.filling, this.filled, 0, n);
      this.filled += n;
      if (this.filled < this.filling.length) return messages;
      const whole = this.filling;
      this.filling = undefined;
      this.filled = 0;
      messages.push(this.message(whole));
      chunk = chunk.subarray(n);
    }
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    for (;;) {
      if (this.buffered === 0) return messages;
      if (!this.frame) {
        const head = this.peek(Math.min(this.buffered, MAX_HEADER + HEADER_END.length));
        const end = head.indexOf(HEADER_END);
        if (end < 0) {
          if (this.buffered > MAX_HEADER) throw new FrameError(`no frame header in the first ${MAX_HEADER} bytes: ${JSON.stringify(head.subarray(0, 64).toString("latin1"))}`);
          return messages;
        }
        this.frame = { headerLength: end + HEADER_END.length, ...parseHeader(head.subarray(0, end).toString("latin1")) };
      }
      const total = this.frame.headerLength + this.frame.jsonLength + this.frame.binLength;
      if (this.buffered < total) {
        // A large frame gathers in a buffer of its own as it arrives, instead of as pieces
        // joined at the end: it is held once, not twice, at its peak.
        if (total > FILL_OVER) {
          this.filling = Buffer.allocUnsafe(total);
          for (const c of this.chunks) {
            c.copy(this.filling, this.filled);
            this.filled += c.length;
          }
          this.chunks = [];
          this.buffered = 0;
        }
        return messages;
      }
      messages.push(this.message(this.take(total)));
    }
  }

  /** Bytes held that do not yet form a whole frame. */
  get pending(): number {
    return this.buffered + this.filled;
  }

  /** The message of the frame in `all` (whose header this.frame describes). */
  private message(all: Buffer): unknown {
    const frame = this.frame!;
    this.frame = undefined;
    const jsonStart = frame.headerLength;
    const binStart = jsonStart + frame.jsonLength;
    let parsed: unknown;
    try {
      parsed = JSON.parse(all.subarray(jsonStart, binStart).toString("utf8"));
    } catch (e) {
      throw new FrameError(`invalid JSON in frame: ${(e as Error).message}`);
    }
    return resolveBinRefs(parsed, all.subarray(binStart, binStart + frame.binLength));
  }

  private peek(n: number): Buffer {
    if (this.chunks.length > 1 && this.chunks[0].length < n) {
      const joined = Buffer.concat(this.chunks);
      this.chunks = [joined];
    }
    return this.chunks[0].subarray(0, n);
  }

  private take(n: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered);
    const frame = joined.subarray(0, n);
    const rest = joined.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return frame;
  }
}

/** The header the worker writes (python-stub/protocol.py); others go through the general parse. */
const USUAL_HEADER = /^Content-Length: (\d{1,15})\r\nBinary-Length: (\d{1,15})$/;

function parseHeader(text: string): { jsonLength: number; binLength: number } {
  const usual = USUAL_HEADER.exec(text);
  if (usual) return { jsonLength: Number(usual[1]), binLength: Number(usual[2]) };
  const fields = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const i = line.indexOf(":");
    if (i <= 0) throw new FrameError(`bad frame header line ${JSON.stringify(line)}`);
    fields.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  const json = Number(fields.get("content-length"));
  const bin = Number(fields.get("binary-length") ?? "0");
  if (!Number.isSafeInteger(json) || json < 0 || !Number.isSafeInteger(bin) || bin < 0) {
    throw new FrameError(`bad frame lengths in ${JSON.stringify(text)}`);
  }
  return { jsonLength: json, binLength: bin };
}
