// Reading protobuf's wire format by hand, for the readers that must not trust
// protobufjs with bytes from the engine: its generated decoders read a known
// field by its declared type whatever wire type the tag carries (a string
// sent as a varint becomes whatever the next bytes spell), and recurse once
// per nested message. Used by struct-bytes.ts (bags left encoded), bag-check.ts
// (a bag's depth and wire types) and ../request-decode.ts (a request's own fields).
//
// Protobuf's rules, as this cursor applies them: wire types 0, 1, 2 and 5 are
// values; 3 starts a group that runs to the matching 4 (groups are obsolete but
// valid, and every decoder skips an unknown one); 6 and 7 do not exist; field
// numbers run from 1 to 2^29 - 1 (a number outside them is no field, and
// decoders refuse the message, as Go's protowire does); a tag or length runs
// at most 10 bytes. A proto3 string holds valid UTF-8 (isUtf8Text): Go's
// protobuf and upb refuse a message whose string does not; protobufjs and
// google-protobuf (JS) would replace the bad bytes without a word.

import { isUtf8 } from "node:buffer";

/** The bytes break the wire format; `offset` is where reading failed. */
export class WireFormatError extends Error {
  override name = "WireFormatError";
  constructor(
    readonly problem: string,
    readonly offset?: number,
  ) {
    super(`${problem}${offset === undefined ? "" : ` at byte ${offset}`}`);
  }
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** Protobuf's largest field number. */
export const MAX_FIELD_NUMBER = 2 ** 29 - 1;

const WIRE_TYPE_NAMES = ["varint", "64-bit", "length-delimited", "start group", "end group", "32-bit"];

/** "wire type 2 (length-delimited)", for messages that say what was found or expected. */
export function describeWireType(wireType: number): string {
  const name = WIRE_TYPE_NAMES[wireType];
  return name === undefined ? `wire type ${wireType}` : `wire type ${wireType} (${name})`;
}

/** What is wrong with a field number outside 1 … MAX_FIELD_NUMBER. */
function fieldNumberProblem(field: bigint): string {
  return field === 0n
    ? "field number 0 (field numbers start at 1)"
    : `field number ${field}, past protobuf's largest (${MAX_FIELD_NUMBER}): no message has such a field`;
}

/**
 * Reads protobuf wire primitives within [pos, end) of a buffer. A reader that
 * walks nested messages with one cursor moves `end` in and out with them.
 */
export class WireCursor {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
    public end: number,
  ) {}

  get done(): boolean {
    return this.pos >= this.end;
  }

  varint(): number {
    const at = this.pos;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireFormatError("a varint runs past the end", at);
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
    throw new WireFormatError("a varint is longer than 10 bytes", at);
  }

  /** A field's tag, checked: a field number from 1 to MAX_FIELD_NUMBER and a wire type that exists. */
  tag(): number {
    const at = this.pos;
    const tag = this.varint();
    if (tag > 0xffffffff || tag >>> 3 === 0) throw new WireFormatError(fieldNumberProblem(this.exactVarint(at) >> 3n), at);
    if ((tag & 7) > WIRE_FIXED32) throw new WireFormatError(`wire type ${tag & 7}`, at);
    return tag;
  }

  /** The varint at `at` (already read once) to the bit, for a message: varint() is exact only to 2^53. */
  private exactVarint(at: number): bigint {
    let result = 0n;
    for (let i = 0, pos = at; i < 10 && pos < this.end; i++, pos++) {
      result |= BigInt(this.buf[pos] & 0x7f) << BigInt(7 * i);
      if ((this.buf[pos] & 0x80) === 0) break;
    }
    return result;
  }

  /** A length-delimited field's [start, end); the cursor moves past it. */
  delimited(): [number, number] {
    const end = this.lengthEnd();
    const start = this.pos;
    this.pos = end;
    return [start, end];
  }

