// Python `__provider` payloads for the conformance cases, made the way a
// program makes them: `pulumi.dynamic`'s own serialize_provider (dill) in the
// interpreter the Python plugin would run for the project, so the pickles hold
// the bytecode of that Python and the classes of that SDK.
//
// Which interpreter: exactly the plugin's choice (src/python-bridge/interpreter/interpreter.ts,
// the reference launcher's rules) for the program directory and environment the
// engine gives the plugin: PULUMI_RUNTIME_VIRTUALENV / PULUMI_RUNTIME_TOOLCHAIN
// (which the engine sets from Pulumi.yaml's runtime options; src/cli passes them
// in), else PULUMI_PYTHON_CMD, else python3 on PATH, which is an activated
// virtualenv's ($VIRTUAL_ENV/bin comes first on PATH). A pickle made by another
// Python than the one the plugin runs would test a version drift, not the plugin.
//
// A scenario module (src/conformance/scenarios/*.py) run as a script prints
// {name: payload} as JSON for the names given; its classes live in __main__ and
// are pickled by value, as a program's are.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { assetDirectory } from "../host/files/assets.js";
import { resolveInterpreter, type Interpreter } from "../python-bridge/interpreter/interpreter.js";
import { InterpreterSearch } from "../python-bridge/interpreter/interpreter-search.js";
import { Needs, type Program } from "./case.js";

/** The directory of the provider scenario modules, in the checkout or the installed package. */
export function scenariosDirectory(): string {
  return assetDirectory(path.join("src", "conformance", "scenarios"));
}

/** What the payload interpreter is and why it was chosen (for the report's header and errors). */
export interface PayloadPython {
  interpreter: Interpreter;
  /** The executable as Python reports it (sys.executable). */
  executable: string;
  /** "3.11.9" */
  version: string;
  /** The virtualenv it runs in (sys.prefix, when that is not sys.base_prefix), however it was named (a path, `python3` on PATH). */
  virtualenv?: string;
  pulumi: string;
  dill: string;
  /** Why this interpreter: "PULUMI_RUNTIME_VIRTUALENV", "the uv toolchain", "PULUMI_PYTHON_CMD", "python3 on PATH". */
  chosenBy: string;
}

const PROBE =
  "import json, sys\n" +
  "out = {'executable': sys.executable, 'version': '%d.%d.%d' % sys.version_info[:3], 'prefix': sys.prefix, 'base_prefix': sys.base_prefix}\n" +
  "for name in ('pulumi', 'dill'):\n" +
  "    try:\n" +
  "        m = __import__(name)\n" +
  "        out[name] = getattr(m, '__version__', None) or __import__('importlib.metadata').metadata.version(name)\n" +
  "    except Exception as e:\n" +
  "        out[name + '_error'] = '%s: %s' % (type(e).__name__, e)\n" +
  "print(json.dumps(out))\n";

function chosenBy(env: NodeJS.ProcessEnv, interpreter: Interpreter): string {
  if (interpreter.virtualenv) {
    return env.PULUMI_RUNTIME_VIRTUALENV ? `the virtualenv ${interpreter.virtualenv} (PULUMI_RUNTIME_VIRTUALENV)` : `the virtualenv ${interpreter.virtualenv} (the ${env.PULUMI_RUNTIME_TOOLCHAIN} toolchain)`;
  }
  return env.PULUMI_PYTHON_CMD ? "PULUMI_PYTHON_CMD" : "python3 on PATH (no virtualenv set)";
}

/**
 * The interpreter the Python plugin would use in `cwd` with `env`, checked to
 * have pulumi and dill; throws an Error saying what is missing and how to get it.
 */
export function resolvePayloadPython(cwd: string, env: NodeJS.ProcessEnv): PayloadPython {
  const resolution = resolveInterpreter(cwd, env);
  if (!resolution.ok) {
    throw new Error(`conformance (python): no interpreter to make the payloads with, as the plugin would find none in ${cwd}:\n${resolution.stderr.join("\n")}`);
  }
  return probePayloadPython(resolution.interpreter, chosenBy(env, resolution.interpreter), cwd);
}

/** A given interpreter (the tests' virtualenv, `--python`), checked the same way. */
export function payloadPythonAt(python: string, env: NodeJS.ProcessEnv = process.env): PayloadPython {
  return probePayloadPython({ python, env }, "the caller", process.cwd());
}

