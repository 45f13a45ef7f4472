// src/python-bridge/pickle: a Python payload read without running it: what
// a pickle names and which Python wrote its code (pickle-inspect.ts), from
// each CPython minor's opcode table (bytecode-versions.ts). A leaf: it imports
// nothing of the host or the bridge, so the adapter and the commands (inspect,
// doctor) can both read a payload.
//
// Reads a Python `__provider` payload without executing it (pickleparser walks
// the opcodes; every global it names resolves to an inert placeholder here), to
// say in errors which provider class a pickle holds and from which module, and
// to refuse a pickle whose by-value code was made by another Python before a
// worker tries to run foreign bytecode.
import { Parser } from "pickleparser";
import { minorsFitting } from "./bytecode-versions.js";

export interface ProviderClass {
  module: string;
  name: string;
  /** Pickled by value (defined in __main__), or by reference (imported from `module` when unpickled). */
  byValue: boolean;
}

/** Which CPython versions can have written the code objects dill pickled by value. */
export interface CodeOrigin {
  describe: string;
  accepts(version: [number, number]): boolean;
  /** The minors ("3.12") it can be, when it is one of a few the host knows; the host looks for an interpreter of these. */
  minors?: string[];
}

export interface PickleFacts {
  protocol?: number;
  providerClass?: ProviderClass;
  code?: CodeOrigin;
  /** dill.dill is dill 0.2.x; dill._dill is 0.3 and later. */
  dillModule?: string;
  /** Every global the pickle names (dill's own machinery included), each once, in the order first met. */
  globals?: GlobalRef[];
  /** Modules dill's `_import_module` imports by name when unpickling: the modules by-value code keeps in its globals. */
  importedModules?: string[];
  /**
   * The string the pickled object holds in `pulumi_dynamic_host_reference`:
   * for the host's helper (pulumi_dynamic_host.reference.ProviderReference),
   * the provider reference it stands for.
   */
  heldReference?: string;
  /** Why pickleparser stopped walking the opcodes; the facts above are then partial. */
  parseError?: string;
}

export interface GlobalRef {
  module: string;
  name: string;
}

