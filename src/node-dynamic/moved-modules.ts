// Module paths in a serialized provider that no longer exist, found again
// from the program directory.
//
// The Node SDK's closure serializer writes a captured module as a require()
// of where it was loaded from. Under pnpm (SDKs before 3.251) that is the
// store path with the version in it, `.pnpm/ms@2.1.2/node_modules/ms/index.js`;
// under aspect_rules_js (every SDK) `.aspect_rules_js/<pkg>@<ver>/node_modules/…`;
// a hand-written or foreign text may hold an absolute `…/node_modules/<pkg>/…`
// of another checkout or machine. Once a dependency is bumped, the checkout
// moves or the state is used on another machine, such a path is gone and the
// reference fails refresh and destroy with `Cannot find module`.
//
// Here such a path is read as "<package>/<subpath>" (the part after its last
// node_modules) and that file is loaded from the package the program
// directory resolves, with a warning naming both places and versions. Only a
// path whose module is missing is looked at: while the old path exists, it is
// loaded as written.
import { isFile, readText, realPath } from "../host/files/file-probe.js";
import { caseInsensitiveFileNames, pathsOf, type Platform } from "../host/files/platform.js";
import path from "node:path";
import { programHome, type ModuleHome } from "./module-home.js";

/** The store directories that keep packages under `<name>@<version>/node_modules/<name>`. */
const STORE_DIRS = new Set([".pnpm", ".aspect_rules_js"]);

/** What a module path says about the package it is in. */
export interface PackagePath {
  /** The package name: `ms`, `@scope/name`. */
  name: string;
  /** The path inside the package, "" for the package itself: `index.js`, `lib/a.js`. */
  subpath: string;
  /** The store the path went through (`.pnpm`, `.aspect_rules_js`), if any. */
  store?: string;
  /** The version the store segment names, peer suffixes dropped. */
  storeVersion?: string;
  /** For an absolute path: the package's directory there, to read its package.json if it still exists. */
  packageDir?: string;
}

/**
 * Whether `id` is a path rather than a package name: absolute (POSIX or
 * Windows), relative, or a store specifier the serializer writes
 * (`.pnpm/…`, `.aspect_rules_js/…`, resolved through node_modules).
 */
export function isModulePath(id: string, platform: Platform = process.platform): boolean {
  if (id.startsWith("/") || id.startsWith("./") || id.startsWith("../") || /^\.\.?\\/.test(id)) return true;
  if (/^[A-Za-z]:[\\/]/.test(id) || id.startsWith("\\\\")) return true;
  const first = id.split(/[\\/]/)[0];
  return STORE_DIRS.has(caseInsensitiveFileNames(platform) ? first.toLowerCase() : first);
}

/**
 * The package a module path lies in, or undefined when it is no path or goes
 * through no node_modules (a program file, which no package can stand for).
 * The package is the one after the *last* node_modules segment: in a store
 * or a nested install, that is the package the file belongs to. On Windows
 * and macOS, whose file systems ignore case, `Node_Modules` and `.PNPM` are
 * those folders too (a path typed by hand, or a drive's own spelling); the
 * package's directory is joined with the platform's separator.
 */
export function packageOfPath(id: string, platform: Platform = process.platform): PackagePath | undefined {
  if (!isModulePath(id, platform)) return undefined;
  const absolute = pathsOf(platform).isAbsolute(id) || path.posix.isAbsolute(id) || /^[A-Za-z]:[\\/]/.test(id) || id.startsWith("\\\\");
  const segments = id.split(/[\\/]/);
  const fold = caseInsensitiveFileNames(platform) ? (s: string) => s.toLowerCase() : (s: string) => s;
  const at = segments.map(fold).lastIndexOf("node_modules");
  if (at < 0) return undefined;
  const first = segments[at + 1];
  if (!first || first.startsWith(".")) return undefined;
  let name = first;
  let rest = at + 2;
  if (first.startsWith("@")) {
    const second = segments[at + 2];
    if (!second || first.length === 1) return undefined;
    name = `${first}/${second}`;
    rest = at + 3;
  }
  const found: PackagePath = { name, subpath: segments.slice(rest).filter((s) => s !== "" && s !== ".").join("/") };
  const store = segments[at - 2];
  if (at >= 2 && STORE_DIRS.has(fold(store))) {
    found.store = fold(store);
    const version = storeVersion(segments[at - 1], name);
    if (version) found.storeVersion = version;
  }
  if (absolute) found.packageDir = segments.slice(0, rest).join(pathsOf(platform).sep);
  return found;
}

