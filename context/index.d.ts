/**
 * The call context: the last argument pulumi-dynamic-host passes to every
 * method of a Node dynamic provider (docs/call-context.md). Declare it to use
 * it; a method that does not is called exactly as before.
 *
 *     import type { CallContext } from "pulumi-dynamic-host/context";
 *
 *     const provider: pulumi.dynamic.ResourceProvider = {
 *       async create(inputs: any, context?: CallContext) {
 *         context?.signal.throwIfAborted();
 *         ...
 *       },
 *     };
 *
 * The parameter is optional in your types: under Pulumi's own plugin (or an
 * older pulumi-dynamic-host) it is undefined.
 */
export interface CallContext {
  /** The method being called. */
  readonly operation: "check" | "diff" | "create" | "read" | "update" | "delete";
  /** The resource's URN. */
  readonly urn: string;
  /** The resource's name (the last part of its URN). */
  readonly name: string;
  /** The resource's type token, e.g. `pulumi-nodejs:dynamic:Resource`. */
  readonly type: string;
  /**
   * Whether the engine said this call is part of a preview: Create and Update
   * carry the flag (false in practice: the engine answers previews of creates
   * and updates itself); false for Delete; undefined for Check, Diff and Read,
   * whose requests do not say.
   */
  readonly preview: boolean | undefined;
  /** When the call's time is up (the resource's customTimeouts); undefined when it has none. */
  readonly deadline: Date | undefined;
  /**
   * Aborted when the engine cancels the call, its deadline passes, or the
   * engine cancels the deployment (Ctrl-C, or its end); the reason is an
   * Error saying which. For the first two the answer has then been sent, and
   * what the method returns afterwards is dropped.
   */
  readonly signal: AbortSignal;
  /** Delete: the resource's inputs as last deployed; undefined for the other methods. */
  readonly oldInputs: Record<string, any> | undefined;
}
