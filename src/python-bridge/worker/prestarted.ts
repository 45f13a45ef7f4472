// The worker the Python launcher started before the host (python-stub/launch.sh
// and prestart.py): the interpreter's start and `import pulumi` ran while Node
// started, instead of after it. The launcher forked it and then exec'd the host
// in its own process, so the worker is the host's child, but one the host did
// not spawn: its pipes arrive as inherited descriptors, named with its pid in
// PULUMI_DYNAMIC_HOST_PRESTARTED, and how it ended is read from /proc (the
// launcher starts one only where /proc exists).
//
// Where the environment's preloader forked it instead (python-stub/preloader.py,
// docs/preloader.md), it is the preloader's child: /proc shows the preloader's
// start, so the launcher passes a digest of the environment it gave the worker,
// and the preloader says on a connection the host inherits how the worker ended.
//
// It is used only if it is exactly the worker the host would have spawned: the
// same interpreter, arguments and environment, read back from /proc. Otherwise
// (the launcher picked another interpreter, the environment differs, the
// worker failed to start) it is killed and the host spawns its own, as without
// the launcher. It gets its program paths (../interpreter/program-paths.ts) in its first
// message, since the launcher cannot compute them; until then it has the
// program directory first on sys.path, as every worker has.
import { closeSync, readFileSync, realpathSync } from "node:fs";
import net from "node:net";
import { constants } from "node:os";
import { log } from "../../host/diagnostics/log.js";
import { processAlive } from "../../host/files/cache-root.js";
import type { Interpreter } from "../interpreter/interpreter.js";
import { programPathEnv, PROGRAM_PATH_VARIABLE } from "../interpreter/program-paths.js";
import type { WorkerHandle } from "./worker-handle.js";
import { workerArgs, workerBaseEnv } from "./worker-settings.js";

export const PRESTARTED_VARIABLE = "PULUMI_DYNAMIC_HOST_PRESTARTED";
/** Why the launcher started a fresh worker rather than have the preloader fork one, said at -v. */
export const PRELOAD_NOTE_VARIABLE = "PULUMI_DYNAMIC_HOST_PRELOAD_NOTE";

export interface Prestarted {
  pid: number;
  channel: number;
  stdout: number;
  stderr: number;
  /** The interpreter as the launcher named it (a path, or a command looked up on PATH). */
  python: string;
  /**
   * Set when the preloader forked the worker (python-stub/preloader.py): the connection it reports
   * the worker's exit on, and the digest of the environment the launcher gave the worker.
   */
  preloaded?: { status: number; envDigest: string };
}

/** The launcher's worker, if it started one; the variables are removed so that no worker or provider sees them. */
export function takePrestarted(env: NodeJS.ProcessEnv = process.env): Prestarted | undefined {
  const value = env[PRESTARTED_VARIABLE];
  const note = env[PRELOAD_NOTE_VARIABLE];
  delete env[PRESTARTED_VARIABLE];
  delete env[PRELOAD_NOTE_VARIABLE];
  if (note) log(2, `python worker: ${note}`);
  const m = value === undefined ? null : /^(?:P(\d+):([0-9a-f]{8}) )?(\d+) (\d+) (\d+) (\d+) (.+)$/s.exec(value);
  if (!m) return undefined;
  const [pid, channel, stdout, stderr] = m.slice(3, 7).map(Number);
  const pre: Prestarted = { pid, channel, stdout, stderr, python: m[7] };
  if (m[1] !== undefined) pre.preloaded = { status: Number(m[1]), envDigest: m[2] };
  return pre;
}

/**
 * The digest prestart.py gives a forked worker's environment (`_env_digest`): crc32 of
 * its `name=value` entries as UTF-8, sorted as bytes, each followed by a NUL.
 */
export function envDigest(env: Record<string, string>): string {
  const entries = Object.entries(env)
    .map(([k, v]) => Buffer.from(`${k}=${v}`, "utf8"))
    .sort(Buffer.compare);
  return crc32(Buffer.concat(entries.flatMap((e) => [e, NUL]))).toString(16).padStart(8, "0");
}

