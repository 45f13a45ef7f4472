// Finding a second Python for a pickle the program's own Python cannot run:
// dill pickles a provider class defined in `__main__` by value, bytecode and
// all, and bytecode runs only on the CPython minor that compiled it (another
// minor crashes the interpreter). When a state written under Python 3.12 meets
// a program now on 3.11, the host looks where a user keeps Pythons for one
// of that minor with `pulumi` and `dill` importable, and runs that resource's
// calls there (../runtime.ts).
//
// Where it looks, in order (each candidate run once per host process, to read
// its version and its pulumi and dill, since a file named python3.12 may be a
// pyenv shim that exits 127 when that version is not selected):
//   1. beside the interpreter in use: other virtualenvs in the virtualenv's
//      parent directory (<dir>/*/bin/python3.12), the virtualenv's own bin, the
//      base interpreter's directory (pyvenv.cfg `home`);
//   2. `uv python find 3.12`, when uv is on PATH;
//   3. python3.12 on PATH;
//   4. pyenv's versions and virtualenvs ($PYENV_ROOT/versions/*/bin/python3.12).
import { execFile } from "node:child_process";
import os from "node:os";
import * as probe from "../../host/files/file-probe.js";
import { executableName, hasPathSeparator, pathListDelimiter, pathsOf, pathVariable, prependToPath, virtualenvBinName, type Platform } from "../../host/files/platform.js";
import type { Interpreter } from "./interpreter.js";

/** What running a candidate found. */
export interface Probe {
  python: string;
  /** "3.12.1" when it ran. */
  version?: string;
  pulumi?: string;
  dill?: string;
  /** Why it cannot serve: did not run, another version, no pulumi or dill. */
  problem?: string;
}

export interface Found {
  probe: Probe & { version: string; pulumi: string; dill: string };
  interpreter: Interpreter;
}

export interface Search {
  minors: readonly string[];
  found?: Found;
  /** Every candidate run, in order, with what it was. */
  tried: Probe[];
}

export interface SearchDeps {
  /** Runs `python -c script` in cwd with env: stdout, or the failure in words. */
  run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string } | { failure: string }>;
  isFile(p: string): boolean;
  isDirectory(p: string): boolean;
  listDir(p: string): string[];
  readText(p: string): string | undefined;
  /** The system whose layouts apply (unset: this one's; tests pass "win32" or "darwin"). */
  platform?: Platform;
}

const PROBE_TIMEOUT_MS = 60_000;

export const realSearchDeps: SearchDeps = {
  run: (file, args, cwd, env) =>
    new Promise((resolve) => {
      execFile(file, args, { cwd, env, encoding: "utf8", timeout: PROBE_TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
        if (!err) return resolve({ stdout });
        const first = stderr.split("\n").find((l) => l.trim() !== "")?.trim();
        const how = typeof err.code === "number" ? `exited with code ${err.code}` : err.killed ? `was stopped after ${PROBE_TIMEOUT_MS / 1000} s` : err.message;
        resolve({ failure: first ? `${how}: ${first}` : how });
      });
    }),
  isFile: probe.isFile,
  isDirectory: probe.isDirectory,
  listDir: probe.listDirectory,
  readText: (p) => probe.readText(p, 1 << 20),
};

/** Prints the interpreter's version and its pulumi's and dill's, as JSON; never fails on a missing module. */
const PROBE_SCRIPT = [
  "import json, sys",
  "out = {'version': sys.version.split()[0]}",
  "for name in ('pulumi', 'dill'):",
  "    try:",
  "        m = __import__(name)",
  "        try:",
  "            from importlib.metadata import version",
  "            out[name] = version(name)",
  "        except Exception:",
  "            out[name] = getattr(m, '__version__', 'unknown')",
  "    except Exception as e:",
  "        out[name + '_error'] = '%s: %s' % (type(e).__name__, e)",
  "print(json.dumps(out))",
].join("\n");

/** The environment a worker of `python` runs with: the launcher's rules for a virtualenv (PATH first, no PYTHONHOME). */
export function environmentFor(python: string, base: NodeJS.ProcessEnv, deps: Pick<SearchDeps, "isFile" | "platform">): Interpreter {
  const platform = deps.platform ?? process.platform;
  const paths = pathsOf(platform);
  const bin = paths.dirname(python);
  const venv = paths.dirname(bin);
  if (!deps.isFile(paths.join(venv, "pyvenv.cfg"))) return { python, env: { ...base } };
  const env = prependToPath(base, bin, platform);
  delete env.PYTHONHOME;
  return { python, env, virtualenv: venv };
}

/**
 * The interpreters of one host process beside its own: probes are cached by
 * path and searches by minor set, so a deployment pays for each candidate once.
 */
export class InterpreterSearch {
  private readonly probes = new Map<string, Promise<Probe>>();
  private readonly searches = new Map<string, Promise<Search>>();

  constructor(
    private readonly main: Interpreter,
    private readonly cwd: string,
    private readonly deps: SearchDeps = realSearchDeps,
  ) {}

  /** An interpreter of one of `minors` (e.g. ["3.12"]) with pulumi and dill, or what was tried. */
  find(minors: readonly string[]): Promise<Search> {
    const key = minors.join(",");
    let search = this.searches.get(key);
    if (!search) {
      search = this.search(minors);
      this.searches.set(key, search);
    }
    return search;
  }