function probePayloadPython(interpreter: Interpreter, why: string, cwd: string): PayloadPython {
  let probe: Record<string, string>;
  try {
    probe = JSON.parse(execFileSync(interpreter.python, ["-c", PROBE], { cwd, env: interpreter.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    const detail = err.code === "ENOENT" ? "it does not exist" : (err.stderr?.trim().split("\n").pop() ?? err.message);
    throw new Error(`conformance (python): the interpreter ${interpreter.python} (chosen by ${why}) did not run: ${detail}`);
  }
  const missing = (["pulumi", "dill"] as const).filter((m) => probe[m] === undefined);
  if (missing.length > 0) {
    const why2 = missing.map((m) => `${m} (${probe[`${m}_error`]})`).join(", ");
    throw new Error(
      `conformance (python): ${probe.executable} (Python ${probe.version}, chosen by ${why}) cannot make the payloads: ` +
        `it cannot import ${why2}. Install them there (${probe.executable} -m pip install ${missing.join(" ")}), ` +
        `or point the project at a virtualenv that has them (Pulumi.yaml runtime.options.virtualenv).`,
    );
  }
  const virtualenv = probe.prefix !== probe.base_prefix ? probe.prefix : undefined;
  return { interpreter, executable: probe.executable, version: probe.version, virtualenv, pulumi: probe.pulumi, dill: probe.dill, chosenBy: why };
}

export interface RunOptions {
  /** Another interpreter than the payload one (a pickle "of another Python"). */
  python?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Makes and keeps payloads of the scenario modules with one interpreter. */
export class PythonPayloads {
  private readonly made = new Map<string, Record<string, string>>();

  constructor(
    readonly python: PayloadPython,
    readonly scenarios: string = scenariosDirectory(),
  ) {}

  /** The absolute path of a scenario module (the file a by-value class's frames name); ".py" may be left out. */
  file(scenario: string): string {
    return path.join(this.scenarios, scenario.endsWith(".py") ? scenario : `${scenario}.py`);
  }

  /** The payload of provider `name` of a scenario module (python_providers.py by default); the module runs once. */
  provider(name: string, scenario = "python_providers.py"): string {
    scenario = path.basename(this.file(scenario));
    let payloads = this.made.get(scenario);
    if (!payloads) {
      const out = this.run([this.file(scenario)], { cwd: this.scenarios });
      try {
        payloads = JSON.parse(out) as Record<string, string>;
      } catch {
        throw new Error(`conformance (python): the scenario ${scenario} printed no JSON of payloads: ${JSON.stringify(out.slice(0, 200))}`);
      }
      this.made.set(scenario, payloads);
    }
    const payload = payloads[name];
    if (!payload) throw new Error(`conformance (python): no provider named ${name} in the scenario ${scenario}`);
    return payload;
  }

  /** Runs a scenario script and returns its stdout trimmed (one payload per run: python_drift_provider.py). */
  script(scenario: string, opts: RunOptions = {}): string {
    return this.run([this.file(scenario)], { cwd: this.scenarios, ...opts }).trim();
  }

  /** Runs Python code with the payload interpreter (or opts.python) and returns its stdout trimmed. */
  code(source: string, opts: RunOptions = {}): string {
    return this.run(["-c", source], opts).trim();
  }

  /** The SDK's pickle of `<module>.<cls>()`, a class pickled by reference, imported with `importPath` first on sys.path. */
  byReference(importPath: string, module: string, cls: string): string {
    const source =
      "import importlib, sys\n" +
      "from pulumi.dynamic.dynamic import serialize_provider\n" +
      `sys.path.insert(0, ${JSON.stringify(importPath)})\n` +
      `print(serialize_provider(getattr(importlib.import_module(${JSON.stringify(module)}), ${JSON.stringify(cls)})()))\n`;
    return this.code(source, { env: { PYTHONDONTWRITEBYTECODE: "1" } });
  }

  private run(args: string[], opts: RunOptions): string {
    const python = opts.python ?? this.python.interpreter.python;
    const env = { ...this.python.interpreter.env, ...opts.env };
    try {
      return execFileSync(python, args, { cwd: opts.cwd ?? this.scenarios, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { stderr?: string };
      const what = args[0] === "-c" ? "a payload script" : path.basename(args[0]);
      const detail = err.code === "ENOENT" ? `${python} does not exist` : (err.stderr?.trim() || err.message);
      throw new Error(`conformance (python): ${python} failed running ${what}:\n${detail}`);
    }
  }
}

const perProgram = new WeakMap<Program, PythonPayloads>();

/**
 * The payload maker of a run's program: its `python` when the caller chose one
 * (the tests' virtualenv), else the interpreter the plugin would resolve in the
 * program directory with the kit's environment; its scenarios from the program's
 * scenario folder, so frames name the files the plugins will report.
 */
export function pythonPayloadsFor(program: Program, env: NodeJS.ProcessEnv = process.env): PythonPayloads {
  let made = perProgram.get(program);
  if (!made) {
    const python = program.python ? payloadPythonAt(program.python, env) : resolvePayloadPython(program.programDir, env);
    made = new PythonPayloads(python, program.scenarioDir);
    perProgram.set(program, made);
  }
  return made;
}

const MINORS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14"];

/**
 * A Python of another CPython minor than the payload one, with pulumi and dill:
 * the run's Program.otherPython (--other-python), else the first the plugin's own
 * search would find beside the program's interpreter (src/python-bridge/interpreter/interpreter-search.ts).
 */
export async function otherPythonFor(program: Program): Promise<string> {
  if (program.otherPython) return program.otherPython;
  const payloads = pythonPayloadsFor(program);
  const minor = payloads.python.version.split(".").slice(0, 2).join(".");
  let search;
  try {
    search = await new InterpreterSearch(payloads.python.interpreter, program.programDir).find(MINORS.filter((m) => m !== minor));
  } catch (e) {
    // The kit's own look for a second Python (not the plugin under test) failed on this machine's layout.
    throw new Needs(`a Python of another CPython minor than ${payloads.python.executable} with pulumi and dill: looking for one failed (${(e as Error).message}); name one with --other-python <path>`);
  }
  if (search.found) return search.found.probe.python;
  const tried = search.tried.map((t) => `${t.python}: ${t.problem}`).join("; ");
  throw new Needs(
    `a Python of another CPython minor than ${payloads.python.executable} (${payloads.python.version}) with pulumi and dill: ` +
      `none was found beside it, by uv, on PATH or in pyenv${tried ? ` (tried: ${tried})` : ""}; name one with --other-python <path>`,
  );
}
