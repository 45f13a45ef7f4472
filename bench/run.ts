// `npm run bench`: the Node and Python reference plugins, our host in both
// modes and the calibration plugin, each started as the engine starts it
// (test/helpers/plugin.ts) and driven by the same client with requests encoded
// by the stubs generated in @pulumi/pulumi and payloads from the real SDK
// serializers. The client is bench/loadgen (grpc-go, bench/drivers.ts) unless
// --client node asks for the stubs' own grpc-js client. Prints a table per
// workload with ratios to both references and to the ceiling, and writes the
// numbers as JSON.
//
//   node dist/bench/run.js [--smoke] [--only <workload|prefix,…>] [--plugins <id,…>] [--client go|node]
//                          [--warmup <n>] [--rounds <n>] [--fresh] [--out <file.json>]
//
// Every (plugin, workload) runs in a freshly launched plugin, so peak RSS and
// the provider caches belong to that workload alone, and is bounded in time:
// past the bound it stops, keeps what it measured and says so in the output.
// The plugins of a workload run side by side and their passes take turns.
import os from "node:os";
import path from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { pb } from "../test/helpers/client.js";
import { usersPreload, VENV_PYTHON } from "../test/helpers/paths.js";
import { archiveInstall, npmInstall, npmInstallNodeEntry } from "../test/helpers/installs.js";
import { Plugin } from "../test/helpers/plugin.js";
import { makeDriver, type ClientKind, type Driver, type DriverSession } from "./drivers.js";
import { groupCpuMs, groupCpuMsFine, median, percentile, Recorder, RssSampler } from "./measure.js";
import { providerSets, type Language, type ProviderSet } from "./payloads.js";
import { addRatios, DEFAULT_PLUGINS, formatReport, PLUGINS, writeJson, type BootTimes, type FirstRange, type PluginSpec, type Report, type Result, type RoundResult, type WorkloadInfo } from "./report.js";
import { formatTargets, judgeTargets } from "./targets.js";
import { checkRequest, configureRequest, createRequest, FIRST, FIRST_GAP_MS, FULL, loadWorkloads, SMOKE, STARTUP, type LoadWorkload, type Prepared, type Sizes, type Target } from "./workloads.js";

const BENCH_DIR = fileURLToPath(new URL("../../bench/", import.meta.url));

