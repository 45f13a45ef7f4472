// The ResourceProvider service: one table with an entry for every RPC, each a
// thin decode → core → encode. What an RPC answers that is not a resource
// operation (refusals, Invoke, Cancel, GetPluginInfo) is decided here from the
// mode, identically for both languages apart from the mode's texts.
import * as grpc from "@grpc/grpc-js";
import type protobuf from "protobufjs";
import { DynamicCore } from "./core.js";
import { NotImplementedError } from "./errors.js";
import { redactingUnary, refusedStream } from "./grpc-adapter.js";
import type { Mode } from "./modes.js";
import { finish, ResourceProviderService } from "./proto.js";
import { Redaction } from "./redaction.js";
import type { DynamicRuntime } from "./runtime.js";
import { EncodedStruct, encodedTwin } from "./struct-bytes.js";
import { encodeStruct, type AnyStruct } from "./wire.js";

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
}

/**
 * The service's methods with their (de)serializers. `bags: "encoded"` decodes
 * requests with their Struct fields left as bytes (EncodedStruct, for a runtime
 * that passes them on); either way a response's Struct fields may be decoded
 * or encoded, and encoded ones are written as they are.
 */
export function serviceDefinition(bags: DynamicRuntime["bags"] = "decoded"): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of Object.values(ResourceProviderService.methods)) {
    const req = method.resolvedRequestType as protobuf.Type;
    const res = method.resolvedResponseType as protobuf.Type;
    const reqTwin = bags === "encoded" ? encodedTwin(req) : undefined;
    def[method.name] = {
      path: `/pulumirpc.ResourceProvider/${method.name}`,
      requestStream: !!method.requestStream,
      responseStream: !!method.responseStream,
      requestSerialize: (v: object) => finish(req.encode(v)),
      requestDeserialize: reqTwin ? (b: Buffer) => reqTwin.twin.decode(b) : (b: Buffer) => req.decode(b),
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

export function serviceHandlers(opts: HostOptions): grpc.UntypedServiceImplementation {
  const { mode } = opts;
  const core = new DynamicCore(mode, opts.runtime);
  // Every answer's error text is kept free of the secrets the requests and the config mark.
  const redaction = new Redaction();
  const unary = redactingUnary(redaction);
  const refuse = (rpc: string) =>
    unary(rpc, () => {
      throw new NotImplementedError(mode.unimplemented(rpc));
    });
  type Req = Record<string, any>;
  return {
    Handshake: refuse("Handshake"),
    Parameterize: refuse("Parameterize"),
    GetSchema: refuse("GetSchema"),
    CheckConfig: refuse("CheckConfig"),
    DiffConfig: refuse("DiffConfig"),
    Configure: unary("Configure", async (req: Req) => {
      const { args } = bags(req, "args");
      redaction.rememberConfig(args);
      await core.configure(args);
      return {};
    }),
    Invoke: unary("Invoke", (req: { tok?: string }) => {
      const status = mode.invoke(req.tok ?? "");
      throw new NotImplementedError(status.details, status.code);
    }),
    Call: refuse("Call"),
    Check: unary("Check", (req: Req, signal) => core.check(bags(req, "olds", "news"), signal)),
    Diff: unary("Diff", (req: Req, signal) => core.diff(bags(req, "olds", "news"), signal)),
    Create: unary("Create", (req: Req, signal) => core.create(bags(req, "properties"), signal)),
    Read: unary("Read", (req: Req, signal) => core.read(bags(req, "properties", "inputs"), signal)),
    List: refusedStream("List", new NotImplementedError(mode.unimplemented("List"))),
    Update: unary("Update", (req: Req, signal) => core.update(bags(req, "olds", "news"), signal)),
    Delete: unary("Delete", async (req: Req, signal) => {
      await core.delete(bags(req, "properties"), signal);
      return {};
    }),
    Construct: refuse("Construct"),
    Cancel: unary("Cancel", () => {
      core.cancel();
      return {};
    }),
    GetPluginInfo: unary("GetPluginInfo", () => ({ version: opts.pluginVersion() })),
    Attach: refuse("Attach"),
    GetMapping: refuse("GetMapping"),
    GetMappings: refuse("GetMappings"),
  };
}

/**
 * The decoded request with its named Struct fields as AnyStruct (undefined when
 * the request left them unset; encoded ones wrapped) and the identity fields
 * the core reads.
 */
function bags(req: Record<string, any>, ...names: string[]): any {
  const out: Record<string, unknown> = { urn: req.urn ?? "", type: req.type ?? "", id: req.id ?? "", timeout: req.timeout ?? 0 };
  for (const n of names) {
    // Set on the wire = an own property; unset ones fall to the prototype's default.
    const v = Object.prototype.hasOwnProperty.call(req, n) ? req[n] : undefined;
    out[n] = Buffer.isBuffer(v) ? new EncodedStruct(v) : (v ?? undefined);
  }
  return out;
}

/** Binds 127.0.0.1:0 and resolves the port once the server is listening. */
export async function startServer(opts: HostOptions): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server(SERVER_OPTIONS);
  server.addService(serviceDefinition(opts.runtime.bags), serviceHandlers(opts));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return { server, port };
}
