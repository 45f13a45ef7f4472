// src/host/wire: the wire codec: Struct ⇄ values (wire.ts), Structs kept as
// their encoded bytes and read at the wire level (struct-bytes.ts, wire-cursor.ts),
// the one-pass check of a bag's bytes (bag-check.ts) and the .proto messages
// (proto.ts). It may import src/host/files (the .proto files are assets) and
// src/host/diagnostics; what knows about requests, secrets or providers is above it.
//
// google.protobuf.Struct in its wire shape (as protobufjs decodes and encodes it)
// and the one faithful projection to plain JavaScript values that the Node
// reference plugin shows its users (google-protobuf's Struct.toJavaScript and
// Struct.fromJavaScript). This is the only module that knows how Struct values
// are laid out; everything else handles a bag as opaque. A bag is either decoded
// (WireStruct) or still encoded (EncodedStruct, ./struct-bytes.ts: what Python
// mode passes through); the functions here take either.
import { MAX_VALUE_DEPTH } from "./bag-check.js";
import { finish, messageType } from "./proto.js";
import { EncodedStruct, StructBytesError } from "./struct-bytes.js";

/** A google.protobuf.Value: exactly one member is set. */
export interface WireValue {
  nullValue?: number;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: WireStruct;
  listValue?: WireList;
}

export interface WireStruct {
  fields: Record<string, WireValue>;
}

export interface WireList {
  values: WireValue[];
}

/** A Struct decoded, or as the bytes it came in. */
export type AnyStruct = WireStruct | EncodedStruct;

const StructType = messageType("google.protobuf.Struct");

/** The key under which the SDKs store the serialized provider. */
export const PROVIDER_KEY = "__provider";

/** What the engine sends for a string whose value is not known yet (preview). */
export const UNKNOWN_STRING_SENTINEL = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The signature key and the secret signature of a wrapped secret value. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/** The signatures of an asset and an archive value. */
export const ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17";
export const ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7";

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

type Kind = "null" | "number" | "string" | "bool" | "struct" | "list" | "unset";

/**
 * Which member of a Value is set. Decoded messages keep proto3 defaults on their
 * prototype, so presence is an own property, never a truthy read.
 */
export function valueKind(v: WireValue | null | undefined): Kind {
  // A map entry without its value decodes to null: a Value with nothing set.
  if (v === null || v === undefined) return "unset";
  if (hasOwn(v, "stringValue") && v.stringValue !== undefined && v.stringValue !== null) return "string";
  if (hasOwn(v, "structValue") && v.structValue) return "struct";
  if (hasOwn(v, "numberValue") && v.numberValue !== undefined && v.numberValue !== null) return "number";
  if (hasOwn(v, "boolValue") && v.boolValue !== undefined && v.boolValue !== null) return "bool";
  if (hasOwn(v, "listValue") && v.listValue) return "list";
  if (hasOwn(v, "nullValue") && v.nullValue !== undefined && v.nullValue !== null) return "null";
  return "unset";
}

/** The fields of a Struct (decoding an encoded one), or an empty record for an unset Struct. */
export function structFields(s: AnyStruct | null | undefined): Record<string, WireValue> {
  const decoded = s instanceof EncodedStruct ? decodeStruct(s) : s;
  return decoded && decoded.fields ? decoded.fields : {};
}

/** `s` decoded: an encoded Struct is decoded in full (StructBytesError when it is malformed). */
export function decodeStruct(s: AnyStruct): WireStruct {
  if (!(s instanceof EncodedStruct)) return s;
  try {
    return StructType.decode(s.bytes) as unknown as WireStruct;
  } catch (e) {
    throw new StructBytesError((e as Error).message);
  }
}

/** `s` encoded: the bytes an encoded Struct came in, as they are; undefined for an unset one. */
export function encodeStruct(s: AnyStruct | null | undefined): Buffer | undefined {
  if (!s) return undefined;
  if (s instanceof EncodedStruct) return s.bytes;
  return finish(StructType.encode(s));
}

