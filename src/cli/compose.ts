// The composition root: the one place that knows both language adapters and
// hands the serving path (src/host/serve.ts) the runtime for its mode.
import { DeferredRuntime } from "../host/deferred-runtime.js";
import type { Mode } from "../host/modes.js";
import { serve, type Boot, type ServedRuntime } from "../host/serve.js";
import { installUncaughtHandlers } from "../node-dynamic/uncaught.js";
import { resolveInterpreter } from "../python-bridge/interpreter.js";
import { adopt, takePrestarted } from "../python-bridge/prestarted.js";
import { workerSettings } from "../python-bridge/worker-settings.js";

/** Runs as the plugin `mode` names, with the engine's argv (flags, then its address). */
export function servePlugin(mode: Mode, argv: readonly string[], boot?: Boot): Promise<void> {
  return serve(mode, argv, runtimeFor, boot);
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
  // The first worker starts now, before the gRPC server loads and binds, so
  // the interpreter's start and `import pulumi` run on the second core while
  // the host gets to its port line and the engine handshakes and configures.
  // Its stdout is a pipe until the port line is out (nothing may come before
  // the port line on our stdout), then forwarded. The rest of the bridge (zod,
  // pickleparser, the pool) loads after the port line.
  // Under the Python launcher (bin/pulumi-resource-pulumi-python) it may have
  // started already, beside this process: taken if it is the one the host
  // would start (prestarted.ts).
  const prestarted = takePrestarted();
  const adopted = prestarted && adopt(prestarted, resolved.interpreter, cwd, workerSettings().script);
  const first = adopted || (await import("../python-bridge/spawn.js")).spawnWorker(resolved.interpreter, cwd, undefined, "pipe");
  let begin!: () => void;
  const go = new Promise<void>((resolve) => (begin = resolve));
  const runtime = new DeferredRuntime("python", "encoded", async () => {
    await go;
    const { forwardStdout } = await import("../python-bridge/spawn.js");
    forwardStdout(first);
    const [{ WorkerPool, defaultPoolSize }, { PythonRuntime }, { OtherPythons }] = await Promise.all([
      import("../python-bridge/pool.js"),
      import("../python-bridge/runtime.js"),
      import("../python-bridge/other-pythons.js"),
    ]);
    const pool = new WorkerPool({ interpreter: resolved.interpreter, cwd, size: defaultPoolSize() });
    pool.warm(first);
    return new PythonRuntime(pool, new OtherPythons(resolved.interpreter, cwd));
  });
  return { runtime, afterPort: begin };
}
