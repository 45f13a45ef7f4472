// The composition root: the one place that knows both language adapters and
// hands the serving path (src/host/serve.ts) the runtime for its mode.
import { DeferredRuntime } from "../host/deferred-runtime.js";
import type { Mode } from "../host/modes.js";
import { serve, type ServedRuntime } from "../host/serve.js";
import { installUncaughtHandlers } from "../node-dynamic/uncaught.js";
import { resolveInterpreter } from "../python-bridge/interpreter.js";

/** Runs as the plugin `mode` names, with the engine's argv (flags, then its address). */
export function servePlugin(mode: Mode, argv: readonly string[]): Promise<void> {
  return serve(mode, argv, runtimeFor);
}

/** The runtime serving `mode` for the program in `cwd` (also the debug command's, src/cli/debug.ts). */
export async function runtimeFor(mode: Mode, cwd: string): Promise<ServedRuntime> {
  installUncaughtHandlers();
  if (mode.language === "nodejs") {
    const { NodeRuntime } = await import("../node-dynamic/runtime.js");
    return { runtime: new NodeRuntime(cwd) };
  }
  // As the reference launcher: a broken virtualenv is reported before any port line, exit 1.
  const resolved = resolveInterpreter(cwd, process.env);
  if (!resolved.ok) {
    process.stderr.write(resolved.stderr.map((l) => `${l}\n`).join(""));
    process.exit(resolved.exitCode);
  }
  // The first worker starts right after the port line (workers share our
  // stdout, and nothing may come before the port line there), as soon as
  // execa is loaded; the rest of the bridge (zod, pickleparser, the pool)
  // loads while that worker is still importing pulumi.
  let begin!: () => void;
  const go = new Promise<void>((resolve) => (begin = resolve));
  const runtime = new DeferredRuntime("python", "encoded", async () => {
    await go;
    const { spawnWorker } = await import("../python-bridge/spawn.js");
    const first = spawnWorker(resolved.interpreter, cwd);
    const [{ WorkerPool, defaultPoolSize }, { PythonRuntime }] = await Promise.all([
      import("../python-bridge/pool.js"),
      import("../python-bridge/runtime.js"),
    ]);
    const pool = new WorkerPool({ interpreter: resolved.interpreter, cwd, size: defaultPoolSize() });
    pool.warm(first);
    return new PythonRuntime(pool);
  });
  return { runtime, afterPort: begin };
}
