// The Node language adapter: what a Node provider's methods receive, the
// defaults for the methods it leaves out, and how what it returns or throws
// becomes a normalized outcome. Everything a user can observe here follows the
// Node reference plugin (shared/reference-behavior.md §3, §5, D-rows); where we
// deliberately differ, docs/parity.md says so and a test shows it.
import * as grpc from "@grpc/grpc-js";
import { CallSignal } from "../host/limits/call-signal.js";
import { BadRequestError, CancelledError, ProviderResultError, UserOperationError } from "../host/errors.js";
import { redact } from "../host/secrets/redaction.js";
import type {
  Bag,
  CallInfo,
  CheckOutcome,
  CreateOutcome,
  DiffOutcome,
  DynamicRuntime,
  ProviderSource,
  ReadOutcome,
  UpdateOutcome,
} from "../host/runtime.js";
import type { ProviderReference } from "../host/references/provider-references.js";
import {
  PROVIDER_KEY,
  UnexpectedStructTypeError,
  UnsetValueError,
  ValueTooDeepError,
  jsToStruct,
  setOwn,
  structToJs,
  unsetValuePath,
  unsetValueProblem,
  unwrapSecret,
  type WireStruct,
} from "../host/wire/wire.js";
import { captured, installConsoleCapture } from "./console-capture.js";
import { ProviderLoader, ProviderLoadError } from "./loader.js";
import type { NodeProvider } from "./node-provider.js";
import { UnresolvedModuleError } from "./moved-modules.js";
import { whereBlock } from "./user-frames.js";
import { isReferenceText } from "./reference-text.js";
import { outputsResolved } from "./secret-outputs.js";
import { CallContext } from "./call-context.js";

type Obj = Record<string, any>;

export class NodeRuntime implements DynamicRuntime {
  readonly language = "nodejs" as const;
  readonly bags = "decoded" as const;
  readonly loader: ProviderLoader;

  constructor(private readonly cwd: string = process.cwd()) {
    this.loader = new ProviderLoader(cwd);
    installConsoleCapture();
  }

  async configure(args: Bag): Promise<void> {
    const config: Obj = {};
    let values: Obj;
    try {
      values = structToJs(args);
    } catch (e) {
      if (e instanceof UnsetValueError) throw new BadRequestError(`Configure: ${unsetValueProblem("args", unsetValuePath(args))}`);
      throw e;
    }
    for (const [k, v] of Object.entries(values)) {
      if (k === PROVIDER_KEY) continue;
      setOwn(config, k, unwrapSecret(v));
    }
    this.loader.setConfig(config);
  }

  check(call: CallInfo, source: ProviderSource, oldsBag: Bag, newsBag: Bag): Promise<CheckOutcome> {
    return this.echoing(call, async () => {
      const olds = requestBag(call, "olds", oldsBag);
      const news = requestBag(call, "news", newsBag);
      const provider = await this.provider(call, source);
      let inputs: any = news;
      let failures: any = [];
      if (has(call, provider, "check")) {
        const result = expectObject(call, "check", await (provider as Obj).check(olds, news, new CallContext(call, this.deployment)));
        if (result.inputs) inputs = (await outputsResolved(call, "check", "inputs", result.inputs)).value;
        if (result.failures) failures = result.failures;
      }
      // Upstream sets the key on the object the user returned; keep that visible effect.
      if (hasProvider(news)) inputs[PROVIDER_KEY] = news[PROVIDER_KEY];
      const list: { property: string; reason: string }[] = [];
      for (const f of failures) list.push({ property: wireString(f.property), reason: wireString(f.reason) });
      return { inputs: toStruct(call, "check", "inputs", inputs), failures: list };
    });
  }

  diff(call: CallInfo, source: ProviderSource, id: string, oldsBag: Bag, newsBag: Bag): Promise<DiffOutcome> {
    return this.echoing(call, async () => {
      const olds = requestBag(call, "olds", oldsBag);
      const news = requestBag(call, "news", newsBag);
      const provider = await this.provider(call, source);
      if (!has(call, provider, "diff")) return { changes: "unknown", replaces: [], deleteBeforeReplace: false, byDefault: true };
      const result = expectObject(call, "diff", await (provider as Obj).diff(id, olds, news, new CallContext(call, this.deployment)));
      return {
        changes: result.changes === true ? "some" : result.changes === false ? "none" : "unknown",
        replaces: result.replaces && result.replaces.length !== 0 ? replacesList(call, result.replaces) : [],
        deleteBeforeReplace: !!result.deleteBeforeReplace,
      };
    });
  }

