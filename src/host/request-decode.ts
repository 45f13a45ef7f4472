// Decoding the requests the engine sends, as grpc-js's request deserializer.
//
// protobufjs decodes a known field by its declared type whatever wire type the
// tag says: a `urn` sent as a varint or a fixed32 is read as a string from the
// bytes that follow, and a request can decode to a garbage URN. So the fields
// of a request (and of the messages inside it, bags aside) are checked against
// the schema first, at the wire level: a known field with another wire type
// than its own is a bad request that names the field, as google-protobuf
// refuses it (the Python reference's upb drops it silently); so is a string
// field that is not valid UTF-8, as Go's protobuf and upb refuse it (protobufjs
// would replace its bad bytes silently); unknown fields of any wire type are
// skipped, as every decoder does. Bags stay encoded (the
// type's encoded twin, wire/struct-bytes.ts): their depth and contents are judged
// where the request is handled (server.ts), which can name the method.
//
// A request that cannot be decoded is not thrown as grpc-js would answer it
// (INTERNAL, "Error deserializing request", naming nothing): the decoder
// returns an UndecodableRequest, which the RPC's handler turns into a
// BadRequestError naming the method and, when it can be read, the resource.
import protobuf from "protobufjs";
import { BadRequestError } from "./errors.js";
import { describeWireType, isUtf8Text, lastStringField, WIRE_LEN, WireCursor, WireFormatError } from "./wire/wire-cursor.js";

/** What grpc-js hands the RPC's handler when the request's bytes could not be decoded. */
export class UndecodableRequest {
  constructor(
    /** The request's message type, e.g. "CreateRequest". */
    readonly typeName: string,
    readonly problem: string,
    /** The request's URN when it could be read, else "". */
    readonly urn: string,
  ) {}

  error(rpc: string): BadRequestError {
    return new BadRequestError(`${rpc} ${this.urn || "(no urn)"}: the request is not a valid ${this.typeName}: ${this.problem}`);
  }
}

/** Messages that carry property values: checked as bags (wire/bag-check.ts, wire/struct-bytes.ts), not here. */
const VALUE_TYPES = new Set([".google.protobuf.Struct", ".google.protobuf.Value", ".google.protobuf.ListValue"]);

/**
 * Requests in our schema hold messages at most a map's entry deep; the bound
 * only keeps a schema that grew a recursive message from recursing unbounded.
 */
const MAX_MESSAGE_NESTING = 16;

/**
 * A decoder of `type`'s messages: the wire format checked against `type`,
 * then decoded as `decodeAs` (its encoded twin, or itself). It never throws.
 */
export function requestDecoder(type: protobuf.Type, decodeAs: protobuf.Type = type): (bytes: Buffer) => object {
  return (bytes: Buffer) => {
    try {
      checkFields(type, bytes, new WireCursor(bytes, 0, bytes.length), 0);
      return decodeAs.decode(bytes);
    } catch (e) {
      const problem = e instanceof WireFormatError ? e.message : `${(e as Error)?.message ?? String(e)}`;
      return new UndecodableRequest(type.name, problem, urnOf(type, bytes));
    }
  };
}

const wireTypes = new Map<protobuf.FieldBase, number[]>();

/** The wire types a field may arrive with: its own, and length-delimited for a packable repeated field. */
function wireTypesOf(field: protobuf.FieldBase): number[] {
  let known = wireTypes.get(field);
  if (!known) wireTypes.set(field, (known = ownWireTypes(field)));
  return known;
}

function ownWireTypes(field: protobuf.FieldBase): number[] {
  field.resolve();
  if (field.map || field.resolvedType instanceof protobuf.Type) return [WIRE_LEN];
  const scalar = field.resolvedType instanceof protobuf.Enum ? "int32" : field.type;
  const own = protobuf.types.basic[scalar as keyof typeof protobuf.types.basic];
  if (own === undefined) throw new Error(`no wire type known for ${field.fullName} (${field.type})`);
  return field.repeated && own !== WIRE_LEN ? [own, WIRE_LEN] : [own];
}

