// `npm run bench`: the Node and Python reference plugins, our host in both
// modes and the calibration plugin, each started as the engine starts it
// (test/helpers/plugin.ts) and driven by the same client (the stubs generated
// in @pulumi/pulumi) with payloads from the real SDK serializers. Prints a
// table per workload with ratios to both references and to the ceiling, and
// writes the numbers as JSON.
//
//   node dist/bench/run.js [--smoke] [--only <workload|prefix,…>] [--plugins <id,…>] [--warmup <n>] [--rounds <n>] [--out <file.json>]
//
// Every (plugin, workload) runs in a freshly launched plugin, so peak RSS and
// the provider caches belong to that workload alone, and is bounded in time:
// past the bound it stops, keeps what it measured and says so in the output.
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { pb } from "../test/helpers/client.js";
import { VENV_PYTHON } from "../test/helpers/paths.js";
import { Plugin } from "../test/helpers/plugin.js";
import { clientCpuMs, drive, groupCpuMs, median, Recorder, RssSampler } from "./measure.js";
import { providerSets, type Language, type ProviderSet } from "./payloads.js";
import { addRatios, formatReport, PLUGINS, writeJson, type PluginSpec, type Report, type Result, type RoundResult, type WorkloadInfo } from "./report.js";
import { configureRequest, createRequest, FULL, loadWorkloads, SMOKE, STARTUP, type LoadWorkload, type Sizes, type Target } from "./workloads.js";

const BENCH_DIR = fileURLToPath(new URL("../../bench/", import.meta.url));

