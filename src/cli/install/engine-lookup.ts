// Where the engine finds a dynamic-provider plugin, in its own order
// (sdk/go/common/workspace/plugins.go, getPluginInfoAndPath; the pieces are
// the serving path's, src/host/plugin/plugin-lookup.ts):
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
import { realPath } from "../../host/files/file-probe.js";
import path from "node:path";
import { samePathText, type Platform } from "../../host/files/platform.js";
import {
  candidateFiles,
  isPluginExecutable as isExecutableFile,
  lookPath,
  pulumiHome,
  resourcePluginBinary,
  resourcePluginFromCache,
  truthy,
} from "../../host/plugin/plugin-lookup.js";
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

export { candidateFiles, lookPath, pulumiHome };

export function binaryName(pkg: PluginPackage): string {
  return resourcePluginBinary(pkg);
}

/** The `pulumi` a user runs from this environment, and the directory the engine looks next to (symlinks resolved). */
export function findPulumi(env: NodeJS.ProcessEnv, platform: Platform = process.platform): { invoked: string; real: string; dir: string } | undefined {
  const invoked = lookPath("pulumi", env, platform);
  if (!invoked) return undefined;
  const real = realPath(invoked) ?? invoked;
  return { invoked, real, dir: path.dirname(real) };
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
  const cached = resourcePluginFromCache(pkg, ctx.env, platform);
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