  create(call: CallInfo, source: ProviderSource, propsBag: Bag): Promise<CreateOutcome> {
    return this.failing(call, async () => {
      const props = requestBag(call, call.propsField ?? "properties", propsBag);
      const provider = await this.provider(call, source);
      // Called whatever it is, as upstream: without one, V8's own `provider.create is not a function`.
      has(call, provider, "create");
      const result = expectObject(call, "create", await (provider as Obj).create(props, new CallContext(call, this.deployment)));
      const outs = withProvider((await outputsResolved(call, "create", "outs", result.outs || {})).value as Obj, props);
      return { id: createdId(call, result.id), outs: toStruct(call, "create", "outs", outs) };
    });
  }

  read(call: CallInfo, source: ProviderSource, id: string, propsBag: Bag): Promise<ReadOutcome> {
    return this.echoing(call, async () => {
      const props = requestBag(call, call.propsField ?? "properties", propsBag);
      const provider = await this.provider(call, source);
      // Without a read method the state goes back exactly as it came.
      if (!has(call, provider, "read")) return { id, outs: propsBag ?? { fields: {} } };
      const result = expectObject(call, "read", await (provider as Obj).read(id, props, new CallContext(call, this.deployment)));
      const outs = withProvider((await outputsResolved(call, "read", "props", result.props || {})).value as Obj, props);
      const outcome: ReadOutcome = { id: wireString(result.id), outs: toStruct(call, "read", "props", outs) };
      if (result.inputs) {
        const inputs = withProvider((await outputsResolved(call, "read", "inputs", result.inputs)).value as Obj, props);
        outcome.inputs = toStruct(call, "read", "inputs", inputs);
      }
      return outcome;
    });
  }

  update(call: CallInfo, source: ProviderSource, id: string, oldsBag: Bag, newsBag: Bag): Promise<UpdateOutcome> {
    return this.failing(call, async () => {
      const olds = requestBag(call, "olds", oldsBag);
      const news = requestBag(call, "news", newsBag);
      const provider = await this.provider(call, source);
      // Without update the core keeps the old outputs (the reference keeps only {__provider}: docs/parity.md).
      if (!has(call, provider, "update")) return {};
      const result: Obj = (await (provider as Obj).update(id, olds, news, new CallContext(call, this.deployment))) || {};
      const outs = withProvider((await outputsResolved(call, "update", "outs", result.outs || {})).value as Obj, news);
      return { outs: toStruct(call, "update", "outs", outs) };
    });
  }

  delete(call: CallInfo, source: ProviderSource, id: string, propsBag: Bag): Promise<void> {
    return this.echoing(call, async () => {
      const props = requestBag(call, call.propsField ?? "properties", propsBag);
      const provider = await this.provider(call, source);
      if (has(call, provider, "delete")) await (provider as Obj).delete(id, props, new CallContext(call, this.deployment));
    });
  }

  isReferenceText(text: string, reference: ProviderReference): boolean {
    return isReferenceText(text, reference);
  }

  /**
   * Node provider code runs in this process and cannot be interrupted; in-flight calls finish. Their call
   * contexts' signals are aborted (./call-context.ts), for providers that stop when asked; calls from then
   * on get a fresh signal (a host in debug mode serves deployment after deployment).
   */
  cancelAll(): void {
    const ending = this.deployment;
    this.deployment = new CallSignal();
    ending.abort(new CancelledError("the engine cancelled the deployment (its Cancel call: the update was interrupted, or it is ending)"));
  }

  /** Aborted by the engine's Cancel; read by each call's context. */
  private deployment = new CallSignal();

  async close(): Promise<void> {}

  private async provider(call: CallInfo, source: ProviderSource): Promise<NodeProvider> {
    try {
      return await this.loader.get(source);
    } catch (e) {
      if (e instanceof ProviderLoadError) {
        throw new ProviderResultError(`${call.operation} ${call.urn}: ${e.message}`);
      }
      throw e;
    }
  }