/**
 * The version in a store entry `<name>@<version>[peer suffix]` whose name is
 * `name` (a scope's `/` written `+`): `ms@2.1.2` → 2.1.2,
 * `@scope+pkg@1.0.0_react@18.2.0` → 1.0.0, `pkg@1.0.0(react@18.2.0)` → 1.0.0.
 */
function storeVersion(entry: string | undefined, name: string): string | undefined {
  if (!entry) return undefined;
  const sep = entry.indexOf("@", entry.startsWith("@") ? 1 : 0);
  if (sep <= 0 || entry.slice(0, sep).replace("+", "/") !== name) return undefined;
  const version = entry.slice(sep + 1).split(/[_(]/)[0];
  return version === "" ? undefined : version;
}

/** A package module found neither where the text says nor from the program directory; the message names both. */
export class UnresolvedModuleError extends Error {
  override name = "Error";
  readonly code = "MODULE_NOT_FOUND";
}

/** Where a moved module was found instead. */
export interface Relocation {
  /** The file to load. */
  file: string;
  pkg: PackagePath;
  /** The version of the package found, from its package.json. */
  version?: string;
}

/**
 * The file in the program's (or component's) own copy of the package `pkg` names, looked up
 * with `from` (a require made where the provider's modules resolve: the
 * program directory, or a component's folder and then the program's, as
 * `home` says; a string is the program directory); throws
 * UnresolvedModuleError naming both attempts when there is none.
 */
export function relocate(id: string, pkg: PackagePath, from: NodeJS.Require, home: ModuleHome | string): Relocation {
  const where = typeof home === "string" ? programHome(home) : home;
  const bare = pkg.subpath ? `${pkg.name}/${pkg.subpath}` : pkg.name;
  const fail = (detail: string) =>
    new UnresolvedModuleError(
      `Cannot find module '${id}' required by the dynamic provider: that path does not exist here ` +
        `(it is where ${pkg.name} was when the provider was serialized${pkg.store ? `, in the ${pkg.store} store` : ""}), ` +
        `and ${bare} resolved from ${where.searched} ${detail}; ${where.install(pkg.name)}`,
    );
  // The package's directory as the program resolves it; its files are then
  // reached by path, as the old text reached them (a package's `exports`
  // does not hide the file the provider was serialized with).
  let dir: string | undefined;
  for (const modules of from.resolve.paths(pkg.name) ?? []) {
    const candidate = path.join(modules, pkg.name);
    if (isFile(path.join(candidate, "package.json"))) {
      dir = candidate;
      break;
    }
  }
  if (!dir) throw fail("was not found either");
  const version = packageVersion(dir);
  let file: string;
  try {
    file = pkg.subpath ? from.resolve(path.join(dir, pkg.subpath)) : from.resolve(pkg.name);
  } catch {
    throw fail(`found ${pkg.name}${version ? ` ${version}` : ""} at ${dir}, which has no ${pkg.subpath || "entry point"}`);
  }
  return { file, pkg, version };
}

/** The version in `<dir>/package.json`, or undefined when it cannot be read. */
export function packageVersion(dir: string): string | undefined {
  try {
    const json = JSON.parse(readText(path.join(dir, "package.json"), 1 << 20) ?? "") as { version?: unknown };
    return typeof json.version === "string" ? json.version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The warning for a module loaded from the program's copy of its package (or,
 * for a provider serialized inside a component, the copy found from the
 * component's folder) instead of the path the text names.
 */
export function relocationWarning(id: string, moved: Relocation, home?: ModuleHome): string {
  const { pkg } = moved;
  const before = pkg.storeVersion ?? (pkg.packageDir ? packageVersion(pkg.packageDir) : undefined);
  const here = realPath(moved.file) ?? moved.file;
  let versions: string;
  if (before && moved.version && before !== moved.version) versions = `: ${pkg.name} ${before} there, ${moved.version} here`;
  else if (moved.version && !before) versions = ` (${pkg.name} ${moved.version} here; the old path does not say which version it was)`;
  else versions = moved.version ? ` (${pkg.name} ${moved.version}, the same version)` : "";
  return (
    `the dynamic provider requires ${id}, which does not exist here; it was loaded from ` +
    `${home?.component ? `the ${pkg.name} found from component ${home.component.componentType}'s folder` : `the program's ${pkg.name}`} ` +
    `instead, ${here}${versions}. Running \`pulumi up\` records the provider with the paths of this checkout`
  );
}
