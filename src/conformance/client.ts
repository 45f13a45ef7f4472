// A ResourceProvider client built from the real Pulumi SDK's generated stubs
// (@pulumi/pulumi/proto/*_pb), not from our .proto: what it can send and read is
// what the engine's contract says, independently of our own definitions. The
// SDK is the one installed where the conformance kit runs (loadSdk), so an
// installed copy of the kit speaks with the project's own stubs and grpc-js.
import { createRequire } from "node:module";
import path from "node:path";

/** The SDK's generated stubs and the grpc-js and google-protobuf they were built with. */
export interface Sdk {
  services: any;
  provider: any;
  plugin: any;
  structPb: any;
  emptyPb: any;
  statusPb: any;
  grpc: any;
  engineGrpc: any;
  /** The directory of the @pulumi/pulumi package these come from. */
  root: string;
}

const sdks = new Map<string, Sdk>();

/** The message when neither the project nor the kit has the stubs. */
const NO_SDK = (where: string) => `@pulumi/pulumi is not installed where the conformance kit runs (${where}): install it in the project (npm install @pulumi/pulumi)`;

/** Where `@pulumi/pulumi`'s stubs resolve from `fromDir` (default: this module), or undefined. */
function stubsFrom(fromDir?: string): string | undefined {
  try {
    return createRequire(fromDir ? path.join(fromDir, "noop.js") : import.meta.url).resolve("@pulumi/pulumi/proto/provider_grpc_pb");
  } catch {
    return undefined;
  }
}

/** True when `dir` resolves @pulumi/pulumi's stubs as a program there would. */
export function projectHasSdk(dir: string): boolean {
  return stubsFrom(dir) !== undefined;
}

/**
 * The SDK resolved from `fromDir` as Node resolves a program's require there;
 * by default, from this module (the repository's own @pulumi/pulumi in a checkout),
 * else the kit's own copy once loadOwnSdk has loaded it.
 */
export function loadSdk(fromDir?: string): Sdk {
  const key = fromDir ?? "";
  let sdk = sdks.get(key);
  if (sdk) return sdk;
  const stubs = stubsFrom(fromDir);
  if (!stubs) {
    const own = sdks.get(OWN);
    if (own && !fromDir) return own;
    throw new Error(NO_SDK(fromDir ?? "its own package"));
  }
  // The stubs' own grpc-js and google-protobuf: the client must use the instances the stubs check against.
  const req = createRequire(stubs);
  sdk = {
    services: req(stubs),
    provider: req("./provider_pb"),
    plugin: req("./plugin_pb"),
    statusPb: req("./status_pb"),
    engineGrpc: req("./engine_grpc_pb"),
    structPb: req("google-protobuf/google/protobuf/struct_pb"),
    emptyPb: req("google-protobuf/google/protobuf/empty_pb"),
    grpc: req("@grpc/grpc-js"),
    root: path.dirname(path.dirname(stubs)),
  };
  sdks.set(key, sdk);
  return sdk;
}

const OWN = "\0own";

/**
 * The kit's own copy of the stubs (own-sdk.ts: bundled with the command), for a
 * project without @pulumi/pulumi from npm; loaded once, lazily. In a checkout it is
 * the repository's @pulumi/pulumi, the same modules loadSdk() gives.
 */
export async function loadOwnSdk(): Promise<Sdk> {
  let sdk = sdks.get(OWN);
  if (sdk) return sdk;
  const { ownStubs } = await import("./own-sdk.js");
  sdk = { ...ownStubs, root: "(the conformance kit's own copy of @pulumi/pulumi's stubs)" };
  sdks.set(OWN, sdk);
  return sdk;
}

export type Props = Record<string, unknown>;

export interface InitFailedView {
  statusCode: number;
  statusMessage: string;
  typeUrl: string;
  id: string;
  properties: Props;
  reasons: string[];
}

/**
 * The block our host adds below a user error's text (where in the user's code it was thrown, a hint:
 * src/node-dynamic/user-frames.ts, python-stub/error_hints.py), split off so that the rest compares with
 * the reference's text; `[difference]` tests read it from `Outcome.where`.
 */
const WHERE_MARKERS = ["\n\n  where: ", "\n\n  hint: "];

export function splitWhere(details: string): [string, string | undefined] {
  const at = Math.min(...WHERE_MARKERS.map((m) => details.indexOf(m)).filter((i) => i >= 0));
  return Number.isFinite(at) ? [details.slice(0, at), details.slice(at)] : [details, undefined];
}

