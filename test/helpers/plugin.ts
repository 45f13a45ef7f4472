// Starts a plugin the way the engine does: cwd = the program directory, argv =
// [flags…] <engine address>, stdin a pipe never written to, its own process
// group; reads the port from the first stdout line, then collects the rest of
// stdout and stderr so tests can compare what the user would be shown.
import type { ChildProcess } from "node:child_process";
import { PluginProcess, type Exit } from "../../src/conformance/plugin-process.js";
import { CEILING_PLUGIN, NODE_PROGRAM, OUR_NODE_PLUGIN, OUR_PYTHON_PLUGIN, PYTHON_PROGRAM, REFERENCE_NODE_PLUGIN, TEST_VENV, VENV_PYTHON } from "./paths.js";

/** "ceiling" is the benchmark's calibration plugin (bench/ceiling-plugin.ts), whatever the language. */
export type PluginKind = "ours" | "reference" | "ceiling";

export interface LaunchOptions {
  cwd?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  language?: "nodejs" | "python";
  /**
   * Give the plugin a real pipe (a FIFO) on stdin, as the engine does, so a
   * test can close it with closeStdin() to play "the engine went away".
   * Otherwise stdin is Node's default (a socket), which the host ignores.
   */
  pipeStdin?: boolean;
  /** Our plugin as installed somewhere else (the file the engine would run), instead of the checkout's. */
  executable?: string;
}

export type { Exit };

/** A fake engine address: the plugins never dial it. */
export const ENGINE_ADDRESS = "127.0.0.1:1";

/** One of the plugins the tests know, started as the engine would (the process itself: src/conformance/plugin-process.ts). */
export class Plugin extends PluginProcess {
  protected override untilMs = 10_000;

  private constructor(readonly kind: PluginKind, child: ChildProcess) {
    super(`${kind} plugin`, child);
  }

  static launch(kind: PluginKind, opts: LaunchOptions = {}): Promise<Plugin> {
    const language = opts.language ?? "nodejs";
    const args = opts.args ?? [ENGINE_ADDRESS];
    // The Python reference is what its launcher ends up running for a program using the test virtualenv.
    const [cmd, argv] =
      kind === "ceiling"
        ? [process.execPath, [CEILING_PLUGIN, ...args]]
        : kind === "reference"
        ? language === "nodejs"
          ? [process.execPath, [REFERENCE_NODE_PLUGIN, ...args]]
          : [VENV_PYTHON, ["-u", "-m", "pulumi.dynamic", ...args]]
        : [opts.executable ?? (language === "nodejs" ? OUR_NODE_PLUGIN : OUR_PYTHON_PLUGIN), args];
    const defaults: NodeJS.ProcessEnv = language === "python" ? { PULUMI_RUNTIME_VIRTUALENV: TEST_VENV } : {};
    return PluginProcess.spawnWith((child) => new Plugin(kind, child), cmd, argv, {
      cwd: opts.cwd ?? (language === "nodejs" ? NODE_PROGRAM : PYTHON_PROGRAM),
      env: { ...process.env, ...defaults, ...opts.env },
      pipeStdin: opts.pipeStdin,
      portTimeoutMs: 30_000,
    });
  }
}

/** Starts our plugin and the reference side by side in the same program directory. */
export async function launchPair(opts: LaunchOptions = {}): Promise<{ ours: Plugin; ref: Plugin }> {
  const launches = [Plugin.launch("ours", opts), Plugin.launch("reference", opts)] as const;
  const [ours, ref] = await Promise.allSettled(launches);
  if (ours.status === "fulfilled" && ref.status === "fulfilled") return { ours: ours.value, ref: ref.value };
  // One failed to start: stop the other, so no process outlives the test run.
  await Promise.all([ours, ref].map((r) => (r.status === "fulfilled" ? r.value.stop() : undefined)));
  throw ours.status === "rejected" ? ours.reason : (ref as PromiseRejectedResult).reason;
}
