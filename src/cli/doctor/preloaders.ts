// The Python preloaders of this user, seen from outside (docs/preloader.md): for `doctor`, which
// says what the Python processes that outlive `pulumi up` are, and how to stop them.
//
// A preloader's directory is the one python-stub/prestart.py picks: $XDG_RUNTIME_DIR/pulumi-dynamic-host,
// else /tmp/pulumi-dynamic-host-<uid>. Each holds `<digest>.lock`, written with the preloader's pid
// just before it starts (so the file's mtime is its start), and `<digest>.sock` while it listens.
// Nothing here connects to a preloader or signals one: it only reads the files and /proc.
import fs from "node:fs";
import path from "node:path";

export interface PreloaderSeen {
  pid: number;
  /** The interpreter it runs, as it was started (a virtualenv's python, not what that links to). */
  interpreter: string;
  /** When it started (its lock file's mtime). */
  since: Date;
  /** Its resident memory in KiB, when /proc says. */
  rssKiB?: number;
  /**
   * Its proportional share of memory in KiB (/proc/<pid>/smaps_rollup, Linux 4.14+): pages shared
   * with its forked workers or other processes counted in part, so that the sum over processes is
   * what they take together.
   */
  pssKiB?: number;
  /** Listening for starts; false once it left (idle or stale) and waits for its forked workers to end. */
  listening: boolean;
}

/** A preloader's socket in its directory: `/<16 hex digits>.sock`. */
const SOCKET_NAME_BYTES = "/0123456789abcdef.sock".length;

/** The longest Unix socket path, in bytes without the NUL: sun_path is 108 bytes on Linux, 104 on macOS and the BSDs. */
export function socketPathLimit(platform: NodeJS.Platform): number {
  return platform === "linux" || platform === "android" ? 107 : 103;
}

/**
 * The directory prestart.py keeps preloaders' sockets in, for this environment
 * (python-stub/prestart.py's _preload_dir_path, the same rule):
 * $XDG_RUNTIME_DIR/pulumi-dynamic-host, else (unset, or too long for a socket's
 * path under it) /tmp/pulumi-dynamic-host-<uid>; $TMPDIR is never used (macOS's
 * is /var/folders/…/T/). Undefined on Windows, which has no preloader.
 */
export function preloaderDirectory(env: NodeJS.ProcessEnv, uid = process.getuid?.() ?? 0, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === "win32") return undefined;
  const candidates: string[] = [];
  const runtime = env.XDG_RUNTIME_DIR ?? "";
  if (runtime.startsWith("/")) candidates.push(`${runtime.replace(/\/+$/, "")}/pulumi-dynamic-host`);
  candidates.push(`/tmp/pulumi-dynamic-host-${uid}`);
  return candidates.find((dir) => Buffer.byteLength(dir) + SOCKET_NAME_BYTES <= socketPathLimit(platform));
}

/**
 * Why the Python plugin's launcher starts no worker beside the host, and so no
 * preloader, on `platform`, or undefined where it does. The host checks the
 * worker it is handed by /proc (its command line, environment and exit): macOS
 * has no /proc, Windows neither /proc nor sh (its npm install runs the Node
 * entry). The host then starts its own worker, as with PULUMI_DYNAMIC_HOST_PRESTART=0.
 */
export function launcherOff(platform: NodeJS.Platform, hasProc: boolean): string | undefined {
  if (platform === "win32") return "Windows has no sh to run the launcher and no /proc to check the worker by";
  if (!hasProc) return `there is no /proc on ${platform === "darwin" ? "macOS" : platform} to check the worker by`;
  return undefined;
}

