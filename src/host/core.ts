// The semantics both languages share: which bag holds the provider, the
// package cross-check, `__provider` carried into outputs and inputs, and the
// response of every resource RPC. Requests and responses are plain objects in
// the shape of our .proto, their bags decoded or still encoded (AnyStruct); the
// runtime does the language-specific part.
import * as grpc from "@grpc/grpc-js";
import { ComponentFolders, type ComponentFolder } from "./components/component-folder.js";
import { CallOutputs } from "./engine/call-output.js";
import { CallSignal } from "./limits/call-signal.js";
import { armDeadline } from "./limits/deadline.js";
import { diffResponse, type DiffResponseFields } from "./diff.js";
import { NO_ENGINE_LOG, type EngineLog, type Severity } from "./engine/engine-log.js";
import { BadRequestError, CancelledError, ProviderResultError } from "./errors.js";
import type { Mode } from "./plugin/modes.js";
import { DeclarationError, ProviderReferences, type ProviderReference } from "./references/provider-references.js";
import { checkInputs } from "./references/input-types.js";
import { packageSchema, SchemaError } from "./references/package-schema.js";
import { findProjectRoot } from "./references/project-root.js";
import { ParameterError } from "./packages/parameters.js";
import { PackageError } from "./packages/provider-package.js";
import { RegistryError, type Registry } from "./packages/registry-install.js";
import { ServedPackages, type ParameterizeFields, type ServedPackage } from "./packages/served-packages.js";
import { onlyProviderDiffers, onlyProviderLayoutChanged } from "./provider-text.js";
import { redact } from "./secrets/redaction.js";
import { annotateSecrets } from "./secrets/secret-inputs.js";
import type { Bag, CallInfo, CheckFailure, DynamicRuntime, Operation, ProviderSource } from "./runtime.js";
import { StructBytesError } from "./wire/struct-bytes.js";
import {
  PROVIDER_KEY,
  UNKNOWN_STRING_SENTINEL,
  carryField,
  describeValue,
  isEmptyStruct,
  rawField,
  stringField,
  structToJs,
  withoutField,
  type AnyStruct,
} from "./wire/wire.js";

interface ResourceRequest {
  urn?: string;
  type?: string;
  name?: string;
  /** Create and Update: the engine's preview flag. */
  preview?: boolean;
  /** Seconds the engine is prepared to wait (Create, Update, Delete; customTimeouts). 0 or unset: no limit. */
  timeout?: number;
  /** The plaintexts the request and the config mark secret (CallInfo.secrets); none when unset. */
  secrets?: () => readonly string[];
  /**
   * The request's bags that held secrets, as they came (secrets wrapped), by
   * field name; the bags themselves have them unwrapped (./secrets/secret-inputs.ts).
   */
  secretBags?: Record<string, AnyStruct>;
}
export interface CheckRequest extends ResourceRequest { olds?: AnyStruct; news?: AnyStruct }
export interface DiffRequest extends ResourceRequest { id?: string; olds?: AnyStruct; news?: AnyStruct; old_inputs?: AnyStruct }
export interface CreateRequest extends ResourceRequest { properties?: AnyStruct }
export interface ReadRequest extends ResourceRequest { id?: string; properties?: AnyStruct; inputs?: AnyStruct }
export interface UpdateRequest extends ResourceRequest { id?: string; olds?: AnyStruct; news?: AnyStruct }
export interface DeleteRequest extends ResourceRequest { id?: string; properties?: AnyStruct; old_inputs?: AnyStruct }

export interface CheckResponse { inputs: AnyStruct; failures: CheckFailure[] }
export interface CreateResponse { id: string; properties: AnyStruct }
export interface ReadResponse { id: string; properties: AnyStruct; inputs?: AnyStruct }
export interface UpdateResponse { properties: AnyStruct }