  /**
   * Check, Diff, Read and Delete: a user error is printed to stderr as
   * `${e}: ${e.stack}` (the secrets the request marks replaced, as in the
   * answer) and answered the way grpc-js answers a thrown value. Not printed
   * when the call's output goes to the engine: the error shown under the
   * resource already says where it was thrown, and the stack would show it
   * a second time, under the stack.
   */
  private async echoing<T>(call: CallInfo, body: () => Promise<T>): Promise<T> {
    try {
      return await this.loader.during(call, () => captured(call.output, body));
    } catch (e) {
      if (isHostError(e)) throw e;
      if (e instanceof UnresolvedModuleError) throw movedModuleMissing(call, e);
      const err = e as any;
      if (!call.output) console.error(redact(`${describeThrown(err)}: ${err?.stack}`, call.secrets()));
      const status = grpcJsStatus(err);
      throw new UserOperationError(status.code, status.details + this.where(call, err), undefined, status.trailers);
    }
  }

  /** Below a user error's text: where in the user's code it was thrown, and a hint for a common mistake (./user-frames.ts). */
  private where(call: CallInfo, err: unknown): string {
    return whereBlock(err, call.operation, call.urn, { textOf: (f) => this.loader.textOf(f), cwd: this.cwd });
  }

  /** Create and Update: nothing printed; UNKNOWN with the message, and the partial-create detail when `e.id` is set. */
  private async failing<T>(call: CallInfo, body: () => Promise<T>): Promise<T> {
    try {
      return await this.loader.during(call, () => captured(call.output, body));
    } catch (e) {
      if (isHostError(e)) throw e;
      if (e instanceof UnresolvedModuleError) throw movedModuleMissing(call, e);
      const err = e as any;
      const details = messageOf(err) + this.where(call, err);
      if (err !== null && typeof err === "object" && err.id) {
        throw new UserOperationError(grpc.status.UNKNOWN, details, {
          // Upstream writes the id only when it is a non-empty string: a numeric id arrives as "".
          id: wireString(err.id),
          properties: toStruct(call, call.operation.toLowerCase(), "error.properties", err.properties || {}),
          reasons: Array.from(err.reasons || [], String),
        });
      }
      throw new UserOperationError(grpc.status.UNKNOWN, details);
    }
  }
}

/**
 * `to` with the request bag's `__provider` set on it, as upstream sets it on
 * the object the user returned. A request without one (a type served by its
 * declaration alone) leaves the key alone: the state then holds none.
 */
function withProvider(to: Obj, from: Obj): Obj {
  return hasProvider(from) ? Object.assign(to, { [PROVIDER_KEY]: from[PROVIDER_KEY] }) : Object.assign(to);
}

function hasProvider(bag: Obj): boolean {
  return Object.prototype.hasOwnProperty.call(bag, PROVIDER_KEY);
}

/** A package module a method required by a path, found nowhere: named with the resource and the method, as at load. */
function movedModuleMissing(call: CallInfo, e: UnresolvedModuleError): ProviderResultError {
  return new ProviderResultError(`${call.operation} ${call.urn}: ${e.message}`);
}

function isHostError(e: unknown): boolean {
  return e instanceof ProviderResultError || e instanceof UserOperationError || e instanceof BadRequestError;
}

/**
 * A request bag as the provider's methods receive it. A Value with no kind
 * set in it is the request's fault, not the user's: a bad request naming the
 * method, the resource and where the Value is.
 */
function requestBag(call: CallInfo, name: string, bag: Bag): Obj {
  try {
    return structToJs(bag);
  } catch (e) {
    if (e instanceof UnsetValueError) {
      throw new BadRequestError(`${call.operation} ${call.urn || "(no urn)"}: ${unsetValueProblem(name, unsetValuePath(bag))}`);
    }
    throw e;
  }
}

/** grpc-js's serverErrorToStatus: an integer `code` (a real status, 1–16) is kept, with `details` if it is a string. */
function grpcJsStatus(err: any): UserOperationError {
  if (err === null || (typeof err !== "object" && typeof err !== "function")) {
    return new UserOperationError(grpc.status.UNKNOWN, String(err));
  }
  let code: number = grpc.status.UNKNOWN;
  let details = "message" in err ? String(err.message) : "Unknown Error";
  if (typeof err.code === "number" && Number.isInteger(err.code) && err.code >= 1 && err.code <= 16) {
    code = err.code;
    if (typeof err.details === "string") details = err.details;
  }
  const trailers = err.metadata instanceof grpc.Metadata ? err.metadata : undefined;
  return new UserOperationError(code, details, undefined, trailers);
}

function messageOf(err: any): string {
  if (err !== null && (typeof err === "object" || typeof err === "function")) {
    return err.message === undefined ? "" : String(err.message);
  }
  return String(err);
}

function describeThrown(err: unknown): string {
  try {
    return `${err}`;
  } catch {
    return Object.prototype.toString.call(err);
  }
}