interface Options {
  smoke: boolean;
  only?: string[];
  plugins?: string[];
  client: ClientKind;
  warmup?: number;
  rounds?: number;
  /** Every pass of a load workload in a plugin launched for it, with no warm-up: what one command's plugin meets. */
  fresh: boolean;
  out: string;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { smoke: false, fresh: false, client: "go", out: path.join(BENCH_DIR, "results", "latest.json") };
  const list = (v: string | undefined, flag: string) => {
    if (!v) throw new Error(`${flag} needs a comma-separated list`);
    return v.split(",").map((s) => s.trim()).filter(Boolean);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--smoke") opts.smoke = true;
    else if (a === "--only") opts.only = list(argv[++i], a);
    else if (a === "--plugins") opts.plugins = list(argv[++i], a);
    else if (a === "--fresh") opts.fresh = true;
    else if (a === "--out") opts.out = path.resolve(argv[++i] ?? "");
    else if (a === "--client") {
      const kind = argv[++i];
      if (kind !== "go" && kind !== "node") throw new Error("--client needs go or node");
      opts.client = kind;
    }
    else if (a === "--warmup") {
      opts.warmup = Number(argv[++i]);
      if (!Number.isInteger(opts.warmup) || opts.warmup < 0) throw new Error("--warmup needs a whole number of requests");
    } else if (a === "--rounds") {
      opts.rounds = Number(argv[++i]);
      if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error("--rounds needs a whole number of passes, at least 1");
    } else if (a === "--help" || a === "-h") {
      process.stdout.write(
        "usage: node dist/bench/run.js [--smoke] [--only <workload|prefix,…>] [--plugins <id,…>] [--client go|node] [--warmup <n>] [--rounds <n>] [--fresh] [--out <file.json>]\n",
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

const live = new Set<Plugin>();
let driver: Driver | undefined;
/** Set by the start-up workload. */
let boots: BootTimes | undefined;

/**
 * Ours as users install it (named in --plugins: npm-node, exe-python, …): the
 * npm package packed and installed into a temporary prefix, or the release
 * archive of `npm run dist` built and unpacked, once per run; npm-node-entry:
 * the same package installed as on Windows, its Python plugin's name the Node
 * entry (bin/python-entry.mjs).
 */
function installedPlugin(how: NonNullable<PluginSpec["installed"]>, language: Language): string {
  const dir = how === "npm" ? npmInstall().bin : how === "npm-node-entry" ? npmInstallNodeEntry().bin : archiveInstall();
  return path.join(dir, `pulumi-resource-pulumi-${language}`);
}

/** BENCH_HOST_NODE_OPTIONS: NODE_OPTIONS for our host only (e.g. V8 heap flags), to measure what they change. */
async function launch(spec: PluginSpec): Promise<Plugin> {
  const hostNodeOptions = spec.kind === "ours" ? process.env.BENCH_HOST_NODE_OPTIONS : undefined;
  const executable = spec.installed ? installedPlugin(spec.installed, spec.language) : undefined;
  const env = { ...spec.env, ...(hostNodeOptions ? { NODE_OPTIONS: hostNodeOptions } : {}) };
  const plugin = await Plugin.launch(spec.kind, { language: spec.language, executable, env });
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
  // One launch of each first, not measured: what a user's second command meets (our host's code
  // cache written after its first answers, src/host/tuning/code-cache-save.ts; the OS's file cache warm for every plugin).
  for (const spec of specs) {
    const target: Target = { language: spec.language, providers: providersOf(sets, spec) };
    try {
      const plugin = await launch(spec);
      try {
        await within(
          (async () => {
            const rec = new Recorder();
            const raw = plugin.client.raw;
            await rec.call(raw, "getPluginInfo", new pb.emptyPb.Empty());
            await rec.call(raw, "configure", configureRequest());
            await rec.call(raw, "create", createRequest(target, "primer", { __provider: target.providers.trivial }));
          })(),
          sizes.boundMs,
        );
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        await stop(plugin);
      }
    } catch {
      // The measured launches below report what fails.
    }
  }
  for (let round = 0; round < sizes.launches; round++) {
    for (const spec of specs) {
      const r = results.get(spec.id)!;
      if (r.aborted) continue;
      const target: Target = { language: spec.language, providers: providersOf(sets, spec) };
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
  boots = await bootTimes(sizes.launches);
  for (const r of results.values()) {
    if (r.portSamples!.length > 0) r.portMs = median(r.portSamples!);
    if (r.firstCreateSamples!.length > 0) r.firstCreateMs = median(r.firstCreateSamples!);
  }
  return [...results.values()];
}

/**
 * What the RPC workloads' warm-up hides and a real command is made of: a fresh
 * plugin's first Checks, one at a time with a pause between them, as the engine
 * sends them while a program registers its resources. `sizes.launches` launches
 * per plugin, rounds interleaved; the group's CPU (each thread's run time
 * where the kernel shows it, groupCpuMsFine) is read at each of
 * `sizes.firstMarks`, and each range's is summed over every launch.
 */
async function firstRequests(specs: PluginSpec[], sizes: Sizes, sets: Record<Language, ProviderSet>): Promise<Result[]> {
  const marks = sizes.firstMarks;
  const last = marks[marks.length - 1];
  interface Acc { cpu: number[]; host: number[]; latencies: number[][]; workers: boolean; ticks: boolean }
  const accs = new Map<string, Acc>();
  const results = new Map<string, Result>();
  for (const s of specs) {
    results.set(s.id, { plugin: s.id, workload: FIRST.id, requests: 0, ok: 0, failed: 0 });
    accs.set(s.id, { cpu: marks.map(() => 0), host: marks.map(() => 0), latencies: marks.map(() => []), workers: false, ticks: false });
  }
  const pause = () => new Promise((resolve) => setTimeout(resolve, FIRST_GAP_MS));
  for (let round = 0; round < sizes.launches; round++) {
    for (const spec of specs) {
      const r = results.get(spec.id)!;
      const acc = accs.get(spec.id)!;
      if (r.aborted) continue;
      const target: Target = { language: spec.language, providers: providersOf(sets, spec) };
      const checks = Array.from({ length: last }, (_, i) => checkRequest(target, `r${i}`, { __provider: target.providers.trivial, name: `r${i}`, generation: 1 }));
      let plugin: Plugin;
      try {
        plugin = await launch(spec);
      } catch (e) {
        r.aborted = `launch failed: ${(e as Error).message.split("\n")[0]}`;
        continue;
      }
      const rec = new Recorder();
      const raw = plugin.client.raw;
      const deadline = performance.now() + sizes.boundMs;
      const sampler = new RssSampler(plugin).start();
      try {
        if (!(await rec.call(raw, "getPluginInfo", new pb.emptyPb.Empty())) || !(await rec.call(raw, "configure", configureRequest()))) {
          r.failed++;
          r.firstError ??= rec.firstError;
          continue;
        }
        let before = groupCpuMsFine(plugin);
        let sent = 0;
        for (let m = 0; m < marks.length; m++) {
          const sub = new Recorder();
          for (; sent < marks[m]; sent++) {
            r.requests++;
            if (await sub.call(raw, "check", checks[sent])) r.ok++;
            else {
              r.failed++;
              r.firstError ??= sub.firstError;
            }
            await pause();
          }
          const now = groupCpuMsFine(plugin);
          acc.ticks ||= !now.fine || !before.fine;
          acc.cpu[m] += now.total - before.total;
          acc.host[m] += now.root - before.root;
          acc.workers ||= now.processes > 1;
          acc.latencies[m].push(...sub.latencies);
          before = now;
          if (performance.now() > deadline) {
            r.aborted = `time bound (${sizes.boundMs} ms) reached after ${sent} requests`;
            break;
          }
        }
      } finally {
        r.peakRssMiB = Math.max(r.peakRssMiB ?? 0, sampler.stop());
        await stop(plugin);
      }
      progress(`first ${round + 1}/${sizes.launches} ${spec.id}: ${r.ok} Checks answered so far`);
    }
  }
  for (const spec of specs) {
    const r = results.get(spec.id)!;
    const acc = accs.get(spec.id)!;
    // Requests measured in each range over every launch (one cut short by the time bound has fewer).
    const counts = acc.latencies.map((l) => l.length);
    const all = counts.reduce((a, b) => a + b, 0);
    if (!all) continue;
    r.firstRanges = marks.map((to, m): FirstRange => {
      const from = m === 0 ? 1 : marks[m - 1] + 1;
      const n = counts[m] || 1;
      return {
        from,
        to,
        cpuMsPerRequest: acc.cpu[m] / n,
        ...(acc.workers ? { hostCpuMsPerRequest: acc.host[m] / n } : {}),
        p50Ms: median(acc.latencies[m]),
      };
    });
    r.pluginCpuMsPerRequest = acc.cpu.reduce((a, b) => a + b, 0) / all;
    r.cpuClock = acc.ticks ? "clock ticks" : "thread run time";
    if (acc.workers) r.hostCpuMsPerRequest = acc.host.reduce((a, b) => a + b, 0) / all;
  }
  return [...results.values()];
}

/**
 * How long the runtimes themselves take to start on this machine now, to read
 * the start-up table against, timed as a port line is: spawn → a first line on
 * stdout. `node` printing one in the environment the plugins get (and without
 * NODE_EXTRA_CA_CERTS when that is set: Node 20 reads that file before running
 * any JavaScript), and the test virtualenv's Python printing one after
 * `import pulumi.dynamic`, which is most of the Python reference's start-up
 * and of our Python worker's. Medians of `launches` runs each.
 */
async function bootTimes(launches: number): Promise<BootTimes> {
  const time = async (cmd: string, args: string[], env: NodeJS.ProcessEnv) => {
    const samples: number[] = [];
    for (let i = 0; i < launches; i++) {
      const t0 = performance.now();
      const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "ignore"] });
      const printed = await new Promise<boolean>((resolve) => {
        child.stdout.once("data", () => resolve(true));
        child.once("error", () => resolve(false));
        child.once("exit", () => resolve(false));
      });
      if (printed) samples.push(performance.now() - t0);
      child.kill("SIGKILL");
    }
    return median(samples);
  };
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  const { NODE_EXTRA_CA_CERTS: _, ...withoutExtraCa } = process.env;
  const printLine = ["-e", "process.stdout.write('\\n')"];
  return {
    nodeMs: await time(process.execPath, printLine, process.env),
    ...(extraCa !== undefined ? { nodeExtraCaCerts: extraCa, nodeWithoutExtraCaMs: await time(process.execPath, printLine, withoutExtraCa) } : {}),
    pythonImportMs: await time(VENV_PYTHON, ["-u", "-c", "import pulumi.dynamic; print()"], process.env),
  };
}

/** One plugin in one load workload: its launch, its time budget and what it measured. */
interface Session {
  spec: PluginSpec;
  result: Result;
  target: Target;
  prepared: Prepared;
  plugin?: Plugin;
  /** The client's connection to the plugin, with the workload's requests. */
  client?: DriverSession;
  sampler?: RssSampler;
  /** Time spent on this plugin's own steps; the bound applies to it, not to the other plugins' passes. */
  spentMs: number;
  passes: RoundResult[];
  /** Every measured request's latency, all passes together. */
  latencies: number[];
  /** Distinct providers only: the group's RSS after each quarter of the providers. */
  series: { providers: number; rssMiB: number }[];
  measured: number;
  cpuMs: number;
  hostCpuMs: number;
  /** Whether the group had more than the launched process (workers) during a pass. */
  workers: boolean;
  clientCpuMs: number;
  /** Group CPU after the warm-up, to tell what it used while the others were measured. */
  cpuAfterSetup: number;
  setUpAt: number;
  passWallMs: number;
}

/** Runs `step` within what is left of the session's time bound; undefined (and the session aborted) when the bound is reached. */
async function budgeted<T>(s: Session, sizes: Sizes, what: string, step: (deadline: number) => Promise<T>): Promise<T | undefined> {
  const t0 = performance.now();
  const left = Math.max(0, sizes.boundMs - s.spentMs);
  const done = await within(step(t0 + left), left);
  s.spentMs += performance.now() - t0;
  if (done === undefined) s.result.aborted = `time bound (${sizes.boundMs} ms) reached during ${what}`;
  return done;
}

/** Launches the session's plugin, configures it and sends the warm-up (unless `warm` is false). */
async function setUp(s: Session, sizes: Sizes, warm = true): Promise<void> {
  try {
    s.plugin = await launch(s.spec);
  } catch (e) {
    s.result.aborted = `launch failed: ${(e as Error).message.split("\n")[0]}`;
    return;
  }
  s.sampler = new RssSampler(s.plugin).start();
  // GetPluginInfo and Configure go through the stubs' client, as in the start-up workload; the warm-up through the run's client.
  const setup = new Recorder();
  const raw = s.plugin.client.raw;
  const configured = await budgeted(s, sizes, "GetPluginInfo and Configure", () =>
    setup.call(raw, "getPluginInfo", new pb.emptyPb.Empty()).then(() => setup.call(raw, "configure", configureRequest())),
  );
  let failed = setup.failed;
  let firstError = setup.firstError;
  if (configured !== undefined) {
    const plugin = s.plugin;
    s.client = await budgeted(s, sizes, "connecting the client", () => driver!.open(plugin, s.prepared));
  }
  if (s.client && s.prepared.warmup && warm) {
    const client = s.client;
    const run = await budgeted(s, sizes, "warm-up", (deadline) => client.run("warmup", { deadline }));
    if (run?.aborted) s.result.aborted = `time bound (${sizes.boundMs} ms) reached during warm-up`;
    failed += run?.failed ?? 0;
    firstError ??= run?.firstError;
  }
  if (failed > 0) {
    s.result.failed += failed;
    s.result.firstError = `before measuring: ${firstError}`;
  }
  s.sampler.pause();
  s.cpuAfterSetup = groupCpuMs(s.plugin).total;
  s.setUpAt = performance.now();
}

/** One measured pass of the workload against the session's plugin. */
async function measurePass(s: Session, w: LoadWorkload, sizes: Sizes, round: number, rounds: number, fresh = false): Promise<void> {
  const quarter = Math.max(1, Math.floor(w.n / 4));
  // The distinct workload: the group's RSS after each quarter of the providers.
  const marks = w.id === "distinct" ? [1, 2, 3, 4].map((q) => q * quarter) : [];
  s.sampler!.start();
  const cpu0 = groupCpuMs(s.plugin!);
  // The client stops starting units at the deadline and answers with what it measured, so no outer timer is raced here.
  const t0 = performance.now();
  const run = await s.client!.run("measure", {
    deadline: t0 + Math.max(0, sizes.boundMs - s.spentMs),
    marks,
    onMark: (done) => s.series.push({ providers: done, rssMiB: s.sampler!.current() }),
  });
  s.spentMs += performance.now() - t0;
  s.sampler!.pause();
  const cpu1 = groupCpuMs(s.plugin!);
  s.cpuMs += cpu1.total - cpu0.total;
  s.hostCpuMs += cpu1.root - cpu0.root;
  s.workers ||= cpu0.processes > 1 || cpu1.processes > 1;
  s.clientCpuMs += run.clientCpuMs;
  const answered = run.ok + run.failed;
  s.measured += answered;
  s.result.ok += run.ok;
  s.result.failed += run.failed;
  s.result.firstError ??= run.firstError;
  if (answered > 0) {
    const pass: RoundResult = { wallMs: run.wallMs, throughput: answered / (run.wallMs / 1000), p50Ms: percentile(run.latencies, 50), p99Ms: percentile(run.latencies, 99) };
    if (fresh) pass.pid = s.plugin!.child.pid;
    s.passes.push(pass);
    for (const ms of run.latencies) s.latencies.push(ms);
    s.passWallMs += run.wallMs;
  }
  if (run.aborted) s.result.aborted = `${run.aborted} units in pass ${round + 1} of ${rounds} (time bound ${sizes.boundMs} ms)`;
}

/** The session's numbers, once its passes are done (or it stopped early). */
function summarize(s: Session, w: LoadWorkload, rounds: number): void {
  const { result, passes, series } = s;
  // The pass of median throughput stands for the workload's throughput; every pass is in the JSON.
  const middle = median(passes.map((p) => p.throughput));
  const shown = passes.find((p) => p.throughput === middle);
  if (shown) Object.assign(result, { wallMs: shown.wallMs, throughput: shown.throughput });
  // Latency over every measured request: one 500-request pass's p99 is its fifth-slowest request, which
  // swung by a third from pass to pass, and the pass of median throughput is no likelier than another to
  // have a typical tail.
  if (s.latencies.length > 0) {
    const all = s.latencies.sort((a, b) => a - b);
    Object.assign(result, { p50Ms: percentile(all, 50), p99Ms: percentile(all, 99) });
  }
  if (passes.length > 1) result.rounds = passes;
  result.requests = w.n * w.requestsPerUnit * rounds;
  if (s.measured > 0) {
    result.pluginCpuMsPerRequest = s.cpuMs / s.measured;
    result.clientCpuMsPerRequest = s.clientCpuMs / s.measured;
    if (s.workers) result.hostCpuMsPerRequest = s.hostCpuMs / s.measured;
  }
  if (s.plugin && s.setUpAt) {
    const idleWallMs = performance.now() - s.setUpAt - s.passWallMs;
    const idleCpuMs = groupCpuMs(s.plugin).total - s.cpuAfterSetup - s.cpuMs;
    if (idleWallMs > 0) result.idleCpuPermille = Math.max(0, Math.round((1000 * idleCpuMs) / idleWallMs));
  }
  if (series.length > 0) result.rssByProviders = series;
}

/**
 * One load workload against every plugin, each freshly launched. The passes
 * are interleaved (pass 1 of every plugin, then pass 2 of every plugin, …), so
 * a change in what else the shared machine is doing falls on every plugin
 * alike instead of on whichever ran at that minute. Plugins not being measured
 * sit idle; the CPU they use meanwhile is in the JSON (idleCpuPermille).
 */
async function runLoad(specs: PluginSpec[], w: LoadWorkload, sizes: Sizes, sets: Record<Language, ProviderSet>, fresh: boolean): Promise<Result[]> {
  const sessions: Session[] = specs.map((spec) => {
    const target: Target = { language: spec.language, providers: providersOf(sets, spec) };
    return {
      spec,
      target,
      prepared: w.prepare(target),
      result: { plugin: spec.id, workload: w.id, requests: w.n * w.requestsPerUnit, ok: 0, failed: 0 },
      spentMs: 0,
      passes: [],
      latencies: [],
      series: [],
      measured: 0,
      cpuMs: 0,
      hostCpuMs: 0,
      workers: false,
      clientCpuMs: 0,
      cpuAfterSetup: 0,
      setUpAt: 0,
      passWallMs: 0,
    };
  });
  const rounds = w.repeatable ? sizes.rounds[w.pace] : 1;
  // A plugin that stopped early is stopped at once: requests it still has in flight must not run beside another plugin's pass.
  const retire = async (s: Session) => {
    if (!s.plugin) return;
    summarize(s, w, rounds);
    s.result.peakRssMiB = s.sampler?.stop();
    const p = s.plugin;
    s.plugin = undefined;
    await s.client?.close();
    s.client = undefined;
    await stop(p);
  };
  if (fresh) return runFresh(sessions, w, sizes, rounds);
  try {
    for (const s of sessions) {
      await setUp(s, sizes);
      if (s.result.aborted) await retire(s);
    }
    for (let round = 0; round < rounds; round++) {
      for (const s of sessions) {
        if (!s.plugin) continue;
        await measurePass(s, w, sizes, round, rounds);
        if (s.result.aborted) await retire(s);
      }
    }
  } finally {
    for (const s of sessions) await retire(s);
  }
  return sessions.map((s) => s.result);
}

/**
 * --fresh: each pass in a plugin launched for it (GetPluginInfo and Configure,
 * no warm-up) and stopped after it, the plugins taking turns as in runLoad. A
 * command's plugin lives for that command: its first few hundred requests are
 * all it serves, before its JIT (ours, the ceiling) has warmed and while its
 * workers (ours in Python mode) are new. Peak RSS is the highest of the launches.
 */
async function runFresh(sessions: Session[], w: LoadWorkload, sizes: Sizes, rounds: number): Promise<Result[]> {
  const release = async (s: Session) => {
    const p = s.plugin;
    if (!p) return;
    s.result.peakRssMiB = Math.max(s.result.peakRssMiB ?? 0, s.sampler?.stop() ?? 0);
    s.plugin = undefined;
    await s.client?.close();
    s.client = undefined;
    await stop(p);
  };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const s of sessions) {
        if (s.result.aborted) continue;
        await setUp(s, sizes, false);
        if (!s.result.aborted) await measurePass(s, w, sizes, round, rounds, true);
        await release(s);
      }
    }
  } finally {
    for (const s of sessions) await release(s);
  }
  for (const s of sessions) summarize(s, w, rounds);
  return sessions.map((s) => s.result);
}

