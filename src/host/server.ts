// The ResourceProvider service: one table with an entry for every RPC, each a
// thin decode → core → encode. What an RPC answers that is not a resource
// operation (refusals, Invoke, Cancel, GetPluginInfo) is decided here from the
// mode, identically for both languages apart from the mode's texts.
import type { Registry } from "./packages/registry-install.js";
import * as grpc from "@grpc/grpc-js";
import type protobuf from "protobufjs";
import { DynamicCore } from "./core.js";
import { engineLog, type EngineLog } from "./engine/engine-log.js";
import { checkBag, LIST_LEVEL_COST, MAX_VALUE_DEPTH, quoteKey, type TooDeep } from "./wire/bag-check.js";
import { BadRequestError, NotImplementedError } from "./errors.js";
import { redactingUnary, refusedStream } from "./grpc-adapter.js";
import type { Mode } from "./plugin/modes.js";
import { finish, ResourceProviderService } from "./wire/proto.js";
import { Redaction } from "./secrets/redaction.js";
import { requestDecoder } from "./request-decode.js";
import type { DynamicRuntime } from "./runtime.js";
import { mayHoldSecret, unwrapSecrets } from "./secrets/secret-inputs.js";
import { EncodedStruct, encodedTwin, StructBytesError } from "./wire/struct-bytes.js";
import { WireFormatError } from "./wire/wire-cursor.js";
import { decodeStruct, encodeStruct, type AnyStruct } from "./wire/wire.js";

/**
 * 400 MiB, and the unrequested-call time both references set (sdk runtime
 * settings). Channelz off: nothing can query a plugin's channelz (it serves
 * only ResourceProvider), and its per-call counters and timestamps showed in
 * the host's profile under load (≈ 1.7 % of samples; A/B within the noise).
 */
export const SERVER_OPTIONS: grpc.ServerOptions = {
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
  "grpc.max_send_message_length": -1,
  "grpc.server_max_unrequested_time_in_server": 30 * 60,
  "grpc.enable_channelz": 0,
};

export interface HostOptions {
  mode: Mode;
  runtime: DynamicRuntime;
  /** GetPluginInfo's version; resolved lazily because Node mode reads the program's SDK. */
  pluginVersion: () => string;
  /** The plugin's working directory, where the project's declarations are looked for (default: process.cwd()). */
  cwd?: string;
  /** The engine's address (the last argument), for messages shown under a resource. */
  engineAddress?: string;
  /**
   * Debug mode (src/cli/debug.ts): the engine attaches to a host it did not
   * start (PULUMI_DEBUG_PROVIDERS) and sends its address with the Attach RPC,
   * which is answered instead of refused (as the references refuse it).
   */
  attachable?: boolean;
  /** Where Parameterize installs registry packages from, if it can (ServedRuntime's). */
  registry?: Registry;
  /** The port to listen on (default: any free one). */
  port?: number;
}

/**
 * The service's methods with their (de)serializers. The host's requests
 * (`requests: "checked"`) are checked and decoded with their Struct fields left
 * as bytes (request-decode.ts): handlers wrap them as EncodedStruct, and decode
 * them for a runtime that wants them decoded once their depth is known to be
 * safe; a request that cannot be decoded arrives as an UndecodableRequest.
 * `"plain"` is protobufjs' own decoding, unchecked (the benchmark's ceiling
 * plugin). A response's Struct fields may be decoded or encoded, and encoded
 * ones are written as they are.
 */
export function serviceDefinition(requests: "checked" | "plain" = "plain"): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of Object.values(ResourceProviderService.methods)) {
    const req = method.resolvedRequestType as protobuf.Type;
    const res = method.resolvedResponseType as protobuf.Type;
    def[method.name] = {
      path: `/pulumirpc.ResourceProvider/${method.name}`,
      requestStream: !!method.requestStream,
      responseStream: !!method.responseStream,
      requestSerialize: (v: object) => finish(req.encode(v)),
      requestDeserialize: requests === "checked" ? requestDecoder(req, encodedTwin(req)?.twin) : (b: Buffer) => req.decode(b),
      responseSerialize: (v: object) => finish(holdsEncoded(v) ? encodeWithBytes(res, v) : res.encode(v)),
      responseDeserialize: (b: Buffer) => res.decode(b),
      originalName: method.name,
    };
  }
  return def;
}

function holdsEncoded(message: object): boolean {
  const fields = message as Record<string, unknown>;
  for (const k in fields) if (fields[k] instanceof EncodedStruct) return true;
  return false;
}

