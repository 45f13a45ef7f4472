// A Node provider by reference: "<module>#<export>", the module a path
// relative to the project directory (where Pulumi.yaml is) or a package, both
// resolved from the project as its own code would be. A TypeScript module is
// compiled as the Node language host compiles the program: ts-node with the
// project's TypeScript (the copies @pulumi/pulumi vendors when the project has
// none) and the project's tsconfig.json. The export is the provider object, or
// a class whose instances are providers (constructed with no arguments).
//
// Every failure says which reference it was, where it was declared, and what
// was wrong with it: the module not found, the module throwing, the export
// missing or not a provider, TypeScript with no compiler in reach.
import { exists, isFile } from "../host/files/file-probe.js";
import type { Platform } from "../host/files/platform.js";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, type NodeProvider } from "./node-provider.js";

/** The methods of which a provider needs at least one. */
const PROVIDER_METHODS = ["check", "diff", "create", "read", "update", "delete"];

/** A reference that could not be loaded; the message is complete. */
export class ReferenceLoadError extends Error {
  override name = "ReferenceLoadError";
}

export interface ModuleReference {
  /** "<module>#<export>" */
  reference: string;
  /** Relative module paths start here. */
  projectDir: string;
  /** Where the reference was written, for messages: "declared for <type> in <file>", "passed to providerReference()". */
  origin: string;
}

const TYPESCRIPT = /\.(c|m)?tsx?$/;

/** A `require` that resolves as a module in `dir` does (its node_modules, and those above it). */
export function projectRequire(dir: string): NodeJS.Require {
  return createRequire(path.join(dir, "[pulumi-dynamic-host]"));
}

/**
 * Whether a reference's module is a path relative to the project directory, as
 * Node's require reads one: `./`, `../`, `.`, `..`, and on Windows `.\` and `..\`
 * too (a path written with Windows' separator in Pulumi.yaml).
 */
export function isRelativeSpecifier(spec: string, platform: Platform): boolean {
  if (spec === "." || spec === ".." || spec.startsWith("./") || spec.startsWith("../")) return true;
  return platform === "win32" && (spec.startsWith(".\\") || spec.startsWith("..\\"));
}

/** Project directories whose TypeScript loader is registered in this process. */
const typeScriptReady = new Set<string>();

/** Where a reference points, found without running any of the project's code. */
export interface ResolvedReference {
  /** "the provider reference "…" <origin>", the start of every message about it. */
  what: string;
  file: string;
  exportName: string;
  /** For a TypeScript module: the compiler and ts-node that will load it. */
  typescript?: TypeScriptTools;
}

interface TypeScriptTools {
  typescript: string;
  tsNode: string;
}

/** The module file a reference names and, for TypeScript, the tools that compile it; throws what is wrong. */
export function resolveModuleReference(ref: ModuleReference): ResolvedReference {
  const what = `the provider reference "${ref.reference}" ${ref.origin}`;
  const hash = ref.reference.lastIndexOf("#");
  if (hash <= 0 || hash === ref.reference.length - 1) {
    throw new ReferenceLoadError(`${what} is not "<module>#<export>" (e.g. "./providers#textFileProvider")`);
  }
  const spec = ref.reference.slice(0, hash);
  const exportName = ref.reference.slice(hash + 1);
  const fromProject = projectRequire(ref.projectDir);
  const relative = isRelativeSpecifier(spec, process.platform);
  const request = relative ? path.resolve(ref.projectDir, spec) : spec;

  let file: string;
  try {
    file = fromProject.resolve(request);
  } catch (e) {
    if (TYPESCRIPT.test(request) || !relative || !isFile(`${request}.ts`)) {
      throw new ReferenceLoadError(
        `${what}: module ${spec} was not found ` +
          (relative ? `at ${request} (relative to the project directory ${ref.projectDir})` : `from the project directory ${ref.projectDir} (its node_modules and those above it)`) +
          `: ${firstLine(e)}`,
      );
    }
    file = `${request}.ts`;
  }
  return { what, file, exportName, typescript: TYPESCRIPT.test(file) ? typeScriptTools(ref.projectDir, file, what) : undefined };
}

