// The benchmark keeps working: `node dist/bench/run.js --smoke` with every
// workload (the opt-in payload ones too) runs against all five plugins, driven
// by the Go load driver it builds (bench/loadgen), and
// writes JSON with a result for each plugin × workload in which every request
// was answered OK. Nothing here looks at how fast anything was: this is a
// shared 2-core machine, and the full bench (`npm run bench`) is a separate
// command whose numbers are read by people (docs/performance.md).
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { bootNote, DEFAULT_PLUGINS, type BootTimes, type Report } from "../../bench/report.js";
import { FIRST, loadWorkloads, SMOKE, STARTUP } from "../../bench/workloads.js";
import { REPO, VENV_PYTHON } from "../helpers/paths.js";
import { runBenchJson } from "../helpers/run-bench.js";

describe("bench --smoke", function () {
  this.timeout(300_000);
  let report: Report;
  let stdout = "";
  const { standard, optIn } = loadWorkloads(SMOKE);
  const workloadIds = [STARTUP.id, FIRST.id, ...standard.map((w) => w.id), ...optIn.map((w) => w.id)];

  before(async function () {
    ({ stdout, doc: report } = await runBenchJson<Report>(["--smoke", "--only", "startup,first,trivial,io,cpu,cycle,distinct,payload"]));
  });

  it("lists every plugin and every workload", function () {
    expect(report.plugins.map((p) => p.id)).to.deep.equal(DEFAULT_PLUGINS.map((p) => p.id));
    expect(report.workloads.map((w) => w.id)).to.deep.equal(workloadIds);
    expect(report.meta.smoke).to.equal(true);
    // The default client: the Go load driver, built by the bench itself.
    expect(report.meta.client).to.match(/^bench\/loadgen, grpc-go/);
  });

  it("has a result for each plugin × workload in which every request was answered OK", function () {
    for (const plugin of DEFAULT_PLUGINS) {
      for (const workload of workloadIds) {
        const where = `${plugin.id} × ${workload}`;
        const r = report.results.filter((x) => x.plugin === plugin.id && x.workload === workload);
        expect(r, where).to.have.length(1);
        const [result] = r;
        expect(result.aborted, `${where}: ${result.aborted}`).to.equal(undefined);
        expect(result.failed, `${where}: ${result.firstError}`).to.equal(0);
        expect(result.requests, where).to.be.greaterThan(0);
        expect(result.ok, where).to.equal(result.requests);
        expect(result.peakRssMiB, where).to.be.greaterThan(0);
        if (workload === STARTUP.id) {
          expect(result.portMs, where).to.be.greaterThan(0);
          expect(result.firstCreateMs, where).to.be.greaterThan(result.portMs!);
        } else if (workload === FIRST.id) {
          expect(result.requests, where).to.equal(SMOKE.firstMarks.at(-1)! * SMOKE.launches);
          expect(result.pluginCpuMsPerRequest, where).to.be.greaterThan(0);
        } else {
          expect(result.throughput, where).to.be.greaterThan(0);
          expect(result.p50Ms, where).to.be.greaterThan(0);
          expect(result.p99Ms, where).to.be.at.least(result.p50Ms!);
        }
      }
    }
  });

  it("gives ratios to both references and to the ceiling", function () {
    for (const result of report.results) {
      expect(Object.keys(result.ratios ?? {}).sort(), `${result.plugin} × ${result.workload}`).to.deep.equal(["ceiling", "node-ref", "python-ref"]);
      for (const v of Object.values(result.ratios!)) expect(v).to.be.greaterThan(0);
    }
    const self = report.results.find((r) => r.plugin === "ceiling" && r.workload === "trivial-c8");
    expect(self?.ratios?.ceiling).to.equal(1);
  });

  it("splits a fresh plugin's first Checks into ranges by request number, each with its CPU and latency", function () {
    for (const r of report.results.filter((x) => x.workload === FIRST.id)) {
      const ranges = r.firstRanges ?? [];
      expect(ranges.map((x) => [x.from, x.to]), r.plugin).to.deep.equal(SMOKE.firstMarks.map((to, i) => [i === 0 ? 1 : SMOKE.firstMarks[i - 1] + 1, to]));
      for (const x of ranges) {
        expect(x.cpuMsPerRequest, `${r.plugin} ${x.from}–${x.to}`).to.be.at.least(0);
        expect(x.p50Ms, `${r.plugin} ${x.from}–${x.to}`).to.be.greaterThan(0);
      }
      // All requests' CPU is the ranges' together, weighed by their lengths.
      const weighed = ranges.reduce((a, x) => a + x.cpuMsPerRequest * (x.to - x.from + 1), 0) / SMOKE.firstMarks.at(-1)!;
      expect(r.pluginCpuMsPerRequest, r.plugin).to.be.closeTo(weighed, 1e-9);
      // Our Python mode is the one plugin here with workers: its host's share is split out.
      expect(ranges.every((x) => x.hostCpuMsPerRequest !== undefined), r.plugin).to.equal(r.plugin === "ours-python");
      expect(r.cpuClock, r.plugin).to.be.oneOf(["thread run time", "clock ticks"]);
    }
    expect(stdout).to.match(/first: CPU of the plugin's process group/);
  });

  it("times the runtimes' own start beside the start-up table, with and without NODE_EXTRA_CA_CERTS where it is set", function () {
    const boots = report.meta.bootTimes as BootTimes;
    expect(boots.nodeMs).to.be.greaterThan(0);
    expect(boots.pythonImportMs).to.be.greaterThan(0);
    expect(boots.nodeExtraCaCerts).to.equal(process.env.NODE_EXTRA_CA_CERTS);
    if (process.env.NODE_EXTRA_CA_CERTS !== undefined) expect(boots.nodeWithoutExtraCaMs).to.be.greaterThan(0);
    else expect(boots).not.to.have.property("nodeWithoutExtraCaMs");
    expect(stdout).to.include(bootNote(boots));
  });

  it("ends with the Targets table: the first Create judged from the start-up workload, the engine's targets not measured", function () {
    const targets = stdout.slice(stdout.indexOf("## Targets"));
    expect(stdout.indexOf("## Targets"), stdout).to.be.above(-1);
    const rows = targets.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| target"));
    expect(rows).to.have.length(5);
    expect(rows[0]).to.match(/\d+\.\d \/ \d+\.\d ms = \d+\.\d\d×/).and.match(/\| (holds|misses) \|$/);
    for (const r of rows.slice(1)) expect(r).to.match(/\| not measured \|$/);
  });

  it("prints one table per workload", function () {
    for (const id of workloadIds) expect(stdout).to.include(`${id} — `);
    expect(stdout).to.include("×Node ref");
  });

  it("measures each repeatable workload in several passes, shows the median one's throughput and every request's latency", function () {
    const all = [...standard, ...optIn];
    const repeatable = all.filter((w) => w.repeatable).map((w) => w.id);
    expect(repeatable).to.include("trivial-c32").and.not.include("distinct");
    for (const r of report.results.filter((x) => x.workload !== STARTUP.id)) {
      const where = `${r.plugin} × ${r.workload}`;
      if (!repeatable.includes(r.workload)) {
        expect(r.rounds, where).to.equal(undefined);
        continue;
      }
      // Cheap requests get more passes than slow ones.
      const pace = all.find((w) => w.id === r.workload)!.pace;
      expect(pace, where).to.equal(/^(io|cpu|payload)-/.test(r.workload) ? "slow" : "fast");
      expect(r.rounds, where).to.have.length(SMOKE.rounds[pace]);
      const sorted = r.rounds!.map((p) => p.throughput).sort((a, b) => a - b);
      expect(r.throughput, where).to.equal(sorted[Math.floor((sorted.length - 1) / 2)]);
      // Latency over every request of every pass: the pooled percentile lies within the passes' own.
      for (const key of ["p50Ms", "p99Ms"] as const) {
        const each = r.rounds!.map((p) => p[key]);
        expect(r[key], `${where} ${key}`).to.be.within(Math.min(...each), Math.max(...each));
      }
    }
    expect(stdout).to.include(`of ${SMOKE.rounds.fast} passes (IO-bound, CPU-bound, payloads: ${SMOKE.rounds.slow}) after the warm-up`);
  });

  it("splits the host's CPU from its workers' only where there are workers", function () {
    for (const r of report.results.filter((x) => x.workload !== STARTUP.id)) {
      const where = `${r.plugin} × ${r.workload}`;
      // CPU is read in 10 ms ticks: a smoke workload may use less than one.
      expect(r.pluginCpuMsPerRequest, where).to.be.at.least(0);
      if (r.plugin === "ours-python") {
        expect(r.hostCpuMsPerRequest, where).to.be.at.least(0).and.at.most(r.pluginCpuMsPerRequest!);
      } else {
        expect(r.hostCpuMsPerRequest, where).to.equal(undefined);
      }
    }
    expect(stdout).to.include("host ms/req");
    expect(stdout).to.include("take turns: pass 1 of each");
  });

  it("records the distinct providers' memory as they load", function () {
    const r = report.results.find((x) => x.plugin === "ours-python" && x.workload === "distinct");
    const quarter = Math.floor(SMOKE.distinct / 4);
    expect(r?.rssByProviders?.map((s) => s.providers)).to.deep.equal([1, 2, 3, 4].map((k) => k * quarter));
  });
});

// --fresh: what a command's plugin meets, each pass in a plugin launched for it and not warmed.
describe("bench --smoke --fresh", function () {
  this.timeout(300_000);
  let report: Report;
  let stdout = "";

  before(async function () {
    ({ stdout, doc: report } = await runBenchJson<Report>(["--smoke", "--fresh", "--only", "trivial-c8,io", "--plugins", "ours-python,python-ref,ceiling"]));
  });

  it("runs every pass in a plugin of its own, every request answered OK", function () {
    expect(report.meta.fresh).to.equal(true);
    expect(report.results.map((r) => `${r.plugin} × ${r.workload}`).sort()).to.deep.equal(
      ["ours-python", "python-ref", "ceiling"].flatMap((p) => ["trivial-c8", "io-c32"].map((w) => `${p} × ${w}`)).sort(),
    );
    for (const r of report.results) {
      const where = `${r.plugin} × ${r.workload}`;
      const pace = r.workload === "trivial-c8" ? "fast" : "slow";
      expect(r.failed, `${where}: ${r.firstError}`).to.equal(0);
      expect(r.aborted, where).to.equal(undefined);
      expect(r.rounds, where).to.have.length(SMOKE.rounds[pace]);
      const pids = r.rounds!.map((p) => p.pid);
      for (const pid of pids) expect(pid, where).to.be.a("number");
      expect(new Set(pids).size, `${where}: one plugin per pass`).to.equal(pids.length);
    }
    expect(stdout).to.include("each in a plugin launched for it, with no warm-up (--fresh)");
  });
});

// bench/worker_alone.py: the worker without the host, whose numbers docs/performance.md quotes.
describe("bench/worker_alone.py", function () {
  this.timeout(120_000);
  for (const args of [[], ["--cycle"]]) {
    it(`measures the worker alone${args.length ? " on the cycle" : ""}, every answer a result`, function () {
      const out = execFileSync(VENV_PYTHON, [`${REPO}bench/worker_alone.py`, "--requests", "40", "--concurrency", "4", ...args], { cwd: REPO, encoding: "utf8" });
      const result = JSON.parse(out) as Record<string, unknown>;
      expect(result).to.include({ requests: 20, concurrency: 4, workload: args.length ? "cycle" : "create" });
      expect(result.workerCpuMsPerRequest).to.be.a("number").and.at.least(0);
      expect(result.requestsPerSecond).to.be.a("number").and.greaterThan(0);
    });
  }
});
