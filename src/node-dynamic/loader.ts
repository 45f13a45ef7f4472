// Turns the `__provider` text written by the Node SDK's closure serializer into
// the provider object, once per distinct text.
//
// The text is a CommonJS module (`exports.handler = __f0; …`) in sloppy mode
// (it uses `with`). It is compiled with `vm.compileFunction` in the main
// context, so values crossing in and out are ordinary objects of this realm and
// `require`d libraries are the process's own. Its `require` resolves from the
// plugin's working directory (the program's node_modules and their parents),
// as the reference's require-from-string module with filename '' does; a text
// serialized inside a multi-language component resolves from the component's
// folder first (./module-home.ts), unlike there. Its
// `__filename`/`__dirname` are '' and '.' like there; unlike there, a package
// path that no longer exists is found again from there (./moved-modules.ts).
// Stack traces name it `pulumi-dynamic-provider/<hash>.js`.
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import vm from "node:vm";
import { log } from "../host/diagnostics/log.js";
import { BoundedCache } from "../host/limits/bounded-cache.js";
import { findProjectRoot } from "../host/references/project-root.js";
import type { ProviderReference } from "../host/references/provider-references.js";
import type { CallInfo, ProviderSource } from "../host/runtime.js";
import { Config, nodeProjectName } from "./config.js";
import { componentHome, homeRequire, packageNameOf, programHome, type ModuleHome } from "./module-home.js";
import { loadModuleReference, ReferenceLoadError, type ModuleReference } from "./module-reference.js";
import { describe, type NodeProvider } from "./node-provider.js";
import { packageOfPath, relocate, relocationWarning, UnresolvedModuleError, type Relocation } from "./moved-modules.js";

/**
 * The property by which the object of the host's reference helper
 * (reference/index.cjs, `providerReference()`) names the provider it stands for.
 */
export const REFERENCE_MARKER = "pulumiDynamicHostReference";

/** Loading failed before any user method ran: bad text, a throw while evaluating, a missing module. */
export class ProviderLoadError extends Error {
  override name = "ProviderLoadError";
  constructor(message: string, override readonly cause: unknown) {
    super(message);
  }
}

const WRAPPER_PARAMS = ["exports", "require", "module", "__filename", "__dirname"];

/**
 * How many providers loaded from serialized texts are kept. A program may hold
 * a distinct text per resource (a closure capturing a per-resource value), so
 * the host keeps the most recently used ones only: a text used again after it
 * went is evaluated and configured again, as a new process would. Providers
 * named by reference (declarations) are few and always kept.
 */
export const LOADED_TEXTS_LIMIT = 1000;

export class ProviderLoader {
  private readonly cache: BoundedCache<string, NodeProvider>;
  /**
   * Providers of texts serialized inside a component, by the component's
   * folder and the text (a NUL between: no path holds one), kept apart from
   * the program's: the same text resolves its modules elsewhere.
   */
  private readonly componentTexts: BoundedCache<string, NodeProvider>;
  private readonly byReference = new Map<string, NodeProvider>();
  private rawConfig: Record<string, unknown> | undefined;
  /** The engine's call being served, for what a payload's `require` reports. */
  private readonly calls = new AsyncLocalStorage<CallInfo>();

  constructor(
    private readonly cwd: string = process.cwd(),
    textsLimit = LOADED_TEXTS_LIMIT,
  ) {
    this.cache = new BoundedCache(textsLimit);
    this.componentTexts = new BoundedCache(textsLimit);
  }

  /** How many providers are kept (those of serialized texts and those named by reference). */
  get loaded(): number {
    return this.cache.size + this.componentTexts.size + this.byReference.size;
  }

  /** Config for providers configured from now on (the reference keeps the latest Configure's). */
  setConfig(config: Record<string, unknown>): void {
    this.rawConfig = config;
  }

  /**
   * The serialized text a stack frame's file name (`pulumi-dynamic-provider/<hash>.js`) stands for,
   * among those kept (a frame of a provider dropped from the cache since is not found, and is left
   * out of the error's `where:` block).
   */
  textOf(fileName: string): string | undefined {
    for (const key of this.cache.keys()) if (providerFileName(key) === fileName) return key;
    for (const key of this.componentTexts.keys()) {
      const text = key.slice(key.indexOf("\0") + 1);
      if (providerFileName(text) === fileName) return text;
    }
    return undefined;
  }

  /**
   * The provider for `source`, loaded and configured on first use: a
   * serialized text is evaluated (and when it is the reference helper's
   * object, the provider it names is loaded instead); a declared reference is
   * loaded from the project. Ordering is the Node reference's: the provider is
   * cached *before* its configure runs, so a concurrent request may see it
   * unconfigured, and a configure that throws fails only the request that
   * triggered it and is never retried while the provider is kept.
   */
  async get(source: ProviderSource): Promise<NodeProvider> {
    const [cache, key] =
      source.text === undefined
        ? [this.byReference, `${source.reference.projectDir}\0${source.reference.reference}`]
        : source.component
          ? [this.componentTexts, `${source.component.dir}\0${source.text}`]
          : [this.cache, source.text];
    let provider = cache.get(key);
    if (!provider) {
      provider =
        source.text !== undefined
          ? this.fromText(source.text, source.component ? componentHome(source.component, this.cwd) : programHome(this.cwd))
          : this.fromReference(declared(source.reference));
      cache.set(key, provider);
      if (provider.configure) {
        const config = new Config(this.rawConfig, nodeProjectName());
        await provider.configure({ config });
      }
    }
    return provider;
  }