export interface CoreOptions {
  /** The plugin's working directory: the project's declarations are found from here (default: process.cwd()). */
  cwd?: string;
  /** Where messages about a resource go (default: nowhere). */
  engineLog?: EngineLog;
  /** The plugin's version (GetPluginInfo's): a parameterized package's schema names it as its base provider's. */
  pluginVersion?: () => string;
  /** Where Parameterize installs registry packages from (npm for Node, a Python index for Python), or why it cannot. */
  registry?: Registry;
  /** The environment the engine started the plugin with, for finding a component's plugin (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The operations that run the project's code instead of the state's when a type's declaration asks (latestCode). */
const LATEST_CODE_OPERATIONS: ReadonlySet<Operation> = new Set(["Read", "Update", "Delete", "Diff"]);

/** A call's provider: the request's serialized text, or the type's declaration. */
interface Sourced {
  source: ProviderSource;
}

export class DynamicCore {
  private readonly cwd: string;
  private readonly engineLog: EngineLog;
  private readonly outputs: CallOutputs;
  private references?: Promise<ProviderReferences>;
  /** The declared types whose requests without `__provider` have been said to run their declaration. */
  private readonly saidDeclared = new Set<string>();
  /** The provider packages Parameterize asked this process to serve (./packages/served-packages.ts). */
  readonly packages: ServedPackages;
  private readonly pluginVersion: () => string;
  /** The components (by package) of resources served so far; Node only (./components/component-folder.ts). */
  private readonly components?: ComponentFolders;
  private readonly saidComponent = new Set<string>();

  constructor(
    readonly mode: Mode,
    readonly runtime: DynamicRuntime,
    opts: CoreOptions = {},
  ) {
    this.cwd = opts.cwd ?? process.cwd();
    this.engineLog = opts.engineLog ?? NO_ENGINE_LOG;
    this.outputs = new CallOutputs(this.engineLog);
    this.packages = new ServedPackages(mode, this.cwd, opts.registry);
    this.pluginVersion = opts.pluginVersion ?? (() => "0.0.0");
    if (mode.language === "nodejs") this.components = new ComponentFolders({ projectRoot: findProjectRoot(this.cwd), env: opts.env ?? process.env });
  }

  /** Parameterize: the package its arguments or value name, served from here on; its name and version. */
  async parameterize(req: ParameterizeFields): Promise<{ name: string; version: string }> {
    try {
      return await this.packages.parameterize(req);
    } catch (e) {
      if (!(e instanceof ParameterError || e instanceof PackageError)) throw e;
      throw new BadRequestError(`Parameterize: ${e.message}`, grpc.status.INVALID_ARGUMENT);
    }
  }

  configure(args: Bag): Promise<void> {
    return this.runtime.configure(args);
  }

  async check(req: CheckRequest, signal: CallSignal): Promise<CheckResponse> {
    const call = this.callInfo("Check", req, signal);
    const { source } = await this.newOrOldProvider(call, req, req.olds, req.news);
    // A typed declaration's inputs are checked before any provider code runs (./references/input-types.ts); for serialized
    // code, a section that cannot be read stays the concern of the requests that need it.
    const typed = (source.reference ?? (await this.declared(call, req).catch(() => undefined)))?.types;
    if (typed && typed.inputs.size > 0) {
      const mismatches = checkInputs(typed.inputs, this.inspect(call, "news", () => structToJs(req.news)));
      if (mismatches.length) return { inputs: withSecrets(req, req.news ?? { fields: {} }, "news"), failures: mismatches };
    }
    const outcome = await this.run(call, req, () => this.runtime.check(call, source, req.olds, req.news));
    const inputs = withSecrets(req, carry(outcome.inputs, req.news), "news");
    // The engine shows a failure's reason as an error of the resource: the call's secrets are kept out of it too.
    const failures = outcome.failures.map((f) => ({ property: f.property, reason: redact(f.reason, call.secrets()) }));
    return { inputs, failures };
  }

  async diff(req: DiffRequest, signal: CallSignal): Promise<DiffResponseFields> {
    const call = this.callInfo("Diff", req, signal);
    const { source } = await this.newOrOldProvider(call, req, req.olds, req.news);
    const outcome = await this.run(call, req, () => this.runtime.diff(call, source, req.id ?? "", req.olds, req.news));
    // Without a diff of the user's, a __provider whose text changed only in its layout is no change (./provider-text.ts),
    // nor is one that names the type's declared reference coming or going (an import, then a program passing the reference).
    if (outcome.byDefault && (await this.sameProvider(call, req))) return diffResponse({ ...outcome, changes: "none" });
    return diffResponse(outcome);
  }

  async create(req: CreateRequest, signal: CallSignal): Promise<CreateResponse> {
    const call = this.callInfo("Create", req, signal);
    const { source } = await this.provider(call, req, req.properties, "properties");
    const outcome = await this.run(call, req, () => this.runtime.create(call, source, req.properties));
    return { id: outcome.id, properties: withSecrets(req, carry(outcome.outs, req.properties), "properties") };
  }

