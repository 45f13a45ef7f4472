// Where the engine finds a resource plugin `pulumi-resource-<name>`, in its own
// order (sdk/go/common/workspace/plugins.go, getPluginInfoAndPath):
//   1. the project's Pulumi.yaml `plugins.providers` entry of that name (a directory,
//      relative to the project root);
//   2. $PATH (exec.LookPath), unless PULUMI_IGNORE_AMBIENT_PLUGINS is truthy;
//   3. next to the running `pulumi` (only for the plugins the engine bundles,
//      among them the two dynamic-provider plugins);
//   4. the plugin cache, $PULUMI_HOME/plugins/resource-<name>-v<version>/, highest version.
// These are the pieces of that order; `install` and `doctor` put them together
// for our own two plugins (src/cli/install/engine-lookup.ts), the serving path
// for a component's plugin (../components/component-folder.ts). On Windows
// the engine looks for `<name>.exe` then `<name>.cmd`, and Go's exec.LookPath
// tries PATHEXT's extensions in each PATH entry; there is no exec bit there,
// so any file counts. Each function takes the platform (process.platform by
// default) so a test can run Windows' order on Linux; files are found with the
// running system's path functions, so a test's folders are real ones.
import os from "node:os";
import path from "node:path";
import { listDirectory, statOf } from "../files/file-probe.js";
import { pathListDelimiter, pathVariable, type Platform } from "../files/platform.js";

/** The file the engine runs for resource plugin `name`. */
export function resourcePluginBinary(name: string): string {
  return `pulumi-resource-${name}`;
}

/** Whether PULUMI_IGNORE_AMBIENT_PLUGINS (or another of the engine's flags) is set as the engine reads it. */
export function truthy(v: string | undefined): boolean {
  return v === "1" || v?.toLowerCase() === "true";
}

/** A file the engine would run: any file on Windows, else one with an exec bit (the owner's, when `ownerOnly`). */
export function isPluginExecutable(p: string, ownerOnly = false, platform: Platform = process.platform): boolean {
  const st = statOf(p);
  return !!st && !st.isDirectory() && (platform === "win32" || (st.mode & (ownerOnly ? 0o100 : 0o111)) !== 0);
}

/** The file names the engine tries for `binary` in a folder, in its order: `.exe` then `.cmd` on Windows. */
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
      if (isPluginExecutable(p, false, platform)) return p;
    }
  }
  return undefined;
}

export function pulumiHome(env: NodeJS.ProcessEnv): string {
  return env.PULUMI_HOME || path.join(os.homedir(), ".pulumi");
}

/** The cache's highest `resource-<name>-v<semver>` folder holding the plugin's file, skipping ones still being written. */
export function resourcePluginFromCache(name: string, env: NodeJS.ProcessEnv, platform: Platform = process.platform): string | undefined {
  const dir = path.join(pulumiHome(env), "plugins");
  const entries = listDirectory(dir);
  const prefix = `resource-${name}-v`;
  const versions = entries
    .filter((e) => e.startsWith(prefix) && !e.endsWith(".partial") && !entries.includes(`${e}.partial`))
    .map((e) => ({ e, v: e.slice(prefix.length).split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0) }))
    .sort((a, b) => {
      for (let i = 0; i < Math.max(a.v.length, b.v.length); i++) if ((a.v[i] ?? 0) !== (b.v[i] ?? 0)) return (b.v[i] ?? 0) - (a.v[i] ?? 0);
      return 0;
    });
  for (const { e } of versions) {
    for (const f of candidateFiles(resourcePluginBinary(name), platform)) {
      const p = path.join(dir, e, f);
      if (isPluginExecutable(p, false, platform)) return p;
    }
  }
  return undefined;
}

export interface ProjectPlugin {
  name: string;
  /** As written. */
  path: string;
  /** Absolute: resolved against the project root, as the engine does. */
  dir: string;
}

/**
 * The `plugins.providers` entries ({ name, path }) of a project file's parsed
 * content `doc`, their folders resolved against the project root `root`;
 * entries of another shape are left out, as the engine does not run them either.
 */
export function projectPluginsOf(doc: unknown, root: string): ProjectPlugin[] {
  const plugins = isRecord(doc) ? doc.plugins : undefined;
  const providers = isRecord(plugins) ? plugins.providers : undefined;
  if (!Array.isArray(providers)) return [];
  const out: ProjectPlugin[] = [];
  for (const item of providers) {
    if (!isRecord(item)) continue;
    const { name, path: p } = item;
    if (typeof name === "string" && typeof p === "string") out.push({ name, path: p, dir: path.resolve(root, p) });
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
