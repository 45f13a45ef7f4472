// How the engine would start a dynamic-provider plugin for the program in a
// directory, as far as the plugin can tell: its working directory and the
// environment variables the project adds. `doctor` answers from this, so the
// interpreter and module resolution it reports are the plugin's own.
//
// - cwd (pkg/engine/project.go, getPwdMain): the project root, or its `main:`
//   when that is a directory, or the directory of a `main:` file.
// - env (pkg/resource/plugin/provider_plugin.go, NewProvider): the engine's own
//   environment, then PULUMI_RUNTIME_<OPTION> ("%v" of the value) for every
//   `runtime.options` key of Pulumi.yaml, which win over the inherited ones.
import { isDirectory, readText } from "../../host/files/file-probe.js";
import path from "node:path";
import { parse } from "yaml";
import { findProjectRoot, projectFile } from "../../host/references/project-root.js";

export interface PluginLaunch {
  /** The directory holding Pulumi.yaml, when `dir` is in a project. */
  projectRoot?: string;
  project?: string;
  /** The project's runtime name (nodejs, python, …). */
  runtime?: string;
  /** The plugin's working directory: where Node `require` and Python's sys.path[0] start. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The PULUMI_RUNTIME_* variables the project's runtime options add to env. */
  runtimeEnv: Record<string, string>;
}

export function pluginLaunch(dir: string, env: NodeJS.ProcessEnv): PluginLaunch {
  const projectRoot = findProjectRoot(dir);
  if (!projectRoot) return { cwd: path.resolve(dir), env, runtimeEnv: {} };
  const file = projectFile(projectRoot)!;
  const text = readText(file);
  if (text === undefined) throw new Error(`${file} could not be read`);
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new Error(`${file} is not valid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  const project = isRecord(doc) ? doc : {};
  const runtime = project.runtime;
  const runtimeName = typeof runtime === "string" ? runtime : isRecord(runtime) && typeof runtime.name === "string" ? runtime.name : undefined;
  const options = isRecord(runtime) && isRecord(runtime.options) ? runtime.options : {};
  const added: Record<string, string> = {};
  for (const [k, v] of Object.entries(options)) {
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") added[`PULUMI_RUNTIME_${k.toUpperCase()}`] = String(v);
  }
  return {
    projectRoot,
    project: typeof project.name === "string" ? project.name : undefined,
    runtime: runtimeName,
    cwd: programDir(projectRoot, project.main),
    env: { ...env, ...added },
    runtimeEnv: added,
  };
}

function programDir(root: string, main: unknown): string {
  if (typeof main !== "string" || main === "") return root;
  const target = path.resolve(root, main);
  return isDirectory(target) ? target : path.dirname(target);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v);
}