/** True for an unset Struct or one without fields. */
export function isEmptyStruct(s: AnyStruct | null | undefined): boolean {
  if (!s) return true;
  if (s instanceof EncodedStruct) return s.isEmpty;
  return !s.fields || Object.keys(s.fields).length === 0;
}

/** A top-level string field of a bag, or undefined when absent or not a string. */
export function stringField(s: AnyStruct | null | undefined, key: string): string | undefined {
  if (s instanceof EncodedStruct) return s.stringValue(key);
  const v = rawField(s, key);
  return v !== undefined && valueKind(v) === "string" ? v.stringValue : undefined;
}

/**
 * A top-level field of a bag as it is on the wire, or undefined when absent.
 * Of an encoded bag only that field's entry is decoded.
 */
export function rawField(s: AnyStruct | null | undefined, key: string): WireValue | undefined {
  if (s instanceof EncodedStruct) {
    const entry = s.entry(key);
    return entry && structFields(new EncodedStruct(entry))[key];
  }
  const fields = structFields(s);
  return hasOwn(fields, key) ? fields[key] : undefined;
}

/** A copy of `s` (or an empty Struct) whose `key` field is `value`; `s` is left alone. */
export function withField(s: WireStruct | null | undefined, key: string, value: WireValue | undefined): WireStruct {
  const fields: Record<string, WireValue> = Object.create(null);
  const src = structFields(s);
  for (const k of Object.keys(src)) fields[k] = src[k];
  if (value !== undefined) fields[key] = value;
  return { fields };
}

/** `s` without its `key` field (decoded when it had one), or `s` itself when it has none. */
export function withoutField(s: AnyStruct, key: string): AnyStruct {
  if (rawField(s, key) === undefined) return s;
  const fields: Record<string, WireValue> = Object.create(null);
  const src = structFields(s);
  for (const k of Object.keys(src)) if (k !== key) fields[k] = src[k];
  return { fields };
}

/**
 * `to` with `from`'s `key` field exactly as `from` has it (left as it is when
 * `from` has none). Between encoded bags the entry's bytes are copied over, and
 * `to` itself is returned when it already holds the same entry.
 */
export function carryField(to: AnyStruct, from: AnyStruct | null | undefined, key: string): AnyStruct {
  if (to instanceof EncodedStruct) {
    let entry: Buffer | undefined;
    if (from instanceof EncodedStruct) entry = from.entry(key);
    else {
      const value = rawField(from, key);
      if (value !== undefined) entry = finish(StructType.encode({ fields: { [key]: value } }));
    }
    return entry ? to.withEntry(key, entry) : to;
  }
  return withField(to, key, rawField(from, key));
}

/** A stable description of a Value's kind for error messages: "a string", "a number"… */
export function describeValue(v: WireValue | undefined): string {
  if (v === undefined) return "missing";
  switch (valueKind(v)) {
    case "null": return "null";
    case "number": return "a number";
    case "string": return "a string";
    case "bool": return "a boolean";
    case "struct": return "an object";
    case "list": return "a list";
    default: return "an empty protobuf Value";
  }
}

/**
 * Whether two Values are equal as the engine compares property values: the
 * same kind and contents, an object's keys in any order, numbers by `===`.
 * A Value with no kind set equals nothing.
 */
export function sameValue(a: WireValue, b: WireValue): boolean {
  const kind = valueKind(a);
  if (kind !== valueKind(b)) return false;
  switch (kind) {
    case "null": return true;
    case "number": return a.numberValue === b.numberValue;
    case "string": return a.stringValue === b.stringValue;
    case "bool": return a.boolValue === b.boolValue;
    case "struct": return sameFields(structFields(a.structValue), structFields(b.structValue));
    case "list": {
      const x = a.listValue!.values ?? [];
      const y = b.listValue!.values ?? [];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!sameValue(x[i], y[i])) return false;
      return true;
    }
    default: return false;
  }
}

/** Whether two bags hold the same keys with equal values, leaving out `except` (decodes encoded bags). */
export function sameBagsExcept(a: AnyStruct | null | undefined, b: AnyStruct | null | undefined, except: string): boolean {
  return sameFields(structFields(a), structFields(b), except);
}