export function loadModuleReference(ref: ModuleReference): NodeProvider {
  const { what, file, exportName, typescript } = resolveModuleReference(ref);
  const fromProject = projectRequire(ref.projectDir);
  if (typescript) registerTypeScript(ref.projectDir, typescript, what, file);

  let mod: Record<string, unknown>;
  try {
    mod = fromProject(file);
  } catch (e) {
    throw new ReferenceLoadError(`${what}: loading ${file} threw: ${describe(e)}`);
  }
  const exported = mod?.[exportName] ?? (exportName === "default" ? mod : undefined);
  if (exported === undefined) {
    const names = mod && typeof mod === "object" ? Object.keys(mod).filter((k) => k !== "__esModule") : [];
    throw new ReferenceLoadError(
      `${what}: ${file} has no export named ${exportName}` +
        (names.length ? `; it exports ${names.slice(0, 12).join(", ")}${names.length > 12 ? ", …" : ""}` : "; it exports nothing"),
    );
  }
  let provider: unknown = exported;
  if (typeof exported === "function") {
    try {
      provider = new (exported as new () => unknown)();
    } catch (e) {
      throw new ReferenceLoadError(`${what}: ${exportName} of ${file} is a function, and constructing it with no arguments threw: ${describe(e)}`);
    }
  }
  if (!isProvider(provider)) {
    const got =
      exported === null || (typeof exported !== "object" && typeof exported !== "function")
        ? `${exported === null ? "null" : `a ${typeof exported}`}, not a provider object or class`
        : `${typeof exported === "function" ? "a class whose instances have" : "an object with"} none of the methods ${PROVIDER_METHODS.join(", ")}`;
    throw new ReferenceLoadError(
      `${what}: ${exportName} of ${file} is not a dynamic provider: it is ${got}; ` +
        `export the provider object, or a class whose instances are providers`,
    );
  }
  return provider;
}

function isProvider(v: unknown): v is NodeProvider {
  if (v === null || typeof v !== "object") return false;
  return PROVIDER_METHODS.some((m) => typeof (v as Record<string, unknown>)[m] === "function");
}

/**
 * The TypeScript compiler and ts-node the Node language host would use for
 * the program: the project's own, else the copies its @pulumi/pulumi vendors.
 */
function typeScriptTools(projectDir: string, file: string, what: string): TypeScriptTools {
  const fromProject = projectRequire(projectDir);
  let sdkDir: string | undefined;
  try {
    sdkDir = path.dirname(fromProject.resolve("@pulumi/pulumi/package.json"));
  } catch {
    sdkDir = undefined;
  }
  const fromSdk = sdkDir ? projectRequire(sdkDir) : fromProject;
  const locate = (name: string, vendored: string): string | undefined => {
    for (const req of [fromProject, fromSdk]) {
      try {
        return req.resolve(name);
      } catch {
        // next
      }
    }
    const copy = sdkDir && path.join(sdkDir, "vendor", vendored);
    return copy && exists(copy) ? copy : undefined;
  };
  const typescript = locate("typescript", "typescript@3.8.3/typescript.js");
  const tsNode = locate("ts-node", "ts-node@7.0.1");
  if (!typescript || !tsNode) {
    throw new ReferenceLoadError(
      `${what}: ${file} is TypeScript, and no TypeScript compiler resolves from the project directory ${projectDir} ` +
        `(${[!typescript && "typescript", !tsNode && "ts-node"].filter(Boolean).join(" and ")} not found, and no @pulumi/pulumi ` +
        `that vendors them): install @pulumi/pulumi in the project (npm install), add typescript and ts-node to it, or point ` +
        `the reference at the compiled JavaScript`,
    );
  }
  return { typescript, tsNode };
}

/**
 * Makes `require` compile TypeScript for this process, the way the Node
 * language host does for the program: ts-node with `tools`, the project's
 * tsconfig.json when it has one. Type checking is the program's job: the host
 * only transpiles, unless PULUMI_NODEJS_TRANSPILE_ONLY=false.
 */
function registerTypeScript(projectDir: string, tools: TypeScriptTools, what: string, file: string): void {
  if (typeScriptReady.has(projectDir)) return;
  const fromProject = projectRequire(projectDir);
  const tsconfig = path.join(projectDir, process.env.PULUMI_NODEJS_TSCONFIG_PATH ?? "tsconfig.json");
  const transpileOnly = process.env.PULUMI_NODEJS_TRANSPILE_ONLY !== "false";
  try {
    const register = (fromProject(tools.tsNode) as { register: (opts: object) => unknown }).register;
    register({
      compiler: tools.typescript,
      transpileOnly,
      project: tsconfig,
      skipProject: !isFile(tsconfig),
      compilerOptions: {},
    });
  } catch (e) {
    throw new ReferenceLoadError(`${what}: ${file} is TypeScript, and registering ts-node (${tools.tsNode}) failed: ${describe(e)}`);
  }
  typeScriptReady.add(projectDir);
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0];
}
