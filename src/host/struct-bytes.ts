// google.protobuf.Struct still in its encoded form. Python mode hands the
// engine's property bags to its worker, and the worker's answers to the engine,
// as the bytes they came in: the host reads only the top level (which map
// entries there are, and their keys) to find `__provider` and to carry it into
// a response. Decoding and re-encoding every bag twice per request was most of
// what the host did with large bags, and a measurable part of small ones.
//
// Struct is `map<string, Value> fields = 1`: on the wire, a sequence of
// length-delimited field-1 records (entries), each holding key = 1 (string) and
// value = 2 (Value). As for any protobuf map, the last entry for a key wins.
// One entry on its own, tag included, is itself a valid encoded Struct.
import protobuf from "protobufjs";

/** The encoded bytes were not a Struct; `offset` is where reading failed. */
export class StructBytesError extends Error {
  override name = "StructBytesError";
  constructor(problem: string, readonly offset?: number) {
    super(`not a valid encoded protobuf Struct: ${problem}${offset === undefined ? "" : ` at byte ${offset}`}`);
  }
}

/** Where one entry sits: [start, end) including its tag and length, where its body starts, and its key's bytes. */
interface EntrySpan {
  start: number;
  bodyStart: number;
  end: number;
  keyStart: number;
  keyEnd: number;
}

/** Struct.fields = 1 and, within an entry, key = 1: length-delimited. */
const FIELDS_TAG = (1 << 3) | 2;
/** An entry's value = 2, a Value message. */
const VALUE_TAG = (2 << 3) | 2;
/** Value's string_value = 3; Value's oneof members are fields 1 to 6. */
const STRING_VALUE = 3;
const LAST_KIND_FIELD = 6;

const keyBytesCache = new Map<string, Buffer>();
function keyBytes(key: string): Buffer {
  let b = keyBytesCache.get(key);
  if (!b) {
    b = Buffer.from(key, "utf8");
    if (keyBytesCache.size < 16) keyBytesCache.set(key, b);
  }
  return b;
}

export class EncodedStruct {
  private spans?: EntrySpan[];

  constructor(readonly bytes: Buffer) {}

  /** Reads the top level now: throws StructBytesError when it is malformed. */
  validated(): this {
    this.entries();
    return this;
  }

  get isEmpty(): boolean {
    return this.entries().length === 0;
  }

  /**
   * The last entry for `key` as encoded bytes (a one-entry Struct), or
   * undefined when the Struct has none. Throws StructBytesError when the
   * top level is malformed.
   */
  entry(key: string): Buffer | undefined {
    const span = this.lastSpan(keyBytes(key));
    return span && this.bytes.subarray(span.start, span.end);
  }

  /**
   * The string value of `key`, or undefined when the key is absent or its
   * value is of another kind: read in place, without decoding the Value. As
   * protobuf merges a message field given twice, and the last member of a
   * oneof wins, so here.
   */
  stringValue(key: string): string | undefined {
    const span = this.lastSpan(keyBytes(key));
    if (!span) return undefined;
    let kind = 0;
    let start = 0;
    let end = 0;
    const entry = new Cursor(this.bytes, span.bodyStart, span.end);
    while (!entry.done) {
      const tag = entry.varint();
      if (tag !== VALUE_TAG) {
        entry.skip(tag);
        continue;
      }
      const [valueStart, valueEnd] = entry.delimited();
      const value = new Cursor(this.bytes, valueStart, valueEnd);
      while (!value.done) {
        const at = value.pos;
        const valueTag = value.varint();
        const field = valueTag >>> 3;
        if (field === STRING_VALUE) {
          if ((valueTag & 7) !== 2) throw new StructBytesError(`a string_value of wire type ${valueTag & 7}`, at);
          [start, end] = value.delimited();
        } else {
          value.skip(valueTag);
        }
        if (field >= 1 && field <= LAST_KIND_FIELD) kind = field;
      }
    }
    return kind === STRING_VALUE ? sameString(this.bytes, start, end) : undefined;
  }

  /**
   * This Struct with `entry` (a one-entry Struct for `key`) as its only entry
   * for `key`: itself when that is already so, else a copy without the old
   * entries and with `entry` appended.
   */
  withEntry(key: string, entry: Buffer): EncodedStruct {
    const wanted = keyBytes(key);
    const matching = this.entries().filter((s) => this.keyEquals(s, wanted));
    if (matching.length === 1 && this.bytes.subarray(matching[0].start, matching[0].end).equals(entry)) return this;
    const parts: Buffer[] = [];
    let from = 0;
    for (const s of matching) {
      parts.push(this.bytes.subarray(from, s.start));
      from = s.end;
    }
    parts.push(this.bytes.subarray(from), entry);
    return new EncodedStruct(Buffer.concat(parts));
  }

  private lastSpan(wanted: Buffer): EntrySpan | undefined {
    const all = this.entries();
    for (let i = all.length - 1; i >= 0; i--) if (this.keyEquals(all[i], wanted)) return all[i];
    return undefined;
  }