interface Options {
  smoke: boolean;
  only?: string[];
  plugins?: string[];
  warmup?: number;
  rounds?: number;
  out: string;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { smoke: false, out: path.join(BENCH_DIR, "results", "latest.json") };
  const list = (v: string | undefined, flag: string) => {
    if (!v) throw new Error(`${flag} needs a comma-separated list`);
    return v.split(",").map((s) => s.trim()).filter(Boolean);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--smoke") opts.smoke = true;
    else if (a === "--only") opts.only = list(argv[++i], a);
    else if (a === "--plugins") opts.plugins = list(argv[++i], a);
    else if (a === "--out") opts.out = path.resolve(argv[++i] ?? "");
    else if (a === "--warmup") {
      opts.warmup = Number(argv[++i]);
      if (!Number.isInteger(opts.warmup) || opts.warmup < 0) throw new Error("--warmup needs a whole number of requests");
    } else if (a === "--rounds") {
      opts.rounds = Number(argv[++i]);
      if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error("--rounds needs a whole number of passes, at least 1");
    } else if (a === "--help" || a === "-h") {
      process.stdout.write("usage: node dist/bench/run.js [--smoke] [--only <workload|prefix,…>] [--plugins <id,…>] [--warmup <n>] [--rounds <n>] [--out <file.json>]\n");
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

const live = new Set<Plugin>();

/** BENCH_HOST_NODE_OPTIONS: NODE_OPTIONS for our host only (e.g. V8 heap flags), to measure what they change. */
async function launch(spec: PluginSpec): Promise<Plugin> {
  const hostNodeOptions = spec.kind === "ours" ? process.env.BENCH_HOST_NODE_OPTIONS : undefined;
  const plugin = await Plugin.launch(spec.kind, { language: spec.language, ...(hostNodeOptions ? { env: { NODE_OPTIONS: hostNodeOptions } } : {}) });
  live.add(plugin);
  return plugin;
}

async function stop(plugin: Plugin): Promise<void> {
  await plugin.stop();
  live.delete(plugin);
}

const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);
const providersOf = (sets: Record<Language, ProviderSet>, spec: PluginSpec) => sets[spec.kind === "ceiling" ? "nodejs" : spec.language];

/** Resolves with `p`'s value, or undefined once `ms` have passed. */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([p, expiry]).finally(() => clearTimeout(timer));
}

/** Spawn → port line and spawn → first Create, `sizes.launches` times per plugin, rounds interleaved. */
async function startup(specs: PluginSpec[], sizes: Sizes, sets: Record<Language, ProviderSet>): Promise<Result[]> {
  const results = new Map<string, Result>();
  for (const s of specs) results.set(s.id, { plugin: s.id, workload: STARTUP.id, requests: 0, ok: 0, failed: 0, portSamples: [], firstCreateSamples: [], peakRssMiB: 0 });
  for (let round = 0; round < sizes.launches; round++) {
    for (const spec of specs) {
      const r = results.get(spec.id)!;
      if (r.aborted) continue;
      const target: Target = { raw: undefined, language: spec.language, providers: providersOf(sets, spec) };
      const create = createRequest(target, "first", { __provider: target.providers.trivial });
      const configure = configureRequest();
      r.requests++;
      const t0 = performance.now();
      let plugin: Plugin;
      try {
        plugin = await launch(spec);
      } catch (e) {
        r.aborted = `launch failed: ${(e as Error).message.split("\n")[0]}`;
        r.failed++;
        continue;
      }
      const portMs = performance.now() - t0;
      const sampler = new RssSampler(plugin).start();
      const rec = new Recorder();
      const raw = plugin.client.raw;
      const answered = await within(
        (async () =>
          (await rec.call(raw, "getPluginInfo", new pb.emptyPb.Empty())) &&
          (await rec.call(raw, "configure", configure)) &&
          (await rec.call(raw, "create", create)))(),
        sizes.boundMs,
      );
      const firstCreateMs = performance.now() - t0;
      r.peakRssMiB = Math.max(r.peakRssMiB!, sampler.stop());
      await stop(plugin);
      if (answered === undefined) r.aborted = `time bound (${sizes.boundMs} ms) reached before the first Create was answered`;
      if (answered) {
        r.ok++;
        r.portSamples!.push(portMs);
        r.firstCreateSamples!.push(firstCreateMs);
      } else {
        r.failed++;
        r.firstError ??= rec.firstError;
      }
      progress(`startup ${round + 1}/${sizes.launches} ${spec.id}: port ${portMs.toFixed(0)} ms, first Create ${firstCreateMs.toFixed(0)} ms`);
    }
  }
  for (const r of results.values()) {
    if (r.portSamples!.length > 0) r.portMs = median(r.portSamples!);
    if (r.firstCreateSamples!.length > 0) r.firstCreateMs = median(r.firstCreateSamples!);
  }
  return [...results.values()];
}

/** One load workload against one freshly launched plugin. */
async function runLoad(spec: PluginSpec, w: LoadWorkload, sizes: Sizes, sets: Record<Language, ProviderSet>): Promise<Result> {
  const requests = w.n * w.requestsPerUnit;
  const result: Result = { plugin: spec.id, workload: w.id, requests, ok: 0, failed: 0 };
  const target: Target = { raw: undefined, language: spec.language, providers: providersOf(sets, spec) };
  const prepared = w.prepare(target);
  let plugin: Plugin;
  try {
    plugin = await launch(spec);
  } catch (e) {
    result.aborted = `launch failed: ${(e as Error).message.split("\n")[0]}`;
    return result;
  }
  target.raw = plugin.client.raw;
  const sampler = new RssSampler(plugin).start();
  try {
    const deadline = performance.now() + sizes.boundMs;
    const setup = new Recorder();
    const steps: [string, () => Promise<unknown>][] = [
      ["GetPluginInfo and Configure", () => setup.call(target.raw, "getPluginInfo", new pb.emptyPb.Empty()).then(() => setup.call(target.raw, "configure", configureRequest()))],
    ];
    if (prepared.warmup) {
      const wu = prepared.warmup;
      steps.push(["warm-up", () => drive(wu.n, wu.concurrency, deadline, (i) => wu.task(i, setup))]);
    }
    for (const [what, step] of steps) {
      const done = await within(step(), Math.max(0, deadline - performance.now()));
      if (done === undefined || (typeof done === "object" && done !== null && "aborted" in done && done.aborted)) {
        result.aborted = `time bound (${sizes.boundMs} ms) reached during ${what}`;
        return result;
      }
    }
    if (setup.failed > 0) {
      result.failed += setup.failed;
      result.firstError = `before measuring: ${setup.firstError}`;
    }

    const rounds = w.repeatable ? sizes.rounds : 1;
    const quarter = Math.max(1, Math.floor(w.n / 4));
    let finished = 0;
    const series: { providers: number; rssMiB: number }[] = [];
    const passes: RoundResult[] = [];
    const cpu0 = groupCpuMs(plugin);
    const client0 = clientCpuMs();
    let measured = 0;
    for (let round = 0; round < rounds && !result.aborted; round++) {
      const rec = new Recorder();
      const run = await drive(w.n, w.concurrency, deadline, async (i) => {
        await prepared.task(i, rec);
        finished++;
        if (w.id === "distinct" && finished % quarter === 0) series.push({ providers: finished, rssMiB: sampler.current() });
      });
      const stats = rec.stats();
      const answered = stats.ok + stats.failed;
      measured += answered;
      result.ok += stats.ok;
      result.failed += stats.failed;
      result.firstError ??= stats.firstError;
      if (answered > 0) passes.push({ wallMs: run.wallMs, throughput: answered / (run.wallMs / 1000), p50Ms: stats.p50, p99Ms: stats.p99 });
      if (run.aborted) result.aborted = `${run.aborted} units in pass ${round + 1} of ${rounds} (time bound ${sizes.boundMs} ms)`;
    }
    // The pass of median throughput stands for the workload; every pass is in the JSON.
    const middle = median(passes.map((p) => p.throughput));
    const shown = passes.find((p) => p.throughput === middle);
    if (shown) Object.assign(result, { wallMs: shown.wallMs, throughput: shown.throughput, p50Ms: shown.p50Ms, p99Ms: shown.p99Ms });
    if (passes.length > 1) result.rounds = passes;
    result.requests = requests * rounds;
    if (measured > 0) {
      result.pluginCpuMsPerRequest = (groupCpuMs(plugin) - cpu0) / measured;
      result.clientCpuMsPerRequest = (clientCpuMs() - client0) / measured;
    }
    if (series.length > 0) result.rssByProviders = series;
    return result;
  } finally {
    result.peakRssMiB = sampler.stop();
    await stop(plugin);
  }
}

function selectWorkloads(sizes: Sizes, only: string[] | undefined): { startup: boolean; load: LoadWorkload[] } {
  const { standard, optIn } = loadWorkloads(sizes);
  if (!only) return { startup: true, load: standard };
  const all = [...standard, ...optIn];
  const matches = (id: string, name: string) => id === name || id.startsWith(`${name}-`);
  for (const name of only) {
    if (name !== STARTUP.id && !all.some((w) => matches(w.id, name))) {
      throw new Error(`--only ${name}: no such workload; workloads: ${[STARTUP.id, ...all.map((w) => w.id)].join(", ")}`);
    }
  }
  return { startup: only.includes(STARTUP.id), load: all.filter((w) => only.some((name) => matches(w.id, name))) };
}

function meta(opts: Options, sizes: Sizes, loadAtStart: number[]): Record<string, unknown> {
  const py = (() => {
    try {
      return JSON.parse(
        execFileSync(
          VENV_PYTHON,
          ["-c", "import importlib.metadata as m, json, sys; print(json.dumps({'python': sys.version.split()[0], 'pulumi': m.version('pulumi'), 'dill': m.version('dill'), 'grpcio': m.version('grpcio')}))"],
          { encoding: "utf8" },
        ),
      );
    } catch {
      return undefined;
    }
  })();
  return {
    date: new Date().toISOString(),
    smoke: opts.smoke,
    argv: process.argv.slice(2),
    node: process.version,
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model,
    memoryMiB: Math.round(os.totalmem() / (1024 * 1024)),
    /** 1-, 5- and 15-minute load averages: other work on the machine shows here. */
    loadAverage: { atStart: loadAtStart, atEnd: os.loadavg() },
    venv: py,
    pythonWorkers: process.env.PULUMI_DYNAMIC_HOST_PYTHON_WORKERS ?? "default (one per core, at most 8)",
    sizes: { ...sizes, payloadReps: sizes.payloadBytes.map((b) => sizes.payloadReps(b)) },
  };
}

export async function main(argv: string[]): Promise<void> {
  const opts = parseArgs(argv);
  const loadAtStart = os.loadavg();
  const sizes: Sizes = {
    ...(opts.smoke ? SMOKE : FULL),
    ...(opts.warmup !== undefined ? { warmup: opts.warmup } : {}),
    ...(opts.rounds !== undefined ? { rounds: opts.rounds } : {}),
  };
  const specs = opts.plugins ? PLUGINS.filter((p) => opts.plugins!.includes(p.id)) : PLUGINS;
  if (specs.length === 0) throw new Error(`--plugins: none of ${opts.plugins}; plugins: ${PLUGINS.map((p) => p.id).join(", ")}`);
  const selected = selectWorkloads(sizes, opts.only);
  const workloads: WorkloadInfo[] = [...(selected.startup ? [STARTUP] : []), ...selected.load.map((w) => ({ id: w.id, title: w.title }))];

  progress(`making payloads with the SDK serializers (${sizes.distinct} distinct providers per language)`);
  const needDistinct = selected.load.some((w) => w.id === "distinct");
  const sets = await providerSets(needDistinct ? sizes.distinct : 0);

  const results: Result[] = [];
  if (selected.startup) results.push(...(await startup(specs, sizes, sets)));
  for (const w of selected.load) {
    for (const spec of specs) {
      const r = await runLoad(spec, w, sizes, sets);
      results.push(r);
      progress(
        `${w.id} ${spec.id}: ${r.throughput?.toFixed(1) ?? "-"} req/s, p50 ${r.p50Ms?.toFixed(2) ?? "-"} ms, p99 ${r.p99Ms?.toFixed(2) ?? "-"} ms, ` +
          `RSS ${r.peakRssMiB?.toFixed(1) ?? "-"} MiB${r.failed ? `, ${r.failed} failed` : ""}${r.aborted ? `, ${r.aborted}` : ""}`,
      );
    }
  }
  addRatios(results);
  const report: Report = { meta: meta(opts, sizes, loadAtStart), plugins: specs, workloads, results };
  writeJson(opts.out, report);
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");
  process.stdout.write(`${formatReport(report)}\n\nLoad average at start ${load(loadAtStart)}, at end ${load(os.loadavg())}.\nJSON: ${opts.out}\n`);
}

// The SDK loaded to serialize Node providers warns about deprecated Node APIs; that is not ours to show.
process.removeAllListeners("warning");
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    progress(`${signal}: stopping ${live.size} plugin(s)`);
    void Promise.all([...live].map((p) => p.stop())).finally(() => process.exit(130));
  });
}
main(process.argv.slice(2)).then(
  () => process.exit(0),
  async (e) => {
    process.stderr.write(`bench: ${e && e.stack ? e.stack : e}\n`);
    await Promise.all([...live].map((p) => p.stop()));
    process.exit(1);
  },
);
