// What the host checks in a property bag from the engine, in one pass over its
// encoded bytes and without recursing, before anything that does recurse or
// trusts the wire format sees it: protobufjs (which reads a known field by its
// declared type whatever wire type it came with, and recurses once per level on
// the host's own stack), our Struct ⇄ value conversions, the user's Node code,
// and in Python mode the worker's protobuf (upb: it drops a field of the wrong
// wire type silently, and recurses in C with the depth limit the Python SDK
// lifts, to a segfault past 4500 levels) and the SDK's deserialize_properties.
//
// - Depth. Objects and lists count: a property whose value is a number, a
//   string or null is nested 0 levels, {a: 1} and [1] 1 level, {a: {b: [1]}}
//   3 levels. A group (an obsolete wire form every decoder still skips, by
//   recursing) counts as a level too, wherever it appears.
// - Wire types. Every field Struct, its entries, Value and ListValue define
//   must come with its own wire type; one that does not is refused, naming it
//   and the property it is in (google-protobuf refuses it too; protobufjs
//   misreads it, upb drops it). Unknown fields are skipped, groups included.
// - Text. Keys and string values must be valid UTF-8, as every protobuf string
//   (Go's protobuf and upb refuse them; protobufjs would put U+FFFD in place of
//   the bad bytes, changing the value without a word).
import {
  describeWireType,
  isUtf8Text,
  lastStringField,
  WIRE_END_GROUP,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_START_GROUP,
  WIRE_VARINT,
  WireCursor,
  WireFormatError,
} from "./wire-cursor.js";

/**
 * The deepest property values each mode accepts; a request with a deeper one
 * is refused, naming the method, resource, bag, property and depth. Measured
 * with a Create whose provider returns its inputs (test/plugin/depth.test.ts keeps
 * both limits honest), Node 20, Python 3.11, pulumi 3.270.0:
 *
 * - Node mode, 1500. The Node reference (google-protobuf, recursing on the
 *   stack) carries 1090 and answers INTERNAL from 1091. The host's own path
 *   (protobufjs, our Struct ⇄ value conversions) carries 2500 in a fresh
 *   process and overflows its stack near 2800: 1500 keeps a margin of 1.7.
 * - Python mode, 490 levels of objects, a level of lists counting as 1.5
 *   (LIST_LEVEL_COST): what the Python reference carries. The SDK's
 *   deserialize_properties and serialize_properties recurse under Python's
 *   default recursion limit of 1000, two frames per level of objects and
 *   three per level of lists (a comprehension's frame more); our worker, with
 *   a few frames fewer under it, carries 493 levels of objects, 326 of lists
 *   (and fails at 329) and 395 alternating, and past those fails as the
 *   reference does, with RecursionError (a traceback of 170 to 260 KB). So a
 *   value is refused when its objects plus 1.5 × its lists, along its deepest
 *   path, pass 490: objects to 490, lists to 326, alternating to 392. Past 4500
 *   the worker's protobuf (upb, whose depth limit the SDK lifts) overflows
 *   the C stack: a segfault, in the reference too.
 *   One limit for both modes would have to be Python's, and refuse in Node
 *   mode what the Node reference carries; raising the worker's recursion
 *   limit would change what user code sees (sys.getrecursionlimit, and how
 *   deep its own recursion may go before the C stack runs out) for values a
 *   Python program's own SDK cannot send (its serialize_properties stops near
 *   the same depths).
 */
export const MAX_VALUE_DEPTH = { nodejs: 1500, python: 490 } as const;

/** What a level of lists counts for against MAX_VALUE_DEPTH, in levels of objects (see above). */
export const LIST_LEVEL_COST = { nodejs: 1, python: 1.5 } as const;

/**
 * A property nested deeper than the limit: how many levels along its deepest
 * path, and how many of those are lists; `key` is undefined for a top-level
 * unknown field.
 */
export interface TooDeep {
  key: string | undefined;
  depth: number;
  lists: number;
}

const enum Kind {
  Struct,
  Entry,
  Value,
  List,
  Group,
  /** A string: not a message, but bytes to check. */
  Text,
}


/**
 * The fields each message of a bag defines, by kind and field number: [name,
 * wire type, what a length-delimited one holds (Kind.Text: a string)].
 */
type FieldSpec = readonly [name: string, wireType: number, holds?: Kind];
const FIELDS: readonly (readonly (FieldSpec | undefined)[])[] = [];
(FIELDS as (FieldSpec | undefined)[][])[Kind.Struct] = [undefined, ["an entry (Struct.fields, field 1)", WIRE_LEN, Kind.Entry]];
(FIELDS as (FieldSpec | undefined)[][])[Kind.Entry] = [undefined, ["the key of an entry (field 1)", WIRE_LEN, Kind.Text], ["the value of an entry (field 2)", WIRE_LEN, Kind.Value]];
(FIELDS as (FieldSpec | undefined)[][])[Kind.Value] = [
  undefined,
  ["the null_value of a Value (field 1)", WIRE_VARINT],
  ["the number_value of a Value (field 2)", WIRE_FIXED64],
  ["the string_value of a Value (field 3)", WIRE_LEN, Kind.Text],
  ["the bool_value of a Value (field 4)", WIRE_VARINT],
  ["the struct_value of a Value (field 5)", WIRE_LEN, Kind.Struct],
  ["the list_value of a Value (field 6)", WIRE_LEN, Kind.List],
];
(FIELDS as (FieldSpec | undefined)[][])[Kind.List] = [undefined, ["a value of a ListValue (field 1)", WIRE_LEN, Kind.Value]];
(FIELDS as (FieldSpec | undefined)[][])[Kind.Group] = [];

