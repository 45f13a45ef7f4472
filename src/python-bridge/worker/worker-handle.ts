// The process behind a WorkerProcess, whoever started it: the host (spawn.ts,
// with execa) or the Python launcher before the host (prestarted.ts). Apart
// from spawn.ts so that the pool and its workers load without execa, which is
// loaded only when the host spawns a worker itself.
import type { Duplex, Readable } from "node:stream";
import type { WorkerChild } from "./spawn.js";

/**
 * What a WorkerProcess needs of its process: one spawned here, or one the
 * Python launcher started before the host (prestarted.ts). Its streams start
 * paused; `onExit` is called once, with how the process ended.
 */
export interface WorkerHandle {
  readonly pid: number;
  readonly stdout: Readable | null;
  readonly stderr: Readable;
  readonly channel: Duplex;
  onExit(listener: (exit: { code: number | null; signal: string | null }) => void): void;
  kill(signal: NodeJS.Signals): void;
  /** For a worker started without them: its program paths (../interpreter/program-paths.ts), sent as its first message. */
  readonly programPaths?: string;
}

/** The handle of a worker spawned by `spawnWorker`. */
export function handleOf(child: WorkerChild): WorkerHandle {
  // Errors surface through onExit; nothing else may reject unobserved.
  child.catch(() => undefined);
  return {
    pid: child.pid ?? -1,
    stdout: child.stdout,
    stderr: child.stderr!,
    channel: child.stdio[3] as unknown as Duplex,
    onExit(listener) {
      let called = false;
      const once = (exit: { code: number | null; signal: string | null }) => {
        if (!called) (called = true), listener(exit);
      };
      child.once("exit", (code, signal) => once({ code, signal }));
      // A process that never started (execa reports the spawn error) has no exit event.
      void child.then((r) => once({ code: r.exitCode ?? null, signal: r.signal ?? null }));
    },
    kill: (signal) => void child.kill(signal),
  };
}