const NUL = Buffer.from([0]);
let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE), as zlib's; Node's own zlib.crc32 is newer than the Node 20.0 this package supports. */
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of bytes) crc = crcTable[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * What the host would run for its first worker, as spawnWorker runs it (worker-settings.ts), but
 * for the program paths, which the launcher's worker gets in a message, and with its marker.
 */
export function expectedWorker(interpreter: Interpreter, script: string): { argv: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(workerBaseEnv(interpreter))) if (v !== undefined) env[k] = v;
  env[PRESTARTED_VARIABLE] = "1";
  return { argv: [interpreter.python, ...workerArgs(script)], env };
}

/**
 * Why the process `pid` is not the worker `expected` describes, or undefined
 * when it is. Reads /proc/<pid>/cmdline and environ, waiting briefly for the
 * launcher's fork to exec the interpreter.
 */
export function mismatch(pid: number, expected: { argv: string[]; env: Record<string, string> }, proc = "/proc"): string | undefined {
  let argv: string[] = [];
  for (let tries = 0; ; tries++) {
    try {
      argv = nulSeparated(readFileSync(`${proc}/${pid}/cmdline`));
    } catch (err) {
      return `its process cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
    }
    // Still the launcher's fork, before its exec: give it a moment.
    if (!argv.some((a) => a.endsWith("prestart.py")) || tries >= 50) break;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
  }
  if (argv.length === 0) return "it exited before it started";
  if (argv.length !== expected.argv.length || argv[0] !== expected.argv[0] || argv[1] !== expected.argv[1] || !argv.slice(2).every((a, i) => samePath(a, expected.argv[i + 2]))) {
    return `it runs ${JSON.stringify(argv)}, not ${JSON.stringify(expected.argv)}`;
  }
  let env: string[];
  try {
    env = nulSeparated(readFileSync(`${proc}/${pid}/environ`));
  } catch (err) {
    return `its environment cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  const want = new Set(Object.entries(expected.env).map(([k, v]) => `${k}=${v}`));
  const got = new Set(env);
  // Names only: the values may be secrets.
  const extra = [...got].filter((e) => !want.has(e)).map(nameOf);
  const missing = [...want].filter((e) => !got.has(e)).map(nameOf);
  if (extra.length || missing.length) return `its environment differs in ${[...new Set([...extra, ...missing])].sort().join(", ")}`;
  return undefined;
}

/**
 * The launcher's worker as a WorkerHandle, if it is the one the host would
 * spawn for `interpreter` in `cwd`; otherwise it is killed and undefined is
 * returned. Its streams are paused, as spawnWorker leaves a spawned one's.
 */
export function adopt(pre: Prestarted, interpreter: Interpreter, cwd: string, script: string): WorkerHandle | undefined {
  const expected = expectedWorker(interpreter, script);
  const why =
    pre.python !== interpreter.python
      ? `it runs ${pre.python}, the host would run ${interpreter.python}`
      : pre.preloaded
        ? // Forked: /proc shows the preloader's start, not the worker's; the launcher sent this environment.
          pre.preloaded.envDigest === envDigest(expected.env)
          ? undefined
          : "its environment differs"
        : mismatch(pre.pid, expected);
  if (why !== undefined) {
    discard(pre, `${why}; starting one`);
    return undefined;
  }
  const streams = [pre.channel, pre.stdout, pre.stderr].map((fd, i) => new net.Socket({ fd, readable: true, writable: i === 0 }));
  const [channel, stdout, stderr] = streams;
  for (const s of streams) s.pause();
  const paths = programPathEnv(cwd, interpreter.env)[PROGRAM_PATH_VARIABLE];
  if (pre.preloaded) {
    log(2, `python worker (pid ${pre.pid}) forked by the preloader`);
    return new PrestartedWorker(pre.pid, channel, stdout, stderr, paths, new net.Socket({ fd: pre.preloaded.status, readable: true, writable: false }));
  }
  log(2, `python worker (pid ${pre.pid}) started by the launcher`);
  return new PrestartedWorker(pre.pid, channel, stdout, stderr, paths);
}

/** The launcher's worker when the host will not run it (another interpreter, or none usable): killed, its descriptors closed. */
export function discard(pre: Prestarted, why: string): void {
  log(2, `the launcher's python worker (pid ${pre.pid}) is not used: ${why}`);
  signal(pre.pid, "SIGKILL");
  for (const fd of [pre.channel, pre.stdout, pre.stderr, ...(pre.preloaded ? [pre.preloaded.status] : [])]) {
    try {
      closeSync(fd);
    } catch {
      // Not ours to close after all.
    }
  }
}

/** How often the worker's /proc entry is read once its channel or stderr ended, or it was killed. */
const EXIT_POLL_MS = 20;
/** How often otherwise: its pipes normally end when it exits, this is for a worker whose child holds them. */
const IDLE_POLL_MS = 1000;

class PrestartedWorker implements WorkerHandle {
  private listeners: ((exit: { code: number | null; signal: string | null }) => void)[] = [];
  private exit?: { code: number | null; signal: string | null };
  private timer: NodeJS.Timeout;

  constructor(
    readonly pid: number,
    readonly channel: net.Socket,
    readonly stdout: net.Socket,
    readonly stderr: net.Socket,
    /** Sent first (WorkerProcess): the worker's program paths, as PROGRAM_PATH_VARIABLE holds them. */
    readonly programPaths: string,
    /** A forked worker's: the preloader's connection, on which it says how the worker ended (`exit <wait status>`). */
    private readonly status?: net.Socket,
  ) {
    this.timer = setInterval(() => this.poll(), IDLE_POLL_MS).unref();
    if (status) {
      let said = "";
      status.on("data", (chunk: Buffer) => {
        said += chunk.toString("latin1");
        const m = /^exit (\d+)\n/.exec(said);
        if (m) this.ended(decodeWaitStatus(Number(m[1])));
      });
      status.on("error", () => undefined).on("close", () => this.watchClosely());
    }
    const soon = () => this.watchClosely();
    channel.once("end", soon).once("close", soon).on("error", () => undefined);
    stderr.once("end", soon).once("close", soon).on("error", () => undefined);
    stdout.on("error", () => undefined);
  }

  onExit(listener: (exit: { code: number | null; signal: string | null }) => void): void {
    if (this.exit) listener(this.exit);
    else this.listeners.push(listener);
  }

  kill(sig: NodeJS.Signals): void {
    if (this.exit) return;
    signal(this.pid, sig);
    this.watchClosely();
  }

  private watchClosely(): void {
    if (this.exit) return;
    clearInterval(this.timer);
    this.timer = setInterval(() => this.poll(), EXIT_POLL_MS);
    this.poll();
  }

  private poll(): void {
    // A forked worker is the preloader's child: it says how the worker ended, unless it is gone too.
    const exit = this.status ? (this.status.destroyed && !processAlive(this.pid) ? { code: null, signal: null } : undefined) : exitOf(this.pid);
    if (exit) this.ended(exit);
  }

  private ended(exit: { code: number | null; signal: string | null }): void {
    if (this.exit) return;
    this.exit = exit;
    clearInterval(this.timer);
    this.status?.destroy();
    for (const l of this.listeners.splice(0)) l(exit);
  }
}

/**
 * How process `pid` ended, from /proc/<pid>/stat while it is a zombie (field
 * 52, the wait status, since Linux 3.5), or undefined while it runs. A pid that
 * is gone, or reused by a process that is not the host's child, counts as
 * ended with nothing known.
 */
export function exitOf(pid: number, proc = "/proc"): { code: number | null; signal: string | null } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`${proc}/${pid}/stat`, "latin1");
  } catch {
    return { code: null, signal: null };
  }
  // After the command name, which is in parentheses and may hold anything.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).trim().split(" ");
  const [state, ppid] = [fields[0], Number(fields[1])];
  if (ppid !== process.pid) return { code: null, signal: null };
  if (state !== "Z" && state !== "X") return undefined;
  const status = Number(fields[49]);
  if (!Number.isInteger(status)) return { code: null, signal: null };
  return decodeWaitStatus(status);
}

/** A wait status (waitpid's) as an exit code or a signal's name. */
export function decodeWaitStatus(status: number): { code: number | null; signal: string | null } {
  const sig = status & 0x7f;
  if (sig === 0) return { code: (status >> 8) & 0xff, signal: null };
  const name = Object.entries(constants.signals).find(([, n]) => n === sig)?.[0];
  return { code: null, signal: name ?? String(sig) };
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

function nulSeparated(bytes: Buffer): string[] {
  const text = bytes.toString("utf8");
  return text === "" ? [] : text.replace(/\0$/, "").split("\0");
}

function nameOf(entry: string): string {
  const eq = entry.indexOf("=");
  return eq < 0 ? entry : entry.slice(0, eq);
}

function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
