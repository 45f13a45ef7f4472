// Property values as the suite builds them: a small tree that can say what a
// google.protobuf.Value cannot (a Value with no kind, raw bytes in a Value's
// place, nesting thousands deep without thousands of stack frames), and its
// encoding to Struct bytes.
import { bytesField, doubleField, stringField, varintField, STRUCT, VALUE } from "./proto-bytes.js";

export type FValue =
  | { k: "null" }
  | { k: "num"; v: number }
  | { k: "str"; v: string }
  | { k: "bool"; v: boolean }
  | { k: "struct"; f: [string, FValue][] }
  | { k: "list"; v: FValue[] }
  /** A Value message with no member set: not valid input. */
  | { k: "unset" }
  /** These bytes as the Value's body, whatever they hold. */
  | { k: "raw"; b: Buffer }
  /** `leaf` wrapped `depth` times in one-key Structs, one-element lists, or alternately. */
  | { k: "deep"; depth: number; via: "struct" | "list" | "mixed"; leaf: FValue };

export const nul: FValue = { k: "null" };
export const num = (v: number): FValue => ({ k: "num", v });
export const str = (v: string): FValue => ({ k: "str", v });
export const bool = (v: boolean): FValue => ({ k: "bool", v });
export const list = (...v: FValue[]): FValue => ({ k: "list", v });
export const obj = (f: Record<string, FValue> | [string, FValue][]): FValue => ({ k: "struct", f: Array.isArray(f) ? f : Object.entries(f) });

/** A Struct's members: an FValue of kind struct, or the entries alone. */
export type FStruct = [string, FValue][];

export function encodeStruct(fields: FStruct): Buffer {
  return Buffer.concat(fields.map(([key, v]) => bytesField(STRUCT.fields, Buffer.concat([stringField(STRUCT.key, key), bytesField(STRUCT.value, encodeValue(v))]))));
}

export function encodeValue(v: FValue): Buffer {
  switch (v.k) {
    case "null": return varintField(VALUE.null, 0);
    case "num": return doubleField(VALUE.number, v.v);
    case "str": return stringField(VALUE.string, v.v);
    case "bool": return varintField(VALUE.bool, v.v ? 1 : 0);
    case "struct": return bytesField(VALUE.struct, encodeStruct(v.f));
    case "list": return bytesField(VALUE.list, Buffer.concat(v.v.map((x) => bytesField(STRUCT.list, encodeValue(x)))));
    case "unset": return Buffer.alloc(0);
    case "raw": return v.b;
    case "deep": {
      // Innermost first: each level wraps the Value built so far.
      let inner = encodeValue(v.leaf);
      for (let i = 0; i < v.depth; i++) {
        const asList = v.via === "list" || (v.via === "mixed" && i % 2 === 1);
        inner = asList
          ? bytesField(VALUE.list, bytesField(STRUCT.list, inner))
          : bytesField(VALUE.struct, bytesField(STRUCT.fields, Buffer.concat([stringField(STRUCT.key, "d"), bytesField(STRUCT.value, inner)])));
      }
      return inner;
    }
  }
}

/** The deepest nesting of Structs and lists in a value (a scalar is 0). */
export function depthOf(v: FValue): number {
  switch (v.k) {
    case "struct": return 1 + Math.max(0, ...v.f.map(([, x]) => depthOf(x)));
    case "list": return 1 + Math.max(0, ...v.v.map(depthOf));
    case "deep": return v.depth + depthOf(v.leaf);
    default: return 0;
  }
}

/**
 * How deep a value nests when a level of lists counts as `listCost` levels of
 * objects (Python mode's rule): the costliest path's sum. depthOf is listCost 1.
 */
export function weightedDepth(v: FValue, listCost: number): number {
  switch (v.k) {
    case "struct": return 1 + Math.max(0, ...v.f.map(([, x]) => weightedDepth(x, listCost)));
    case "list": return listCost + Math.max(0, ...v.v.map((x) => weightedDepth(x, listCost)));
    case "deep": {
      // encodeValue's levels from the innermost out: with "mixed", every second one (i odd) is a list.
      const lists = v.via === "list" ? v.depth : v.via === "mixed" ? Math.floor(v.depth / 2) : 0;
      return v.depth - lists + lists * listCost + weightedDepth(v.leaf, listCost);
    }
    default: return 0;
  }
}

/** True when the value holds nothing but plain data (no kind-less Values, no raw bytes). */
export function wellFormed(v: FValue): boolean {
  switch (v.k) {
    case "unset":
    case "raw": return false;
    case "struct": return v.f.every(([, x]) => wellFormed(x));
    case "list": return v.v.every(wellFormed);
    case "deep": return wellFormed(v.leaf);
    default: return true;
  }
}

/** Every string anywhere in the value (keys included), for "is it echoed?" checks. */
export function stringsIn(v: FValue, out: string[] = []): string[] {
  switch (v.k) {
    case "str": out.push(v.v); break;
    case "struct": for (const [k, x] of v.f) { out.push(k); stringsIn(x, out); } break;
    case "list": for (const x of v.v) stringsIn(x, out); break;
    case "deep": stringsIn(v.leaf, out); break;
  }
  return out;
}
