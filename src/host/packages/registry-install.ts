// Registry packages in the host's cache (docs/provider-packages.md, "From a
// registry"). `pulumi package add <plugin> @acme/files@1.2.0` (or
// `acme-files==1.2.0` for the Python plugin) resolves the spec with the user's
// own tool (npm; the project's Python's pip) to one exact version and the
// integrity the registry published for it, and installs that, with its
// dependencies, into the cache: one folder per package, version, integrity
// and, for Python, interpreter. The value the SDK keeps pins all of it, so a
// later run on another machine (or after the cache was emptied) installs the
// very same bytes again, or says why it cannot.
//
// Several plugin processes may install one package at once (the engine starts
// a provider and a schema load side by side): each installs into a temporary
// folder of its own and renames it into place; the first rename wins, and the
// others use its folder.
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { makeCacheDir, openCacheRoot, cacheRootNote } from "../files/cache-root.js";
import { ParameterError, type RegistryKind, type RegistrySource } from "./parameters.js";

/** A spec resolved: the registry's name of the package, its exact version and its integrity. */
export type Resolved = Omit<RegistrySource, "kind" | "spec">;

/** Where an installed package's provider package is, inside its cache entry. */
export interface Installed {
  /** The package's folder (its modules and require()s start here; for Python, the folder put on sys.path). */
  dir: string;
  /** Its pulumi-provider.yaml, when not at the top of `dir` (a Python distribution carries it inside its modules). */
  declarations?: string;
  /** The manifest's name and version, when `dir` has no package.json or pyproject.toml to read them from. */
  manifest?: { name: string; version: string };
}

/** One registry, through the user's own tool. Errors are RegistryErrors whose message says what was tried and what failed. */
export interface PackageRegistry {
  readonly kind: RegistryKind;
  /** The registry's name in messages: "npm", "PyPI". */
  readonly title: string;
  /** What else the installed files depend on (the interpreter for Python): part of the cache key. */
  readonly variant: string;
  /** Resolves a spec to one exact version, installing nothing; `cwd` is the project directory (its config files apply). */
  resolve(spec: string, cwd: string): Promise<Resolved>;
  /** Installs exactly `pinned` into the empty folder `into`, refusing other bytes; answers where the package is, relative to `into`. */
  install(pinned: RegistrySource, into: string, cwd: string): Promise<Installed>;
  /**
   * For a package in a folder: installs into `into` those of its `requirements` the plugin's
   * interpreter does not satisfy, answering the folder to import them from, or undefined when
   * nothing was missing. Absent where a folder package brings its own (npm's node_modules).
   */
  installDependencies?(requirements: readonly string[], into: string, cwd: string, what: string): Promise<string | undefined>;
}

/** What a plugin process installs registry packages with: its language's registry, or why it has none. */
export type Registry = { use: PackageRegistry } | { unavailable: string };

/** What a registry's tool (npm, pip) answered: its exit code (-1 when it did not run or was stopped) and output. */
export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A tool that resolves or installs packages, run once; a command not found, or not done in `timeoutMs`, is said in `stderr`. */
export function runTool(
  command: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; shell?: boolean; title: string; notFound?: string },
): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: opts.cwd, encoding: "utf8", maxBuffer: 64 << 20, timeout: opts.timeoutMs, shell: opts.shell, env: opts.env }, (err, stdout, stderr) => {
      const errCode = (err as NodeJS.ErrnoException | null)?.code;
      const code = err ? (typeof errCode === "number" ? errCode : -1) : 0;
      if (errCode === "ENOENT" && opts.notFound) return resolve({ code, stdout, stderr: opts.notFound });
      if (err?.killed) return resolve({ code, stdout, stderr: `${opts.title} did not finish in ${opts.timeoutMs / 60_000} minutes` });
      resolve({ code, stdout, stderr: stderr || (err && code === -1 ? err.message : "") });
    });
  });
}

/** A registry, or its tool, failed: the message says which command, and what it said. */
export class RegistryError extends ParameterError {
  override name = "RegistryError";
}

