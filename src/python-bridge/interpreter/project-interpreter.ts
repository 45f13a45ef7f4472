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
import path from "node:path";
import { isExecutableFile } from "../../host/files/file-probe.js";
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

export const realProjectDeps: ProjectDeps = {
  ...launcherDeps,
  onPath: (name, PATH) => {
    for (const dir of PATH.split(":")) {
      const candidate = path.join(dir || ".", name);
      if (isExecutableFile(candidate)) return candidate;
    }
    return undefined;
  },
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
  const pwd = shellPwd(cwd, env);
  const choice = (rule: InterpreterChoice["rule"], why: string): InterpreterChoice => ({ rule, why, file, runtime });
  const unusable = (c: InterpreterChoice, problem: string): ProjectResolution => ({ ok: false, unusable: { problem, choice: c } });
  const virtualenv = (dir: string, python: string, c: InterpreterChoice): ProjectResolution => {
    const workerEnv: NodeJS.ProcessEnv = { ...env, PWD: pwd, PATH: `${dir}/bin:${env.PATH ?? ""}` };
    delete workerEnv.PYTHONHOME;
    return { ok: true, interpreter: { python, env: workerEnv, virtualenv: dir, choice: c } };
  };
  const plain = (python: string, c: InterpreterChoice): ProjectResolution => ({ ok: true, interpreter: { python, env: { ...env, PWD: pwd }, choice: c } });

  if (project.problem) return unusable(choice("section", `${SECTION}.python in ${file}`), project.problem);
  const named = project.python;
  if (named !== undefined) {
    const c = choice("section", `${SECTION}.python in ${file} (${JSON.stringify(named)})`);
    const beside = path.resolve(root, named);
    const isPath = named.includes("/") || named.startsWith(".") || deps.isDirectory(beside);
    if (!isPath) {
      return deps.onPath(named, env.PATH ?? "") ? plain(named, c) : unusable(c, `the command ${named} is not on PATH`);
    }
    if (deps.isDirectory(beside)) {
      const python = `${beside}/bin/python`;
      return deps.isFile(python) ? virtualenv(beside, python, c) : unusable(c, `${beside} is a directory but not a virtualenv (it has no bin/python)`);
    }
    if (!deps.isFile(beside)) return unusable(c, `${beside} does not exist`);
    // An interpreter inside a virtualenv (…/bin/python3.12 beside …/pyvenv.cfg) is that virtualenv's.
    const home = path.dirname(path.dirname(beside));
    if (path.basename(path.dirname(beside)) === "bin" && deps.isFile(path.join(home, "pyvenv.cfg"))) return virtualenv(home, beside, c);
    return plain(beside, c);
  }
  for (const name of [".venv", "venv"]) {
    const dir = path.join(root, name);
    const python = `${dir}/bin/python`;
    if (deps.isFile(python)) return virtualenv(dir, python, choice("virtualenv", `the virtualenv ${name} beside ${file}`));
  }
  const command = env.PULUMI_PYTHON_CMD || "python3";
  const why = `${env.PULUMI_PYTHON_CMD ? "$PULUMI_PYTHON_CMD" : "python3"} on PATH (no ${SECTION}.python in ${file}, and no .venv or venv beside it)`;
  const c = choice("command", why);
  const found = command.includes("/") ? (deps.isFile(path.resolve(cwd, command)) ? command : undefined) : deps.onPath(command, env.PATH ?? "");
  return found ? plain(command, c) : unusable(c, `${command} is not ${command.includes("/") ? "a file" : "on PATH"}`);
}
