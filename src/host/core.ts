// The semantics both languages share: which bag holds the provider, the
// package cross-check, `__provider` carried into outputs and inputs, and the
// response of every resource RPC. Requests and responses are plain objects in
// the shape of our .proto, their bags decoded or still encoded (AnyStruct); the
// runtime does the language-specific part.
import * as grpc from "@grpc/grpc-js";
import { CallSignal } from "./call-signal.js";
import { armDeadline } from "./deadline.js";
import { diffResponse, type DiffResponseFields } from "./diff.js";
import { BadRequestError, CancelledError } from "./errors.js";
import type { Mode } from "./modes.js";
import type { Bag, CallInfo, CheckFailure, DynamicRuntime, Operation } from "./runtime.js";
import { StructBytesError } from "./struct-bytes.js";
import {
  PROVIDER_KEY,
  UNKNOWN_STRING_SENTINEL,
  carryField,
  describeValue,
  isEmptyStruct,
  rawField,
  stringField,
  type AnyStruct,
} from "./wire.js";

interface ResourceRequest {
  urn?: string;
  type?: string;
  /** Seconds the engine is prepared to wait (Create, Update, Delete; customTimeouts). 0 or unset: no limit. */
  timeout?: number;
  /** The plaintexts the request and the config mark secret (CallInfo.secrets); none when unset. */
  secrets?: () => readonly string[];
}
export interface CheckRequest extends ResourceRequest { olds?: AnyStruct; news?: AnyStruct }
export interface DiffRequest extends ResourceRequest { id?: string; olds?: AnyStruct; news?: AnyStruct }
export interface CreateRequest extends ResourceRequest { properties?: AnyStruct }
export interface ReadRequest extends ResourceRequest { id?: string; properties?: AnyStruct; inputs?: AnyStruct }
export interface UpdateRequest extends ResourceRequest { id?: string; olds?: AnyStruct; news?: AnyStruct }
export interface DeleteRequest extends ResourceRequest { id?: string; properties?: AnyStruct }

export interface CheckResponse { inputs: AnyStruct; failures: CheckFailure[] }
export interface CreateResponse { id: string; properties: AnyStruct }
export interface ReadResponse { id: string; properties: AnyStruct; inputs?: AnyStruct }
export interface UpdateResponse { properties: AnyStruct }

export class DynamicCore {
  constructor(
    readonly mode: Mode,
    readonly runtime: DynamicRuntime,
  ) {}

  configure(args: Bag): Promise<void> {
    return this.runtime.configure(args);
  }

  async check(req: CheckRequest, signal: CallSignal): Promise<CheckResponse> {
    const call = this.callInfo("Check", req, signal);
    const provider = this.newOrOldProvider(call, req.olds, req.news);
    const outcome = await this.run(call, req, () => this.runtime.check(call, provider, req.olds, req.news));
    return { inputs: carryProvider(outcome.inputs, req.news), failures: outcome.failures };
  }

  async diff(req: DiffRequest, signal: CallSignal): Promise<DiffResponseFields> {
    const call = this.callInfo("Diff", req, signal);
    const provider = this.newOrOldProvider(call, req.olds, req.news);
    return diffResponse(await this.run(call, req, () => this.runtime.diff(call, provider, req.id ?? "", req.olds, req.news)));
  }

  async create(req: CreateRequest, signal: CallSignal): Promise<CreateResponse> {
    const call = this.callInfo("Create", req, signal);
    const provider = this.providerText(call, req.properties, "properties");
    const outcome = await this.run(call, req, () => this.runtime.create(call, provider, req.properties));
    return { id: outcome.id, properties: carryProvider(outcome.outs, req.properties) };
  }

  async read(req: ReadRequest, signal: CallSignal): Promise<ReadResponse> {
    const call = this.callInfo("Read", req, signal);
    // Refresh sends the state in `properties`; a user-driven get sends only `inputs`.
    const useInputs = this.inspect(call, "properties", () => isEmptyStruct(req.properties)) && req.inputs !== undefined && req.inputs !== null;
    const props = useInputs ? req.inputs : req.properties;
    if (useInputs) call.propsField = "inputs";
    const provider = this.providerText(call, props, useInputs ? "inputs" : "properties");
    const outcome = await this.run(call, req, () => this.runtime.read(call, provider, req.id ?? "", props));
    const resp: ReadResponse = { id: outcome.id, properties: carryProvider(outcome.outs, props) };
    if (outcome.inputs) resp.inputs = carryProvider(outcome.inputs, props);
    return resp;
  }