/**
 * Checks an encoded google.protobuf.Struct: returns the first top-level
 * property nested deeper than `maxDepth`, a level of lists counting as
 * `listCost` levels, with its whole depth (undefined when none is), and
 * throws WireFormatError, naming the field and the property, where the bytes
 * break the wire format, a field comes with a wire type not its own, or a key
 * or string is not UTF-8. One step per field, whatever the depth, without
 * recursing: about 40 ns per value, and some 10 more per string for its UTF-8
 * check (a bag of 100 000 values in 4 ms; protobufjs decodes it in 12). Tags
 * of one byte, nearly all of them, are read inline.
 */
export function checkBag(bytes: Buffer, maxDepth: number, listCost = 1): TooDeep | undefined {
  const cursor = new WireCursor(bytes, 0, bytes.length);
  // The stack of frames, as parallel arrays (no object per nested message).
  const kinds: Kind[] = [Kind.Struct];
  const ends: number[] = [bytes.length];
  const levels: number[] = [0];
  /** Of those levels, lists; and the levels with a list counting listCost. */
  const lists: number[] = [0];
  const costs: number[] = [0];
  const fields: number[] = [0];
  let top = 0;
  /** The top-level entry (or unknown group) being read, and the costliest level reached in it. */
  let propertyStart = -1;
  let propertyEnd = -1;
  let deepest = 0;
  let deepestLevels = 0;
  let deepestLists = 0;
  const found = (): TooDeep => ({ key: propertyStart < 0 ? undefined : keyOf(bytes, propertyStart, propertyEnd), depth: deepestLevels, lists: deepestLists });
  try {
    for (;;) {
      const kind = kinds[top];
      if (cursor.pos >= cursor.end) {
        if (kind === Kind.Group) throw new WireFormatError(`a group (field ${fields[top]}) runs past the end of the field holding it`, cursor.pos);
        if (top === 0) return undefined;
        cursor.end = ends[--top];
        if (top === 0 && deepest > maxDepth) return found();
        continue;
      }
      if (top === 0) {
        propertyStart = -1;
        deepest = 0;
        deepestLevels = 0;
        deepestLists = 0;
      }
      const at = cursor.pos;
      const first = bytes[at];
      let tag: number;
      if (first < 0x80 && first >= 8 && (first & 7) <= WIRE_FIXED32) {
        tag = first;
        cursor.pos = at + 1;
      } else {
        tag = cursor.tag();
      }
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (wireType === WIRE_END_GROUP) {
        if (kind !== Kind.Group || fields[top] !== field) throw new WireFormatError(`an end group of field ${field} with no such group open`, at);
        cursor.end = ends[--top];
        if (top === 0 && deepest > maxDepth) return found();
        continue;
      }
      const spec = FIELDS[kind][field];
      if (spec !== undefined && wireType !== spec[1]) {
        throw new WireFormatError(`${spec[0]} has ${describeWireType(wireType)} instead of ${describeWireType(spec[1])}`, at);
      }
      let holds: Kind | undefined;
      let end: number;
      if (wireType === WIRE_START_GROUP) {
        holds = Kind.Group;
        end = cursor.end;
      } else {
        holds = spec === undefined ? undefined : spec[2];
        if (holds === undefined) {
          cursor.skip(tag);
          continue;
        }
        end = cursor.lengthEnd();
        if (holds === Kind.Text) {
          if (!isUtf8Text(bytes, cursor.pos, end)) throw new WireFormatError(`${spec![0]} is not valid UTF-8, as every protobuf string must be`, at);
          cursor.pos = end;
          continue;
        }
        if (top === 0) {
          propertyStart = cursor.pos;
          propertyEnd = end;
        }
      }
      const isList = holds === Kind.List;
      const nests = isList || holds === Kind.Struct || holds === Kind.Group;
      const level = nests ? levels[top] + 1 : levels[top];
      const listLevels = isList ? lists[top] + 1 : lists[top];
      const cost = nests ? costs[top] + (isList ? listCost : 1) : costs[top];
      if (cost > deepest) {
        deepest = cost;
        deepestLevels = level;
        deepestLists = listLevels;
      }
      top++;
      kinds[top] = holds;
      ends[top] = end;
      levels[top] = level;
      lists[top] = listLevels;
      costs[top] = cost;
      fields[top] = field;
      cursor.end = end;
    }
  } catch (e) {
    if (e instanceof WireFormatError && propertyStart >= 0) {
      throw new WireFormatError(`in property ${quoteKey(keyOf(bytes, propertyStart, propertyEnd))}: ${e.problem}`, e.offset);
    }
    throw e;
  }
}

/** A property's key for a message: quoted, and cut short when long (keys are the user's, of any size). */
export function quoteKey(key: string): string {
  return JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}…` : key);
}

/** The key of the entry in [start, end): its last well-formed field 1, read as far as the bytes allow; "" without one. */
function keyOf(bytes: Buffer, start: number, end: number): string {
  return lastStringField(bytes, start, end, 1);
}
