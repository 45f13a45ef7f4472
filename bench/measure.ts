// What the benchmark measures and how: timed unary calls through the SDK's
// generated client, a bounded concurrent driver, and the memory and CPU of a
// plugin's whole process group read from /proc.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import type { Plugin } from "../test/helpers/plugin.js";

const MiB = 1024 * 1024;
/** The machine's page size and clock ticks per second, for what /proc counts in pages and ticks. */
export const PAGE_SIZE = Number(execFileSync("getconf", ["PAGESIZE"], { encoding: "utf8" }).trim()) || 4096;
export const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/**
 * Counts and times every call of one workload. Calls go through the raw
 * client generated from @pulumi/pulumi's stubs with requests built before the
 * clock starts, so the client does the same (small) work for every plugin.
 */
export class Recorder {
  readonly latencies: number[] = [];
  ok = 0;
  failed = 0;
  firstError?: string;

  /** Sends `request` to `method`; resolves true when the plugin answered OK. */
  call(raw: any, method: string, request: unknown): Promise<boolean> {
    const start = performance.now();
    return new Promise((resolve) => {
      raw[method](request, (err: any) => {
        this.latencies.push(performance.now() - start);
        if (err) {
          this.failed++;
          this.firstError ??= `${method}: code ${err.code}: ${String(err.details ?? err.message).split("\n")[0]}`;
          resolve(false);
        } else {
          this.ok++;
          resolve(true);
        }
      });
    });
  }

  /** Everything measured so far: a snapshot, so calls still in flight after an abort do not change it. */
  stats(): { ok: number; failed: number; latencies: number[]; firstError?: string } {
    return { ok: this.ok, failed: this.failed, latencies: [...this.latencies].sort((a, b) => a - b), firstError: this.firstError };
  }
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

export interface DriveResult {
  wallMs: number;
  /** Tasks finished (answered, OK or not) before the end or the deadline. */
  done: number;
  aborted?: string;
}

/**
 * Runs task(0) … task(n-1) with at most `concurrency` in flight. At
 * `deadline` (a performance.now() time) no further task starts and the result
 * is returned at once with a note; tasks still in flight are left to the
 * caller, which stops the plugin (that answers them).
 */
export function drive(n: number, concurrency: number, deadline: number, task: (i: number) => Promise<unknown>): Promise<DriveResult> {
  const start = performance.now();
  let next = 0;
  let done = 0;
  let stopped = false;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stopped = true;
      resolve({ wallMs: performance.now() - start, done, aborted: `time bound reached after ${done} of ${n}` });
    }, Math.max(0, deadline - start));
    const loop = async () => {
      while (!stopped && next < n) {
        const i = next++;
        await task(i);
        done++;
      }
    };
    const loops = Array.from({ length: Math.min(concurrency, n) }, loop);
    void Promise.all(loops).then(() => {
      if (stopped) return;
      clearTimeout(timer);
      resolve({ wallMs: performance.now() - start, done });
    });
  });
}

const preloaderMarks = new Map<number, boolean>();