function selectWorkloads(sizes: Sizes, only: string[] | undefined): { startup: boolean; first: boolean; load: LoadWorkload[] } {
  const { standard, optIn } = loadWorkloads(sizes);
  if (!only) return { startup: true, first: true, load: standard };
  const all = [...standard, ...optIn];
  const matches = (id: string, name: string) => id === name || id.startsWith(`${name}-`);
  for (const name of only) {
    if (name !== STARTUP.id && name !== FIRST.id && !all.some((w) => matches(w.id, name))) {
      throw new Error(`--only ${name}: no such workload; workloads: ${[STARTUP.id, FIRST.id, ...all.map((w) => w.id)].join(", ")}`);
    }
  }
  return { startup: only.includes(STARTUP.id), first: only.includes(FIRST.id), load: all.filter((w) => only.some((name) => matches(w.id, name))) };
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
    fresh: opts.fresh,
    argv: process.argv.slice(2),
    node: process.version,
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model,
    memoryMiB: Math.round(os.totalmem() / (1024 * 1024)),
    /** 1-, 5- and 15-minute load averages: other work on the machine shows here. */
    loadAverage: { atStart: loadAtStart, atEnd: os.loadavg() },
    venv: py,
    client: driver?.description,
    ...(boots ? { bootTimes: boots } : {}),
    pythonWorkers: process.env.PULUMI_DYNAMIC_HOST_PYTHON_WORKERS ?? "default (one per core, at most 8)",
    preloader: process.env.PULUMI_DYNAMIC_HOST_PRELOAD === "0" ? "off" : "on",
    sizes: { ...sizes, payloadReps: sizes.payloadBytes.map((b) => sizes.payloadReps(b)) },
  };
}