/** Everything observable about one RPC's answer, normalized for comparison. */
export interface Outcome {
  code: number;
  details: string;
  /** A readable projection of the response (ok answers only). */
  view?: any;
  /** The response re-serialized by google-protobuf (sorted map keys): equal bytes, equal answer. */
  bytes?: string;
  initFailed?: InitFailedView;
  /** Our host's block below a user error's text (not enumerable: outcomes compare without it); see splitWhere. */
  where?: string;
}

const js = (s: any) => (s ? s.toJavaScript() : undefined);

export interface ResourceArgs {
  urn?: string;
  type?: string;
  name?: string;
  id?: string;
}

export class ProviderClient {
  readonly raw: any;

  constructor(address: string, readonly sdk: Sdk = loadSdk()) {
    this.raw = new sdk.services.ResourceProviderClient(address, sdk.grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": 512 * 1024 * 1024,
      "grpc.max_send_message_length": 512 * 1024 * 1024,
    });
  }

  private struct(o: Props | undefined): any {
    return o === undefined ? undefined : this.sdk.structPb.Struct.fromJavaScript(o);
  }

  close(): void {
    this.raw.close();
  }

  /**
   * Calls `method` with a ready request message and records the outcome;
   * `unlike` clears, after the view is taken, what of the response is a
   * deliberate difference compared elsewhere, so that `bytes` compare the rest.
   */
  call(method: string, request: any, view: (resp: any) => any = () => ({}), unlike?: (resp: any) => void): Promise<Outcome> {
    return new Promise((resolve) => {
      this.raw[method](request, (err: any, resp: any) => {
        if (err) {
          const [details, where] = splitWhere(err.details);
          const out: Outcome = { code: err.code, details };
          const bin = err.metadata?.get("grpc-status-details-bin") ?? [];
          if (bin.length > 0) {
            out.initFailed = decodeInitFailed(this.sdk, bin[0]);
            out.initFailed.statusMessage = splitWhere(out.initFailed.statusMessage)[0];
          }
          if (where !== undefined) Object.defineProperty(out, "where", { value: where, enumerable: false });
          resolve(out);
          return;
        }
        const seen = view(resp);
        unlike?.(resp);
        resolve({ code: 0, details: "", view: seen, bytes: Buffer.from(resp.serializeBinary()).toString("base64") });
      });
    });
  }

  /**
   * Configure; `view` picks what the answer's view is (default: nothing, {}).
   * Ours answers acceptSecrets true, the references false: a deliberate
   * difference (the secret-redaction cases read it in the view), left out of `bytes`.
   */
  configure(args: Props | undefined, view: (resp: any) => any = () => ({})): Promise<Outcome> {
    const req = new this.sdk.provider.ConfigureRequest();
    if (args !== undefined) req.setArgs(this.struct(args));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    return this.call("configure", req, view, (resp) => resp.setAcceptsecrets(false));
  }

  check(a: ResourceArgs & { olds?: Props; news?: Props }): Promise<Outcome> {
    const req = new this.sdk.provider.CheckRequest();
    setIdentity(req, a);
    req.setOlds(this.struct(a.olds ?? {}));
    if (a.news !== undefined) req.setNews(this.struct(a.news));
    return this.call("check", req, (r) => ({
      inputs: js(r.getInputs()),
      failures: r.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    }));
  }

  diff(a: ResourceArgs & { olds?: Props; news?: Props; oldInputs?: Props }): Promise<Outcome> {
    const req = new this.sdk.provider.DiffRequest();
    setIdentity(req, a);
    if (a.id !== undefined) req.setId(a.id);
    if (a.olds !== undefined) req.setOlds(this.struct(a.olds));
    if (a.news !== undefined) req.setNews(this.struct(a.news));
    if (a.oldInputs !== undefined) req.setOldInputs(this.struct(a.oldInputs));
    return this.call("diff", req, (r) => r.toObject());
  }

  create(a: ResourceArgs & { properties?: Props; preview?: boolean; timeout?: number }): Promise<Outcome> {
    const req = new this.sdk.provider.CreateRequest();
    setIdentity(req, a);
    if (a.properties !== undefined) req.setProperties(this.struct(a.properties));
    if (a.preview) req.setPreview(true);
    if (a.timeout) req.setTimeout(a.timeout);
    return this.call("create", req, (r) => ({ id: r.getId(), properties: js(r.getProperties()) }));
  }

  read(a: ResourceArgs & { properties?: Props; inputs?: Props }): Promise<Outcome> {
    const req = new this.sdk.provider.ReadRequest();
    setIdentity(req, a);
    if (a.id !== undefined) req.setId(a.id);
    if (a.properties !== undefined) req.setProperties(this.struct(a.properties));
    if (a.inputs !== undefined) req.setInputs(this.struct(a.inputs));
    return this.call("read", req, (r) => ({
      id: r.getId(),
      properties: js(r.getProperties()),
      inputs: r.hasInputs() ? js(r.getInputs()) : undefined,
    }));
  }

  update(a: ResourceArgs & { olds?: Props; news?: Props; oldInputs?: Props }): Promise<Outcome> {
    const req = new this.sdk.provider.UpdateRequest();
    setIdentity(req, a);
    if (a.id !== undefined) req.setId(a.id);
    if (a.olds !== undefined) req.setOlds(this.struct(a.olds));
    if (a.news !== undefined) req.setNews(this.struct(a.news));
    if (a.oldInputs !== undefined) req.setOldInputs(this.struct(a.oldInputs));
    return this.call("update", req, (r) => ({ properties: js(r.getProperties()) }));
  }

  delete(a: ResourceArgs & { properties?: Props; oldInputs?: Props }): Promise<Outcome> {
    const req = new this.sdk.provider.DeleteRequest();
    setIdentity(req, a);
    if (a.id !== undefined) req.setId(a.id);
    if (a.properties !== undefined) req.setProperties(this.struct(a.properties));
    if (a.oldInputs !== undefined) req.setOldInputs(this.struct(a.oldInputs));
    return this.call("delete", req, () => ({}));
  }

  getPluginInfo(): Promise<Outcome> {
    return this.call("getPluginInfo", new this.sdk.emptyPb.Empty(), (r) => ({ version: r.getVersion() }));
  }

  cancel(): Promise<Outcome> {
    return this.call("cancel", new this.sdk.emptyPb.Empty());
  }

  invoke(tok: string): Promise<Outcome> {
    const req = new this.sdk.provider.InvokeRequest();
    req.setTok(tok);
    req.setArgs(this.struct({}));
    return this.call("invoke", req);
  }

  /** Every refused RPC, called with an empty request of its own type. */
  refused(method: string): Promise<Outcome> {
    const requestType = this.sdk.services.ResourceProviderService[method].requestType;
    return this.call(method, new requestType());
  }

  /** The List server stream: resolves with its final status. */
  list(): Promise<Outcome> {
    return new Promise((resolve) => {
      const stream = this.raw.list(new this.sdk.provider.ListRequest());
      stream.on("data", () => undefined);
      stream.on("error", (err: any) => resolve({ code: err.code, details: err.details }));
      stream.on("end", () => resolve({ code: 0, details: "" }));
    });
  }

  /** A method that is not part of the service at all. */
  unknownMethod(): Promise<Outcome> {
    return new Promise((resolve) => {
      this.raw.makeUnaryRequest(
        "/pulumirpc.ResourceProvider/Nope",
        (x: Buffer) => x,
        (x: Buffer) => x,
        Buffer.alloc(0),
        (err: any) => resolve(err ? { code: err.code, details: err.details } : { code: 0, details: "" }),
      );
    });
  }
}

