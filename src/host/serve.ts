// Entry point of every name the host is installed under. The invoked name picks
// the mode: pulumi-resource-pulumi-nodejs and pulumi-resource-pulumi-python are
// what the engine launches; pulumi-dynamic-host is the command for people.
import path from "node:path";
import { fstatSync } from "node:fs";
import { parsePluginArgs } from "./args.js";
import { log, setVerbosity } from "./log.js";
import { modeForBinary, type Mode } from "./modes.js";
import { pluginVersion } from "./plugin-info.js";
import type { DynamicRuntime } from "./runtime.js";
import { DeferredRuntime } from "./deferred-runtime.js";
import { installUncaughtHandlers } from "../node-dynamic/uncaught.js";
import { resolveInterpreter } from "../python-bridge/interpreter.js";
import { capYoungGeneration } from "./young-generation.js";
import { tierUpSooner } from "./tier-up.js";
import { limitOldGenerationGrowth } from "./old-generation.js";

export async function serve(mode: Mode, argv: readonly string[]): Promise<void> {
  const args = parsePluginArgs(argv);
  if (mode.requiresEngineAddress && args.engineAddress === undefined) {
    process.stderr.write("fatal: Missing <engine> address\n");
    process.exit(255);
  }
  setVerbosity(args.verbosity);
  installUncaughtHandlers();
  capYoungGeneration();
  limitOldGenerationGrowth();
  const cwd = process.cwd();
  let runtime: DynamicRuntime;
  let startPython: (() => void) | undefined;
  if (mode.language === "nodejs") {
    const { NodeRuntime } = await import("../node-dynamic/runtime.js");
    runtime = new NodeRuntime(cwd);
  } else {
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
    startPython = begin;
    runtime = new DeferredRuntime("python", "encoded", async () => {
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
  }
  const { startServer } = await import("./server.js");
  let version: string | undefined;
  const { server, port } = await startServer({
    mode,
    runtime,
    pluginVersion: () => (version ??= pluginVersion(mode, cwd)),
  });
  // The engine reads this one line byte by byte; it must be the first thing on stdout.
  process.stdout.write(`${port}\n`);
  log(1, `${mode.binary} serving on 127.0.0.1:${port} (cwd ${cwd})`);
  startPython?.();
  tierUpSooner();

  // On a signal, release the runtime's processes, then end as the reference of
  // the mode does: the Node one dies of the signal (it has no handler); the
  // Python one turns SIGINT into KeyboardInterrupt, stops its server and exits 0.
  let stopping = false;
  const stop = async (why: string, signal?: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(1, `stopping: ${why}`);
    server.forceShutdown();
    await runtime.close().catch(() => undefined);
    if (signal === "SIGINT" && mode.language === "python") {
      process.exit(0);
    } else if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else {
      process.exit();
    }
  };
  // `on`, not `once`: execa's signal-exit re-raises a signal it thinks nobody else handles.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void stop(signal, signal));
  // The engine gives us a stdin pipe it never writes to: EOF means it is gone.
  if (isPipe(0)) {
    process.stdin.on("data", () => undefined);
    process.stdin.once("end", () => void stop("the engine closed stdin"));
  }
}

function isPipe(fd: number): boolean {
  try {
    return fstatSync(fd).isFIFO();
  } catch {
    return false;
  }
}

export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const invoked = path.basename(argv[1] ?? "");
  const mode = modeForBinary(invoked);
  if (mode) return serve(mode, argv.slice(2));
  const { runCli } = await import("./cli.js");
  process.exitCode = await runCli(argv.slice(2));
}