  private async search(minors: readonly string[]): Promise<Search> {
    const tried: Probe[] = [];
    for (const minor of minors) {
      for await (const candidate of this.candidates(minor)) {
        if (tried.some((t) => t.python === candidate)) continue;
        const probe = await this.probe(candidate, minor);
        tried.push(probe);
        if (probe.problem === undefined) {
          return { minors, tried, found: { probe: probe as Found["probe"], interpreter: environmentFor(candidate, this.main.env, this.deps) } };
        }
      }
    }
    return { minors, tried };
  }

  private probe(python: string, minor: string): Promise<Probe> {
    let probe = this.probes.get(python);
    if (!probe) {
      const { env } = environmentFor(python, this.main.env, this.deps);
      probe = this.deps.run(python, ["-c", PROBE_SCRIPT], this.cwd, env).then((r): Probe => {
        if ("failure" in r) return { python, problem: r.failure };
        let out: Record<string, string>;
        try {
          out = JSON.parse(r.stdout.trim().split("\n").pop() ?? "");
        } catch {
          return { python, problem: `printed ${JSON.stringify(r.stdout.slice(0, 200))}, not its version` };
        }
        return { python, version: out.version, pulumi: out.pulumi, dill: out.dill, problem: moduleProblem(out) };
      });
      this.probes.set(python, probe);
    }
    return probe.then((p) => (p.version !== undefined && !p.version.startsWith(`${minor}.`) ? { ...p, problem: `it is Python ${p.version}` } : p));
  }

  /** Paths that may be Python `minor`, most likely first, each existing as a file (PATH entries are checked by running them). */
  private async *candidates(minor: string): AsyncGenerator<string> {
    const platform = this.deps.platform ?? process.platform;
    const path = pathsOf(platform);
    const bin = virtualenvBinName(platform);
    // python3.12 (python3.12.exe on Windows, where a virtualenv has only python.exe:
    // its version is what the probe reads, so a sibling's python.exe is a candidate too).
    const name = executableName(`python${minor}`, platform);
    const inVenv = (dir: string): string[] => (platform === "win32" ? [path.join(dir, bin, name), path.join(dir, bin, "python.exe")] : [path.join(dir, bin, name)]);
    const env = this.main.env;
    const { isFile, isDirectory, listDir, readText } = this.deps;
    const venv = this.main.virtualenv;
    if (venv) {
      const parent = path.dirname(venv);
      // Siblings are whatever sits beside the virtualenv: Pulumi.yaml, Pulumi.<stack>.yaml, the program's
      // files. Only folders are looked into (file-probe.ts: a file there is an answer, not an error).
      for (const sibling of listDir(parent)) {
        const dir = path.join(parent, sibling);
        if (dir === venv || !isDirectory(dir)) continue;
        for (const p of inVenv(dir)) if (isFile(p)) yield p;
      }
      if (isFile(path.join(venv, bin, name))) yield path.join(venv, bin, name);
      const home = /^\s*home\s*=\s*(.+?)\s*$/m.exec(readText(path.join(venv, "pyvenv.cfg")) ?? "")?.[1];
      for (const p of home ? (platform === "win32" ? [path.join(home, name), path.join(home, "python.exe")] : [path.join(home, name)]) : []) if (isFile(p)) yield p;
    } else {
      const main = this.onPath(this.main.python, env);
      if (main) {
        const own = path.join(path.dirname(main), name);
        if (isFile(own)) yield own;
      }
    }
    if (this.onPath("uv", env)) {
      const r = await this.deps.run("uv", ["python", "find", "--no-config", minor], this.cwd, env);
      const found = "stdout" in r ? r.stdout.trim() : "";
      if (found && isFile(found)) yield found;
    }
    const onPath = this.onPath(name, env);
    if (onPath) yield onPath;
    const pyenvRoot = env.PYENV_ROOT || path.join(env.HOME || os.homedir(), ".pyenv");
    const versions = path.join(pyenvRoot, "versions");
    // Versions of that minor first (3.12.1, 3.12.4), then pyenv virtualenvs of any name.
    const all = listDir(versions);
    for (const v of [...all.filter((v) => v.startsWith(`${minor}.`)), ...all.filter((v) => !v.startsWith(`${minor}.`))]) {
      // pyenv-win keeps python.exe at the version's top; pyenv, bin/python3.12.
      const p = platform === "win32" ? path.join(versions, v, "python.exe") : path.join(versions, v, "bin", name);
      if (isDirectory(path.join(versions, v)) && isFile(p)) yield p;
    }
  }

  /** `command` as PATH finds it (a path is taken as it is), or undefined. */
  private onPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
    const platform = this.deps.platform ?? process.platform;
    if (hasPathSeparator(command, platform)) return this.deps.isFile(command) ? command : undefined;
    const file = executableName(command, platform);
    for (const dir of (env[pathVariable(env, platform)] ?? "").split(pathListDelimiter(platform))) {
      if (dir === "") continue;
      const p = pathsOf(platform).join(dir, file);
      if (this.deps.isFile(p)) return p;
    }
    return undefined;
  }
}

function moduleProblem(out: Record<string, string>): string | undefined {
  const missing = ["pulumi", "dill"].filter((m) => out[m] === undefined).map((m) => (out[`${m}_error`] ? `${m} (${out[`${m}_error`]})` : m));
  return missing.length ? `it cannot import ${missing.join(" or ")}` : undefined;
}