  /** The provider a serialized text stands for: its handler's object, or the provider the reference helper's object names. */
  private fromText(text: string, home: ModuleHome): NodeProvider {
    const provider = this.evaluate(text, home);
    const reference = provider[REFERENCE_MARKER];
    if (typeof reference !== "string") return provider;
    // A reference written inside a component names a module of the component's package.
    return this.fromReference({
      reference,
      projectDir: home.component?.dir ?? findProjectRoot(this.cwd) ?? this.cwd,
      origin: home.component
        ? `that component ${home.component.componentType} passed with providerReference()`
        : "that the program passed with providerReference()",
    });
  }

  private fromReference(ref: ModuleReference): NodeProvider {
    try {
      return loadModuleReference(ref);
    } catch (e) {
      if (e instanceof ReferenceLoadError) throw new ProviderLoadError(e.message, e);
      throw e;
    }
  }

  private evaluate(text: string, home: ModuleHome): NodeProvider {
    if (text.trim() === "") {
      // Evaluated, it would fail as a text that exports no handler, naming neither __provider nor what is wrong with it.
      const what = text === "" ? "an empty string" : "only whitespace";
      throw new ProviderLoadError(`its __provider is ${what}, not the text @pulumi/pulumi's dynamic.Resource writes`, undefined);
    }
    const name = providerFileName(text);
    let fn: Function;
    try {
      fn = vm.compileFunction(text, WRAPPER_PARAMS, { filename: name });
    } catch (e) {
      throw new ProviderLoadError(`the serialized provider is not valid JavaScript: ${describe(e)}`, e);
    }
    const module = { exports: {} as Record<string, unknown>, id: name, filename: "", loaded: false };
    const handler = (() => {
      try {
        fn.call(module.exports, module.exports, this.moduleRequire(home), module, "", ".");
      } catch (e) {
        // Already says what it required, where it looked, and what to do.
        if (e instanceof UnresolvedModuleError) throw new ProviderLoadError(e.message, e);
        throw new ProviderLoadError(`the serialized provider threw while loading: ${describe(e)}`, e);
      }
      module.loaded = true;
      return module.exports.handler;
    })();
    if (typeof handler !== "function") {
      throw new ProviderLoadError(
        `the serialized provider does not export a handler function (exports.handler is ${typeof handler}); ` +
          `it must be the text @pulumi/pulumi's dynamic.Resource writes`,
        undefined,
      );
    }
    let provider: unknown;
    try {
      provider = handler();
    } catch (e) {
      throw new ProviderLoadError(`the serialized provider's handler threw: ${describe(e)}`, e);
    }
    if (provider === null || (typeof provider !== "object" && typeof provider !== "function")) {
      throw new ProviderLoadError(
        `the serialized provider's handler returned ${provider === null ? "null" : typeof provider}, not a provider object`,
        undefined,
      );
    }
    return provider as NodeProvider;
  }

  /**
   * Runs `body` (one call of the engine's: loading the provider and its
   * method) with `call` as the call a payload's `require` reports to.
   */
  during<T>(call: CallInfo, body: () => Promise<T>): Promise<T> {
    return this.calls.run(call, body);
  }

  /**
   * A `require` that resolves from `home` (./module-home.ts: the program
   * directory, or a component's folder and then the program's) and, when the
   * requested module itself is missing, says where it looked and where to
   * install it. One is made for each payload. A path to a package module that
   * no longer exists (a store path of an older pnpm version, another
   * checkout's node_modules: ./moved-modules.ts) is loaded from the copy of
   * that package found there instead, worked out once per path, with one
   * warning per package.
   */
  private moduleRequire(home: ModuleHome): NodeJS.Require {
    const base = homeRequire(home);
    const calls = this.calls;
    const relocated = new Map<string, Relocation>();
    const warned = new Set<string>();
    const req = function require(id: string): unknown {
      const moved = relocated.get(id);
      if (moved) return base(moved.file);
      try {
        return base(id);
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        if (err && err.code === "MODULE_NOT_FOUND" && typeof err.message === "string" && err.message.startsWith(`Cannot find module '${id}'`)) {
          const pkg = packageOfPath(id);
          if (pkg) {
            const found = relocate(id, pkg, base, home);
            relocated.set(id, found);
            if (!warned.has(pkg.name)) {
              warned.add(pkg.name);
              warn(calls.getStore(), relocationWarning(id, found, home));
            }
            return base(found.file);
          }
          const missing = new Error(
            `Cannot find module '${id}' required by the dynamic provider: it was resolved from ${home.searched}; ${home.install(packageNameOf(id))}`,
          ) as NodeJS.ErrnoException;
          missing.code = "MODULE_NOT_FOUND";
          throw missing;
        }
        throw e;
      }
    } as NodeJS.Require;
    req.resolve = base.resolve;
    req.cache = base.cache;
    req.main = base.main;
    req.extensions = base.extensions;
    return req;
  }
}

/** A warning about the call's resource, through the engine; outside any call, to the host's own log. */
function warn(call: CallInfo | undefined, message: string): void {
  if (call?.log) call.log("warning", message);
  else log(1, `warning: ${message}`);
}

/** The file name stack traces give a serialized provider text. */
export function providerFileName(text: string): string {
  return `pulumi-dynamic-provider/${createHash("sha256").update(text).digest("hex").slice(0, 12)}.js`;
}

function declared(ref: ProviderReference): ModuleReference {
  return { reference: ref.reference, projectDir: ref.projectDir, origin: `declared for ${ref.typeToken} in ${ref.declaredIn}` };
}
