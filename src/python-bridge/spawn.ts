// Starting a Python worker process, kept apart from the rest of the bridge so
// the host can start its first worker before anything else loads (grpc-js,
// the bridge's other modules): the worker's own start-up (the interpreter,
// then `import pulumi`, dill, grpc and protobuf: ~190 ms here) then runs on
// the second core while those load. Node's own child_process, not execa:
// loading execa and its spawn took 30-50 ms of that critical path
// (docs/performance.md), and the host uses none of what execa adds.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { assetDirectory } from "../host/assets.js";
import { MAX_TIMER_MS } from "../host/deadline.js";
import type { Interpreter } from "./interpreter.js";
import { programPathEnv } from "./program-paths.js";

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
 * fd 1 is the host's stdout (user prints reach the engine unchanged, as under
 * the reference); fd 2 is read by the host; fd 3 is the JSON-RPC channel.
 * With `stdout: "pipe"` (a worker started before the port line, which must be
 * the first line on the host's stdout) fd 1 is a pipe the host forwards to
 * its stdout once the port line is out (forwardStdout).
 * `cwd` is the program's (the engine's pwd for the plugin); the worker also
 * gets the program's import paths (program-paths.ts).
 */
export function spawnWorker(interpreter: Interpreter, cwd: string, script = workerSettings().script, stdout: "inherit" | "pipe" = "inherit"): WorkerChild {
  // The host's own worker goes through start.py, which runs it from compiled code kept between
  // starts (python-stub/bytecode.py); a worker script of the user's (the setting above) runs as it is.
  const args = script === workerScript() ? ["-u", path.join(path.dirname(script), "start.py"), script] : ["-u", script];
  const child = spawn(interpreter.python, args, {
    cwd,
    env: { ...interpreter.env, ...programPathEnv(cwd, interpreter.env), PULUMI_DYNAMIC_HOST_CHANNEL_FD: "3" },
    stdio: ["ignore", stdout, "pipe", "pipe"],
    windowsHide: true,
  });
  // Nothing is read before the WorkerProcess that takes this child over
  // attaches its listeners and resumes these (a worker started before the
  // port line waits in the host for a while): paused, they keep every byte.
  child.stderr!.pause();
  (child.stdio[3] as unknown as NodeJS.ReadableStream).pause();
  child.stdout?.pause();
  // A spawn that failed (no such interpreter) reports it here; WorkerProcess takes it from `exited`.
  child.once("error", () => undefined);
  killOnExit(child);
  return child;
}

const live = new Set<ChildProcess>();

/** Workers die with the host, whichever way it exits (a worker also stops when its channel closes). */
function killOnExit(child: ChildProcess): void {
  if (live.size === 0) process.once("exit", killLive);
  live.add(child);
  const forget = () => {
    live.delete(child);
    if (live.size === 0) process.removeListener("exit", killLive);
  };
  child.once("exit", forget);
  child.once("error", forget);
}

function killLive(): void {
  for (const child of live) child.kill("SIGKILL");
}

/**
 * Settles once `child` is over: its exit code and signal, or, for a process
 * that never started, the spawn error (which comes without an exit event).
 */
export function childExit(child: WorkerChild): Promise<{ code: number | null; signal: string | null; error?: Error }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (error) => {
      // An error after the start (a failed kill) is not the end of the process.
      if (child.pid === undefined) resolve({ code: null, signal: null, error });
    });
  });
}

/**
 * Sends what a worker spawned with `stdout: "pipe"` printed, and will print, to
 * the host's stdout, in order, after whatever the host has written there (the
 * port line). A host whose stdout is gone (the engine closed it) drops the bytes,
 * as the worker's own write would have failed.
 */
export function forwardStdout(child: WorkerChild): void {
  if (!child.stdout) return;
  process.stdout.on("error", () => undefined);
  child.stdout.pipe(process.stdout, { end: false });
}

export type WorkerChild = ChildProcess;
