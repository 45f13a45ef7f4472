// Runs the end-to-end Python program (python-program/program.py, an Automation
// API driver with inline programs) in the test virtualenv, one scenario to its
// exit, and returns its operations by name. Each operation carries the
// engine's events (the Automation API's event objects as plain dicts, so
// snake_case names), its summary or error, and the dynamic resources of
// `stack export` after it.
import { execFile } from "node:child_process";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { E2E_ROOT, type Sandbox } from "./harness.js";

export const PYTHON_WORK_DIR = `${REPO}test/e2e/python-program`;
const DRIVER = `${PYTHON_WORK_DIR}/program.py`;

export interface Step {
  name: string;
  events: Record<string, any>[];
  summary?: Record<string, any>;
  error?: { type: string; message: string };
  /** What the CLI displayed, for an operation whose result carries it (up, preview). */
  stdout?: string;
  /** The dynamic resources of `stack export` after the operation, by name. */
  resources: Record<string, any>;
  /** A step that ran the CLI itself (`pulumi import`): its arguments, exit code and output; it has no events. */
  cli?: { args: string[]; code: number; stdout: string; stderr: string };
}

/**
 * How the plugin is to find the test virtualenv (see cli_env in program.py):
 * the two variables the engine derives from Pulumi.yaml's runtime options, or
 * the driver's virtualenv activated. Under an inline program the engine drops
 * the runtime options themselves.
 */
export type PythonFrom = "runtime-options" | "activated-venv";

export interface DriveOptions {
  /** The directory holding bin/pulumi (default: the e2e layout). */
  root?: string;
  /** The program's virtualenv (default: the test virtualenv). */
  venv?: string;
  /** A command the driver runs once the stack exists, before any operation. */
  afterCreate?: string[];
  /** A file path the repair scenario's fixed delete writes. */
  marker?: string;
  /** Another driver script in python-program/ (default program.py); extra settings it reads. */
  driver?: string;
  extra?: Record<string, unknown>;
}

export function drive(sb: Sandbox, scenario: string, pythonFrom: PythonFrom, opts: DriveOptions = {}): Promise<Record<string, Step>> {
  const settings = {
    root: opts.root ?? E2E_ROOT,
    backend: sb.backend,
    home: sb.home,
    venv: opts.venv ?? TEST_VENV,
    env: sb.env,
    python_from: pythonFrom,
    after_create: opts.afterCreate,
    // The host's reference helper, importable by the program as the pulumi-dynamic-host wheel makes it.
    helper_dir: `${REPO}python-stub/helper`,
    marker: opts.marker,
    ...opts.extra,
  };
  // Nothing of the caller's Pulumi set-up leaks in: the sandbox's variables are all the driver passes on.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_") && k !== "VIRTUAL_ENV"));
  return new Promise((resolve, reject) => {
    execFile(VENV_PYTHON, [opts.driver ? `${PYTHON_WORK_DIR}/${opts.driver}` : DRIVER, scenario, JSON.stringify(settings)], { cwd: PYTHON_WORK_DIR, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`driver ${scenario}: ${err.message}\n${stderr}`));
      const doc = JSON.parse(stdout);
      if (doc.driver_error) return reject(new Error(`driver ${scenario}: ${doc.driver_error}\n${stderr}`));
      resolve(Object.fromEntries((doc.steps as Step[]).map((s) => [s.name, s])));
    });
  });
}
