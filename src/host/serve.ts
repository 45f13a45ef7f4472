// src/host: the serving path at the top of the folder: serve.ts (the plugin's
// life) → server.ts (the gRPC edge, with grpc-adapter.ts and request-decode.ts)
// → core.ts (provider selection, responses; diff.ts, provider-text.ts) → the
// runtime contract the language adapters implement (runtime.ts, errors.ts,
// deferred-runtime.ts). Each concept beside it is a folder of its own (wire,
// secrets, engine, references, packages, limits, tuning, files, plugin,
// diagnostics): the
// serving path may import them all, no folder imports the serving path, and
// nothing in src/host imports a language adapter (src/node-dynamic,
// src/python-bridge) or src/cli. The table is test/unit/import-rules.test.ts.
//
// The plugin's life as the engine sees it: argv, the port line, serving, and
// the way out on a signal or when the engine goes away. Which language runtime
// serves is the caller's choice (src/cli/compose/compose.ts, the composition root), so
// the serving path imports no adapter.
import type { Registry } from "./packages/registry-install.js";
import { fstatSync } from "node:fs";
import { parsePluginArgs } from "./plugin/args.js";
import { log, setVerbosity } from "./diagnostics/log.js";
import type { Mode } from "./plugin/modes.js";
import { pluginVersion } from "./plugin/plugin-info.js";
import type { DynamicRuntime } from "./runtime.js";
import { capYoungGeneration } from "./tuning/young-generation.js";
import { tierUpUnderLoad } from "./tuning/tier-up.js";
import { limitOldGenerationGrowth } from "./tuning/old-generation.js";
import { saveCodeCacheWhenWarm, type CodeCacheHandle } from "./tuning/code-cache-save.js";

export interface ServedRuntime {
  runtime: DynamicRuntime;
  /** Called once the port line is out (what must not write to stdout before it starts here). */
  afterPort?: () => void;
  /** Where Parameterize installs registry packages from (src/host/packages/registry-install.ts), if it can. */
  registry?: Registry;
}

/** Builds the runtime for the program in `cwd`; may end the process before the port line, as a reference would. */
export type RuntimeFactory = (mode: Mode, cwd: string) => Promise<ServedRuntime>;

/** What the loader of the bundle hands the host (src/boot/launch.ts, src/boot/sea.ts); absent when loaded otherwise (tests). */
export interface Boot {
  codeCache?: CodeCacheHandle;
}

export async function serve(mode: Mode, argv: readonly string[], makeRuntime: RuntimeFactory, boot: Boot = {}): Promise<void> {
  const args = parsePluginArgs(argv);
  if (mode.requiresEngineAddress && args.engineAddress === undefined) {
    process.stderr.write("fatal: Missing <engine> address\n");
    process.exit(255);
  }
  setVerbosity(args.verbosity);
  capYoungGeneration();
  limitOldGenerationGrowth();
  const cwd = process.cwd();
  const { runtime, afterPort, registry } = await makeRuntime(mode, cwd);
  const { startServer } = await import("./server.js");
  let version: string | undefined;
  const { server, port, warmUp } = await startServer({
    mode,
    runtime,
    cwd,
    engineAddress: args.engineAddress,
    pluginVersion: () => (version ??= pluginVersion(mode, cwd)),
    registry,
  });
  // The engine reads this one line byte by byte; it must be the first thing on stdout.
  process.stdout.write(`${port}\n`);
  log(1, `${mode.binary} serving on 127.0.0.1:${port} (cwd ${cwd})`);
  afterPort?.();
  warmUp();
  tierUpUnderLoad();
  saveCodeCacheWhenWarm(boot.codeCache);

  // On a signal, release the runtime's processes, then end as the reference of
  // the mode does: the Node one dies of the signal (it has no handler); the
  // Python one turns SIGINT into KeyboardInterrupt, stops its server and exits 0.
  let stopping = false;
  const stop = async (why: string, signal?: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(2, `stopping: ${why}`);
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
