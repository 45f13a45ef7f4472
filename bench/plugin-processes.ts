// What the plugins the engine starts cost while a step runs: every 100 ms, the
// processes under this one (the engine's `pulumi`, under an Automation API
// program in this process or in a Python child) are read from /proc; those
// the engine started as a plugin (the command names pulumi-resource-pulumi-*,
// or is what the launchers exec: our python-stub/prestart.py and bin/launch.mjs, the Node reference's
// cmd/dynamic-provider, `python -m pulumi.dynamic`) and all under them make
// the plugin's tree: our host and its Python workers, or the reference's one
// process. The host is the tree's `node` process (for the Python reference,
// the Python process itself). Linux only (/proc); elsewhere nothing is read.
//
// Peak RSS is the largest sum over the tree (and over the host alone) seen at
// one reading. CPU is user + system time, the last reading of each process:
// what a process spent in its last 100 ms before it exited is not seen, which
// for a plugin at the end of a step is its shutdown.
//
// Two more readings say where a step's wall time went when the plugin's CPU
// does not: how long the host's main thread was ready to run but waited for a
// CPU (/proc/<pid>/schedstat, the run-queue delay: on a loaded machine a
// plugin answering at the engine's parallelism waits about as long as it
// runs), and the CPU of the engine's own processes (the `pulumi` CLI, not the
// plugins, nor a program in this process), which shares the machine's cores.
import fs from "node:fs";
import { CLOCK_TICKS, PAGE_SIZE, preloadedWorkers } from "./measure.js";

// Ours: the Node plugin's script; the Python plugin's launcher becomes python-stub/prestart.py, which starts the worker and the host (bin/launch.mjs).
const PLUGIN_COMMAND = /pulumi-resource-pulumi-(nodejs|python)|python-stub\/prestart\.py|bin\/launch\.mjs|cmd\/dynamic-provider\/index\.js|-m\0pulumi\.dynamic/;

export interface PluginUsage {
  /** Largest RSS of all the plugins' processes together at one reading, MiB. */
  peakRssMiB: number;
  /** Largest RSS of the hosts alone (ours: the node process; the Python reference: its process), MiB. */
  peakHostRssMiB: number;
  /** User + system CPU of every plugin process, seconds. */
  cpuSeconds: number;
  /** The same, of the hosts alone. */
  hostCpuSeconds: number;
  /** How long the hosts' main threads were runnable but waiting for a CPU (run-queue delay), seconds; 0 where schedstat is missing. */
  hostRunQueueSeconds: number;
  /** User + system CPU of the engine's processes (`pulumi`) under this one, seconds. */
  engineCpuSeconds: number;
  /** How many plugin processes were seen, and how many readings were taken. */
  processes: number;
  samples: number;
}

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  cpuTicks: number;
  rssPages: number;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const f = stat.slice(close + 2).split(" ");
    // After the name: state(0) ppid(1) … utime(11) stime(12) … rss(21)
    return { pid, ppid: Number(f[1]), comm, cpuTicks: Number(f[11]) + Number(f[12]), rssPages: Number(f[21]) };
  } catch {
    return undefined;
  }
}

/** The run-queue delay of `pid`'s main thread so far, in seconds (0 when the kernel does not say). */
function runQueueSeconds(pid: number): number {
  try {
    const delayNs = Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]);
    return Number.isFinite(delayNs) ? delayNs / 1e9 : 0;
  } catch {
    return 0;
  }
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "latin1");
  } catch {
    return "";
  }
}

/** Samples the plugin processes under `root` (this process by default) until `stop()`. */
export class PluginSampler {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly cpu = new Map<number, { ticks: number; host: boolean; waited: number }>();
  private readonly engineCpu = new Map<number, number>();
  /**
   * Whether a process runs a plugin's command, by pid and name: the engine's
   * child is first a fork of `pulumi` and becomes the plugin at its exec, which
   * changes its name. Kept by pid alone, a reading between the two (longer on a
   * loaded machine) marked the plugin "not a plugin" for the whole step.
   */
  private readonly commands = new Map<string, boolean>();
  private peakRss = 0;
  private peakHostRss = 0;
  private samples = 0;