  /**
   * Reads a length-delimited field's length and returns where its bytes end;
   * the cursor stays at their start (a reader entering the field).
   */
  lengthEnd(): number {
    const at = this.pos;
    const length = this.varint();
    if (length > this.end - this.pos) throw new WireFormatError(`a field of ${length} bytes runs past the end`, at);
    return this.pos + length;
  }

  /**
   * Moves past the value of a field whose tag was just read (by tag() or
   * varint()). A group is skipped to its matching end without recursing,
   * however deep it nests (how deep a bag may nest, groups included, is
   * bag-check.ts's to judge); an end group with no group open is an error.
   */
  skip(tag: number): void {
    const at = this.pos;
    if (tag > 0xffffffff || tag >>> 3 === 0) throw new WireFormatError(fieldNumberProblem(BigInt(Math.floor(tag / 8))), at);
    switch (tag & 7) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.advance(8, at);
        return;
      case WIRE_LEN:
        this.pos = this.lengthEnd();
        return;
      case WIRE_FIXED32:
        this.advance(4, at);
        return;
      case WIRE_START_GROUP:
        this.skipGroup(tag >>> 3, at);
        return;
      case WIRE_END_GROUP:
        throw new WireFormatError(`an end group (field ${tag >>> 3}) with no group open`, at);
      default:
        throw new WireFormatError(`wire type ${tag & 7}`, at);
    }
  }

  /** Past the end of a group of field `field` whose start tag was just read. */
  private skipGroup(field: number, at: number): void {
    const open = [field];
    while (open.length > 0) {
      if (this.done) throw new WireFormatError(`a group (field ${open[open.length - 1]}) runs past the end`, at);
      const tagAt = this.pos;
      const tag = this.tag();
      const wireType = tag & 7;
      if (wireType === WIRE_END_GROUP) {
        const closing = open.pop();
        if (closing !== tag >>> 3) throw new WireFormatError(`an end group of field ${tag >>> 3} closes the group of field ${closing}`, tagAt);
      } else if (wireType === WIRE_START_GROUP) {
        open.push(tag >>> 3);
      } else {
        this.skip(tag);
      }
    }
  }

  private advance(n: number, at: number): void {
    if (n > this.end - this.pos) throw new WireFormatError("a fixed-size field runs past the end", at);
    this.pos += n;
  }
}

/**
 * Whether bytes [start, end) are valid UTF-8 (no overlong forms, surrogates
 * or code points past U+10FFFF), as a proto3 string must be. Short text,
 * nearly every key and most values, is checked here (a native call costs more
 * than reading a few bytes); long text by Node's isUtf8.
 */
export function isUtf8Text(bytes: Buffer, start: number, end: number): boolean {
  if (end - start > 64) return isUtf8(bytes.subarray(start, end));
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // The second byte's range depends on the first (RFC 3629's table); later ones are 80..BF.
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return false;
    if (i + n >= end) return false;
    const second = bytes[i + 1];
    if (second < lo || second > hi) return false;
    for (let k = 2; k <= n; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return false;
    i += n + 1;
  }
  return true;
}

/**
 * The last well-formed string of field `id` in bytes [start, end), read as far
 * as they allow (for naming a key or a URN in the error about bytes that did
 * not decode); "" when there is none. With `validOnly`, a string that is not
 * valid UTF-8 does not count.
 */
export function lastStringField(bytes: Buffer, start: number, end: number, id: number, validOnly = false): string {
  let value = "";
  const cursor = new WireCursor(bytes, start, end);
  try {
    while (!cursor.done) {
      const tag = cursor.tag();
      if (tag === ((id << 3) | WIRE_LEN)) {
        const [from, to] = cursor.delimited();
        if (!validOnly || isUtf8Text(bytes, from, to)) value = bytes.toString("utf8", from, to);
      } else {
        cursor.skip(tag);
      }
    }
  } catch {
    // read as far as it goes
  }
  return value;
}