  async update(req: UpdateRequest, signal: CallSignal): Promise<UpdateResponse> {
    const call = this.callInfo("Update", req, signal);
    // The new code runs an update: news always holds the provider (no unknowns outside preview).
    const provider = this.providerText(call, req.news, "news");
    const outcome = await this.run(call, req, () => this.runtime.update(call, provider, req.id ?? "", req.olds, req.news));
    return { properties: carryProvider(outcome.outs, req.news) };
  }

  async delete(req: DeleteRequest, signal: CallSignal): Promise<void> {
    const call = this.callInfo("Delete", req, signal);
    // The state's provider, i.e. the code that created or last updated the resource.
    const provider = this.providerText(call, req.properties, "properties");
    await this.run(call, req, () => this.runtime.delete(call, provider, req.id ?? "", req.properties));
  }

  /** The engine's Cancel: every in-flight operation that can be interrupted is asked to stop. */
  cancel(): void {
    this.runtime.cancelAll();
  }

  /**
   * Runs one operation until it settles or its call is abandoned (the engine
   * cancelled the RPC, or the request's timeout passed): then the answer is
   * the abort reason at once, and a late result is dropped. The timeout is
   * armed here, not when the call is named, so a request refused before its
   * operation starts leaves no timer behind; it is disarmed when the
   * operation settles.
   */
  private run<T>(call: CallInfo, req: ResourceRequest, work: () => Promise<T>): Promise<T> {
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
      if (pkg !== "" && pkg !== this.mode.package) {
        throw new BadRequestError(
          `${operation} ${urn || token}: this plugin (${this.mode.binary}) serves ${this.mode.package} resources, ` +
            `but the request is for type ${token} of package ${pkg}; the engine should have launched pulumi-resource-${pkg}`,
        );
      }
    }
    const secrets = req.secrets ?? noSecrets;
    if (timeLimitMs(req) === 0) return { operation, urn, signal, secrets };
    const limited = new CallSignal();
    signal.onAbort((reason) => limited.abort(reason));
    return { operation, urn, signal: limited, secrets };
  }

  /** The serialized provider text in `bag`, or a clear error naming the resource, method and property. */
  private providerText(call: CallInfo, bag: Bag, bagName: string): string {
    const text = this.inspect(call, bagName, () => stringField(bag, PROVIDER_KEY));
    if (text !== undefined) return text;
    const what = describeValue(rawField(bag, PROVIDER_KEY));
    const problem = what === "missing" ? "has no" : `has ${what} as its`;
    throw new BadRequestError(
      `${call.operation} ${call.urn || "(no urn)"}: the request's ${bagName} ${problem} "${PROVIDER_KEY}" property, ` +
        `so the dynamic provider cannot be loaded; ${PROVIDER_KEY} must be the serialized provider the SDK writes ` +
        `into every dynamic resource`,
      grpc.status.UNKNOWN,
    );
  }

  /**
   * Check and Diff load from news, or from olds when the new provider is not
   * known yet (preview of a changed closure); news is read once.
   */
  private newOrOldProvider(call: CallInfo, olds: Bag, news: Bag): string {
    const text = this.inspect(call, "news", () => stringField(news, PROVIDER_KEY));
    if (text === UNKNOWN_STRING_SENTINEL) return this.providerText(call, olds, "olds");
    return text ?? this.providerText(call, news, "news");
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

/**
 * The request's time limit in milliseconds, or 0 for none: any positive
 * number of seconds whose milliseconds are finite, however long (a deadline
 * of any length is kept, ./deadline.ts); 0, unset, negative or NaN mean none.
 */
function timeLimitMs(req: ResourceRequest): number {
  const ms = (req.timeout ?? 0) * 1000;
  return ms > 0 && Number.isFinite(ms) ? ms : 0;
}

/** `outs` with the request bag's `__provider` value set (or overwritten), exactly as it came in. */
function carryProvider(outs: AnyStruct, from: Bag): AnyStruct {
  return carryField(outs, from, PROVIDER_KEY);
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