function sameFields(a: Record<string, WireValue>, b: Record<string, WireValue>, except?: string): boolean {
  const keys = Object.keys(a).filter((k) => k !== except);
  if (keys.length !== Object.keys(b).filter((k) => k !== except).length) return false;
  for (const k of keys) if (!hasOwn(b, k) || !sameValue(a[k], b[k])) return false;
  return true;
}

// ---------------------------------------------------------------------------
// Wire -> JavaScript, as google-protobuf's toJavaScript: object keys sorted
// (its map iterates in sorted key order), nulls kept, numbers as doubles, every
// sentinel left as the string or object it is on the wire. One deliberate
// difference: a key named `__proto__` becomes an own property of its object,
// where google-protobuf's assignment sets the object's prototype instead (or
// does nothing), losing the key and its value (docs/parity.md).

export function structToJs(s: AnyStruct | null | undefined): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const fields = structFields(s);
  const keys = Object.keys(fields).sort();
  for (const k of keys) setOwn(result, k, valueToJs(fields[k]));
  return result;
}

/**
 * `o[k] = v` as an own, enumerable, writable property, whatever `k` is: for
 * `__proto__`, assignment would call Object.prototype's setter instead.
 */
export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

export function valueToJs(v: WireValue): unknown {
  switch (valueKind(v)) {
    case "null": return null;
    case "number": return v.numberValue;
    case "string": return v.stringValue;
    case "bool": return v.boolValue;
    case "struct": return structToJs(v.structValue);
    case "list": {
      const values = v.listValue!.values ?? [];
      const out: unknown[] = [];
      for (let i = 0; i < values.length; i++) out.push(valueToJs(values[i]));
      return out;
    }
    default: throw new UnsetValueError();
  }
}

/**
 * A Value of a request bag has none of its kinds set (or a map entry has no
 * value at all). The engine never sends one; no SDK can show it to a user.
 * Thrown without the place, which unsetValuePath finds when it is reported.
 */
export class UnsetValueError extends Error {
  override name = "UnsetValueError";
  constructor() {
    super("a google.protobuf.Value with no kind set");
  }
}

/**
 * Where the first Value with no kind set is in `s`, as a path below it
 * (`.a[2]["b c"]`, "" for none found): walked without recursion, so any depth
 * is fine. For error messages only: it decodes an encoded Struct.
 */
