// The first worker's stdout, held in a pipe until the host's port line is out.
// Its own module, without execa: the host forwards it right after the port
// line, when a worker the launcher started (prestarted.ts) means spawn.ts and
// execa need not load at all.
import type { Readable } from "node:stream";

/**
 * Sends what a worker spawned with `stdout: "pipe"` printed, and will print, to
 * the host's stdout, in order, after whatever the host has written there (the
 * port line). A host whose stdout is gone (the engine closed it) drops the bytes,
 * as the worker's own write would have failed.
 */
export function forwardStdout(child: { stdout: Readable | null }): void {
  if (!child.stdout) return;
  process.stdout.on("error", () => undefined);
  child.stdout.pipe(process.stdout, { end: false });
}
