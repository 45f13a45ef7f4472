// The host's side of the host <-> worker contract: the method table (the twin
// of python-stub/protocol.py's METHODS and NOTIFICATIONS, kept equal by
// test/unit/protocol-tables.test.ts) and zod schemas derived from it, which
// check every message the worker sends before anything else reads it. The
// schemas are zod's "mini" build (the same checks and English messages, in a
// tenth of the code the host loads right after its port line).
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

z.config(en());

export const PROTOCOL_VERSION = 7;

export type FieldKind = "str" | "bool" | "int" | "ids" | "bin" | "changes" | "replaces" | "failures" | "reference" | "context" | "any";
/** [name, kind, required] */
export type FieldSpec = readonly [string, FieldKind, boolean];

/**
 * [name, kind, required] of each method's params and result. A provider's text
 * crosses once per worker: the first request for it carries `provider` and the
 * `providerId` given to it, later ones only the id (see WorkerProcess.request).
 * The host keeps a bounded number of ids per worker and names those it let go
 * in $/forget (WorkerProcess.request); a text it needs again goes with a new id.
 * A provider the project declares is named by `reference` instead (no id).
 * `context` is what the provider's call context is made of (CallContextParams);
 * a Delete adds the resource's old inputs.
 * `logs: true` asks the worker to send what the provider prints during the
 * request as $/log notifications (src/host/engine/call-output.ts).
 */
export const METHODS = {
  configure: { params: [["args", "bin", false]], result: [] },
  check: {
    params: [["urn", "str", true], ["provider", "str", false], ["providerId", "int", false], ["reference", "reference", false], ["context", "context", false], ["logs", "bool", false], ["olds", "bin", false], ["news", "bin", false]],
    result: [["inputs", "bin", true], ["failures", "failures", true]],
  },
  diff: {
    params: [["urn", "str", true], ["provider", "str", false], ["providerId", "int", false], ["reference", "reference", false], ["context", "context", false], ["logs", "bool", false], ["id", "str", true], ["olds", "bin", false], ["news", "bin", false]],
    result: [["changes", "changes", true], ["replaces", "replaces", true], ["deleteBeforeReplace", "bool", true], ["byDefault", "bool", false]],
  },
  create: {
    params: [["urn", "str", true], ["provider", "str", false], ["providerId", "int", false], ["reference", "reference", false], ["context", "context", false], ["logs", "bool", false], ["props", "bin", false]],
    result: [["id", "str", true], ["outs", "bin", true]],
  },
  read: {
    params: [["urn", "str", true], ["provider", "str", false], ["providerId", "int", false], ["reference", "reference", false], ["context", "context", false], ["logs", "bool", false], ["id", "str", true], ["props", "bin", false]],
    result: [["id", "str", true], ["outs", "bin", true], ["inputs", "bin", false]],
  },
  update: {
    params: [["urn", "str", true], ["provider", "str", false], ["providerId", "int", false], ["reference", "reference", false], ["context", "context", false], ["logs", "bool", false], ["id", "str", true], ["olds", "bin", false], ["news", "bin", false]],
    // No outs: the provider has no update of its own (the host keeps the old outputs).
    result: [["outs", "bin", false]],
  },
  delete: {
    params: [["urn", "str", true], ["provider", "str", false], ["providerId", "int", false], ["reference", "reference", false], ["context", "context", false], ["logs", "bool", false], ["id", "str", true], ["props", "bin", false], ["oldInputs", "bin", false]],
    result: [],
  },
  // Health check, answered by the worker's reading thread itself; with how many providers the
  // worker keeps (loaded, or being loaded) and how many provider ids it knows.
  ping: { params: [], result: [["pid", "int", true], ["providers", "int", false], ["texts", "int", false]] },
} as const satisfies Record<string, { params: readonly FieldSpec[]; result: readonly FieldSpec[] }>;

export type Method = keyof typeof METHODS;

export const NOTIFICATIONS = {
  // The requests the worker has taken, sent before any of them starts (so before any user code runs
  // for them): one the host never saw acknowledged never ran, and may go to another worker when this
  // one dies (connection.ts). Requests the worker answers at once (ping, a refused request) get none.
  "$/ack": [["ids", "ids", true]],
  "$/cancel": [["id", "int", true]],
  // The first message to a worker the launcher started (../worker/prestarted.ts): its program paths, as PROGRAM_PATH_VARIABLE holds them.
  "$/program-path": [["paths", "str", true]],
  // The provider ids the host let go (../worker/worker-process.ts, its bound on the texts it keeps per worker):
  // never used again; the worker drops their providers once no request runs them.
  "$/forget": [["ids", "ids", true]],
  // What a request's provider printed (when the request asked for "logs"): whole lines, but for the partial last one.
  "$/log": [["id", "int", true], ["stream", "str", true], ["severity", "str", true], ["text", "str", true]],
  "$/ready": [["protocol", "int", true], ["python", "str", true], ["pulumi", "str", true], ["dill", "str", true], ["pid", "int", true]],
  // While requests run: the worker's CPU over the last interval (thousandths of one core) and its requests in hand.
  "$/load": [["cpu", "int", true], ["active", "int", true]],
  // Instead of $/ready, before the worker exits: its interpreter cannot import `module` (../interpreter/unusable-interpreter.ts).
  "$/unusable": [["python", "str", true], ["module", "str", true], ["error", "str", true]],
} as const satisfies Record<string, readonly FieldSpec[]>;

