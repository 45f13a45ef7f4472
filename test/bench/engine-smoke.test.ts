// The real-engine benchmark keeps working: `node dist/bench/run.js --engine`
// with one trivial resource (serialized, serialized distinct per resource, and
// declared in Pulumi.yaml) and one round drives the real engine through every
// step for both languages, with our plugins, the reference plugins and the
// floor program, and writes a lifecycle for each. The benchmark itself refuses
// to give a number for a lifecycle served by the wrong plugin or whose steps
// changed other than what they should (bench/engine-run.ts). Every step's plugin
// processes are sampled (bench/plugin-processes.ts): the CPU and peak RSS fields
// must be there and say that a plugin ran (ours in Python mode: the host and a
// worker), and be empty for the floor, which starts no plugin. Nothing here looks
// at how fast anything was: this is a shared 2-core machine; the numbers are
// read by people in docs/performance.md.
import { expect } from "chai";
import { STEPS } from "../../bench/engine-run.js";
import { runBenchJson } from "../helpers/run-bench.js";

describe("bench --engine (smoke: N = 1, one round)", function () {
  this.timeout(600_000);
  let doc: any;
  let stdout = "";

  before(async function () {
    ({ stdout, doc } = await runBenchJson(["--engine", "--n", "1", "--providers", "trivial,distinct,declared", "--rounds", "1"]));
  });

  it("runs the floor, ours and the reference for both languages, and ours alone for the declared type, every step timed", function () {
    const seen = doc.lifecycles.map((l: any) => `${l.language}/${l.kind}/${l.provider}/${l.n}`).sort();
    expect(seen).to.deep.equal(
      [
        "nodejs/floor/none/0",
        "nodejs/ours/trivial/1",
        "nodejs/reference/trivial/1",
        "nodejs/ours/distinct/1",
        "nodejs/reference/distinct/1",
        "nodejs/ours/declared/1",
        "python/floor/none/0",
        "python/ours/trivial/1",
        "python/reference/trivial/1",
        "python/ours/distinct/1",
        "python/reference/distinct/1",
        "python/ours/declared/1",
      ].sort(),
    );
    expect(doc.failures).to.deep.equal([]);
    for (const l of doc.lifecycles) {
      expect(Object.keys(l.seconds)).to.deep.equal([...STEPS]);
      for (const s of STEPS) expect(l.seconds[s], `${l.language} ${l.kind} ${s}`).to.be.a("number").and.above(0);
    }
  });

  it("samples the plugin processes of every step: CPU and peak RSS of the host and of all its processes, the host's wait for a CPU, the engine's CPU", function () {
    for (const l of doc.lifecycles) {
      expect(Object.keys(l.usage)).to.deep.equal([...STEPS]);
      for (const s of STEPS) {
        const u = l.usage[s];
        const what = `${l.language} ${l.kind} ${l.provider} ${s}`;
        expect(u.samples, what).to.be.above(0);
        // The engine's own processes ran in every step; a floor has no host to wait for a CPU.
        expect(u.engineCpuSeconds, what).to.be.above(0);
        expect(u.hostRunQueueSeconds, what).to.be.a("number").and.at.least(0);
        if (l.kind === "floor") {
          expect(u.hostRunQueueSeconds, what).to.equal(0);
          // No dynamic resource: the engine starts no plugin.
          expect(u.processes, what).to.equal(0);
          expect(u.peakRssMiB, what).to.equal(0);
          continue;
        }
        expect(u.processes, what).to.be.at.least(1);
        expect(u.cpuSeconds, what).to.be.above(0);
        expect(u.hostCpuSeconds, what).to.be.above(0).and.at.most(u.cpuSeconds);
        expect(u.peakHostRssMiB, what).to.be.above(0).and.at.most(u.peakRssMiB);
        // Ours in Python mode: the host (node) and its worker (python), told apart.
        if (l.language === "python" && l.kind === "ours" && s === "up-create") {
          expect(u.processes, what).to.be.at.least(2);
          expect(u.peakRssMiB, what).to.be.above(u.peakHostRssMiB);
        }
      }
    }
  });

  it("prints a table per language with the ratio column", function () {
    expect(stdout).to.include("### nodejs, trivial provider, N = 1");
    expect(stdout).to.include("### python, trivial provider, N = 1");
    expect(stdout).to.include("### python, declared provider (reference: the trivial provider serialized), N = 1");
    expect(stdout).to.include("### nodejs, distinct provider, N = 1");
    expect(stdout).to.include("| plugin CPU ms/resource: ours | reference | host CPU ms/resource: ours | reference | peak RSS MiB, host: ours |");
    expect(stdout).to.include("| host waiting for a CPU s: ours | reference | engine CPU s: ours | reference |");
    expect(stdout).to.match(/\| up-create \| [\d.]+ s ±\d+% \| [\d.]+ s ±\d+% \| [\d.]+ s ±\d+% \| [\d.]+ \|/);
  });

  it("ends with the Targets table, the N = 1 commands judged from this run and the sizes it did not run said so", function () {
    const targets = stdout.slice(stdout.indexOf("## Targets"));
    expect(stdout.indexOf("## Targets"), stdout).to.be.above(-1);
    const row = (what: string) => targets.split("\n").find((l) => l.includes(what)) ?? "";
    expect(row("one-resource Python program")).to.match(/trivial: preview \d+\.\d\d.*up-create \d+\.\d\d.*destroy \d+\.\d\d/).and.match(/\| (holds|misses) \|$/);
    expect(row("Node mode")).to.match(/trivial: preview \d+\.\d\d/).and.match(/\| (holds|misses) \|$/);
    expect(row("first Create after spawn")).to.match(/\| not measured \|$/);
    expect(row("1,000 resources")).to.match(/\| not measured \|$/);
    expect(row("10,000 resources")).to.match(/\| not measured \|$/);
  });
});