  async read(req: ReadRequest, signal: CallSignal): Promise<ReadResponse> {
    const call = this.callInfo("Read", req, signal);
    // Refresh sends the state in `properties`; a user-driven get sends only `inputs`.
    const useInputs = this.inspect(call, "properties", () => isEmptyStruct(req.properties)) && req.inputs !== undefined && req.inputs !== null;
    const props = useInputs ? req.inputs : req.properties;
    if (useInputs) call.propsField = "inputs";
    // An import: the engine reads a resource it has no state for, sending neither state nor inputs.
    const importing = !useInputs && isEmptyStruct(req.properties) && isEmptyStruct(req.inputs);
    const { source } = await this.provider(call, req, props, useInputs ? "inputs" : "properties", importing);
    const outcome = await this.run(call, req, () => this.runtime.read(call, source, req.id ?? "", props));
    if (importing && !outcome.inputs && outcome.id !== "") {
      throw new ProviderResultError(
        `Read ${call.urn}: the resource is being imported, and the read of ${source.reference?.reference ?? "its provider"} returned ` +
          `its outputs but no inputs; the engine imports a resource only with both. Return them from read: ` +
          (this.mode.language === "nodejs" ? "{ id, props, inputs }" : "ReadResult(id, outs, inputs)"),
      );
    }
    const resp: ReadResponse = { id: outcome.id, properties: withSecrets(req, carry(outcome.outs, props), "properties") };
    if (outcome.inputs) resp.inputs = withSecrets(req, carry(outcome.inputs, props), "inputs");
    return resp;
  }

  async update(req: UpdateRequest, signal: CallSignal): Promise<UpdateResponse> {
    const call = this.callInfo("Update", req, signal);
    // The new code runs an update: news always holds the provider (no unknowns outside preview).
    const { source } = await this.provider(call, req, req.news, "news");
    const outcome = await this.run(call, req, () => this.runtime.update(call, source, req.id ?? "", req.olds, req.news));
    // A provider without update keeps its outputs (as the engine sent them, unknowns and secrets included), with the new code;
    // a type served by its declaration alone keeps none of the state's __provider.
    const kept = outcome.outs ?? req.secretBags?.olds ?? req.olds ?? { fields: {} };
    const outs = outcome.outs || rawField(req.news, PROVIDER_KEY) !== undefined ? kept : withoutField(kept, PROVIDER_KEY);
    return { properties: withSecrets(req, carry(outs, req.news), "news") };
  }

  async delete(req: DeleteRequest, signal: CallSignal): Promise<void> {
    const call = this.callInfo("Delete", req, signal);
    call.oldInputs = req.old_inputs;
    // The state's provider, i.e. the code that created or last updated the resource (unless the project declares latestCode).
    const { source } = await this.provider(call, req, req.properties, "properties");
    await this.run(call, req, () => this.runtime.delete(call, source, req.id ?? "", req.properties));
  }

  /**
   * The package schema of the types the project declares for this plugin's
   * package, as JSON (./references/package-schema.ts); undefined when it declares none.
   */
  async schema(subpackage?: { name: string; version: string }): Promise<string | undefined> {
    if (subpackage?.name) return this.packageSchema(subpackage.name, subpackage.version);
    try {
      const declared = (await this.declarations()).all();
      return declared.length === 0 ? undefined : JSON.stringify(packageSchema(declared, { name: this.mode.package }));
    } catch (e) {
      if (!(e instanceof DeclarationError || e instanceof SchemaError)) throw e;
      throw new BadRequestError(`GetSchema: ${e.message}`, grpc.status.FAILED_PRECONDITION);
    }
  }

  /**
   * The schema of a package Parameterize named: its name and version, and its
   * parameterization (this plugin as the base provider, the value restoring the
   * package), which `pulumi package add` writes into the SDK it generates.
   */
  private packageSchema(name: string, version: string): string {
    const pkg = this.packages.get(name);
    if (!pkg) {
      throw new BadRequestError(`GetSchema: the schema of ${name} was asked for, and Parameterize has not named that package in this plugin process`, grpc.status.INVALID_ARGUMENT);
    }
    if (version && version !== pkg.version) {
      throw new BadRequestError(`GetSchema: the schema of ${name} ${version} was asked for, and this process serves ${name} ${pkg.version}`, grpc.status.INVALID_ARGUMENT);
    }
    try {
      const schema = packageSchema(pkg.references.all(), {
        name: pkg.name,
        version: pkg.version,
        description: `The provider package ${pkg.distribution || pkg.name} ${pkg.version}, served by pulumi-dynamic-host.`,
        parameterization: { baseProvider: { name: this.mode.package, version: this.pluginVersion() }, parameter: pkg.value.toString("base64") },
      });
      return JSON.stringify(schema);
    } catch (e) {
      if (!(e instanceof DeclarationError || e instanceof SchemaError)) throw e;
      throw new BadRequestError(`GetSchema: ${e.message}`, grpc.status.FAILED_PRECONDITION);
    }
  }