/** Checks every field of a message of `type` within the cursor's range, and those of the messages inside it. */
function checkFields(type: protobuf.Type, bytes: Buffer, cursor: WireCursor, nesting: number): void {
  if (nesting > MAX_MESSAGE_NESTING) throw new WireFormatError(`messages nested more than ${MAX_MESSAGE_NESTING} deep in ${type.name}`, cursor.pos);
  while (!cursor.done) {
    const at = cursor.pos;
    const tag = cursor.tag();
    const field = type.fieldsById[tag >>> 3];
    if (!field) {
      cursor.skip(tag);
      continue;
    }
    const allowed = wireTypesOf(field);
    const wireType = tag & 7;
    if (!allowed.includes(wireType)) {
      throw new WireFormatError(
        `${type.name}.${field.name} (field ${field.id}) has ${describeWireType(wireType)} instead of ${describeWireType(allowed[0])}`,
        at,
      );
    }
    if (wireType === WIRE_LEN && field.type === "string" && !field.map) {
      const [start, end] = cursor.delimited();
      if (!isUtf8Text(bytes, start, end)) throw notUtf8(`${type.name}.${field.name} (field ${field.id})`, at);
      continue;
    }
    try {
      if (wireType !== WIRE_LEN) {
        cursor.skip(tag);
        continue;
      }
      const [start, end] = cursor.delimited();
      const inner = new WireCursor(bytes, start, end);
      if (field.map) checkMapEntry(type, field as unknown as protobuf.MapField, bytes, inner, nesting);
      else if (field.resolvedType instanceof protobuf.Type && !VALUE_TYPES.has(field.resolvedType.fullName)) {
        checkFields(field.resolvedType, bytes, inner, nesting + 1);
      }
    } catch (e) {
      // Name the request's field the problem is in (the fields of inner messages name themselves).
      if (e instanceof WireFormatError && nesting === 0) {
        throw new WireFormatError(`in ${type.name}.${field.name} (field ${field.id}): ${e.problem}`, e.offset);
      }
      throw e;
    }
  }
}

/** A map entry: key = 1 and value = 2, each with its own wire type. */
function checkMapEntry(owner: protobuf.Type, field: protobuf.MapField, bytes: Buffer, cursor: WireCursor, nesting: number): void {
  const valueType = field.resolvedType;
  const keyWire = protobuf.types.basic[field.keyType as keyof typeof protobuf.types.basic];
  const valueWire = valueType instanceof protobuf.Type ? WIRE_LEN : wireTypesOf(field)[0];
  while (!cursor.done) {
    const at = cursor.pos;
    const tag = cursor.tag();
    const n = tag >>> 3;
    const wanted = n === 1 ? keyWire : n === 2 ? valueWire : undefined;
    if (wanted === undefined) {
      cursor.skip(tag);
      continue;
    }
    if ((tag & 7) !== wanted) {
      throw new WireFormatError(
        `the ${n === 1 ? "key" : "value"} of an entry of ${owner.name}.${field.name} (field ${field.id}) has ` +
          `${describeWireType(tag & 7)} instead of ${describeWireType(wanted)}`,
        at,
      );
    }
    if (n === 2 && valueType instanceof protobuf.Type && !VALUE_TYPES.has(valueType.fullName)) {
      const [start, end] = cursor.delimited();
      checkFields(valueType, bytes, new WireCursor(bytes, start, end), nesting + 1);
    } else if ((n === 1 ? field.keyType : field.type) === "string") {
      const [start, end] = cursor.delimited();
      if (!isUtf8Text(bytes, start, end)) throw notUtf8(`the ${n === 1 ? "key" : "value"} of an entry of ${owner.name}.${field.name} (field ${field.id})`, at);
    } else {
      cursor.skip(tag);
    }
  }
}

function notUtf8(what: string, at: number): WireFormatError {
  return new WireFormatError(`${what} is not valid UTF-8, as every protobuf string must be`, at);
}

/**
 * The last well-formed `urn` of a request whose decoding failed, read as far
 * as its bytes allow, to name the resource in the error; "" when there is none
 * (a URN that is not valid UTF-8 names nothing).
 */
function urnOf(type: protobuf.Type, bytes: Buffer): string {
  const field = type.fields.urn;
  return field ? lastStringField(bytes, 0, bytes.length, field.id, true) : "";
}
