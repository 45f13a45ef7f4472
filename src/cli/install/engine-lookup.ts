// Where the engine finds a dynamic-provider plugin, in its own order
// (sdk/go/common/workspace/plugins.go, getPluginInfoAndPath):
//   1. Pulumi.yaml `plugins.providers` entries of the project (a directory);
//   2. $PATH (exec.LookPath), unless PULUMI_IGNORE_AMBIENT_PLUGINS is truthy;
//   3. next to the running `pulumi`, its symlinks resolved (owner-exec bit);
//   4. the plugin cache, $PULUMI_HOME/plugins, highest version.
// When 2 finds a file whose resolved path is not the (unresolved) path of 3,
// the engine uses 2 and warns "using … from $PATH at …" on every run.
// On Windows the engine looks beside pulumi for `<name>.exe`, then `<name>.cmd`,
// and Go's exec.LookPath tries PATHEXT's extensions in each PATH entry; there is
// no exec bit there, so any file counts. Each function takes the platform
// (process.platform by default): the tests run Windows' order on Linux. Files
// are still found with the running system's path functions, so a test's
// folders are real ones.
// `install` and `doctor` answer with this, so they never guess.
import { listDirectory, realPath, statOf } from "../../host/files/file-probe.js";
import os from "node:os";
import path from "node:path";
import { pathListDelimiter, pathVariable, samePathText, type Platform } from "../../host/files/platform.js";
import { readProjectPlugins, type ProjectPlugin } from "./project-file.js";

export type PluginPackage = "pulumi-nodejs" | "pulumi-python";

export interface Found {
  source: "project" | "path" | "bundled" | "cache";
  path: string;
}

export interface PluginResolution {
  binary: string;
  /** What the engine launches, or undefined when it finds nothing (it then fails: the plugin is bundled, never downloaded). */
  chosen?: Found;
  /** The warning the engine prints on every run with this set-up. */
  warning?: string;
  /** Every place that has the plugin, in the engine's order. */
  candidates: Found[];
}

const truthy = (v: string | undefined) => v === "1" || v?.toLowerCase() === "true";

export function binaryName(pkg: PluginPackage): string {
  return `pulumi-resource-${pkg}`;
}

function isExecutableFile(p: string, ownerOnly = false, platform: Platform = process.platform): boolean {
  const st = statOf(p);
  // Windows has no exec bit: a file is run by its extension.
  return !!st && !st.isDirectory() && (platform === "win32" || (st.mode & (ownerOnly ? 0o100 : 0o111)) !== 0);
}

/** The file names the engine tries for `binary` beside pulumi, in its order: `.exe` then `.cmd` on Windows. */
export function candidateFiles(binary: string, platform: Platform): string[] {
  return platform === "win32" ? [`${binary}.exe`, `${binary}.cmd`] : [binary];
}

/** PATHEXT's extensions, lower case, as Go reads them (its default when unset). */
function pathExtensions(env: NodeJS.ProcessEnv): string[] {
  const key = Object.keys(env).find((k) => k.toUpperCase() === "PATHEXT");
  const exts = (key ? env[key] ?? "" : "").split(";").filter((e) => e !== "").map((e) => (e.startsWith(".") ? e : `.${e}`).toLowerCase());
  return exts.length > 0 ? exts : [".com", ".exe", ".bat", ".cmd"];
}

/**
 * Go's exec.LookPath: the first executable `file` in an absolute $PATH entry (a relative one is an error there).
 * On Windows: `Path` in any case, `;` between entries, and in each entry `file` with each of PATHEXT's extensions
 * (as it is first, when it already ends with one of them).
 */
export function lookPath(file: string, env: NodeJS.ProcessEnv, platform: Platform = process.platform): string | undefined {
  const win = platform === "win32";
  const exts = win ? pathExtensions(env) : [];
  const names = !win ? [file] : [...(exts.includes(path.extname(file).toLowerCase()) ? [file] : []), ...exts.map((e) => file + e)];
  for (const dir of (env[pathVariable(env, platform)] ?? "").split(pathListDelimiter(platform))) {
    if (!dir || !(path.isAbsolute(dir) || (win && path.win32.isAbsolute(dir)))) continue;
    for (const name of names) {
      const p = path.join(dir, name);
      if (isExecutableFile(p, false, platform)) return p;
    }
  }
  return undefined;
}

