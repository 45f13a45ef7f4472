// Request messages of pulumirpc.ResourceProvider written as bytes, from a
// description that may hold anything: bags of any values, fields left out,
// fields with the wrong wire type, unknown fields, truncation, or a body of
// raw bytes. The field numbers are the engine's contract (provider.proto); a
// test in requests.test.ts checks them against @pulumi/pulumi's generated stubs.
import { bytesField, doubleField, stringField, varintField } from "./proto-bytes.js";
import { encodeStruct, type FStruct } from "./values.js";

export const RESOURCE_RPCS = ["Check", "Diff", "Create", "Read", "Update", "Delete"] as const;
export type ResourceRpc = (typeof RESOURCE_RPCS)[number];
/** The RPCs answered with an error whatever their body: refused, or (Parameterize) given no provider package. */
export const REFUSED_RPCS = [
  "Handshake", "Parameterize", "GetSchema", "CheckConfig", "DiffConfig", "Call", "Construct", "Attach", "GetMapping", "GetMappings", "List",
] as const;
export type Rpc = ResourceRpc | (typeof REFUSED_RPCS)[number] | "Configure" | "Invoke" | "GetPluginInfo" | "Cancel" | "Nope";

export type BagName = "olds" | "news" | "properties" | "inputs" | "oldInputs" | "args";
type Scalar = "urn" | "id" | "type" | "name" | "timeout" | "preview" | "tok";

/** Field numbers per request type. */
export const FIELDS: Partial<Record<Rpc, Partial<Record<BagName | Scalar, number>>>> = {
  Check: { urn: 1, olds: 2, news: 3, name: 6, type: 7 },
  Diff: { id: 1, urn: 2, olds: 3, news: 4, oldInputs: 6, name: 7, type: 8 },
  Create: { urn: 1, properties: 2, timeout: 3, preview: 4, name: 5, type: 6 },
  Read: { id: 1, urn: 2, properties: 3, inputs: 4, name: 5, type: 6 },
  Update: { id: 1, urn: 2, olds: 3, news: 4, timeout: 5, preview: 7, oldInputs: 8, name: 9, type: 10 },
  Delete: { id: 1, urn: 2, properties: 3, timeout: 4, oldInputs: 5, name: 6, type: 7 },
  Configure: { args: 2 },
  Invoke: { tok: 1, args: 2 },
};

/** Which bag holds the provider (and the inputs the provider sees) for each resource RPC. */
export const PROVIDER_BAG: Record<ResourceRpc, BagName> = {
  Check: "news", Diff: "news", Create: "properties", Read: "properties", Update: "news", Delete: "properties",
};

/** The field of each response that carries the provider's values back, for round-trip checks. */
export const ECHO_FIELD: Partial<Record<ResourceRpc, number>> = { Check: 1, Create: 2, Read: 2, Update: 1 };

export interface RequestSpec {
  method: Rpc;
  urn?: string;
  type?: string;
  id?: string;
  name?: string;
  tok?: string;
  timeout?: number;
  preview?: boolean;
  /** Bags as Struct members, or as the exact bytes to send in the bag's place. */
  bags?: Partial<Record<BagName, FStruct | Buffer>>;
  /** Bytes sent before the fields (a field with the wrong wire type that a later good one must override). */
  prefix?: Buffer;
  /** Bytes appended after the fields (unknown fields). */
  extra?: Buffer;
  /** Send only this many bytes of the message. */
  truncateTo?: number;
  /** Send these bytes instead of anything above. */
  raw?: Buffer;
}

export function encodeRequest(spec: RequestSpec): Buffer {
  if (spec.raw) return spec.raw;
  const numbers = FIELDS[spec.method] ?? {};
  const parts: Buffer[] = spec.prefix ? [spec.prefix] : [];
  const put = (name: BagName | Scalar, make: (no: number) => Buffer) => {
    const no = numbers[name];
    if (no === undefined) throw new Error(`${spec.method} has no field ${name}`);
    parts.push(make(no));
  };
  for (const name of ["urn", "id", "type", "name", "tok"] as const) {
    const v = spec[name];
    if (v !== undefined) put(name, (no) => stringField(no, v));
  }
  if (spec.timeout !== undefined) put("timeout", (no) => doubleField(no, spec.timeout!));
  if (spec.preview !== undefined) put("preview", (no) => varintField(no, spec.preview ? 1 : 0));
  for (const [name, bag] of Object.entries(spec.bags ?? {}) as [BagName, FStruct | Buffer][]) {
    put(name, (no) => bytesField(no, Buffer.isBuffer(bag) ? bag : encodeStruct(bag)));
  }
  if (spec.extra) parts.push(spec.extra);
  const body = Buffer.concat(parts);
  return spec.truncateTo === undefined ? body : body.subarray(0, Math.min(spec.truncateTo, body.length));
}

/** A URN of this suite's stack and project for a resource of `type`. */
export const fuzzUrn = (type: string, name: string): string => `urn:pulumi:fuzz::proj::${type}::${name}`;
