// The call context a Node provider's methods get as one more, last argument:
// which resource the call serves, whether the engine said it is a preview,
// when the call's time is up, and an AbortSignal. The shape users see is
// declared in context/index.d.ts (`pulumi-dynamic-host/context`) and
// described in docs/call-context.md; keep the three in step.
//
// Who calls: the Node adapter (./runtime.ts), once per provider method call.
// Existing providers are unaffected: an extra trailing argument is ignored by
// a function that does not declare it. What costs something is made on first
// read: the AbortController (and its link to the call's CallSignal), and the
// old inputs as JavaScript values.
import type { CallSignal } from "../host/limits/call-signal.js";
import type { CallInfo } from "../host/runtime.js";
import { structToJs } from "../host/wire/wire.js";

export type ContextOperation = "check" | "diff" | "create" | "read" | "update" | "delete";

/** The object a method receives; fields as context/index.d.ts declares them. */
export class CallContext {
  readonly operation: ContextOperation;
  readonly urn: string;
  readonly name: string;
  readonly type: string;
  readonly preview: boolean | undefined;
  readonly deadline: Date | undefined;
  #call: CallInfo;
  #deployment?: CallSignal;
  #controller?: AbortController;
  #oldInputs?: Record<string, unknown>;

  /** `deployment`: aborted by the engine's Cancel RPC, which concerns every call in flight. */
  constructor(call: CallInfo, deployment?: CallSignal) {
    this.#call = call;
    this.#deployment = deployment;
    this.operation = call.operation.toLowerCase() as ContextOperation;
    this.urn = call.urn;
    this.name = call.name ?? "";
    this.type = call.type ?? "";
    this.preview = call.preview;
    this.deadline = call.deadline === undefined ? undefined : new Date(call.deadline);
  }

  /**
   * Aborted when the engine cancels the call, its timeout passes, or the
   * engine cancels the whole deployment (Cancel: Ctrl-C, or its end);
   * `reason` says which. The listener on the deployment's signal stays until
   * that signal aborts (at the latest, the deployment's end).
   */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = (this.#controller = new AbortController());
      const abort = (reason: Error) => {
        if (!controller.signal.aborted) controller.abort(reason);
      };
      this.#call.signal.onAbort(abort);
      this.#deployment?.onAbort(abort);
    }
    return this.#controller.signal;
  }

  /** Delete: the resource's inputs as last deployed (as the methods' other bags are given); undefined elsewhere. */
  get oldInputs(): Record<string, unknown> | undefined {
    if (this.#call.oldInputs === undefined || this.#call.oldInputs === null) return undefined;
    return (this.#oldInputs ??= structToJs(this.#call.oldInputs));
  }

  /** What `console.log(context)` and JSON show: the fields, without the lazy ones' machinery. */
  toJSON(): Record<string, unknown> {
    return {
      operation: this.operation,
      urn: this.urn,
      name: this.name,
      type: this.type,
      preview: this.preview,
      deadline: this.deadline?.toISOString(),
      oldInputs: this.oldInputs,
    };
  }
}