export function unsetValuePath(s: AnyStruct | null | undefined): string | undefined {
  const pending: [WireValue | null | undefined, string][] = [];
  const pushFields = (fields: Record<string, WireValue>, at: string) => {
    const keys = Object.keys(fields).sort().reverse();
    for (const k of keys) pending.push([fields[k], at + pathSegment(k)]);
  };
  pushFields(structFields(s), "");
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, at] = next;
    switch (valueKind(v)) {
      case "unset":
        return at;
      case "struct":
        pushFields(v!.structValue!.fields ?? {}, at);
        break;
      case "list": {
        const values = v!.listValue!.values ?? [];
        for (let i = values.length - 1; i >= 0; i--) pending.push([values[i], at + pathSegment(i)]);
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

/** A path below a bag, from its keys and list indexes: `.a[2]["b c"]`. */
export function propertyPath(segments: readonly (string | number)[]): string {
  let out = "";
  for (const s of segments) out += pathSegment(s);
  return out;
}

function pathSegment(s: string | number): string {
  if (typeof s === "number") return `[${s}]`;
  return isIdentifier(s) ? `.${s}` : `[${JSON.stringify(s)}]`;
}

/**
 * What is wrong with a request whose bag `bagName` holds a Value with no kind
 * at `path` (from unsetValuePath), in the words both adapters use.
 */
export function unsetValueProblem(bagName: string, path: string | undefined): string {
  const where = path === undefined ? "" : ` at ${bagName}${path}`;
  return (
    `the request's ${bagName} holds a google.protobuf.Value with no kind set${where}; ` +
    `every Value must be one of null, number, string, bool, struct or list`
  );
}

// ---------------------------------------------------------------------------
// JavaScript -> wire, as google-protobuf's fromJavaScript: objects contribute
// their own and inherited enumerable keys (for…in), anything that is not a
// string, number, boolean, null, array or object throws the same error text.

export class UnexpectedStructTypeError extends Error {
  /** Where the value sits below the converted object, e.g. `.a[2].b`; filled in while unwinding. */
  path = "";
  constructor(readonly got: string) {
    super("Unexpected struct type.");
  }
}

/**
 * A value nested more than `limit` objects and lists deep (a circular one
 * never ends): converting it would recurse past what the host carries.
 * `path` as for UnexpectedStructTypeError.
 */
export class ValueTooDeepError extends Error {
  path = "";
  constructor(readonly limit: number) {
    super(`nested more than ${limit} levels deep`);
  }
}

/**
 * Whether `k` reads as a JavaScript identifier (`.k` in a path, else `["k"]`).
 * Not a regular expression: this runs while unwinding a deep conversion, and
 * V8 compiling a regular expression with little stack left aborts the process.
 */
function isIdentifier(k: string): boolean {
  if (k.length === 0) return false;
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
    if (!letter && !(i > 0 && c >= 48 && c <= 57)) return false;
  }
  return true;
}

function within(e: unknown, segment: string): unknown {
  if (e instanceof UnexpectedStructTypeError || e instanceof ValueTooDeepError) e.path = segment + e.path;
  return e;
}

/**
 * `obj`'s keys as a Struct. Its values may nest `maxDepth` objects and lists
 * deep (bag-check.ts counts them the same way); deeper ones throw ValueTooDeepError.
 */
export function jsToStruct(obj: unknown, maxDepth: number = MAX_VALUE_DEPTH.nodejs): WireStruct {
  return structOf(obj, 0, maxDepth);
}

export function jsToValue(v: unknown, maxDepth: number = MAX_VALUE_DEPTH.nodejs): WireValue {
  return valueOf(v, 0, maxDepth);
}

/** A Struct whose own values sit at `level` (the objects and lists around them). */
function structOf(obj: unknown, level: number, maxDepth: number): WireStruct {
  const fields: Record<string, WireValue> = Object.create(null);
  // for…in over a primitive walks its wrapper (a string yields its indices), as upstream does.
  const target = obj as Record<string, unknown>;
  for (const k in target) {
    try {
      fields[k] = valueOf(target[k], level, maxDepth);
    } catch (e) {
      throw within(e, isIdentifier(k) ? `.${k}` : `[${JSON.stringify(k)}]`);
    }
  }
  return { fields };
}

function valueOf(v: unknown, level: number, maxDepth: number): WireValue {
  switch (typeof v) {
    case "string": return { stringValue: v };
    case "number": return { numberValue: v };
    case "boolean": return { boolValue: v };
    case "object":
      if (v === null) return { nullValue: 0 };
      if (level >= maxDepth) throw new ValueTooDeepError(maxDepth);
      if (Array.isArray(v)) {
        // Indexed, not mapped: a hole is undefined and must fail as upstream does.
        const values: WireValue[] = [];
        for (let i = 0; i < v.length; i++) {
          try {
            values.push(valueOf(v[i], level + 1, maxDepth));
          } catch (e) {
            throw within(e, `[${i}]`);
          }
        }
        return { listValue: { values } };
      }
      // A Promise has no own properties: it would become {} and its value be lost (an unawaited call).
      if (typeof (v as { then?: unknown }).then === "function") throw new UnexpectedStructTypeError("a Promise");
      return { structValue: structOf(v, level + 1, maxDepth) };
    default:
      throw new UnexpectedStructTypeError(typeof v === "function" ? "a function" : typeof v === "undefined" ? "undefined" : `a ${typeof v}`);
  }
}

/** Top-level-only unwrapping of a secret signature object, as the SDKs' unwrapRpcSecret. */
export function unwrapSecret(v: unknown): unknown {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (o[SIG_KEY] === SECRET_SIG) return o.value;
  }
  return v;
}
