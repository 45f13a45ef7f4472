// The Python half of the composition root (compose.ts): the runtime that serves
// pulumi-resource-pulumi-python. Its own module so that the Python plugin's
// bundle (dist/bundle/cli/host-python.cjs, src/cli/compose/plugin-python.ts) holds no
// Node adapter.
import { DeferredRuntime } from "../../host/deferred-runtime.js";
import type { ServedRuntime } from "../../host/serve.js";
import { installUncaughtHandlers } from "../../node-dynamic/uncaught.js";
import { log } from "../../host/diagnostics/log.js";
import { adopt, discard, takePrestarted } from "../../python-bridge/worker/prestarted.js";
import { realProjectDeps, resolveProjectInterpreter } from "../../python-bridge/interpreter/project-interpreter.js";
import { launcherPoetryEnv } from "./launcher-environment.js";
import { PypiRegistry } from "../../python-bridge/pypi-registry.js";
import { readProjectPython } from "../../python-bridge/interpreter/project-python.js";
import { workerSettings } from "../../python-bridge/worker/worker-settings.js";

/** The runtime serving Python dynamic providers for the program in `cwd`. */
export async function pythonRuntime(cwd: string): Promise<ServedRuntime> {
  installUncaughtHandlers();
  // The launcher's worker, taken (with its variables) before the interpreter's environment is read from ours.
  const prestarted = takePrestarted();
  // A Python project's interpreter as the reference launcher picks it; another runtime's by its own rules
  // (src/python-bridge/interpreter/project-interpreter.ts), read from Pulumi.yaml once, here.
  // Poetry's virtualenv as the launcher asked it, if it did (one `poetry env info` per start, not two).
  const poetry = launcherPoetryEnv;
  const deps = poetry === undefined ? realProjectDeps : { ...realProjectDeps, poetryEnvPath: () => poetry };
  const resolved = resolveProjectInterpreter(cwd, process.env, await readProjectPython(cwd), deps);
  if (!resolved.ok && "unusable" in resolved) {
    // Not fatal: each request that needs Python fails naming itself and the fix.
    log(1, `no usable python for this project: ${resolved.unusable.problem} (chosen by ${resolved.unusable.choice.why})`);
    if (prestarted) discard(prestarted, "the host found no usable interpreter");
    const { NoPythonRuntime } = await import("../../python-bridge/interpreter/unusable-interpreter.js");
    return {
      runtime: new DeferredRuntime("python", "encoded", async () => new NoPythonRuntime(resolved.unusable)),
      afterPort: () => undefined,
      registry: { unavailable: `this project has no usable Python to install it with: ${resolved.unusable.problem}` },
    };
  }
  // As the reference launcher: a broken virtualenv is reported before any port line, exit 1.
  if (!resolved.ok) {
    process.stderr.write(resolved.stderr.map((l) => `${l}\n`).join(""));
    process.exit(resolved.exitCode);
  }
  if (resolved.interpreter.choice) log(2, `python for this ${resolved.interpreter.choice.runtime} project: ${resolved.interpreter.python}, chosen by ${resolved.interpreter.choice.why}`);
  // The first worker starts now, before the gRPC server loads and binds, so
  // the interpreter's start and `import pulumi` run on the second core while
  // the host gets to its port line and the engine handshakes and configures.
  // Its stdout is a pipe until the port line is out (nothing may come before
  // the port line on our stdout), then forwarded. The rest of the bridge (zod,
  // pickleparser, the pool) loads after the port line.
  // Under the Python launcher (bin/pulumi-resource-pulumi-python) it may have
  // started already, beside this process: taken if it is the one the host
  // would start (src/python-bridge/worker/prestarted.ts).
  const adopted = prestarted && adopt(prestarted, resolved.interpreter, cwd, workerSettings().script);
  const first = adopted || (await import("../../python-bridge/worker/spawn.js")).spawnWorker(resolved.interpreter, cwd, undefined, "pipe");
  let begin!: () => void;
  const go = new Promise<void>((resolve) => (begin = resolve));
  const runtime = new DeferredRuntime("python", "encoded", async () => {
    await go;
    const { forwardStdout } = await import("../../python-bridge/worker/worker-stdout.js");
    forwardStdout(first);
    const [{ WorkerPool, defaultPoolSize }, { PythonRuntime }, { OtherPythons }] = await Promise.all([
      import("../../python-bridge/worker/pool.js"),
      import("../../python-bridge/runtime.js"),
      import("../../python-bridge/other-pythons.js"),
    ]);
    const pool = new WorkerPool({ interpreter: resolved.interpreter, cwd, size: defaultPoolSize() });
    pool.warm(first);
    return new PythonRuntime(pool, new OtherPythons(resolved.interpreter, cwd));
  });
  return { runtime, afterPort: begin, registry: { use: new PypiRegistry(resolved.interpreter) } };
}
