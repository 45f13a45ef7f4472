// Protocol-buffer bytes written and read by hand, so the suite can send what no
// generated stub would (a Value with no kind, a field with the wrong wire type,
// a truncated message) and read answers nested deeper than a stub's decoder
// allows. Only the wire format is known here; field numbers live in requests.ts.

export const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

export function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return Buffer.from(out);
}

/** Protobuf's largest field number. */
export const MAX_FIELD_NUMBER = 2 ** 29 - 1;

/** A field's tag; any field number, even one past MAX_FIELD_NUMBER (in BigInt arithmetic: `<< 3` would wrap at 32 bits). */
export const tag = (field: number | bigint, wireType: number): Buffer => varint((BigInt(field) << 3n) | BigInt(wireType));

export const bytesField = (field: number, body: Buffer): Buffer => Buffer.concat([tag(field, WIRE.bytes), varint(body.length), body]);
export const stringField = (field: number, s: string): Buffer => bytesField(field, Buffer.from(s, "utf8"));
export const varintField = (field: number | bigint, n: number | bigint): Buffer => Buffer.concat([tag(field, WIRE.varint), varint(n)]);

export function doubleField(field: number, x: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return Buffer.concat([tag(field, WIRE.fixed64), b]);
}

/** One field as read: varints as bigint, fixed64 as its 8 bytes, length-delimited as its body. */
export interface ReadField {
  field: number;
  wireType: number;
  int?: bigint;
  body?: Buffer;
}

export class ProtoReadError extends Error {}

/** The fields of one message, in wire order; throws ProtoReadError on malformed bytes. */
export function readFields(buf: Buffer): ReadField[] {
  const out: ReadField[] = [];
  let pos = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (pos >= buf.length) throw new ProtoReadError("truncated varint");
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new ProtoReadError("varint longer than 10 bytes");
  };
  const take = (n: number): Buffer => {
    if (n < 0 || pos + n > buf.length) throw new ProtoReadError(`field body of ${n} bytes runs past the end`);
    const b = buf.subarray(pos, pos + n);
    pos += n;
    return b;
  };
  while (pos < buf.length) {
    const key = readVarint();
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (field === 0) throw new ProtoReadError("field number 0");
    switch (wireType) {
      case WIRE.varint: out.push({ field, wireType, int: readVarint() }); break;
      case WIRE.fixed64: out.push({ field, wireType, body: take(8) }); break;
      case WIRE.bytes: out.push({ field, wireType, body: take(Number(readVarint())) }); break;
      case WIRE.fixed32: out.push({ field, wireType, body: take(4) }); break;
      default: throw new ProtoReadError(`wire type ${wireType}`);
    }
  }
  return out;
}

/** The last occurrence of a length-delimited field (proto3: last one wins for scalars). */
export function lastBody(fields: ReadField[], field: number): Buffer | undefined {
  let found: Buffer | undefined;
  for (const f of fields) if (f.field === field && f.wireType === WIRE.bytes) found = f.body;
  return found;
}

// google.protobuf.Struct / Value / ListValue field numbers (struct.proto).
const STRUCT_FIELDS = 1, ENTRY_KEY = 1, ENTRY_VALUE = 2, LIST_VALUES = 1;
const V_NULL = 1, V_NUMBER = 2, V_STRING = 3, V_BOOL = 4, V_STRUCT = 5, V_LIST = 6;

/**
 * A Struct's canonical text: keys sorted, the last of duplicate keys kept (map
 * semantics), -0 and NaN told apart, a Value with no kind shown as `unset`.
 * `dropNulls` drops null members of Structs at every level (what the Python
 * SDK's deserialize_properties does), keeping nulls in lists. Written with a
 * work list instead of recursion, so answers thousands of levels deep can be read.
 */
export function canonStruct(buf: Buffer, dropNulls = false): string {
  return canon({ struct: buf }, dropNulls);
}

export function canonValue(buf: Buffer, dropNulls = false): string {
  return canon({ value: buf }, dropNulls);
}

type Task = { struct: Buffer } | { value: Buffer } | { text: string };

/** The member of a Value that is set (the last one on the wire, as for any oneof), or undefined. */
function kindOf(value: Buffer): ReadField | undefined {
  let kind: ReadField | undefined;
  for (const f of readFields(value)) if (f.field >= V_NULL && f.field <= V_LIST) kind = f;
  return kind;
}

function canon(first: Task, dropNulls: boolean): string {
  const out: string[] = [];
  const todo: Task[] = [first];
  // Tasks are pushed in reverse, so they come off the list in reading order.
  const pushAll = (tasks: Task[]) => {
    for (let i = tasks.length - 1; i >= 0; i--) todo.push(tasks[i]);
  };
  while (todo.length > 0) {
    const t = todo.pop()!;
    if ("text" in t) {
      out.push(t.text);
    } else if ("struct" in t) {
      const entries = new Map<string, Buffer>();
      for (const f of readFields(t.struct)) {
        if (f.field !== STRUCT_FIELDS || !f.body) continue;
        let key = "";
        let value: Buffer = Buffer.alloc(0);
        for (const g of readFields(f.body)) {
          if (g.field === ENTRY_KEY && g.body) key = g.body.toString("utf8");
          if (g.field === ENTRY_VALUE && g.body) value = g.body;
        }
        entries.delete(key);
        if (!(dropNulls && kindOf(value)?.field === V_NULL)) entries.set(key, value);
      }
      const tasks: Task[] = [{ text: "{" }];
      [...entries.keys()].sort().forEach((k, i) => tasks.push({ text: `${i > 0 ? "," : ""}${JSON.stringify(k)}:` }, { value: entries.get(k)! }));
      tasks.push({ text: "}" });
      pushAll(tasks);
    } else {
      const f = kindOf(t.value);
      switch (f?.field) {
        case undefined: out.push("unset"); break;
        case V_NULL: out.push("null"); break;
        case V_NUMBER: {
          const x = f.body!.readDoubleLE(0);
          out.push(Object.is(x, -0) ? "-0" : String(x));
          break;
        }
        case V_STRING: out.push(JSON.stringify(f.body!.toString("utf8"))); break;
        case V_BOOL: out.push(f.int ? "true" : "false"); break;
        case V_STRUCT: todo.push({ struct: f.body! }); break;
        case V_LIST: {
          const items = readFields(f.body!).filter((g) => g.field === LIST_VALUES);
          const tasks: Task[] = [{ text: "[" }];
          items.forEach((g, i) => tasks.push(...(i > 0 ? [{ text: "," }] : []), { value: g.body! }));
          tasks.push({ text: "]" });
          pushAll(tasks);
          break;
        }
      }
    }
  }
  return out.join("");
}

export const STRUCT = { fields: STRUCT_FIELDS, key: ENTRY_KEY, value: ENTRY_VALUE, list: LIST_VALUES };
export const VALUE = { null: V_NULL, number: V_NUMBER, string: V_STRING, bool: V_BOOL, struct: V_STRUCT, list: V_LIST };
