// The benchmark's output: one table per workload with ratios to both
// references and to the ceiling, and the same numbers as JSON for tooling.
import fs from "node:fs";
import path from "node:path";

export interface PluginSpec {
  id: string;
  label: string;
  kind: "ours" | "reference" | "ceiling";
  language: "nodejs" | "python";
  /** Ours as installed (installed-hosts.ts): run only when named in --plugins. */
  installed?: "npm" | "npm-node-entry" | "executable";
  /** Variables the plugin is started with (a variant of ours: run only when named in --plugins). */
  env?: Record<string, string>;
}

/** Every plugin the bench runs, in the order of its tables. */
export const PLUGINS: PluginSpec[] = [
  { id: "node-ref", label: "Node reference", kind: "reference", language: "nodejs" },
  { id: "python-ref", label: "Python reference", kind: "reference", language: "python" },
  { id: "ours-node", label: "ours, Node mode", kind: "ours", language: "nodejs" },
  { id: "ours-python", label: "ours, Python mode", kind: "ours", language: "python" },
  { id: "ours-python-fresh", label: "ours, Python mode, no preloader (every start a fresh worker)", kind: "ours", language: "python", env: { PULUMI_DYNAMIC_HOST_PRELOAD: "0" } },
  { id: "ceiling", label: "ceiling (calibration)", kind: "ceiling", language: "nodejs" },
  { id: "npm-node", label: "ours npm-installed, Node mode", kind: "ours", language: "nodejs", installed: "npm" },
  { id: "npm-python", label: "ours npm-installed, Python mode", kind: "ours", language: "python", installed: "npm" },
  { id: "npm-python-node-entry", label: "ours npm-installed with the Node entry (as on Windows), Python mode", kind: "ours", language: "python", installed: "npm-node-entry" },
  { id: "exe-node", label: "ours single executable, Node mode", kind: "ours", language: "nodejs", installed: "executable" },
  { id: "exe-python", label: "ours single executable, Python mode", kind: "ours", language: "python", installed: "executable" },
];

/** What a run without --plugins measures: all but the installed copies. */
export const DEFAULT_PLUGINS = PLUGINS.filter((p) => !p.installed && !p.env);

/** The plugins every ratio is taken against. */
export const BASELINES = [
  { id: "node-ref", short: "Node ref" },
  { id: "python-ref", short: "Py ref" },
  { id: "ceiling", short: "ceiling" },
] as const;

export interface Result {
  plugin: string;
  workload: string;
  /** Requests sent (for start-up: launches, each with its first Create). */
  requests: number;
  ok: number;
  failed: number;
  firstError?: string;
  /** Why the workload stopped early or did not run (time bound, launch failure). */
  aborted?: string;
  wallMs?: number;
  /** Requests answered per second, OK or not (all must be OK for a valid run). */
  throughput?: number;
  p50Ms?: number;
  p99Ms?: number;
  peakRssMiB?: number;
  /** CPU time of the plugin's process group and of the bench client, per request measured. */
  pluginCpuMsPerRequest?: number;
  clientCpuMsPerRequest?: number;
  /** When the group has more processes than the one launched: that one's share (our host, without its Python workers). */
  hostCpuMsPerRequest?: number;
  /** CPU the plugin used while idle, waiting for the other plugins' passes, in thousandths of a core. */
  idleCpuPermille?: number;
  /** Start-up only: medians and every sample. */
  portMs?: number;
  firstCreateMs?: number;
  portSamples?: number[];
  firstCreateSamples?: number[];
  /**
   * Every measured pass when there were several (`rounds`). wallMs and
   * throughput above are the pass of median throughput's; p50Ms and p99Ms are
   * over every request of every measured pass.
   */
  rounds?: RoundResult[];
  /** First requests only: each range of requests, over all launches together. */
  firstRanges?: FirstRange[];
  /** First requests only: how the CPU was read (bench/measure.ts groupCpuMsFine). */
  cpuClock?: "thread run time" | "clock ticks";
  /** Distinct providers only: the group's RSS after each quarter of the providers. */
  rssByProviders?: { providers: number; rssMiB: number }[];
  /**
   * How many times as fast as each baseline (>1 = faster): throughput over
   * theirs; for start-up, their spawn→port time over ours (and firstCreate, the same for the first Create).
   */
  ratios?: Record<string, number>;
  firstCreateRatios?: Record<string, number>;
}

/** Requests `from`–`to` of a fresh plugin's first (bench/run.ts firstRequests), over every launch. */
export interface FirstRange {
  from: number;
  to: number;
  /** The plugin group's CPU over these requests of every launch, per request. */
  cpuMsPerRequest: number;
  /** The launched process's share, where the group has other processes. */
  hostCpuMsPerRequest?: number;
  /** Over every request of the range, every launch. */
  p50Ms: number;
}