/** JSON-RPC error codes: the standard ones and the worker's own. */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UserError: -32000,
  LoadError: -32001,
  Cancelled: -32002,
  /** A request bag holds a Value with no kind set: `data` is unsetValueData. */
  UnsetValue: -32003,
  /** The SDK refused to deserialize a value of a request bag: `data` is badValueData. */
  BadValue: -32004,
} as const;

const kindSchema: Record<FieldKind, z.ZodMiniType> = {
  str: z.string(),
  bool: z.boolean(),
  int: z.int(),
  ids: z.array(z.int()),
  bin: z.instanceof(Buffer),
  changes: z.enum(["some", "none", "unknown"]),
  replaces: z.array(z.string()),
  failures: z.array(z.strictObject({ property: z.string(), reason: z.string() })),
  reference: z.strictObject({ reference: z.string(), typeToken: z.string(), declaredIn: z.string(), path: z.optional(z.string()) }),
  context: z.strictObject({ name: z.string(), type: z.string(), preview: z.nullish(z.boolean()), deadline: z.nullish(z.number()) }),
  any: z.unknown(),
};

export function objectSchema(spec: readonly FieldSpec[]): z.ZodMiniType<Record<string, unknown>> {
  const shape: Record<string, z.ZodMiniType> = {};
  for (const [name, kind, required] of spec) shape[name] = required ? kindSchema[kind] : z.nullish(kindSchema[kind]);
  return z.strictObject(shape);
}

export const resultSchemas = Object.fromEntries(
  Object.entries(METHODS).map(([m, s]) => [m, objectSchema(s.result)]),
) as Record<Method, z.ZodMiniType<Record<string, unknown>>>;

export const ackSchema = objectSchema(NOTIFICATIONS["$/ack"]);
export const readySchema = objectSchema(NOTIFICATIONS["$/ready"]);
export const loadSchema = objectSchema(NOTIFICATIONS["$/load"]);
export const unusableSchema = objectSchema(NOTIFICATIONS["$/unusable"]);
/** $/log, its stream and severity held to the values the host knows. */
export const logSchema = z.strictObject({
    id: z.int(),
    stream: z.enum(["stdout", "stderr"]),
    severity: z.enum(["debug", "info", "warning", "error"]),
    text: z.string(),
  });

/**
 * What the worker puts in `error.data` when the user's code (or loading it)
 * failed. A load error adds `reason`: what was wrong with the `__provider`
 * text, in words; `details` is then the traceback ("" when nothing raised).
 * When a provider reference failed, `reference` is it, and `reason` names it
 * and where it was written. `details` leaves out the worker's own frames (it
 * opens with the user's); `trace` is the whole traceback, for the host's -v log.
 */
export const userErrorData = z.strictObject({
    grpcCode: z.int(),
    details: z.string(),
    type: z.string(),
    message: z.string(),
    reason: z.optional(z.string()),
    reference: z.optional(z.string()),
    trace: z.optional(z.string()),
  });

/** A path below a request bag: keys and list indexes. */
const valuePath = z.array(z.union([z.string(), z.int()]));

/**
 * Where the worker found a Value with no kind set: the request param (props,
 * olds, news, args) and the path below it, keys and list indexes.
 */
export const unsetValueData = z.strictObject({ field: z.string(), path: valuePath });

/**
 * Where the SDK refused a value of a request bag (the innermost value it
 * refuses on its own), and what it raised.
 */
export const badValueData = z.strictObject({ field: z.string(), path: valuePath, type: z.string(), message: z.string() });

const id = z.int();

/** A whole answer to a request of each method, result included: the common message, checked in one pass. */
const responseSchema = (result: z.ZodMiniType<Record<string, unknown>>) => z.strictObject({ jsonrpc: z.literal("2.0"), id, result });
export const responseSchemas = Object.fromEntries(
  Object.entries(resultSchemas).map(([m, result]) => [m, responseSchema(result)]),
) as Record<Method, ReturnType<typeof responseSchema>>;

