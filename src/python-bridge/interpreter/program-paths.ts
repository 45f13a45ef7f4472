// Where a Python worker imports the program's own modules from: the sys.path
// entries it adds, computed here and handed to the worker in one environment
// variable that the worker reads, then removes, before it imports anything.
//
// What the Python language host gives a program (docs/python-imports.md): its
// cwd is the engine's pwd (the project directory, or the directory `main:`
// names, or the directory of the file `main:` names), and runpy.run_path puts
// that directory first on sys.path when `main:` is a directory. The engine
// starts the plugin in the same pwd, so the worker's cwd is already the
// program's; this adds that directory first, as the program has it, also under
// PYTHONSAFEPATH (run_path's insertion does not heed it, unlike the implicit
// entry of `python -m` that the reference plugin relies on).
//
// Then, last on sys.path (after the standard library and site-packages, so
// they never shadow anything installed), the project root and its `src/`:
// where a program's own packages live when it put them on its path itself or
// got them from an editable install the plugin's interpreter may not share
// (a `src/` layout with `main:` set below the root). Under PYTHONSAFEPATH the
// worker gets nothing beyond what the program has.
import path from "node:path";
import { isDirectory } from "../../host/files/file-probe.js";
import { findProjectRoot } from "../../host/references/project-root.js";

/** The variable the worker reads its program paths from (python-stub/program_path.py), then unsets. */
export const PROGRAM_PATH_VARIABLE = "PULUMI_DYNAMIC_HOST_PROGRAM_PATH";

export interface ProgramPaths {
  /** Put before everything else on sys.path, in this order. */
  first: string[];
  /** Appended after everything else, in this order: fallbacks that shadow nothing. */
  last: string[];
}

export interface PathDeps {
  findProjectRoot(start: string): string | undefined;
  isDirectory(p: string): boolean;
}

const realDeps: PathDeps = {
  findProjectRoot,
  isDirectory,
};

/**
 * The program paths for a worker started in `cwd` (the engine's pwd for the
 * plugin) with `env` (the worker's environment: PYTHONSAFEPATH is read from it).
 */
export function programPaths(cwd: string, env: NodeJS.ProcessEnv, deps: PathDeps = realDeps): ProgramPaths {
  const dir = path.resolve(cwd);
  const first = [dir];
  // Python treats any non-empty PYTHONSAFEPATH as set.
  if (env.PYTHONSAFEPATH) return { first, last: [] };
  const root = deps.findProjectRoot(dir);
  const last: string[] = [];
  if (root !== undefined) {
    for (const candidate of [root, path.join(root, "src")]) {
      if (candidate !== dir && !last.includes(candidate) && deps.isDirectory(candidate)) last.push(candidate);
    }
  }
  return { first, last };
}

const computed = new Map<string, string>();

/** The worker's environment entry for `cwd` and `env`, computed once per pair of cwd and PYTHONSAFEPATH. */
export function programPathEnv(cwd: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const key = `${env.PYTHONSAFEPATH ? "safe" : "plain"}\0${cwd}`;
  let value = computed.get(key);
  if (value === undefined) {
    value = JSON.stringify(programPaths(cwd, env));
    computed.set(key, value);
  }
  return { [PROGRAM_PATH_VARIABLE]: value };
}