  private keyEquals(span: EntrySpan, wanted: Buffer): boolean {
    const len = span.keyEnd - span.keyStart;
    return len === wanted.length && this.bytes.compare(wanted, 0, len, span.keyStart, span.keyEnd) === 0;
  }

  /** Every entry of the top level, read once; fields other than 1 are skipped as protobuf allows. */
  private entries(): EntrySpan[] {
    if (this.spans) return this.spans;
    const buf = this.bytes;
    const spans: EntrySpan[] = [];
    const reader = new Cursor(buf, 0, buf.length);
    while (!reader.done) {
      const start = reader.pos;
      const tag = reader.varint();
      if (tag !== FIELDS_TAG) {
        reader.skip(tag);
        continue;
      }
      const [bodyStart, end] = reader.delimited();
      // The key: the last field 1 of the entry; an entry without one has the key "".
      let keyStart = bodyStart;
      let keyEnd = bodyStart;
      const inner = new Cursor(buf, bodyStart, end);
      while (!inner.done) {
        const innerTag = inner.varint();
        if (innerTag === FIELDS_TAG) [keyStart, keyEnd] = inner.delimited();
        else inner.skip(innerTag);
      }
      spans.push({ start, bodyStart, end, keyStart, keyEnd });
    }
    this.spans = spans;
    return spans;
  }
}

/**
 * The last long string read in place, with a copy of its bytes. Consecutive
 * requests for one provider then get the very same string: it is not decoded
 * again, and the maps keyed by provider text find it without hashing it again
 * (V8 keeps a string's hash on the string). Pickles and closures run from a few
 * KiB to hundreds; comparing bytes costs a fraction of decoding and hashing.
 */
let lastString: { bytes: Buffer; text: string } | undefined;
const REMEMBERED_LENGTH = 256;

function sameString(buf: Buffer, start: number, end: number): string {
  const length = end - start;
  const last = lastString;
  if (last && last.bytes.length === length && buf.compare(last.bytes, 0, length, start, end) === 0) return last.text;
  const text = buf.toString("utf8", start, end);
  if (length >= REMEMBERED_LENGTH) lastString = { bytes: Buffer.from(buf.subarray(start, end)), text };
  return text;
}

/** Reads protobuf wire primitives within [pos, end) of a buffer. */
class Cursor {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
    private readonly end: number,
  ) {}

  get done(): boolean {
    return this.pos >= this.end;
  }

  varint(): number {
    const at = this.pos;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new StructBytesError("a varint runs past the end", at);
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
    throw new StructBytesError("a varint is longer than 10 bytes", at);
  }

  /** A length-delimited field's [start, end); the cursor moves past it. */
  delimited(): [number, number] {
    const at = this.pos;
    const length = this.varint();
    const start = this.pos;
    if (length > this.end - start) throw new StructBytesError(`a field of ${length} bytes runs past the end`, at);
    this.pos = start + length;
    return [start, this.pos];
  }

  /** Moves past the value of a field whose tag was just read. */
  skip(tag: number): void {
    const at = this.pos;
    if (tag > 0xffffffff || tag >>> 3 === 0) throw new StructBytesError(`field tag ${tag}`, at);
    switch (tag & 7) {
      case 0:
        this.varint();
        return;
      case 1:
        this.advance(8, at);
        return;
      case 2:
        this.delimited();
        return;
      case 5:
        this.advance(4, at);
        return;
      default:
        throw new StructBytesError(`wire type ${tag & 7}`, at);
    }
  }

  private advance(n: number, at: number): void {
    if (n > this.end - this.pos) throw new StructBytesError("a fixed-size field runs past the end", at);
    this.pos += n;
  }
}

export interface EncodedTwin {
  twin: protobuf.Type;
  /** The fields that are Structs in the original and bytes in the twin. */
  structFields: string[];
}

const twins = new Map<protobuf.Type, EncodedTwin | undefined>();

/**
 * A twin of `type` whose top-level google.protobuf.Struct fields are `bytes`
 * under the same numbers: decoding with it leaves those fields encoded (views
 * into the message, not copies), and encoding with it writes given bytes as
 * they are. Made once, next to `type` (named `<name>$Encoded`) so its other
 * fields resolve alike; undefined for a type without Struct fields.
 */
export function encodedTwin(type: protobuf.Type): EncodedTwin | undefined {
  if (twins.has(type)) return twins.get(type);
  const json = type.toJSON() as protobuf.IType;
  const structFields: string[] = [];
  for (const field of type.fieldsArray) {
    field.resolve();
    if (field.resolvedType?.fullName === ".google.protobuf.Struct" && !field.repeated && !field.map) {
      structFields.push(field.name);
      json.fields[field.name] = { ...json.fields[field.name], type: "bytes" };
    }
  }
  let result: EncodedTwin | undefined;
  if (structFields.length > 0) {
    const twin = protobuf.Type.fromJSON(`${type.name}$Encoded`, json);
    type.parent!.add(twin);
    twin.resolveAll();
    result = { twin, structFields };
  }
  twins.set(type, result);
  return result;
}