/** One measured pass of a load workload. */
export interface RoundResult {
  wallMs: number;
  throughput: number;
  p50Ms: number;
  p99Ms: number;
  /** --fresh only: the pid of the plugin launched for this pass. */
  pid?: number;
}

export interface WorkloadInfo {
  id: string;
  title: string;
}

/** The runtimes' own start-up on the machine of the run (bench/run.ts bootTimes). */
export interface BootTimes {
  nodeMs: number;
  nodeExtraCaCerts?: string;
  nodeWithoutExtraCaMs?: number;
  pythonImportMs: number;
}

export interface Report {
  meta: Record<string, unknown>;
  plugins: PluginSpec[];
  workloads: WorkloadInfo[];
  results: Result[];
}

/** Fills every result's ratios from the baselines' results of the same workload. */
export function addRatios(results: Result[]): void {
  for (const r of results) {
    const ratios: Record<string, number> = {};
    const first: Record<string, number> = {};
    for (const b of BASELINES) {
      const base = results.find((x) => x.workload === r.workload && x.plugin === b.id);
      if (!base) continue;
      if (r.workload === "first") {
        // Less CPU for the same requests is faster: theirs over ours.
        if (r.pluginCpuMsPerRequest && base.pluginCpuMsPerRequest) ratios[b.id] = base.pluginCpuMsPerRequest / r.pluginCpuMsPerRequest;
      } else if (r.workload === "startup") {
        if (r.portMs && base.portMs) ratios[b.id] = base.portMs / r.portMs;
        if (r.firstCreateMs && base.firstCreateMs) first[b.id] = base.firstCreateMs / r.firstCreateMs;
      } else if (r.throughput && base.throughput) {
        ratios[b.id] = r.throughput / base.throughput;
      }
    }
    r.ratios = ratios;
    if (r.workload === "startup") r.firstCreateRatios = first;
  }
}

const num = (v: number | undefined, digits = 1) => (v === undefined || !Number.isFinite(v) ? "-" : v.toFixed(digits));
const ratio = (v: number | undefined) => (v === undefined ? "-" : `${v.toFixed(2)}×`);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), ...rows.map(line)].join("\n");
}

/** What the runtimes alone took to start, under the start-up table. */
export function bootNote(b: BootTimes): string {
  const node = b.nodeExtraCaCerts !== undefined
    ? `node ${num(b.nodeMs)} ms (${num(b.nodeWithoutExtraCaMs)} ms without NODE_EXTRA_CA_CERTS=${b.nodeExtraCaCerts}, which the plugins' ` +
      "environment sets: Node 20 reads that file before running any JavaScript, so every Node-based plugin above starts that much later)"
    : `node ${num(b.nodeMs)} ms`;
  return `startup: the runtimes alone on this machine now, spawn → a first line on stdout: ${node}; python after import pulumi.dynamic ${num(b.pythonImportMs)} ms (medians)`;
}

