// Process-wide handlers for errors user code leaves behind (a rejected promise
// nobody awaits, a throw from a timer). As the Node reference: each distinct
// error is printed once to stderr, serving goes on, and a clean exit becomes
// exit code 1 so the failure is not lost.
const seen = new Set<unknown>();
let installed = false;

function report(err: unknown): void {
  if (seen.has(err)) return;
  seen.add(err);
  const e = err as { stack?: unknown; message?: unknown } | null | undefined;
  console.error((e && (e.stack || e.message)) || "" + err);
}

export function installUncaughtHandlers(): void {
  if (installed) return;
  installed = true;
  process.on("uncaughtException", report);
  process.on("unhandledRejection", report);
  process.on("exit", (code) => {
    if (code === 0 && seen.size > 0) process.exitCode = 1;
  });
}