/** Encodes a message some of whose Struct fields are encoded, with the type's twin (made on first need). */
function encodeWithBytes(type: protobuf.Type, message: object): protobuf.Writer {
  const { twin, structFields } = encodedTwin(type)!;
  const withBytes: Record<string, unknown> = { ...message };
  for (const f of structFields) withBytes[f] = encodeStruct(withBytes[f] as AnyStruct | undefined);
  return twin.encode(withBytes);
}

export function serviceHandlers(opts: HostOptions, warmUps?: (() => void)[]): grpc.UntypedServiceImplementation {
  const { mode } = opts;
  // Attach (debug mode) names the engine after the host started: messages go to the engine attached last.
  let toEngine = engineLog(opts.engineAddress);
  const viaAttached: EngineLog = {
    log: (...a) => toEngine.log(...a),
    send: (...a) => toEngine.send(...a),
    reachable: () => toEngine.reachable(),
    close: () => toEngine.close(),
  };
  const core = new DynamicCore(mode, opts.runtime, { cwd: opts.cwd, engineLog: viaAttached, pluginVersion: opts.pluginVersion, registry: opts.registry });
  // The first resource call asks whether the engine's Log can be reached (a connection and a
  // health check, ≈ 10 ms): asked once the port line is out, it is answered by the time that call comes.
  warmUps?.push(() => void viaAttached.reachable());
  // Every answer's error text is kept free of the secrets the requests and the config mark.
  const redaction = new Redaction();
  const unary = redactingUnary(redaction);
  const bags = bagReader(opts.runtime.bags, MAX_VALUE_DEPTH[mode.language], LIST_LEVEL_COST[mode.language], redaction);
  const refuse = (rpc: string) =>
    unary(rpc, () => {
      throw new NotImplementedError(mode.unimplemented(rpc));
    });
  type Req = Record<string, any>;
  return {
    Handshake: refuse("Handshake"),
    // A provider package (./packages): by the folder `pulumi package add` names, or by the value its SDK embeds.
    Parameterize: unary("Parameterize", (req: Req) => core.parameterize({ args: req.args ?? undefined, value: req.value ?? undefined })),
    // A project that declares types of this package gets their schema (./references/package-schema.ts); else, as the references, none.
    // A parameterized package's is asked for by its name and version.
    GetSchema: unary("GetSchema", async (req: { subpackage_name?: string; subpackage_version?: string }) => {
      const sub = req.subpackage_name ? { name: req.subpackage_name, version: req.subpackage_version ?? "" } : undefined;
      const schema = await core.schema(sub);
      if (schema === undefined) throw new NotImplementedError(mode.unimplemented("GetSchema"));
      return { schema };
    }),
    CheckConfig: refuse("CheckConfig"),
    DiffConfig: refuse("DiffConfig"),
    Configure: unary("Configure", async (req: Req) => {
      // Configure's args as they came, secrets wrapped: the runtimes unwrap config values as the references do.
      const read = bags("Configure", req, "args");
      const args = read.secretBags?.args ?? read.args;
      redaction.rememberConfig(args);
      await core.configure(args);
      // Secrets stay marked in resource requests: the host knows what to redact, and unwraps them for the provider (./secrets/secret-inputs.ts).
      return { acceptSecrets: true };
    }),
    Invoke: unary("Invoke", (req: { tok?: string }) => {
      const status = mode.invoke(req.tok ?? "");
      throw new NotImplementedError(status.details, status.code);
    }),
    Call: refuse("Call"),
    Check: unary("Check", (req: Req, signal) => core.check(bags("Check", req, "olds", "news"), signal)),
    Diff: unary("Diff", (req: Req, signal) => core.diff(bags("Diff", req, "olds", "news", "old_inputs"), signal)),
    Create: unary("Create", (req: Req, signal) => core.create(bags("Create", req, "properties"), signal)),
    Read: unary("Read", (req: Req, signal) => core.read(bags("Read", req, "properties", "inputs"), signal)),
    List: refusedStream("List", new NotImplementedError(mode.unimplemented("List"))),
    Update: unary("Update", (req: Req, signal) => core.update(bags("Update", req, "olds", "news"), signal)),
    Delete: unary("Delete", async (req: Req, signal) => {
      await core.delete(bags("Delete", req, "properties", "old_inputs"), signal);
      return {};
    }),
    Construct: refuse("Construct"),
    Cancel: unary("Cancel", () => {
      core.cancel();
      return {};
    }),
    GetPluginInfo: unary("GetPluginInfo", () => ({ version: opts.pluginVersion() })),
    Attach: opts.attachable
      ? unary("Attach", (req: { address?: string }) => {
          toEngine = engineLog(req.address);
          return {};
        })
      : refuse("Attach"),
    GetMapping: refuse("GetMapping"),
    GetMappings: refuse("GetMappings"),
  };
}