/** The readable side-by-side tables. */
export function formatReport(report: Report): string {
  const out: string[] = [];
  const label = (id: string) => report.plugins.find((p) => p.id === id)?.label ?? id;
  const baseCols = BASELINES.map((b) => `×${b.short}`);
  const notes: string[] = [];
  for (const w of report.workloads) {
    const rows = report.results.filter((r) => r.workload === w.id);
    if (rows.length === 0) continue;
    out.push(`${w.id} — ${w.title}`);
    if (w.id === "startup") {
      out.push(
        table(
          ["plugin", "port ms", "1st Create ms", "RSS MiB", ...baseCols.map((c) => `port ${c}`), ...baseCols.map((c) => `Create ${c}`)],
          rows.map((r) => [
            label(r.plugin),
            num(r.portMs),
            num(r.firstCreateMs),
            num(r.peakRssMiB),
            ...BASELINES.map((b) => ratio(r.ratios?.[b.id])),
            ...BASELINES.map((b) => ratio(r.firstCreateRatios?.[b.id])),
          ]),
        ),
      );
      const boots = report.meta.bootTimes as BootTimes | undefined;
      if (boots) notes.push(bootNote(boots));
    } else if (w.id === "first") {
      const ranges = rows.find((r) => r.firstRanges)?.firstRanges ?? [];
      const span = (x: FirstRange) => `${x.from}–${x.to}`;
      const at = (r: Result, i: number) => r.firstRanges?.[i];
      out.push(
        table(
          ["plugin", ...ranges.map((x) => `CPU ms/req ${span(x)}`), ...ranges.map((x) => `p50 ms ${span(x)}`), "CPU ms/req all", ...baseCols],
          rows.map((r) => [
            label(r.plugin),
            ...ranges.map((_, i) => num(at(r, i)?.cpuMsPerRequest, 2)),
            ...ranges.map((_, i) => num(at(r, i)?.p50Ms, 2)),
            num(r.pluginCpuMsPerRequest, 2),
            ...BASELINES.map((b) => ratio(r.ratios?.[b.id])),
          ]),
        ),
      );
      notes.push(
        `first: CPU of the plugin's process group (host + workers) from /proc (${[...new Set(rows.map((r) => r.cpuClock ?? "-"))].join(", ")}), summed over every launch; ` +
          "ratios: the baseline's CPU per request over the plugin's, all requests (>1 = less CPU); the hosts' own shares are in the JSON.",
      );
    } else {
      // The host's own share only where workers exist: the rest of the CPU column is theirs.
      const split = rows.some((r) => r.hostCpuMsPerRequest !== undefined);
      out.push(
        table(
          ["plugin", "req/s", "spread", "p50 ms", "p99 ms", "RSS MiB", "CPU ms/req", ...(split ? ["host ms/req"] : []), ...baseCols],
          rows.map((r) => [
            label(r.plugin),
            num(r.throughput),
            spread(r),
            num(r.p50Ms, 2),
            num(r.p99Ms, 2),
            num(r.peakRssMiB),
            num(r.pluginCpuMsPerRequest, 2),
            ...(split ? [num(r.hostCpuMsPerRequest, 2)] : []),
            ...BASELINES.map((b) => ratio(r.ratios?.[b.id])),
          ]),
        ),
      );
    }
    for (const r of rows) {
      if (r.aborted) notes.push(`${w.id} / ${label(r.plugin)}: ABORTED: ${r.aborted}`);
      if (r.failed > 0) notes.push(`${w.id} / ${label(r.plugin)}: ${r.failed} of ${r.requests} requests failed; first: ${r.firstError}`);
      if ((r.idleCpuPermille ?? 0) > IDLE_NOTE_PERMILLE) {
        notes.push(`${w.id} / ${label(r.plugin)}: used ${(r.idleCpuPermille! / 10).toFixed(1)}% of a core while idle, beside the other plugins' passes`);
      }
      if (r.rssByProviders) {
        notes.push(`${w.id} / ${label(r.plugin)}: RSS by providers loaded: ${r.rssByProviders.map((s) => `${s.providers}→${s.rssMiB.toFixed(1)} MiB`).join(", ")}`);
      }
    }
    out.push("");
  }
  const { fast = 1, slow = 1 } = (report.meta.sizes as { rounds?: { fast?: number; slow?: number } } | undefined)?.rounds ?? {};
  if (fast > 1 || slow > 1) {
    const passes = fast === slow ? `${fast} passes` : `${fast} passes (IO-bound, CPU-bound, payloads: ${slow})`;
    out.push(
      `req/s: the measured pass of median throughput, of ${passes} ${report.meta.fresh ? "each in a plugin launched for it, with no warm-up (--fresh)" : "after the warm-up"} (the distinct workload: one pass); ` +
        "spread: half the range of the passes' throughput, over the median; p50, p99: over every request of the measured passes; every pass is in the JSON.",
    );
  }
  out.push("Ratios: how many times as fast as the baseline (>1 = faster): throughput over its throughput; for start-up its time over ours.");
  out.push(
    "RSS: peak resident memory of the plugin's whole process group (host + workers), sampled from /proc every 20 ms while it is started, warmed and measured.",
  );
  out.push(
    "CPU ms/req: user+system time of the plugin's process group during its measured passes, per request; host ms/req: the launched process's share, the rest is its workers'.",
  );
  out.push("The plugins of a workload run side by side and take turns: pass 1 of each, then pass 2 of each, and so on.");
  if (typeof report.meta.client === "string") out.push(`Client of the load workloads: ${report.meta.client}.`);
  if (notes.length > 0) out.push("", "Notes:", ...notes.map((n) => `  ${n}`));
  return out.join("\n");
}

/** Idle CPU above this (thousandths of a core) is worth a note: it would have slowed the plugin being measured. */
const IDLE_NOTE_PERMILLE = 20;

/** ±(max − min) / 2 of the passes' throughput, as a share of the shown one; "-" for a single pass. */
function spread(r: Result): string {
  if (!r.rounds || r.rounds.length < 2 || !r.throughput) return "-";
  const t = r.rounds.map((p) => p.throughput);
  return `±${((50 * (Math.max(...t) - Math.min(...t))) / r.throughput).toFixed(0)}%`;
}

export function writeJson(file: string, report: Report): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