/** Whether process `pid` was started as a preloader, or forked by one (python-stub/preloader.py): its environment says so. */
function fromPreloader(pid: number): boolean {
  let known = preloaderMarks.get(pid);
  if (known === undefined) {
    try {
      // The environment it was exec'd with: a forked worker's is its preloader's.
      known = `\0${fs.readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes("\0PULUMI_DYNAMIC_HOST_PRELOADER=");
    } catch {
      known = false;
    }
    preloaderMarks.set(pid, known);
  }
  return known;
}

/**
 * The workers a preloader forked (python-stub/preloader.py, docs/preloader.md), alive now: children of a
 * preloader, so in its process group, not the plugin's. The bench runs one plugin at a time, so they are
 * the running plugin's. `procs`: pid → parent pid, when the caller has read them already.
 */
export function preloadedWorkers(procs?: Map<number, number>): number[] {
  if (!procs) {
    procs = new Map();
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (fields[0] !== "Z") procs.set(Number(entry), Number(fields[1]));
      } catch {
        // ended while we looked
      }
    }
  }
  const out: number[] = [];
  for (const [pid, ppid] of procs) if (procs.has(ppid) && fromPreloader(ppid) && fromPreloader(pid)) out.push(pid);
  return out;
}

/** A plugin's processes: its process group, and the workers a preloader forked for it. */
export function pluginPids(plugin: Plugin): number[] {
  return [...plugin.groupPids(), ...preloadedWorkers()];
}

/**
 * The peak resident memory of a plugin's whole process group (host and
 * workers), sampled every `everyMs` while running. The group's members are
 * re-listed every 200 ms, so workers started mid-run are counted. RSS counts
 * pages shared between processes (libpython, the Node binary) once per process.
 */
export class RssSampler {
  private peakBytes = 0;
  private pids: number[] = [];
  private listedAt = -Infinity;
  private timer?: NodeJS.Timeout;

  constructor(private readonly plugin: Plugin, private readonly everyMs = 20) {}

  start(): this {
    this.sample();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.sample(), this.everyMs);
    return this;
  }

  /**
   * Samples now and stops sampling until start() again: while a plugin sits
   * idle between its passes, reading /proc 50 times a second for it would only
   * take CPU from the plugin being measured.
   */
  pause(): void {
    this.sample();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Samples now; the group's current RSS in MiB. */
  current(): number {
    return this.sample() / MiB;
  }

  /** Stops sampling; the peak in MiB. */
  stop(): number {
    this.sample();
    clearInterval(this.timer);
    return this.peakBytes / MiB;
  }

  private sample(): number {
    const now = performance.now();
    if (now - this.listedAt > 200) {
      this.pids = pluginPids(this.plugin);
      this.listedAt = now;
    }
    let total = 0;
    for (const pid of this.pids) {
      try {
        total += Number(fs.readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * PAGE_SIZE;
      } catch {
        // it ended since the last listing
      }
    }
    this.peakBytes = Math.max(this.peakBytes, total);
    return total;
  }
}

/**
 * CPU time (user + system, ms) used so far by the processes of a plugin's
 * group that are alive now: all of them, and the one launched (our host; a
 * reference's own process), so that workers show apart.
 */
export function groupCpuMs(plugin: Plugin): { total: number; root: number; processes: number } {
  let total = 0;
  let root = 0;
  const pids = pluginPids(plugin);
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime and stime are fields 14 and 15 of stat; 12 and 13 after the command.
      const ticks = Number(fields[11]) + Number(fields[12]);
      total += ticks;
      if (pid === plugin.child.pid) root += ticks;
    } catch {
      // it ended while we looked
    }
  }
  return { total: (total * 1000) / CLOCK_TICKS, root: (root * 1000) / CLOCK_TICKS, processes: pids.length };
}

/**
 * groupCpuMs to the nanosecond where the kernel shows each thread's run time
 * (/proc/<pid>/task/<tid>/sched, se.sum_exec_runtime in ms, with scheduler
 * debugging built in, as here); clock ticks (10 ms) otherwise. A thread that
 * has ended is not counted: for the few hundred requests it is read over, the
 * plugins' threads live on.
 */
export function groupCpuMsFine(plugin: Plugin): { total: number; root: number; processes: number; fine: boolean } {
  let total = 0;
  let root = 0;
  const pids = pluginPids(plugin);
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // it ended while we looked
    }
    for (const tid of tids) {
      let text: string;
      try {
        text = fs.readFileSync(`/proc/${pid}/task/${tid}/sched`, "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT" && fs.existsSync(`/proc/${pid}/task/${tid}`)) return { ...groupCpuMs(plugin), fine: false };
        continue;
      }
      const m = /se\.sum_exec_runtime\s*:\s*([\d.]+)/.exec(text);
      if (!m) return { ...groupCpuMs(plugin), fine: false };
      total += Number(m[1]);
      if (pid === plugin.child.pid) root += Number(m[1]);
    }
  }
  return { total, root, processes: pids.length, fine: true };
}

/** This (client) process's CPU time in ms. */
export function clientCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