/**
 * Reads a request's named Struct fields as the runtime wants them, and the
 * identity fields the core reads. Each bag is checked first (wire/bag-check.ts),
 * before anything recurses through it or trusts its wire format: one nested
 * deeper than the mode's MAX_VALUE_DEPTH (lists weighed by LIST_LEVEL_COST),
 * or malformed, is a bad request naming the method, the resource, the bag and
 * the property. Then it is
 * wrapped as an EncodedStruct, or decoded. Unset bags stay undefined. The
 * request's secrets (`redaction`) go with it, for what an adapter prints.
 * A bag holding secrets is handed on with them unwrapped (the runtime sees
 * what a plugin that does not accept secrets is sent), and kept as it came in
 * `secretBags` (in the form the runtime wants), for the core to mark the
 * results (./secrets/secret-inputs.ts) and for Configure.
 */
function bagReader(wanted: DynamicRuntime["bags"], maxDepth: number, listCost: number, redaction: Redaction) {
  return (rpc: string, req: Record<string, any>, ...names: string[]): any => {
    const urn = req.urn ?? "";
    const secrets = () => redaction.secretsFor(rpc, req);
    const out: Record<string, unknown> = { urn, type: req.type ?? "", id: req.id ?? "", timeout: req.timeout ?? 0, secrets };
    // For the provider's call context: the resource's name, and Create's and Update's preview flag.
    out.name = req.name ?? "";
    if (typeof req.preview === "boolean") out.preview = req.preview;
    let secretBags: Record<string, AnyStruct> | undefined;
    for (const n of names) {
      // Set on the wire = an own property; unset ones fall to the prototype's default.
      const v = Object.prototype.hasOwnProperty.call(req, n) ? req[n] : undefined;
      if (!Buffer.isBuffer(v)) {
        const plain = v ? unwrapSecrets(v) : undefined;
        if (v && plain !== v) (secretBags ??= {})[n] = v;
        out[n] = plain ?? undefined;
        continue;
      }
      const where = `${rpc} ${urn || "(no urn)"}: the request's ${n}`;
      try {
        const deep = checkBag(v, maxDepth, listCost);
        if (deep) throw new BadRequestError(`${where} ${tooDeep(deep, maxDepth, listCost)}`);
        const bag = new EncodedStruct(v);
        const given = wanted === "decoded" ? decodeStruct(bag) : bag;
        if (mayHoldSecret(v)) {
          const plain = unwrapSecrets(given);
          if (plain !== given) (secretBags ??= {})[n] = given;
          out[n] = plain;
        } else {
          out[n] = given;
        }
      } catch (e) {
        if (e instanceof WireFormatError) throw new BadRequestError(`${where} is ${new StructBytesError(e.problem, e.offset).message}`);
        if (e instanceof StructBytesError) throw new BadRequestError(`${where} is ${e.message}`);
        throw e;
      }
    }
    if (secretBags) out.secretBags = secretBags;
    return out;
  };
}

/** What is wrong with a value nested past the limit, in words. */
function tooDeep(deep: TooDeep, maxDepth: number, listCost: number): string {
  const what = deep.key === undefined ? "has an unknown field" : `has property ${quoteKey(deep.key)}`;
  const refused = "are refused before any provider code sees them";
  if (listCost === 1 || deep.lists === 0) {
    return `${what} nested ${deep.depth} levels deep; values nested more than ${maxDepth} levels (objects and lists within one another) ${refused}`;
  }
  return (
    `${what} nested ${deep.depth} levels deep, ${deep.lists} of them lists; values nested more than ${maxDepth} levels ` +
    `(objects and lists within one another, a level of lists counting as ${listCost}: the Python SDK recurses deeper through lists) ${refused}`
  );
}

/** Binds 127.0.0.1:0 and resolves the port once the server is listening. */
/**
 * `warmUp`: what the host may do once its port line is out, ahead of the
 * first requests that need it (a server started for tests need not call it).
 */
export async function startServer(opts: HostOptions): Promise<{ server: grpc.Server; port: number; warmUp: () => void }> {
  const server = new grpc.Server(SERVER_OPTIONS);
  const warmUps: (() => void)[] = [];
  server.addService(serviceDefinition("checked"), serviceHandlers(opts, warmUps));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${opts.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return { server, port, warmUp: () => warmUps.splice(0).forEach((w) => w()) };
}