  /** The engine's Cancel: every in-flight operation that can be interrupted is asked to stop. */
  cancel(): void {
    this.runtime.cancelAll();
  }

  /**
   * Runs one operation (settle), with what the provider prints meanwhile
   * routed to the engine under the resource (./engine/call-output.ts) when the
   * engine can be reached; its last lines are sent before the answer.
   */
  private async run<T>(call: CallInfo, req: ResourceRequest, work: () => Promise<T>): Promise<T> {
    const output = await this.outputs.open(call.urn, call.secrets);
    if (!output) return this.settle(call, req, work);
    call.output = output;
    try {
      return await this.settle(call, req, work);
    } finally {
      await output.close();
    }
  }

  /**
   * Runs one operation until it settles or its call is abandoned (the engine
   * cancelled the RPC, or the request's timeout passed): then the answer is
   * the abort reason at once, and a late result is dropped. The timeout is
   * armed here, not when the call is named, so a request refused before its
   * operation starts leaves no timer behind; it is disarmed when the
   * operation settles.
   */
  private settle<T>(call: CallInfo, req: ResourceRequest, work: () => Promise<T>): Promise<T> {
    const signal = call.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const off = signal.onAbort(reject);
      const disarm = armDeadline(timeLimitMs(req), () => {
        signal.abort(
          new CancelledError(
            `${call.operation} ${call.urn}: did not finish within the ${req.timeout} s timeout set for this resource (customTimeouts); ` +
              `the provider was asked to stop, and code that cannot be interrupted may still be running`,
            grpc.status.DEADLINE_EXCEEDED,
          ),
        );
      });
      const done = () => {
        off();
        disarm();
      };
      work().then(
        (v) => {
          done();
          resolve(v);
        },
        (e) => {
          done();
          reject(e);
        },
      );
    });
  }

  /**
   * Names the call and refuses a resource of the other language's package. A
   * call with a time limit gets a signal of its own (fed by the engine's
   * cancellation) that run() aborts when the limit passes.
   */
  private callInfo(operation: Operation, req: ResourceRequest, signal: CallSignal): CallInfo {
    const urn = req.urn ?? "";
    for (const token of [req.type ?? "", typeOfUrn(urn)]) {
      const pkg = token.includes(":") ? token.slice(0, token.indexOf(":")) : "";
      if (pkg !== "" && pkg !== this.mode.package && !this.packages.get(pkg)) {
        throw new BadRequestError(
          `${operation} ${urn || token}: this plugin (${this.mode.binary}) serves ${this.mode.package} resources, ` +
            `but the request is for type ${token} of package ${pkg}; the engine should have launched pulumi-resource-${pkg}`,
        );
      }
    }
    const secrets = req.secrets ?? noSecrets;
    const preview = operation === "Delete" ? false : req.preview;
    const log = (severity: Severity, message: string) => this.engineLog.log(severity, urn, message);
    const identity = { operation, urn, secrets, log, name: req.name || nameOfUrn(urn), type: req.type || typeOfUrn(urn), preview };
    const limit = timeLimitMs(req);
    if (limit === 0) return { ...identity, signal };
    const limited = new CallSignal();
    signal.onAbort((reason) => limited.abort(reason));
    return { ...identity, signal: limited, deadline: Date.now() + limit };
  }

  /**
   * The provider of a call: the serialized text in `bag`; or, when the
   * request carries none (an import), the project's declared reference for
   * the type, or else a clear error naming the resource, method and property
   * and saying what to declare; or, for a type whose declaration asks for the
   * latest code, that reference in place of the state's text.
   */
  private async provider(call: CallInfo, req: ResourceRequest, bag: Bag, bagName: string, importing = false): Promise<Sourced> {
    const text = this.inspect(call, bagName, () => stringField(bag, PROVIDER_KEY));
    if (text !== undefined) return this.latestCode(call, req, text);
    const what = describeValue(rawField(bag, PROVIDER_KEY));
    if (what === "missing") {
      const reference = await this.declared(call, req);
      if (reference) {
        // Said for every import, and once per type otherwise: a program of another language sends no
        // __provider in any request, and a debug line per request would cost the engine a message each.
        if (importing || !this.saidDeclared.has(reference.typeToken)) {
          this.saidDeclared.add(reference.typeToken);
          this.engineLog.log(
            "debug",
            call.urn,
            `${call.operation}: the request carries no ${PROVIDER_KEY}${importing ? " (an import)" : ""}; ` +
              `running ${reference.reference}, declared for ${reference.typeToken} in ${reference.declaredIn}`,
          );
        }
        return { source: { reference } };
      }
    }
    const problem = what === "missing" ? "has no" : `has ${what} as its`;
    let message =
      `${call.operation} ${call.urn || "(no urn)"}: the request's ${bagName} ${problem} "${PROVIDER_KEY}" property, ` +
      `so the dynamic provider cannot be loaded; ${PROVIDER_KEY} must be the serialized provider the SDK writes ` +
      `into every dynamic resource`;
    const typeToken = this.typeToken(call, req);
    const references = what === "missing" && typeToken ? (this.servedFor(typeToken)?.references ?? (await this.declarations())) : undefined;
    // The way to declare is said for an import, and wherever there is a project file to declare it in.
    if (references && (importing || references.file)) {
      message += importing
        ? `. The resource is being imported: the engine sends only its id, no inputs and no state, so no serialized ` +
          `provider exists yet. To import a ${typeToken}, ${references.howToDeclare(typeToken)}`
        : `, or the type must be declared: a program that registers ${typeToken} without serialized code (a program in ` +
          `another language, or the DeclaredResource helper) is served by the project's declaration of it; to serve it, ` +
          references.howToDeclare(typeToken);
    }
    throw new BadRequestError(message, grpc.status.UNKNOWN);
  }

  /**
   * Check and Diff load from news, or from olds when the new provider is not
   * known yet (preview of a changed closure); news is read once.
   */
  private newOrOldProvider(call: CallInfo, req: ResourceRequest, olds: Bag, news: Bag): Promise<Sourced> {
    const text = this.inspect(call, "news", () => stringField(news, PROVIDER_KEY));
    if (text === UNKNOWN_STRING_SENTINEL) return this.provider(call, req, olds, "olds");
    if (text !== undefined) return this.latestCode(call, req, text);
    return this.provider(call, req, news, "news");
  }

  /**
   * `text` from the request, unless the type's declaration asks for the
   * project's latest code (Read, Update, Delete, Diff): then the reference,
   * said in a debug line, and for a Delete whose state holds other code than
   * the reference, in a warning.
   */
  private async latestCode(call: CallInfo, req: ResourceRequest, text: string): Promise<Sourced> {
    if (!LATEST_CODE_OPERATIONS.has(call.operation)) return { source: { text, component: await this.componentOf(call) } };
    const reference = await this.declared(call, req);
    if (!reference?.latestCode || this.runtime.isReferenceText(text, reference)) return { source: { text, component: await this.componentOf(call) } };
    const what = `running the project's ${reference.reference} (latestCode, ${reference.declaredIn})`;
    this.engineLog.log("debug", call.urn, `${call.operation}: ${what} instead of the provider serialized in the state`);
    if (call.operation === "Delete") {
      this.engineLog.log(
        "warning",
        call.urn,
        `deleting with the project's current code (${reference.reference}) rather than the code serialized in the ` +
          `state at the last update, which differs from it; latestCode is set in ${reference.declaredIn}`,
      );
    }
    return { source: { reference } };
  }

  /**
   * The multi-language component the call's resource was created in, when its
   * plugin is a Node package: the serialized text came from that component's
   * process, and its modules resolve from there. Said in a debug line once per
   * component package.
   */
  private async componentOf(call: CallInfo): Promise<ComponentFolder | undefined> {
    const component = await this.components?.of(call.urn);
    if (component && !this.saidComponent.has(component.package)) {
      this.saidComponent.add(component.package);
      this.engineLog.log(
        "debug",
        call.urn,
        `${call.operation}: the resource was created in component ${component.componentType}; its serialized provider's modules ` +
          `resolve from the component's folder ${component.dir} (the package of ${component.plugin}, found through ${component.foundBy}), then the program's`,
      );
    }
    return component;
  }

  /** The project's declarations, read on first need. */
  private declarations(): Promise<ProviderReferences> {
    return (this.references ??= ProviderReferences.load(this.cwd, this.mode.language, this.mode.package));
  }

  /** The provider package serving a type token's package, once Parameterize named it. */
  private servedFor(typeToken: string): ServedPackage | undefined {
    return this.packages.get(typeToken.slice(0, Math.max(0, typeToken.indexOf(":"))));
  }

  /** The request's type token: its `type`, or the type in its URN. */
  private typeToken(call: CallInfo, req: ResourceRequest): string {
    return req.type || typeOfUrn(call.urn);
  }

  /** The declaration for the request's type, if any; a malformed declaration is an error naming the file. */
  private async declared(call: CallInfo, req: ResourceRequest): Promise<ProviderReference | undefined> {
    const typeToken = this.typeToken(call, req);
    if (!typeToken) return undefined;
    try {
      const served = this.servedFor(typeToken);
      if (served) {
        await served.prepare?.().catch((e: unknown) => {
          if (!(e instanceof RegistryError)) throw e;
          throw new BadRequestError(`${call.operation} ${call.urn || typeToken}: ${e.message}`, grpc.status.UNKNOWN);
        });
        return served.references.lookup(typeToken);
      }
      return (await this.declarations()).lookup(typeToken);
    } catch (e) {
      if (!(e instanceof DeclarationError)) throw e;
      throw new BadRequestError(`${call.operation} ${call.urn || typeToken}: ${e.message}`, grpc.status.UNKNOWN);
    }
  }

  /**
   * Whether a default diff's change of inputs is in `__provider` alone and
   * changes no code: its text differs only in layout, or it comes or goes
   * where the state or the program holds the reference that the type's
   * declaration names (a program passing the declared reference, against a
   * state written by the declaration alone, e.g. by an import).
   */
  private async sameProvider(call: CallInfo, req: DiffRequest): Promise<boolean> {
    if (this.inspect(call, "old_inputs", () => onlyProviderLayoutChanged(req.old_inputs, req.news))) return true;
    const texts = this.inspect(call, "old_inputs", () => [stringField(req.old_inputs, PROVIDER_KEY), stringField(req.news, PROVIDER_KEY)]);
    const [before, after] = texts;
    if ((before === undefined) === (after === undefined)) return false;
    const reference = await this.declared(call, req);
    if (!reference || !this.runtime.isReferenceText((before ?? after)!, reference)) return false;
    return this.inspect(call, "old_inputs", () => onlyProviderDiffers(req.old_inputs, req.news));
  }

  /** Reads a request bag; one that is still encoded and turns out malformed is a bad request naming it. */
  private inspect<T>(call: CallInfo, bagName: string, read: () => T): T {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof StructBytesError)) throw e;
      throw new BadRequestError(`${call.operation} ${call.urn || "(no urn)"}: the request's ${bagName} is ${e.message}`, grpc.status.INVALID_ARGUMENT);
    }
  }
}

