// src/python-bridge/interpreter: which Python: a Python project's interpreter
// as the reference launcher picks it (interpreter.ts), what Pulumi.yaml says
// about the Python of a project of another runtime (project-python.ts,
// project-interpreter.ts), the search for a Python of another minor
// (interpreter-search.ts), the program's sys.path (program-paths.ts), and the
// error when no usable Python exists (unusable-interpreter.ts). It may import
// the serving path's contract and errors and src/host's folders; nothing else
// of the bridge: the workers, which run what it finds, are above it.
//
// Which Python runs the user's providers, decided exactly as the Python
// reference's launcher script (sdk/python/dist/pulumi-resource-pulumi-python)
// decides it, so a program finds the same interpreter, virtualenv and PATH under
// us as under the reference, and a broken set-up gets the same messages.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { isDirectory, isFile, sameFile } from "../../host/files/file-probe.js";
import { pathsOf, prependToPath, virtualenvBin, virtualenvPython, withoutTrailingSeparator, type Platform } from "../../host/files/platform.js";
import { findProjectRoot } from "../../host/references/project-root.js";

/** Which rule chose the interpreter of a project whose runtime is not python. */
export interface InterpreterChoice {
  rule: "section" | "virtualenv" | "command";
  /** The rule and what it found, for people: "pulumi-dynamic-host.python in /p/Pulumi.yaml (.venv)". */
  why: string;
  /** The project's Pulumi.yaml and runtime. */
  file: string;
  runtime: string;
}

export interface Interpreter {
  /** The python executable to run. */
  python: string;
  /** The environment the worker runs with (PATH prepended, PYTHONHOME dropped for a virtualenv). */
  env: NodeJS.ProcessEnv;
  /** The virtualenv in use, absolute, when there is one. */
  virtualenv?: string;
  /** For a project whose runtime is not python: which of its rules chose this (project-interpreter.ts). */
  choice?: InterpreterChoice;
}

export type Resolution =
  | { ok: true; interpreter: Interpreter }
  | { ok: false; exitCode: 1; stderr: string[] };

export interface ResolveDeps {
  isFile(p: string): boolean;
  isDirectory(p: string): boolean;
  /** `poetry env info --path` in cwd: stdout with trailing newlines removed, or "" when it fails. */
  poetryEnvPath(cwd: string, env: NodeJS.ProcessEnv): string;
  /** The directory holding the project's Pulumi.yaml, at or above cwd (unset: the project is not looked for). */
  projectRoot?(cwd: string): string | undefined;
  /** The system whose virtualenv layout and paths apply (unset: this one's; tests pass "win32" or "darwin"). */
  platform?: Platform;
}

export const realDeps: ResolveDeps = {
  isFile,
  isDirectory,
  poetryEnvPath: (cwd, env) => {
    try {
      // As `$(poetry env info --path)`: poetry's own errors reach our stderr, the value is then empty.
      return execFileSync("poetry", ["env", "info", "--path"], { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).replace(/\n+$/, "");
    } catch {
      return "";
    }
  },
  projectRoot: findProjectRoot,
};

/**
 * The shell's $PWD: the inherited PWD when it names the working directory
 * (it may spell it through a symlink), otherwise the working directory itself.
 */
export function shellPwd(cwd: string, env: NodeJS.ProcessEnv): string {
  const pwd = env.PWD;
  if (pwd && path.isAbsolute(pwd)) {
    if (sameFile(pwd, cwd)) return pwd;
  }
  return cwd;
}

export function resolveInterpreter(cwd: string, env: NodeJS.ProcessEnv, deps: ResolveDeps = realDeps): Resolution {
  const pwd = shellPwd(cwd, env);
  let venv = env.PULUMI_RUNTIME_VIRTUALENV ?? "";
  if (venv === "") {
    const toolchain = env.PULUMI_RUNTIME_TOOLCHAIN ?? "";
    if (toolchain === "uv") venv = ".venv";
    else if (toolchain === "poetry") venv = deps.poetryEnvPath(cwd, env);
  }
  // The launcher is an sh script: sh exports PWD as the $PWD above, whatever the engine passed.
  if (venv === "") {
    return { ok: true, interpreter: { python: env.PULUMI_PYTHON_CMD || "python3", env: { ...env, PWD: pwd } } };
  }
  const platform = deps.platform ?? process.platform;
  venv = withoutTrailingSeparator(venv, platform);
  if (!pathsOf(platform).isAbsolute(venv)) venv = relativeVirtualenv(venv, cwd, pwd, deps, platform);
  // <venv>/bin/python, or <venv>\Scripts\python.exe on Windows (platform.ts).
  const python = virtualenvPython(venv, platform);
  if (deps.isFile(python)) {
    const workerEnv: NodeJS.ProcessEnv = { ...prependToPath(env, virtualenvBin(venv, platform), platform), PWD: pwd };
    delete workerEnv.PYTHONHOME;
    // The launcher rewrites the variable in place: if it came from the environment, the rewritten value is exported.
    if (env.PULUMI_RUNTIME_VIRTUALENV !== undefined) workerEnv.PULUMI_RUNTIME_VIRTUALENV = venv;
    return { ok: true, interpreter: { python, env: workerEnv, virtualenv: venv } };
  }
  const problem = deps.isDirectory(venv) ? "doesn't appear to be a virtual environment." : "doesn't exist.";
  return {
    ok: false,
    exitCode: 1,
    stderr: [
      `The 'virtualenv' option in Pulumi.yaml is set to "${venv}", but "${venv}" ${problem}`,
      "Run the following commands to create the virtual environment and install dependencies into it:",
      `    1. python3 -m venv ${venv}`,
      `    2. ${python} -m pip install --upgrade pip setuptools wheel`,
      `    3. ${python} -m pip install -r ${pathsOf(platform).join(pwd, "requirements.txt")}`,
      "For more information see: https://www.pulumi.com/docs/intro/languages/python/#virtual-environments",
    ],
  };
}

/**
 * A relative virtualenv (the option, or uv's `.venv`) is found where the
 * reference launcher looks, under the plugin's working directory; when that
 * has none and `main:` put the plugin below the project root, under the root,
 * where the language host resolved it for the program (a deliberate difference:
 * the reference fails there, docs/parity.md). Otherwise the launcher's path,
 * so its error names what it names.
 */
function relativeVirtualenv(venv: string, cwd: string, pwd: string, deps: ResolveDeps, platform: Platform): string {
  const paths = pathsOf(platform);
  // As the shell launcher's "$PWD/$venv" on POSIX (no normalizing: its error names that text).
  const underPwd = platform === "win32" ? paths.join(pwd, venv) : `${pwd}/${venv}`;
  if (deps.isFile(virtualenvPython(underPwd, platform))) return underPwd;
  const root = deps.projectRoot?.(cwd);
  if (root === undefined || paths.resolve(root) === paths.resolve(cwd)) return underPwd;
  const underRoot = paths.join(root, venv);
  return deps.isFile(virtualenvPython(underRoot, platform)) ? underRoot : underPwd;
}