  constructor(
    private readonly root = process.pid,
    intervalMs = 100,
  ) {
    if (!fs.existsSync("/proc/self/stat")) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private isPluginCommand(pid: number, comm: string): boolean {
    const key = `${pid}\0${comm}`;
    let known = this.commands.get(key);
    if (known === undefined) {
      known = PLUGIN_COMMAND.test(commandOf(pid));
      this.commands.set(key, known);
    }
    return known;
  }

  private sample(): void {
    let names: string[];
    try {
      names = fs.readdirSync("/proc");
    } catch {
      return;
    }
    const procs = new Map<number, Proc>();
    const children = new Map<number, number[]>();
    for (const name of names) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      const p = readProc(pid);
      if (!p) continue;
      procs.set(pid, p);
      const list = children.get(p.ppid) ?? [];
      list.push(pid);
      children.set(p.ppid, list);
    }
    // Walk down from the root; a plugin's command marks the top of a plugin tree.
    let rss = 0;
    let hostRss = 0;
    const walk = (pid: number, inPlugin: boolean, pluginRoot: number | undefined) => {
      const p = procs.get(pid);
      if (!p) return;
      let root = pluginRoot;
      if (!inPlugin && pid !== this.root && this.isPluginCommand(pid, p.comm)) {
        inPlugin = true;
        root = pid;
      }
      if (inPlugin) {
        const tree = [root!, ...this.descendants(root!, children)];
        const hasNode = tree.some((q) => procs.get(q)?.comm === "node");
        const host = hasNode ? p.comm === "node" : pid === root;
        rss += p.rssPages;
        if (host) hostRss += p.rssPages;
        // Cumulative since the process started; a reading that failed (it just exited) keeps the last one.
        const waited = host ? Math.max(runQueueSeconds(pid), this.cpu.get(pid)?.waited ?? 0) : 0;
        this.cpu.set(pid, { ticks: p.cpuTicks, host, waited });
      } else if (p.comm === "pulumi") {
        this.engineCpu.set(pid, p.cpuTicks);
      }
      for (const c of children.get(pid) ?? []) walk(c, inPlugin, root);
    };
    walk(this.root, false, undefined);
    // Workers a preloader forked (docs/preloader.md) are its children, not the host's: the running plugin's.
    if (this.cpu.size > 0) {
      for (const pid of preloadedWorkers(new Map([...procs].map(([pid, p]) => [pid, p.ppid])))) {
        const p = procs.get(pid)!;
        rss += p.rssPages;
        this.cpu.set(pid, { ticks: p.cpuTicks, host: false, waited: 0 });
      }
    }
    this.peakRss = Math.max(this.peakRss, rss);
    this.peakHostRss = Math.max(this.peakHostRss, hostRss);
    this.samples++;
  }

  private descendants(pid: number, children: Map<number, number[]>): number[] {
    const out: number[] = [];
    for (const c of children.get(pid) ?? []) out.push(c, ...this.descendants(c, children));
    return out;
  }

  /** Stops sampling (after one last reading) and says what the plugins cost. */
  stop(): PluginUsage {
    if (this.timer) {
      clearInterval(this.timer);
      this.sample();
    }
    let ticks = 0;
    let hostTicks = 0;
    let waited = 0;
    for (const { ticks: t, host, waited: w } of this.cpu.values()) {
      ticks += t;
      if (host) hostTicks += t;
      waited += w;
    }
    let engineTicks = 0;
    for (const t of this.engineCpu.values()) engineTicks += t;
    const mib = (pages: number) => (pages * PAGE_SIZE) / (1 << 20);
    return {
      peakRssMiB: mib(this.peakRss),
      peakHostRssMiB: mib(this.peakHostRss),
      cpuSeconds: ticks / CLOCK_TICKS,
      hostCpuSeconds: hostTicks / CLOCK_TICKS,
      hostRunQueueSeconds: waited,
      engineCpuSeconds: engineTicks / CLOCK_TICKS,
      processes: this.cpu.size,
      samples: this.samples,
    };
  }
}