/** The plain-code twin of kindSchema: true only where kindSchema[kind] accepts `v` (zod 4's int is a safe integer). */
const kindCheck: Record<FieldKind, (v: unknown) => boolean> = {
  str: (v) => typeof v === "string",
  bool: (v) => typeof v === "boolean",
  int: (v) => Number.isSafeInteger(v),
  ids: (v) => Array.isArray(v) && v.every((x) => Number.isSafeInteger(x)),
  bin: (v) => Buffer.isBuffer(v),
  changes: (v) => v === "some" || v === "none" || v === "unknown",
  replaces: (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
  failures: (v) =>
    Array.isArray(v) &&
    v.every((f) => isPlainRecord(f) && typeof f.property === "string" && typeof f.reason === "string" && Object.keys(f).length === 2),
  reference: (v) =>
    isPlainRecord(v) &&
    Object.keys(v).length === (v.path === undefined ? 3 : 4) &&
    (v.path === undefined || typeof v.path === "string") &&
    typeof v.reference === "string" &&
    typeof v.typeToken === "string" &&
    typeof v.declaredIn === "string",
  context: (v) =>
    isPlainRecord(v) &&
    Object.keys(v).every((k) => k === "name" || k === "type" || k === "preview" || k === "deadline") &&
    typeof v.name === "string" &&
    typeof v.type === "string" &&
    (v.preview === undefined || v.preview === null || typeof v.preview === "boolean") &&
    (v.deadline === undefined || v.deadline === null || (typeof v.deadline === "number" && !Number.isNaN(v.deadline))),
  any: () => true,
};

/** An object as JSON.parse makes them (a resolved $bin reference is a Buffer, not one). */
function isPlainRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;
}

/**
 * The answer's result when `raw` is exactly what responseSchemas[method]
 * accepts, else undefined: the common message, checked without zod's cost
 * (≈ 19 µs an answer, cold). Anything this does not accept goes through the
 * zod schemas, which say what is wrong; it never accepts what they refuse
 * (test/unit/framing-protocol.test.ts holds the two side by side).
 */
function compileResponseCheck(spec: readonly FieldSpec[]): (raw: unknown) => Record<string, unknown> | undefined {
  const names = new Set(spec.map(([name]) => name));
  const fields = spec.map(([name, kind, required]) => [name, kindCheck[kind], required] as const);
  return (raw) => {
    if (!isPlainRecord(raw) || raw.jsonrpc !== "2.0" || !Number.isSafeInteger(raw.id)) return undefined;
    const result = raw.result;
    if (!isPlainRecord(result)) return undefined;
    let keys = 0;
    for (const k in raw) {
      if (!Object.hasOwn(raw, k)) continue;
      if (k !== "jsonrpc" && k !== "id" && k !== "result") return undefined;
      keys++;
    }
    if (keys !== 3) return undefined;
    for (const k in result) if (Object.hasOwn(result, k) && !names.has(k)) return undefined;
    for (const [name, ok, required] of fields) {
      const v = Object.hasOwn(result, name) ? result[name] : undefined;
      if (v === undefined || v === null) {
        if (required) return undefined;
      } else if (!ok(v)) {
        return undefined;
      }
    }
    return result;
  };
}

export const responseChecks = Object.fromEntries(
  Object.entries(METHODS).map(([m, s]) => [m, compileResponseCheck(s.result)]),
) as Record<Method, (raw: unknown) => Record<string, unknown> | undefined>;

const errorObject = z.strictObject({ code: z.int(), message: z.string(), data: z.optional(z.unknown()) });

/** Any message the worker may send. */
export const incomingMessage = z.union([
  z.strictObject({ jsonrpc: z.literal("2.0"), id, result: z.record(z.string(), z.unknown()) }),
  z.strictObject({ jsonrpc: z.literal("2.0"), id: z.nullable(id), error: errorObject }),
  z.strictObject({ jsonrpc: z.literal("2.0"), method: z.string(), params: z.record(z.string(), z.unknown()) }),
]);

export type IncomingMessage = z.infer<typeof incomingMessage>;

/**
 * The ids of a $/ack message exactly as the worker writes it, else undefined
 * (the message then goes through incomingMessage and ackSchema, which say
 * what is wrong): one comes with every batch of requests, so it skips zod's cost.
 */
export function fastAckIds(raw: unknown): number[] | undefined {
  if (!isPlainRecord(raw) || raw.method !== "$/ack" || raw.jsonrpc !== "2.0") return undefined;
  const params = raw.params;
  if (!isPlainRecord(params) || !kindCheck.ids(params.ids)) return undefined;
  let keys = 0;
  for (const k in raw) if (Object.hasOwn(raw, k)) keys++;
  for (const k in params) if (Object.hasOwn(params, k) && k !== "ids") return undefined;
  return keys === 3 ? (params.ids as number[]) : undefined;
}