/** The `pulumi` a user runs from this environment, and the directory the engine looks next to (symlinks resolved). */
export function findPulumi(env: NodeJS.ProcessEnv, platform: Platform = process.platform): { invoked: string; real: string; dir: string } | undefined {
  const invoked = lookPath("pulumi", env, platform);
  if (!invoked) return undefined;
  const real = realPath(invoked) ?? invoked;
  return { invoked, real, dir: path.dirname(real) };
}

export function pulumiHome(env: NodeJS.ProcessEnv): string {
  return env.PULUMI_HOME || path.join(os.homedir(), ".pulumi");
}

/** The cache's highest `resource-<pkg>-v<semver>` directory holding the binary, skipping ones still being written. */
function fromCache(pkg: PluginPackage, env: NodeJS.ProcessEnv, platform: Platform): string | undefined {
  const dir = path.join(pulumiHome(env), "plugins");
  const entries = listDirectory(dir);
  const prefix = `resource-${pkg}-v`;
  const versions = entries
    .filter((e) => e.startsWith(prefix) && !e.endsWith(".partial") && !entries.includes(`${e}.partial`))
    .map((e) => ({ e, v: e.slice(prefix.length).split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0) }))
    .sort((a, b) => {
      for (let i = 0; i < Math.max(a.v.length, b.v.length); i++) if ((a.v[i] ?? 0) !== (b.v[i] ?? 0)) return (b.v[i] ?? 0) - (a.v[i] ?? 0);
      return 0;
    });
  for (const { e } of versions) {
    for (const f of candidateFiles(binaryName(pkg), platform)) {
      const p = path.join(dir, e, f);
      if (isExecutableFile(p, false, platform)) return p;
    }
  }
  return undefined;
}

export interface LookupContext {
  env: NodeJS.ProcessEnv;
  /** The project's root (the directory of Pulumi.yaml), when there is a project. */
  projectRoot?: string;
  /** The directory of the running pulumi, symlinks resolved (findPulumi().dir). */
  pulumiDir?: string;
  /** The system whose lookup this is (process.platform unless a test says). */
  platform?: Platform;
}

export function resolvePlugin(pkg: PluginPackage, ctx: LookupContext): PluginResolution {
  const binary = binaryName(pkg);
  const platform = ctx.platform ?? process.platform;
  const candidates: Found[] = [];
  const project: ProjectPlugin | undefined = ctx.projectRoot ? readProjectPlugins(ctx.projectRoot).find((p) => p.name === pkg) : undefined;
  if (project) candidates.push({ source: "project", path: path.join(project.dir, binary) });
  const ambient = truthy(ctx.env.PULUMI_IGNORE_AMBIENT_PLUGINS) ? undefined : lookPath(binary, ctx.env, platform);
  if (ambient) candidates.push({ source: "path", path: ambient });
  const pulumiDir = ctx.pulumiDir;
  const bundled = pulumiDir === undefined ? undefined : candidateFiles(binary, platform).map((f) => path.join(pulumiDir, f)).find((p) => isExecutableFile(p, true, platform));
  if (bundled) candidates.push({ source: "bundled", path: bundled });
  const cached = fromCache(pkg, ctx.env, platform);
  if (cached) candidates.push({ source: "cache", path: cached });

  if (project) return { binary, chosen: candidates[0], candidates };
  let warning: string | undefined;
  const same = (a: string, b: string | undefined) => b !== undefined && (platform === "win32" ? samePathText(a, b, platform) : a === b);
  if (ambient && !same(ambient, bundled)) {
    const resolved = realPath(ambient);
    if (resolved !== undefined && !same(resolved, bundled)) {
      warning = `using ${binary} from $PATH at ${ambient}${bundled ? ` expected ${bundled}` : ""}`;
    }
  }
  const chosen = candidates.find((c) => c.source === "path") ?? candidates.find((c) => c.source === "bundled") ?? candidates.find((c) => c.source === "cache");
  return { binary, chosen, warning, candidates };
}
