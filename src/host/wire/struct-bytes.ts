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
//
// What this reads it reads strictly: a field it knows (an entry, a key, a
// value, the members of the Value it reads a string from) with another wire
// type than its own is refused, naming the field, where protobufjs would
// misread it and upb would drop it; fields it does not know are skipped
// whatever their wire type, groups included.
import protobuf from "protobufjs";
import { describeWireType, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT, WireCursor, WireFormatError } from "./wire-cursor.js";

/** The encoded bytes were not a Struct; `offset` is where reading failed. */
export class StructBytesError extends Error {
  override name = "StructBytesError";
  constructor(problem: string, readonly offset?: number) {
    super(`not a valid encoded protobuf Struct: ${problem}${offset === undefined ? "" : ` at byte ${offset}`}`);
  }
}

/** Runs a read of the wire format, reporting a break in it as a StructBytesError. */
function reading<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof WireFormatError) throw new StructBytesError(e.problem, e.offset);
    throw e;
  }
}

/** Refuses a known field sent with another wire type than its own, naming it. */
function expectWireType(tag: number, wanted: number, field: string, at: number): void {
  if ((tag & 7) !== wanted) {
    throw new StructBytesError(`${field} has ${describeWireType(tag & 7)} instead of ${describeWireType(wanted)}`, at);
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

/** Struct.fields = 1 and, within an entry, key = 1. */
const FIELDS = 1;
const KEY = 1;
/** An entry's value = 2, a Value message. */
const VALUE = 2;
/** Value's string_value = 3; Value's oneof members are fields 1 to 6, each with its wire type. */
const STRING_VALUE = 3;
const VALUE_MEMBERS: readonly (readonly [string, number])[] = [
  ["", -1],
  ["null_value", WIRE_VARINT],
  ["number_value", WIRE_FIXED64],
  ["string_value", WIRE_LEN],
  ["bool_value", WIRE_VARINT],
  ["struct_value", WIRE_LEN],
  ["list_value", WIRE_LEN],
];

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
    return reading(() => {
      let kind = 0;
      let start = 0;
      let end = 0;
      const entry = new WireCursor(this.bytes, span.bodyStart, span.end);
      while (!entry.done) {
        const at = entry.pos;
        const tag = entry.tag();
        if (tag >>> 3 !== VALUE) {
          entry.skip(tag);
          continue;
        }
        expectWireType(tag, WIRE_LEN, "the value of an entry (field 2)", at);
        const [valueStart, valueEnd] = entry.delimited();
        const value = new WireCursor(this.bytes, valueStart, valueEnd);
        while (!value.done) {
          const memberAt = value.pos;
          const valueTag = value.tag();
          const field = valueTag >>> 3;
          if (field < VALUE_MEMBERS.length) {
            const [name, wireType] = VALUE_MEMBERS[field];
            expectWireType(valueTag, wireType, `the ${name} of a Value (field ${field})`, memberAt);
            kind = field;
          }
          if (field === STRING_VALUE) [start, end] = value.delimited();
          else value.skip(valueTag);
        }
      }
      return kind === STRING_VALUE ? sameString(this.bytes, start, end) : undefined;
    });
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
    const spans = reading(() => {
      const found: EntrySpan[] = [];
      const reader = new WireCursor(buf, 0, buf.length);
      while (!reader.done) {
        const start = reader.pos;
        const tag = reader.tag();
        if (tag >>> 3 !== FIELDS) {
          reader.skip(tag);
          continue;
        }
        expectWireType(tag, WIRE_LEN, "an entry (Struct.fields, field 1)", start);
        const [bodyStart, end] = reader.delimited();
        // The key: the last field 1 of the entry; an entry without one has the key "".
        let keyStart = bodyStart;
        let keyEnd = bodyStart;
        const inner = new WireCursor(buf, bodyStart, end);
        while (!inner.done) {
          const at = inner.pos;
          const innerTag = inner.tag();
          const field = innerTag >>> 3;
          if (field === KEY) {
            expectWireType(innerTag, WIRE_LEN, "the key of an entry (field 1)", at);
            [keyStart, keyEnd] = inner.delimited();
          } else {
            if (field === VALUE) expectWireType(innerTag, WIRE_LEN, "the value of an entry (field 2)", at);
            inner.skip(innerTag);
          }
        }
        found.push({ start, bodyStart, end, keyStart, keyEnd });
      }
      return found;
    });
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