/** The live preloaders of the directory, oldest first; none when it is missing or unreadable (or there is none). */
export function preloadersIn(directory: string | undefined, proc = "/proc"): PreloaderSeen[] {
  if (directory === undefined) return [];
  let entries: string[];
  try {
    entries = fs.readdirSync(directory);
  } catch {
    return [];
  }
  const seen: PreloaderSeen[] = [];
  for (const entry of entries) {
    if (!entry.endsWith(".lock")) continue;
    const lock = path.join(directory, entry);
    let pid: number;
    let since: Date;
    try {
      pid = Number(fs.readFileSync(lock, "utf8").trim());
      since = fs.statSync(lock).mtime;
    } catch {
      continue; // removed as it left
    }
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const argv = argvOf(pid, proc);
    // A lock file whose process is gone (killed outright) or is no longer a preloader (its pid reused).
    if (!argv || !argv.some((a) => a.endsWith(`${path.sep}start.py`)) || !argv.some((a) => a.endsWith(`${path.sep}worker.py`))) continue;
    seen.push({ pid, interpreter: argv[0], since, rssKiB: rssOf(pid, proc), pssKiB: pssOf(pid, proc), listening: fs.existsSync(lock.replace(/\.lock$/, ".sock")) });
  }
  return seen.sort((a, b) => a.since.getTime() - b.since.getTime());
}

function argvOf(pid: number, proc: string): string[] | undefined {
  try {
    const raw = fs.readFileSync(`${proc}/${pid}/cmdline`, "utf8");
    return raw.length === 0 ? undefined : raw.replace(/\0$/, "").split("\0");
  } catch {
    return undefined;
  }
}

function rssOf(pid: number, proc: string): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`${proc}/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function pssOf(pid: number, proc: string): number | undefined {
  try {
    const m = /^Pss:\s+(\d+) kB$/m.exec(fs.readFileSync(`${proc}/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One line for all of them: how many, the memory they take together (PSS where the kernel says,
 * else resident), how long they stay and how many may live, and how to stop them.
 */
export function summarizePreloaders(seen: readonly PreloaderSeen[], env: NodeJS.ProcessEnv = process.env): string {
  const pss = seen.every((p) => p.pssKiB !== undefined);
  const kib = seen.reduce((sum, p) => sum + ((pss ? p.pssKiB : p.rssKiB) ?? 0), 0);
  const memory = seen.some((p) => p.rssKiB !== undefined) ? `, ${Math.round(kib / 1024)} MiB ${pss ? "in all (proportional set size)" : "resident in all"}` : "";
  const idle = env.PULUMI_DYNAMIC_HOST_PRELOAD_IDLE_S ?? "600";
  const max = env.PULUMI_DYNAMIC_HOST_PRELOAD_MAX ?? "4";
  return (
    `${seen.length} running for you${memory}; each forks the next plugin starts' Python workers in its environment, ` +
    `and leaves after ${idle} s idle (PULUMI_DYNAMIC_HOST_PRELOAD_IDLE_S), the least recently used first when more than ${max} live (PULUMI_DYNAMIC_HOST_PRELOAD_MAX); ` +
    `\`kill ${seen.map((p) => p.pid).join(" ")}\` stops them, leaving nothing behind, and PULUMI_DYNAMIC_HOST_PRELOAD=0 keeps them from being used or started`
  );
}

/** One finding's text for a preloader, e.g. "pid 4242 (/p/.venv/bin/python), started 3 min ago, 45 MiB resident". */
export function describePreloader(p: PreloaderSeen, now = new Date()): string {
  const age = Math.max(0, Math.round((now.getTime() - p.since.getTime()) / 1000));
  const ago = age < 120 ? `${age} s` : age < 7200 ? `${Math.round(age / 60)} min` : `${Math.round(age / 3600)} h`;
  const rss = p.rssKiB === undefined ? "" : `, ${Math.round(p.rssKiB / 1024)} MiB resident${p.pssKiB === undefined ? "" : ` (${Math.round(p.pssKiB / 1024)} MiB proportional)`}`;
  const state = p.listening ? "" : ", no longer taking starts (it exits when its workers do)";
  return `pid ${p.pid} (${p.interpreter}), started ${ago} ago${rss}${state}`;
}
