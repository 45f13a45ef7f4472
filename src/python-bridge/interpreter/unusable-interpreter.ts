// When no usable Python exists for the project's Python providers: a path or
// command that is not there (found while resolving, project-interpreter.ts), or
// an interpreter that cannot import what the worker needs (the worker says so
// in a $/unusable notification and exits, python-stub/unusable_interpreter.py). Each request
// that needs Python then fails with one error naming the resource, the method,
// the type, the Pulumi.yaml and the fix; never a traceback, never an internal
// error. The plugin itself keeps serving: in a project whose runtime is not
// python, other resources may not need Python at all.
import * as grpc from "@grpc/grpc-js";
import { BadRequestError, WorkerDiedError } from "../../host/errors.js";
import { pathsOf, virtualenvPython, type Platform } from "../../host/files/platform.js";
import type { ProviderReference } from "../../host/references/provider-references.js";
import { SECTION } from "../../host/references/provider-references.js";
import type { Bag, CallInfo, DynamicRuntime, ProviderSource } from "../../host/runtime.js";
import type { InterpreterChoice } from "./interpreter.js";
import type { Unusable } from "./project-interpreter.js";

/** A worker whose interpreter cannot import `module` (WorkerProcess turns its $/unusable into this). */
export class InterpreterUnusableError extends WorkerDiedError {
  override name = "InterpreterUnusableError";
  constructor(
    message: string,
    /** The interpreter, as the worker knows itself (sys.executable). */
    readonly python: string,
    readonly module: string,
    readonly error: string,
  ) {
    super(message);
  }
}

/**
 * The error of a call that needs a Python there is none of: `problem` says
 * what is wrong ("python3 is not on PATH"); `choice` is the rule that picked
 * the interpreter (a project whose runtime is not python), `python` the
 * interpreter when there is one to install pulumi into.
 */
export function noPythonError(
  call: CallInfo,
  source: ProviderSource,
  problem: string,
  choice?: InterpreterChoice,
  python?: string,
  platform: Platform = process.platform,
): BadRequestError {
  const ref: ProviderReference | undefined = source.reference;
  const type = call.type || ref?.typeToken || "";
  const what = ref ? `${ref.reference}, declared for ${ref.typeToken} in ${ref.declaredIn},` : `of this ${type} resource`;
  let message = `${call.operation} ${call.urn || type}: the Python provider ${what} cannot run: ${problem}.`;
  const install = python ? `install pulumi for it: ${python} -m pip install pulumi` : undefined;
  if (choice) {
    const paths = pathsOf(platform);
    const venv = paths.join(paths.dirname(choice.file), ".venv");
    message +=
      ` This project's runtime is ${choice.runtime}, so its Python providers run with the interpreter chosen by ${choice.why}.` +
      ` To fix it, set \`python:\` in the ${SECTION} section of ${choice.file} to a python executable or a virtualenv that has pulumi` +
      ` (a path relative to that file, e.g. \`python: .venv\`, or a command on PATH), or create a virtualenv beside it:` +
      ` python3 -m venv ${venv} && ${virtualenvPython(venv, platform)} -m pip install pulumi` +
      (install && choice.rule !== "virtualenv" ? `; or ${install}` : "");
  } else if (install) {
    message += ` To fix it, ${install} dill`;
  }
  return new BadRequestError(message, grpc.status.FAILED_PRECONDITION);
}

/**
 * The runtime of a plugin that found no usable interpreter: configure is
 * accepted (the engine configures before it knows what it will ask), every
 * resource operation fails with the error above.
 */
export class NoPythonRuntime implements DynamicRuntime {
  readonly language = "python" as const;
  readonly bags = "encoded" as const;

  constructor(private readonly unusable: Unusable) {}

  async configure(_args: Bag): Promise<void> {}
  check(call: CallInfo, provider: ProviderSource): Promise<never> {
    return this.fail(call, provider);
  }
  diff(call: CallInfo, provider: ProviderSource): Promise<never> {
    return this.fail(call, provider);
  }
  create(call: CallInfo, provider: ProviderSource): Promise<never> {
    return this.fail(call, provider);
  }
  read(call: CallInfo, provider: ProviderSource): Promise<never> {
    return this.fail(call, provider);
  }
  update(call: CallInfo, provider: ProviderSource): Promise<never> {
    return this.fail(call, provider);
  }
  delete(call: CallInfo, provider: ProviderSource): Promise<never> {
    return this.fail(call, provider);
  }
  isReferenceText(): boolean {
    return false;
  }
  cancelAll(): void {}
  async close(): Promise<void> {}

  private fail(call: CallInfo, provider: ProviderSource): Promise<never> {
    return Promise.reject(noPythonError(call, provider, this.unusable.problem, this.unusable.choice));
  }
}
