// The contract between the language-neutral core and a language adapter.
//
// The core decides which bag holds the provider, validates that the provider
// text is there, and builds every response; an adapter only loads the provider
// from its text, calls the user's method with the values its users expect, and
// returns a normalized outcome. Bags stay in wire form across this boundary,
// decoded or still encoded as the runtime's `bags` asks (AnyStruct): each
// adapter decodes them the way its reference plugin does, or passes them on.
import type { ComponentFolder } from "./components/component-folder.js";
import type { CallOutput } from "./engine/call-output.js";
import type { CallSignal } from "./limits/call-signal.js";
import type { Severity } from "./engine/engine-log.js";
import type { CheckFailure } from "./references/input-types.js";
import type { Language } from "./plugin/modes.js";
import type { ProviderReference } from "./references/provider-references.js";
import type { AnyStruct } from "./wire/wire.js";

/** The language a plugin serves (./plugin/modes.ts, where it is defined, so that the declarations can name it without this contract). */
export type { Language };

/** The resource operation an adapter is asked to perform. */
export type Operation = "Check" | "Diff" | "Create" | "Read" | "Update" | "Delete";

/** Who is asking: enough to name the resource and method in any error, and to abandon work. */
export interface CallInfo {
  operation: Operation;
  urn: string;
  /** Aborted when the engine cancels the call or the operation's timeout passes. */
  signal: CallSignal;
  /**
   * The plaintexts the request and the stack config mark secret
   * (./secrets/redaction.ts), to keep out of anything an adapter prints for this
   * call; worked out on each call, so read it only when printing.
   */
  secrets: () => readonly string[];
  /**
   * The request field a `props` argument came from, for messages naming it:
   * "properties" when unset; Read of a resource by id reads "inputs".
   */
  propsField?: string;
  /**
   * Sends a message about this call's resource to the engine (shown under
   * the resource; ./engine/engine-log.ts); unset when the call has no engine to tell.
   */
  log?: (severity: Severity, message: string) => void;
  /**
   * What the provider's call context tells the user's method (../node-dynamic/
   * call-context.ts, python-stub/call_context.py): the resource's name and
   * type as the request gives them, whether the engine said this is a preview
   * (Create and Update carry the flag, Delete never runs in one; unset where
   * the request does not say), when the call's timeout passes (ms since the
   * epoch; unset for none), and a Delete's old inputs.
   */
  name?: string;
  type?: string;
  preview?: boolean;
  deadline?: number;
  oldInputs?: Bag;
  /**
   * Where what the provider prints during this call goes (./engine/call-output.ts):
   * set while the engine's Log can be reached; unset, the adapter leaves the
   * provider's output on the plugin's stdout and stderr.
   */
  output?: CallOutput;
}

/** A bag of properties as the engine sent it; undefined when the request left it unset. */
export type Bag = AnyStruct | undefined;

/**
 * Where the provider of a call comes from: the text the SDK serialized into
 * the request (`__provider`), or the project's own code, named by a
 * declaration in Pulumi.yaml (./references/provider-references.ts).
 */
export type ProviderSource =
  | {
      text: string;
      reference?: undefined;
      /**
       * Set when the resource was created inside a multi-language component
       * whose plugin is a Node package (./components/component-folder.ts): the
       * text was serialized in that component's process, so its modules resolve
       * from the component's folder first. Only the Node adapter uses it.
       */
      component?: ComponentFolder;
    }
  | { reference: ProviderReference; text?: undefined; component?: undefined };

/** An input that failed a check (./references/input-types.ts, which makes most of them). */
export type { CheckFailure };

export interface CheckOutcome {
  inputs: AnyStruct;
  failures: CheckFailure[];
}

/** The diff tri-state every language maps onto. */
export type DiffChanges = "some" | "none" | "unknown";

export interface DiffOutcome {
  changes: DiffChanges;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /**
   * Set when the provider has no diff method of its own and the language's
   * default answered: the core may then settle a change of `__provider` alone
   * (./provider-text.ts). A user's diff always decides.
   */
  byDefault?: true;
}

export interface CreateOutcome {
  id: string;
  outs: AnyStruct;
}

export interface ReadOutcome {
  id: string;
  outs: AnyStruct;
  /** Set when the provider reported inputs; the engine then replaces the stored inputs. */
  inputs?: AnyStruct;
}

export interface UpdateOutcome {
  /**
   * The provider's outputs; unset when the provider has no update method of
   * its own, and the core keeps the resource's old outputs.
   */
  outs?: AnyStruct;
}

export interface DynamicRuntime {
  readonly language: Language;
  /**
   * How the host should hand this runtime the request bags: decoded, or as the
   * encoded bytes the engine sent (for a runtime that passes them on as they are).
   */
  readonly bags: "decoded" | "encoded";
  /** Stores the stack config for providers loaded from now on (Configure RPC). */
  configure(args: Bag): Promise<void>;
  check(call: CallInfo, provider: ProviderSource, olds: Bag, news: Bag): Promise<CheckOutcome>;
  diff(call: CallInfo, provider: ProviderSource, id: string, olds: Bag, news: Bag): Promise<DiffOutcome>;
  create(call: CallInfo, provider: ProviderSource, props: Bag): Promise<CreateOutcome>;
  read(call: CallInfo, provider: ProviderSource, id: string, props: Bag): Promise<ReadOutcome>;
  update(call: CallInfo, provider: ProviderSource, id: string, olds: Bag, news: Bag): Promise<UpdateOutcome>;
  delete(call: CallInfo, provider: ProviderSource, id: string, props: Bag): Promise<void>;
  /**
   * Whether `text` is the `__provider` a program that passes `reference` with
   * the host's reference helper writes (read without running it): the state
   * or the program already runs the project's code.
   */
  isReferenceText(text: string, reference: ProviderReference): boolean;
  /**
   * The engine's Cancel RPC: ask every in-flight operation that can be
   * interrupted to stop (they then answer with an error); others finish.
   */
  cancelAll(): void;
  /** Releases processes and handles; the host calls it once on shutdown. */
  close(): Promise<void>;
}