export async function main(argv: string[]): Promise<void> {
  // Our Python plugin as users run it: its preloader on unless the environment switches it off (docs/preloader.md).
  usersPreload();
  // The real engine's table (bench/engine-run.ts) is a run of its own.
  if (argv.includes("--engine")) return (await import("./engine-run.js")).runEngineBench(argv);
  const opts = parseArgs(argv);
  const loadAtStart = os.loadavg();
  const sizes: Sizes = {
    ...(opts.smoke ? SMOKE : FULL),
    ...(opts.warmup !== undefined ? { warmup: { fast: opts.warmup, slow: opts.warmup } } : {}),
    ...(opts.rounds !== undefined ? { rounds: { fast: opts.rounds, slow: opts.rounds } } : {}),
  };
  const specs = opts.plugins ? PLUGINS.filter((p) => opts.plugins!.includes(p.id)) : DEFAULT_PLUGINS;
  if (specs.length === 0) throw new Error(`--plugins: none of ${opts.plugins}; plugins: ${PLUGINS.map((p) => p.id).join(", ")}`);
  // Installed copies are made before anything is timed.
  for (const s of specs) if (s.installed) progress(`${s.id}: ${installedPlugin(s.installed, s.language)}`);
  const selected = selectWorkloads(sizes, opts.only);
  const workloads: WorkloadInfo[] = [
    ...(selected.startup ? [STARTUP] : []),
    ...(selected.first ? [FIRST] : []),
    ...selected.load.map((w) => ({ id: w.id, title: w.title })),
  ];

  progress(`making payloads with the SDK serializers (${sizes.distinct} distinct providers per language)`);
  const needDistinct = selected.load.some((w) => w.id === "distinct");
  const sets = await providerSets(needDistinct ? sizes.distinct : 0);

  if (selected.load.length > 0) driver = makeDriver(opts.client);
  const results: Result[] = [];
  if (selected.startup) results.push(...(await startup(specs, sizes, sets)));
  if (selected.first) results.push(...(await firstRequests(specs, sizes, sets)));
  for (const w of selected.load) {
    for (const r of await runLoad(specs, w, sizes, sets, opts.fresh)) {
      results.push(r);
      progress(
        `${w.id} ${r.plugin}: ${r.throughput?.toFixed(1) ?? "-"} req/s, p50 ${r.p50Ms?.toFixed(2) ?? "-"} ms, p99 ${r.p99Ms?.toFixed(2) ?? "-"} ms, ` +
          `RSS ${r.peakRssMiB?.toFixed(1) ?? "-"} MiB${r.failed ? `, ${r.failed} failed` : ""}${r.aborted ? `, ${r.aborted}` : ""}`,
      );
    }
  }
  await driver?.close();
  addRatios(results);
  const report: Report = { meta: meta(opts, sizes, loadAtStart), plugins: specs, workloads, results };
  writeJson(opts.out, report);
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");
  // The issue's targets this run can judge: the start-up workload's first Create (bench/targets.ts).
  const startupOf = (id: string) => results.find((r) => r.workload === STARTUP.id && r.plugin === id)?.firstCreateMs;
  const targets = formatTargets(judgeTargets(selected.startup ? { startup: { oursPython: startupOf("ours-python"), pythonReference: startupOf("python-ref") } } : {}));
  process.stdout.write(`${formatReport(report)}\n${targets}\n\nLoad average at start ${load(loadAtStart)}, at end ${load(os.loadavg())}.\nJSON: ${opts.out}\n`);
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