export type Inspection = { ok: true; facts: PickleFacts } | { ok: false; problem: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * `_create_code` argument counts of dill ≥ 0.3.6 by the Python that pickled
 * (dill's save_code): 3.10+ put co_lnotab first, 3.11 added qualname and the
 * exception table. 3.11 and later share a layout; the pickle protocol then
 * separates 3.14 (default protocol 5) from 3.11–3.13 (protocol 4), and the
 * bytecode itself (./bytecode-versions.ts) which of 3.11, 3.12 and 3.13, as
 * it does 3.8 from 3.9.
 */
function codeOrigin(arity: number, lnotabFirst: boolean, protocol: number | undefined, codes: Uint8Array[]): CodeOrigin | undefined {
  const range = (lo: number, hi: number | undefined, describe: string): CodeOrigin => ({
    describe,
    accepts: ([maj, min]) => maj === 3 && min >= lo && (hi === undefined || min <= hi),
  });
  /** Of the minors `lo`..`hi` sharing one layout, those the bytecode fits; the whole range when it fits none. */
  const narrowed = (lo: number, hi: number, describeAll: string): CodeOrigin => {
    const all = Array.from({ length: hi - lo + 1 }, (_, i) => `3.${lo + i}`);
    const fit = minorsFitting(all, codes);
    if (fit.length === 0 || fit.length === all.length) return { ...range(lo, hi, describeAll), minors: all };
    return {
      describe: `Python ${fit.length === 1 ? fit[0] : `${fit.slice(0, -1).join(", ")} or ${fit[fit.length - 1]}`}`,
      accepts: ([maj, min]) => fit.includes(`${maj}.${min}`),
      minors: fit,
    };
  };
  if (arity === 15 && !lnotabFirst) return { ...range(7, 7, "Python 3.7"), minors: ["3.7"] };
  if (arity === 16 && !lnotabFirst) return narrowed(8, 9, "Python 3.8 or 3.9");
  if (arity === 17 && lnotabFirst) return { ...range(10, 10, "Python 3.10"), minors: ["3.10"] };
  if (arity === 19 && lnotabFirst) return protocol !== undefined && protocol >= 5 ? range(14, undefined, "Python 3.14 or later") : narrowed(11, 13, "Python 3.11 to 3.13");
  return undefined;
}

export function inspectPayload(text: string): Inspection {
  const trimmed = text.trim();
  if (/^exports\.\w+\s*=|^(?:var|const|function)\s/.test(trimmed)) {
    return {
      ok: false,
      problem:
        "its __provider is JavaScript (a Node.js dynamic provider, as TypeScript/JavaScript programs write it), not a Python " +
        "pickle; pulumi-resource-pulumi-python runs providers written with the pulumi Python SDK",
    };
  }
  if (trimmed === "") {
    return { ok: false, problem: `its __provider is ${text === "" ? "an empty string" : "only whitespace"}, not the base64 text the pulumi Python SDK writes` };
  }
  if (trimmed.length % 4 !== 0 || !BASE64.test(trimmed)) {
    const why = !BASE64.test(trimmed) ? "it has characters outside the base64 alphabet" : `its length ${trimmed.length} is not a multiple of 4, so it looks truncated`;
    return { ok: false, problem: `its __provider is not the base64 text the pulumi Python SDK writes: ${why}` };
  }
  const bytes = Buffer.from(trimmed, "base64");
  const facts: PickleFacts = { protocol: bytes[0] === 0x80 ? bytes[1] : undefined };
  let codeArity: number | undefined;
  let lnotabFirst = false;
  /** co_code of every code object, in the layout of the first. */
  const codes: Uint8Array[] = [];
  let root: unknown;
  const globals = new Map<string, GlobalRef>();
  const importedModules = new Set<string>();
  const parser = new Parser({
    nameResolver: {
      resolve(module: string, name: string) {
        if (module === "dill._dill" || module === "dill.dill") facts.dillModule ??= module;
        if (!globals.has(`${module}\0${name}`)) globals.set(`${module}\0${name}`, { module, name });
        // An inert stand-in: called (REDUCE) it records its arguments and yields a constructible placeholder.
        const placeholder = function (this: Record<string, unknown>, ...args: unknown[]): unknown {
          if (new.target) {
            this.__module = module;
            this.__name = name;
            return this;
          }
          if (name === "_create_code" && codeArity === undefined) {
            codeArity = args.length;
            lnotabFirst = typeof args[0] !== "number";
          }
          if (name === "_create_code" && args.length === codeArity) {
            // co_code follows argcount, posonlyargcount, kwonlyargcount, nlocals, stacksize and flags (co_lnotab first from 3.10).
            const code = args[(lnotabFirst ? 1 : 0) + (codeArity === 15 ? 5 : 6)];
            if (code instanceof Uint8Array) codes.push(code);
          }
          if (name === "_import_module" && typeof args[0] === "string") importedModules.add(args[0]);
          const made = function (this: Record<string, unknown>) {
            if (new.target) this.__class = made;
            return this;
          } as unknown as Record<string, unknown>;
          made.__reducedBy = `${module}.${name}`;
          made.__args = args;
          return made;
        };
        return placeholder as unknown as (...args: unknown[]) => unknown;
      },
    },
  });
  try {
    root = quietly(() => parser.parse(bytes));
  } catch (e) {
    facts.parseError = e instanceof Error ? e.message : String(e);
  }
  facts.globals = [...globals.values()];
  facts.importedModules = [...importedModules];
  // Not a pickle pickleparser can walk: the worker's own unpickling will say what is wrong.
  if (facts.parseError !== undefined) return { ok: true, facts };
  facts.providerClass = providerClassOf(root);
  const held = root && typeof root === "object" ? (root as Record<string, unknown>).pulumi_dynamic_host_reference : undefined;
  if (typeof held === "string") facts.heldReference = held;
  if (codeArity !== undefined) facts.code = codeOrigin(codeArity, lnotabFirst, facts.protocol, codes);
  return { ok: true, facts };
}

/**
 * Runs `parse` with console.warn silenced: pickleparser warns on the console
 * (the host's stderr, which the engine shows the user) when a 64-bit length
 * is past 2^53, as a damaged pickle's can be. The parse is synchronous, so
 * nothing else runs while the warning is off.
 */
function quietly<T>(parse: () => T): T {
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return parse();
  } finally {
    console.warn = warn;
  }
}

function providerClassOf(root: unknown): ProviderClass | undefined {
  if (!root || (typeof root !== "object" && typeof root !== "function")) return undefined;
  const r = root as Record<string, any>;
  // By reference: NEWOBJ on the class global itself.
  if (typeof r.__module === "string" && typeof r.__name === "string") return { module: r.__module, name: r.__name, byValue: false };
  // By value: dill's _create_type(metaclass, name, bases, namespace) made the class.
  const cls = r.__class;
  if (cls && cls.__reducedBy?.endsWith("._create_type") && Array.isArray(cls.__args)) {
    const [, name, , namespace] = cls.__args;
    const module = namespace instanceof Map ? namespace.get("__module__") : namespace?.__module__;
    if (typeof name === "string") return { module: typeof module === "string" ? module : "__main__", name, byValue: true };
  }
  return undefined;
}

/** "3.11.7" -> [3, 11] */
export function pythonMinor(version: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(version);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}
