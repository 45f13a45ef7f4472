// A plugin process as the engine runs one: its own process group, stdin a pipe
// (or a FIFO a test can close, to play "the engine went away"), the port read
// from the first stdout line, then every later stdout line and all of stderr
// kept, so what the user would be shown can be compared. Shared by the
// conformance driver and the repository's tests (test/helpers/plugin.ts).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LaunchedPlugin } from "./case.js";
import { loadSdk, ProviderClient, type Sdk } from "./client.js";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A real pipe (a FIFO) on stdin that closeStdin() closes; otherwise a pipe of Node's. */
  pipeStdin?: boolean;
  /** How long to wait for the port line. */
  portTimeoutMs?: number;
  /** The SDK whose generated stubs the client speaks with (the project's, by default). */
  sdk?: Sdk;
}

export class PluginProcess implements LaunchedPlugin {
  readonly stdout: string[] = [];
  private stderrBuf = "";
  private stdoutBuf = "";
  private waiters: (() => void)[] = [];
  readonly exited: Promise<Exit>;
  port = 0;
  private clientInstance?: ProviderClient;
  private stdinWriteEnd?: number;
  /** How long until() waits when not told. */
  protected untilMs = 30_000;

  protected constructor(readonly label: string, readonly child: ChildProcess, private readonly sdk?: Sdk) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      // A file that cannot be run (missing, not executable) never starts, so never exits: that is its end,
      // said in its stderr. Any later error (a signal to a process already gone) is the exit's to tell.
      child.on("error", (err) => {
        if (child.pid !== undefined) return;
        this.stderrBuf += `${this.label} could not be started: ${err.message}\n`;
        resolve({ code: null, signal: null });
      });
    });
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

  /**
   * Starts `file args…` and resolves once its port line is read; `make` builds
   * the object (a subclass's constructor). A plugin that exits first, or
   * prints something else, is stopped and refused.
   */
  protected static async spawnWith<P extends PluginProcess>(
    make: (child: ChildProcess) => P,
    file: string,
    args: readonly string[],
    opts: SpawnOptions,
  ): Promise<P> {
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
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env, stdio: [stdin, "pipe", "pipe"], detached: true });
    if (typeof stdin === "number") fs.closeSync(stdin);
    const p = make(child);
    p.stdinWriteEnd = writeEnd;
    void p.exited.then(() => p.closeFifo());
    try {
      await p.until(() => p.stdout.length > 0, "the port line", opts.portTimeoutMs ?? 60_000, true);
    } catch (e) {
      await p.stop();
      throw e;
    }
    const port = Number(p.stdout[0].trim());
    if (!Number.isInteger(port) || port <= 0) {
      await p.stop();
      throw new Error(`${p.label} wrote ${JSON.stringify(p.stdout[0])} instead of a port on its first stdout line`);
    }
    p.port = port;
    return p;
  }

  /** Starts a plugin command (`file args…`) as the engine would. */
  static start(label: string, file: string, args: readonly string[], opts: SpawnOptions): Promise<PluginProcess> {
    return PluginProcess.spawnWith((child) => new PluginProcess(label, child, opts.sdk), file, args, opts);
  }

  get stderr(): string {
    return this.stderrBuf;
  }

  exitCode(): number | null {
    return this.child.exitCode;
  }

  private closeFifo(): void {
    if (this.stdinWriteEnd !== undefined) fs.closeSync(this.stdinWriteEnd);
    this.stdinWriteEnd = undefined;
  }

  /** Closes the plugin's stdin (the FIFO's only write end, or Node's pipe): it reaches EOF. */
  closeStdin(): Promise<void> {
    if (this.stdinWriteEnd !== undefined) {
      this.closeFifo();
      return Promise.resolve();
    }
    const stdin = this.child.stdin;
    if (!stdin || stdin.closed) return Promise.resolve();
    return new Promise((resolve) => {
      stdin.once("close", () => resolve());
      stdin.end();
    });
  }

  /** Lines written to stdout after the port line. */
  get userStdout(): string[] {
    return this.stdout.slice(1);
  }

  get client(): ProviderClient {
    return (this.clientInstance ??= new ProviderClient(`127.0.0.1:${this.port}`, this.sdk ?? loadSdk()));
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
        // ended while we looked
      }
    }
    return pids;
  }

  /** Resolves once `cond` holds, re-checked on every chunk of output; rejects after `ms` (or at exit, with failOnExit). */
  until(cond: () => boolean, what: string, ms: number = this.untilMs, failOnExit = false): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.label}: timed out waiting for ${what}; stdout=${JSON.stringify(this.stdout)} stderr=${JSON.stringify(this.stderrBuf)}`));
      }, ms);
      const check = () => {
        if (cond()) {
          done();
          resolve();
        }
      };
      let settled = false;
      const onExit = () => {
        if (!settled && failOnExit && !cond()) {
          done();
          reject(new Error(`${this.label} exited before ${what}; stderr=${JSON.stringify(this.stderrBuf)}`));
        }
      };
      const done = () => {
        settled = true;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
      };
      this.waiters.push(check);
      void this.exited.then(onExit);
    });
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /**
   * As the engine: close the connection, SIGINT the group, SIGKILL it 5 s
   * later (`graceMs`: later still, for a case that judges what the process
   * does with SIGINT rather than how soon).
   */
  async stop(graceMs = 5000): Promise<Exit> {
    this.clientInstance?.close();
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined) {
      signalGroup(this.child.pid, "SIGINT");
      const timer = setTimeout(() => signalGroup(this.child.pid!, "SIGKILL"), graceMs);
      const exit = await this.exited;
      clearTimeout(timer);
      return exit;
    }
    return this.exited;
  }
}

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