/** A string field as the Node reference serializes it: a non-string or empty value becomes "". */
function wireString(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * Whether the provider has the method `name`: as upstream, a falsy member is
 * none (the default applies). A member that is there but no function is
 * refused naming it, where calling it would throw V8's `provider.check is not
 * a function`, naming neither the resource nor what the member is.
 */
function has(call: CallInfo, provider: NodeProvider, name: string): boolean {
  const member: unknown = (provider as Obj)[name];
  if (!member) return false;
  if (typeof member === "function") return true;
  throw new ProviderResultError(
    `${call.operation} ${call.urn}: the dynamic provider's ${name} is ${describeMember(member)}, not a function; ` +
      `a dynamic provider's methods must be functions (or left out)`,
  );
}

function describeMember(v: unknown): string {
  if (Array.isArray(v)) return "a list";
  switch (typeof v) {
    case "number": return `a number (${v})`;
    case "string": return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`;
    case "boolean": return String(v);
    case "object": return "an object";
    default: return `a ${typeof v}`;
  }
}

function expectObject(call: CallInfo, method: string, result: unknown): Obj {
  if (result === null || (typeof result !== "object" && typeof result !== "function")) {
    throw new ProviderResultError(
      `${call.operation} ${call.urn}: the dynamic provider's ${method} returned ${result === null ? "null" : typeof result}; ` +
        `it must return an object (${expectedShape[method]})`,
    );
  }
  return result as Obj;
}

const expectedShape: Record<string, string> = {
  check: "{ inputs?, failures? }",
  diff: "{ changes?, replaces?, deleteBeforeReplace? }",
  create: "{ id: string, outs? }",
  read: "{ id?, props?, inputs? }",
};

function createdId(call: CallInfo, id: unknown): string {
  if (typeof id === "string" && id.length > 0) return id;
  if (isThenable(id)) {
    throw new ProviderResultError(
      `${call.operation} ${call.urn}: the dynamic provider's create returned a Promise as its id; await it: ` +
        `create must return { id: string, outs? } with a non-empty string id`,
    );
  }
  const got = id === undefined ? "no id" : typeof id === "string" ? 'an empty id ("")' : `id ${String(id)} (a ${typeof id})`;
  throw new ProviderResultError(
    `${call.operation} ${call.urn}: the dynamic provider's create returned ${got}; create must return ` +
      `{ id: string, outs? } with a non-empty string id`,
  );
}

function isThenable(v: unknown): boolean {
  return v !== null && (typeof v === "object" || typeof v === "function") && typeof (v as { then?: unknown }).then === "function";
}

function replacesList(call: CallInfo, replaces: any): string[] {
  const out: string[] = [];
  // A string is walked character by character, as upstream's writer does.
  for (let i = 0; i < replaces.length; i++) {
    const r = replaces[i];
    if (typeof r !== "string") {
      throw new ProviderResultError(
        `${call.operation} ${call.urn}: the dynamic provider's diff returned replaces[${i}] = ${String(r)} (a ${typeof r}); ` +
          `replaces must be a list of property names`,
      );
    }
    out.push(r);
  }
  return out;
}

/** JS -> Struct; a value the wire cannot carry is reported with its path. */
function toStruct(call: CallInfo, method: string, what: string, value: unknown): WireStruct {
  if (isThenable(value)) {
    throw new ProviderResultError(
      `${call.operation} ${call.urn}: the dynamic provider's ${method} returned ${what} as a Promise, whose value would be lost; await it`,
    );
  }
  try {
    return jsToStruct(value);
  } catch (e) {
    if (e instanceof UnexpectedStructTypeError) {
      const advice = e.got === "a Promise" ? "await it" : "use null or leave the key out";
      throw new ProviderResultError(
        `${call.operation} ${call.urn}: the dynamic provider's ${method} returned ${what}${e.path} = ${e.got}, ` +
          `which cannot be sent to the engine (Unexpected struct type.); ${advice}`,
      );
    }
    if (e instanceof ValueTooDeepError) {
      const path = e.path.length > 120 ? `${e.path.slice(0, 120)}…` : e.path;
      throw new ProviderResultError(
        `${call.operation} ${call.urn}: the dynamic provider's ${method} returned ${what}${path}, a value nested more than ` +
          `${e.limit} levels deep (objects and lists within one another; a circular reference never ends), which cannot be sent to the engine`,
      );
    }
    throw e;
  }
}
