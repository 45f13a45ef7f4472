// Starts a plugin the way the engine does: cwd = the program directory, argv =
// [flags…] <engine address>, stdin a pipe never written to, its own process
// group; reads the port from the first stdout line, then collects the rest of
// stdout and stderr so tests can compare what the user would be shown.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CEILING_PLUGIN, NODE_PROGRAM, OUR_NODE_PLUGIN, OUR_PYTHON_PLUGIN, PYTHON_PROGRAM, REFERENCE_NODE_PLUGIN, TEST_VENV, VENV_PYTHON } from "./paths.js";
import { ProviderClient } from "./client.js";

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

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A fake engine address: the plugins never dial it. */
export const ENGINE_ADDRESS = "127.0.0.1:1";

export class Plugin {
  readonly stdout: string[] = [];
  private stderrBuf = "";
  private stdoutBuf = "";
  private waiters: (() => void)[] = [];
  readonly exited: Promise<Exit>;
  port = 0;
  private clientInstance?: ProviderClient;
  private stdinWriteEnd?: number;

  private constructor(readonly kind: PluginKind, readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    child.stdout!.setEncoding("utf8");
    child.stderr!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => {
      this.stdoutBuf += d;
      let i: number;
      while ((i = this.stdoutBuf.indexOf("\n")) >= 0) {
        this.stdout.push(this.stdoutBuf.slice(0, i));
        this.stdoutBuf = this.stdoutBuf.slice(i + 1);
      }
      this.notify();
    });
    child.stderr!.on("data", (d: string) => {
      this.stderrBuf += d;
      this.notify();
    });
  }

  static async launch(kind: PluginKind, opts: LaunchOptions = {}): Promise<Plugin> {
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
    let stdin: "pipe" | number = "pipe";
    let writeEnd: number | undefined;
    if (opts.pipeStdin) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-stdin-"));
      const fifo = path.join(dir, "stdin");
      execFileSync("mkfifo", [fifo]);
      // O_RDWR opens without waiting for a reader; the child gets its own read end.
      writeEnd = fs.openSync(fifo, fs.constants.O_RDWR);
      stdin = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const child = spawn(cmd, argv, {
      cwd: opts.cwd ?? (language === "nodejs" ? NODE_PROGRAM : PYTHON_PROGRAM),
      env: { ...process.env, ...defaults, ...opts.env },
      stdio: [stdin, "pipe", "pipe"],
      detached: true,
    });
    if (typeof stdin === "number") fs.closeSync(stdin);
    const plugin = new Plugin(kind, child);
    plugin.stdinWriteEnd = writeEnd;
    void plugin.exited.then(() => plugin.closeStdin());
    await plugin.until(() => plugin.stdout.length > 0, "the port line", 30_000, true);
    const port = Number(plugin.stdout[0].trim());
    if (!Number.isInteger(port) || port <= 0) throw new Error(`${kind} plugin wrote ${JSON.stringify(plugin.stdout[0])} instead of a port`);
    plugin.port = port;
    return plugin;
  }

  /** Closes the only write end of a pipeStdin launch: the plugin's stdin reaches EOF. */
  closeStdin(): void {
    if (this.stdinWriteEnd !== undefined) fs.closeSync(this.stdinWriteEnd);
    this.stdinWriteEnd = undefined;
  }

  /** Every process in the plugin's process group (it leads its own, as under the engine). */
  groupPids(): number[] {
    const pgid = this.child.pid!;
    const pids: number[] = [];
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        // Fields after the parenthesised command: state ppid pgrp …
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) === pgid && fields[0] !== "Z") pids.push(Number(entry));
      } catch {
        // the process ended while we looked
      }
    }
    return pids;
  }

  get stderr(): string {
    return this.stderrBuf;
  }

  /** Lines written to stdout after the port line. */
  get userStdout(): string[] {
    return this.stdout.slice(1);
  }

  get client(): ProviderClient {
    return (this.clientInstance ??= new ProviderClient(`127.0.0.1:${this.port}`));
  }

  /** Resolves once `cond` holds, re-checked on every chunk of output; rejects after `ms`. */
  until(cond: () => boolean, what: string, ms = 10_000, failOnExit = false): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.kind} plugin: timed out waiting for ${what}; stdout=${JSON.stringify(this.stdout)} stderr=${JSON.stringify(this.stderrBuf)}`));
      }, ms);
      const check = () => {
        if (cond()) {
          done();
          resolve();
        }
      };
      const onExit = () => {
        if (failOnExit && !cond()) {
          done();
          reject(new Error(`${this.kind} plugin exited before ${what}; stderr=${JSON.stringify(this.stderrBuf)}`));
        }
      };
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        this.child.removeListener("exit", onExit);
      };
      this.waiters.push(check);
      this.child.once("exit", onExit);
    });
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** As the engine: close the connection, SIGINT the group, SIGKILL it 5 s later. */
  async stop(): Promise<Exit> {
    this.clientInstance?.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid!, "SIGINT");
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-this.child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }, 5000);
      const exit = await this.exited;
      clearTimeout(timer);
      return exit;
    }
    return this.exited;
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