/** The file in a cache entry that says where the package is in it; written last, before the rename. */
const ENTRY_FILE = "pulumi-dynamic-host-entry.json";

/** The cache folder of a pinned package. */
export function entryDir(root: string, registry: Pick<PackageRegistry, "kind" | "variant">, pinned: Resolved): string {
  const key = crypto.createHash("sha256").update(`${pinned.integrity}\0${registry.variant}`).digest("hex").slice(0, 16);
  const safe = pinned.package.replace(/^@/, "").replace(/[^A-Za-z0-9._-]+/g, "+");
  return path.join(root, "packages", registry.kind, safe, pinned.version.replace(/[^A-Za-z0-9._+-]+/g, "_"), key);
}

/** The installed package `pinned` names, from the cache, or installed into it now. */
export async function installed(registry: PackageRegistry, pinned: RegistrySource, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Installed> {
  const root = openCacheRoot(env);
  const what = `${pinned.package} ${pinned.version}`;
  if (!root.usable) throw new RegistryError(cacheRootNote(root, `so ${what} cannot be installed from ${registry.title}`));
  return cachedEntry(entryDir(root.dir, registry, pinned), `${what} from ${registry.title}`, (into) => registry.install(pinned, into, cwd));
}

/**
 * The folder to import a folder package's missing dependencies from (the registry's
 * installDependencies), from the cache, keyed by the requirements and the interpreter; undefined
 * when the interpreter has them all, or the registry has no such step.
 */
export async function installedDependencies(
  registry: PackageRegistry,
  requirements: readonly string[],
  cwd: string,
  what: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const install = registry.installDependencies?.bind(registry);
  if (!install || requirements.length === 0) return undefined;
  const root = openCacheRoot(env);
  if (!root.usable) throw new RegistryError(cacheRootNote(root, `so the dependencies of ${what} cannot be installed`));
  const key = crypto.createHash("sha256").update(`${[...requirements].sort().join("\n")}\0${registry.variant}`).digest("hex").slice(0, 16);
  const entry = await cachedEntry(path.join(root.dir, "packages", `${registry.kind}-dependencies`, key), `the dependencies of ${what}`, async (into) => {
    const dir = await install(requirements, into, cwd, what);
    // Nothing missing is kept too, so that later runs do not ask pip again.
    return { dir: dir ?? into };
  });
  return fs.readdirSync(entry.dir).some((f) => f !== ENTRY_FILE) ? entry.dir : undefined;
}

/** A cache folder made once: installed into a temporary folder beside it, then renamed into place. */
async function cachedEntry(dir: string, what: string, install: (into: string) => Promise<Installed>): Promise<Installed> {
  const found = readEntry(dir);
  if (found) return found;
  const parent = path.dirname(dir);
  if (!makeCacheDir(parent)) throw new RegistryError(`${parent} cannot be made, so ${what} cannot be installed`);
  const temp = fs.mkdtempSync(path.join(parent, `.installing-${process.pid}-`));
  try {
    const where = await install(temp);
    const relative = (p: string | undefined) => (p === undefined ? undefined : path.relative(temp, p));
    const entry = { dir: relative(where.dir), declarations: relative(where.declarations), manifest: where.manifest };
    fs.writeFileSync(path.join(temp, ENTRY_FILE), JSON.stringify(entry, null, 2));
    try {
      fs.renameSync(temp, dir);
    } catch (e) {
      // Another process put the same package in place first: its folder is as good as ours.
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "EEXIST" && code !== "ENOTEMPTY" && code !== "EPERM") throw e;
    }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  const done = readEntry(dir);
  if (!done) throw new RegistryError(`${what} was installed, and its cache folder ${dir} cannot be read back`);
  return done;
}

function readEntry(dir: string): Installed | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, ENTRY_FILE), "utf8");
  } catch {
    return undefined;
  }
  try {
    const e = JSON.parse(text) as { dir: string; declarations?: string; manifest?: { name: string; version: string } };
    return { dir: path.join(dir, e.dir), declarations: e.declarations === undefined ? undefined : path.join(dir, e.declarations), manifest: e.manifest };
  } catch {
    return undefined;
  }
}