function setIdentity(req: any, a: ResourceArgs): void {
  if (a.urn !== undefined) req.setUrn(a.urn);
  if (a.type !== undefined && typeof req.setType === "function") req.setType(a.type);
  if (a.name !== undefined && typeof req.setName === "function") req.setName(a.name);
}

function decodeInitFailed(sdk: Sdk, bin: Buffer): InitFailedView {
  const status = sdk.statusPb.Status.deserializeBinary(new Uint8Array(bin));
  const any = status.getDetailsList()[0];
  const detail = sdk.provider.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
  return {
    statusCode: status.getCode(),
    statusMessage: status.getMessage(),
    typeUrl: any.getTypeUrl(),
    id: detail.getId(),
    properties: js(detail.getProperties()) ?? {},
    reasons: detail.getReasonsList(),
  };
}

/** The view (google-protobuf toObject) of a DiffResponse with every field unset: DIFF_UNKNOWN and nothing else. */
export const EMPTY_DIFF_VIEW = {
  replacesList: [],
  stablesList: [],
  deletebeforereplace: false,
  changes: 0,
  diffsList: [],
  detaileddiffMap: [],
  hasdetaileddiff: false,
};

/** A URN for a Node dynamic resource named `name`. */
export function nodeUrn(name: string, type = "pulumi-nodejs:dynamic:Resource"): string {
  return `urn:pulumi:dev::proj::${type}::${name}`;
}
