// Starting a Python worker process, with execa, as the design asks. Kept
// apart from the rest of the bridge: when the Python launcher did not start the
// first worker (docs/launcher.md), the host spawns it from here before anything
// else loads (grpc-js, the bridge's other modules), so the worker's own
// start-up (the interpreter, then `import pulumi`, dill, grpc and protobuf:
// ~150 ms here) runs on the second core while those load; loading execa's chunk
// costs about 23 ms first (docs/performance.md). Otherwise the pool loads this
// module only when it starts a worker itself.
import { execa } from "execa";
import type { Interpreter } from "../interpreter/interpreter.js";
import { programPathEnv } from "../interpreter/program-paths.js";
import { workerArgs, workerBaseEnv, workerSettings } from "./worker-settings.js";

/**
 * fd 1 is the host's stdout (user prints reach the engine unchanged, as under
 * the reference); fd 2 is read by the host; fd 3 is the JSON-RPC channel.
 * With `stdout: "pipe"` (a worker started before the port line, which must be
 * the first line on the host's stdout) fd 1 is a pipe the host forwards to
 * its stdout once the port line is out (worker-stdout.ts).
 * `cwd` is the program's (the engine's pwd for the plugin); the worker also
 * gets the program's import paths (../interpreter/program-paths.ts).
 */
export function spawnWorker(interpreter: Interpreter, cwd: string, script = workerSettings().script, stdout: "inherit" | "pipe" = "inherit") {
  const child = execa(interpreter.python, workerArgs(script), {
    cwd,
    env: { ...workerBaseEnv(interpreter), ...programPathEnv(cwd, interpreter.env) },
    extendEnv: false,
    stdio: ["ignore", stdout, "pipe", "pipe"],
    buffer: false,
    reject: false,
    cleanup: true,
    windowsHide: true,
  });
  // With `buffer: false`, execa starts a stream nobody reads by the next turn
  // of the event loop, and what flows out then is gone: the worker's first
  // stderr lines, its $/ready. Paused, the streams keep every byte for the
  // WorkerProcess that takes this child over and resumes them.
  child.stderr!.pause();
  (child.stdio[3] as unknown as NodeJS.ReadableStream).pause();
  child.stdout?.pause();
  return child;
}

export type WorkerChild = ReturnType<typeof spawnWorker>;
