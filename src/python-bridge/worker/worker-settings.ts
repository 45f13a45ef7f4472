// Which worker script the host runs and how it supervises workers: apart from
// spawn.ts (and execa) so that a host whose first worker the launcher started
// (prestarted.ts) reads them without loading execa before its port line.
import path from "node:path";
import { assetDirectory } from "../../host/files/assets.js";
import { MAX_TIMER_MS } from "../../host/limits/deadline.js";
import type { Interpreter } from "../interpreter/interpreter.js";

/** The worker script: in the package, or extracted from the single executable on first use. */
export function workerScript(): string {
  return path.join(assetDirectory("python-stub"), "worker.py");
}

/**
 * Knobs, from the environment: the worker script (for diagnosing a worker of
 * your own), and how often a busy worker is health-checked and how long it may
 * take to answer before it is considered hung and replaced.
 */
export function workerSettings(env: NodeJS.ProcessEnv = process.env) {
  // At most what one Node timer holds: a longer interval would become 1 ms (a health check storm).
  const ms = (name: string, dflt: number) => {
    const v = Number(env[name]);
    return Number.isFinite(v) && v > 0 ? Math.min(v, MAX_TIMER_MS) : dflt;
  };
  return {
    script: env.PULUMI_DYNAMIC_HOST_WORKER_SCRIPT || workerScript(),
    pingIntervalMs: ms("PULUMI_DYNAMIC_HOST_PING_INTERVAL_MS", 10_000),
    pingTimeoutMs: ms("PULUMI_DYNAMIC_HOST_PING_TIMEOUT_MS", 30_000),
  };
}

/**
 * How a worker of `script` is run, after the interpreter: the host's own
 * through start.py, which runs it from compiled code kept between starts
 * (python-stub/bytecode.py); a worker script of the user's (the setting above)
 * as it is. spawn.ts runs it so; prestarted.ts checks the launcher's against it.
 */
export function workerArgs(script: string): string[] {
  return script === workerScript() ? ["-u", path.join(path.dirname(script), "start.py"), script] : ["-u", script];
}

/** A worker's environment, but for its program paths (../interpreter/program-paths.ts): the interpreter's, and its channel on fd 3. */
export function workerBaseEnv(interpreter: Interpreter): NodeJS.ProcessEnv {
  return { ...interpreter.env, PULUMI_DYNAMIC_HOST_CHANNEL_FD: "3" };
}

