// Which Python runs the Python providers of a project, whatever its runtime.
//
// A Python project (runtime python), or a directory with no Pulumi.yaml, keeps
// the reference launcher's rules exactly (interpreter.ts). A project of any
// other runtime (nodejs, go, yaml, …) serves declared Python providers to its
// program, and has no virtualenv option of Pulumi's; its rules, in order:
//
//   a. the section's `python:` (project-python.ts): a path, relative to the
//      directory of Pulumi.yaml, to a python executable or a virtualenv
//      directory; or a command name looked up on PATH (a bare name that is a
//      directory beside Pulumi.yaml, e.g. `venv`, is that directory);
//   b. else a virtualenv `.venv`, then `venv`, beside Pulumi.yaml;
//   c. else $PULUMI_PYTHON_CMD, or python3, on PATH.
//
// A virtualenv gets what the reference launcher gives one: its bin/ first on
// PATH, PYTHONHOME dropped. The interpreter says which rule chose it (`choice`), for
// doctor and for errors. Nothing usable is not fatal here, unlike a Python
// project's broken virtualenv: the plugin must still start and answer each
// request that needs Python with an error naming it (unusable-interpreter.ts).
import { isExecutableFile } from "../../host/files/file-probe.js";
import {
  executableName,
  hasPathSeparator,
  pathListDelimiter,
  pathsOf,
  pathVariable,
  prependToPath,
  virtualenvBin,
  virtualenvBinName,
  virtualenvPython,
  type Platform,
} from "../../host/files/platform.js";
import { SECTION } from "../../host/references/provider-references.js";
import { realDeps as launcherDeps, resolveInterpreter, shellPwd, type Interpreter, type InterpreterChoice, type ResolveDeps } from "./interpreter.js";
import type { ProjectPython } from "./project-python.js";

/** No usable interpreter: what was looked for, and what is wrong. */
export interface Unusable {
  /** What is wrong, as a clause: "python3 is not on PATH". */
  problem: string;
  /** The rule that applied. */
  choice: InterpreterChoice;
}

export type ProjectResolution =
  | { ok: true; interpreter: Interpreter }
  | { ok: false; exitCode: 1; stderr: string[] }
  | { ok: false; unusable: Unusable };

export interface ProjectDeps extends ResolveDeps {
  /** The executable `name` resolves to on `PATH`, or undefined. */
  onPath(name: string, PATH: string): string | undefined;
}

/**
 * Where `name` is looked for on `PATH`, in order: each entry (empty: the
 * working directory) joined with the name, and on Windows with `.exe` added
 * where the name has no extension (`python3` is `python3.exe` there).
 */
export function pathCandidates(name: string, PATH: string, platform: Platform): string[] {
  const paths = pathsOf(platform);
  const names = platform === "win32" && paths.extname(name) === "" ? [executableName(name, platform), name] : [name];
  return PATH.split(pathListDelimiter(platform)).flatMap((dir) => names.map((n) => paths.join(dir || ".", n)));
}

export const realProjectDeps: ProjectDeps = {
  ...launcherDeps,
  onPath: (name, PATH) => pathCandidates(name, PATH, process.platform).find(isExecutableFile),
};

/** The interpreter for the program in `cwd` of `project` (undefined: no Pulumi.yaml was found). */
export function resolveProjectInterpreter(
  cwd: string,
  env: NodeJS.ProcessEnv,
  project: ProjectPython | undefined,
  deps: ProjectDeps = realProjectDeps,
): ProjectResolution {
  if (!project || project.runtime === undefined || project.runtime === "python") return resolveInterpreter(cwd, env, deps);
  const { file, root, runtime } = project;
  const platform = deps.platform ?? process.platform;
  const paths = pathsOf(platform);
  const searchPath = env[pathVariable(env, platform)] ?? "";
  const pwd = shellPwd(cwd, env);
  const choice = (rule: InterpreterChoice["rule"], why: string): InterpreterChoice => ({ rule, why, file, runtime });
  const unusable = (c: InterpreterChoice, problem: string): ProjectResolution => ({ ok: false, unusable: { problem, choice: c } });
  const virtualenv = (dir: string, python: string, c: InterpreterChoice): ProjectResolution => {
    const workerEnv: NodeJS.ProcessEnv = { ...prependToPath(env, virtualenvBin(dir, platform), platform), PWD: pwd };
    delete workerEnv.PYTHONHOME;
    return { ok: true, interpreter: { python, env: workerEnv, virtualenv: dir, choice: c } };
  };
  const plain = (python: string, c: InterpreterChoice): ProjectResolution => ({ ok: true, interpreter: { python, env: { ...env, PWD: pwd }, choice: c } });

  if (project.problem) return unusable(choice("section", `${SECTION}.python in ${file}`), project.problem);
  const named = project.python;
  if (named !== undefined) {
    const c = choice("section", `${SECTION}.python in ${file} (${JSON.stringify(named)})`);
    const beside = paths.resolve(root, named);
    const isPath = hasPathSeparator(named, platform) || named.startsWith(".") || deps.isDirectory(beside);
    if (!isPath) {
      return deps.onPath(named, searchPath) ? plain(named, c) : unusable(c, `the command ${named} is not on PATH`);
    }
    if (deps.isDirectory(beside)) {
      const python = virtualenvPython(beside, platform);
      const inside = paths.relative(beside, python);
      return deps.isFile(python) ? virtualenv(beside, python, c) : unusable(c, `${beside} is a directory but not a virtualenv (it has no ${inside})`);
    }
    if (!deps.isFile(beside)) return unusable(c, `${beside} does not exist`);
    // An interpreter inside a virtualenv (…/bin/python3.12, …\Scripts\python.exe, beside …/pyvenv.cfg) is that virtualenv's.
    const home = paths.dirname(paths.dirname(beside));
    const binName = paths.basename(paths.dirname(beside));
    const isBin = platform === "win32" ? binName.toLowerCase() === virtualenvBinName(platform).toLowerCase() : binName === virtualenvBinName(platform);
    if (isBin && deps.isFile(paths.join(home, "pyvenv.cfg"))) return virtualenv(home, beside, c);
    return plain(beside, c);
  }
  for (const name of [".venv", "venv"]) {
    const dir = paths.join(root, name);
    const python = virtualenvPython(dir, platform);
    if (deps.isFile(python)) return virtualenv(dir, python, choice("virtualenv", `the virtualenv ${name} beside ${file}`));
  }
  const command = env.PULUMI_PYTHON_CMD || "python3";
  const why = `${env.PULUMI_PYTHON_CMD ? "$PULUMI_PYTHON_CMD" : "python3"} on PATH (no ${SECTION}.python in ${file}, and no .venv or venv beside it)`;
  const c = choice("command", why);
  const isPath = hasPathSeparator(command, platform);
  const found = isPath ? (deps.isFile(paths.resolve(cwd, command)) ? command : undefined) : deps.onPath(command, searchPath);
  return found ? plain(command, c) : unusable(c, `${command} is not ${isPath ? "a file" : "on PATH"}`);
}