const noSecrets = (): readonly string[] => [];

/** `outs` with the request bag's `__provider` carried over exactly as it came; none when the bag had none. */
function carry(outs: AnyStruct, from: Bag): AnyStruct {
  return carryField(outs, from, PROVIDER_KEY);
}

/**
 * A result with secretness carried over from the request's bag `field`, when
 * that bag held secrets (as the engine does for a plugin that does not accept
 * them: ./secrets/secret-inputs.ts).
 */
function withSecrets(req: ResourceRequest, result: AnyStruct, field: string): AnyStruct {
  const wrapped = req.secretBags?.[field];
  return wrapped ? annotateSecrets(result, wrapped) : result;
}

/**
 * The request's time limit in milliseconds, or 0 for none: any positive
 * number of seconds whose milliseconds are finite, however long (a deadline
 * of any length is kept, ./limits/deadline.ts); 0, unset, negative or NaN mean none.
 */
function timeLimitMs(req: ResourceRequest): number {
  const ms = (req.timeout ?? 0) * 1000;
  return ms > 0 && Number.isFinite(ms) ? ms : 0;
}

/** The name in a URN (its last "::"-separated part), or "". */
function nameOfUrn(urn: string): string {
  const i = urn.lastIndexOf("::");
  return i < 0 ? "" : urn.slice(i + 2);
}

/** The type token of a URN (urn:pulumi:stack::project::parent$type::name), or "". */
export function typeOfUrn(urn: string): string {
  // The third "::"-separated part, found without splitting the whole URN on every request.
  const afterStack = urn.indexOf("::");
  const afterProject = afterStack < 0 ? -1 : urn.indexOf("::", afterStack + 2);
  const afterType = afterProject < 0 ? -1 : urn.indexOf("::", afterProject + 2);
  if (afterType < 0) return "";
  const qualified = urn.slice(afterProject + 2, afterType);
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}
