// The targets judged from a results object (bench/targets.ts): a ratio
// above its bound is a miss, at or below it holds, and a measurement the run did
// not take is "not measured", never a pass. Pure: nothing is run or timed.
import { expect } from "chai";
import { BOUNDS, ENGINE_STEPS, judgeTargets, formatTargets, type TargetLifecycle } from "../../bench/targets.js";

type Seconds = TargetLifecycle["seconds"];
const every = (s: number): Seconds => Object.fromEntries(ENGINE_STEPS.map((st) => [st, s]));
const life = (language: "nodejs" | "python", kind: "ours" | "reference", seconds: Seconds, extra: Partial<TargetLifecycle> = {}): TargetLifecycle => ({
  language,
  kind,
  provider: "trivial",
  n: 1,
  seconds,
  ...extra,
});
const verdictOf = (results: ReturnType<typeof judgeTargets>, id: string) => results.find((r) => r.id === id)!;

describe("bench targets (judged from a run's own measurements)", function () {
  it("says \"not measured\" for every target when the run measured nothing", function () {
    const results = judgeTargets({});
    expect(results.map((r) => r.id)).to.deep.equal(["python-first-create", "python-commands", "node-commands", "scale-1000", "scale-10000"]);
    for (const r of results) expect(r.verdict, r.id).to.equal("not measured");
  });

  it("the first Create: 0.8× holds, above it misses", function () {
    expect(verdictOf(judgeTargets({ startup: { oursPython: 160, pythonReference: 200 } }), "python-first-create").verdict).to.equal("holds");
    const miss = verdictOf(judgeTargets({ startup: { oursPython: 190, pythonReference: 200 } }), "python-first-create");
    expect(miss.verdict).to.equal("misses");
    expect(miss.measured).to.contain("0.95");
    expect(verdictOf(judgeTargets({ startup: { oursPython: 190 } }), "python-first-create").verdict).to.equal("not measured");
  });

  it("Python commands: every step at or under 0.9× holds; one step above misses and is named with its ratio", function () {
    const ok = judgeTargets({ lifecycles: [life("python", "ours", every(0.9)), life("python", "reference", every(1.0))] });
    expect(verdictOf(ok, "python-commands").verdict).to.equal("holds");
    const seconds = every(0.8);
    seconds.refresh = 0.95;
    const bad = judgeTargets({ lifecycles: [life("python", "ours", seconds), life("python", "reference", every(1.0))] });
    const r = verdictOf(bad, "python-commands");
    expect(r.verdict).to.equal("misses");
    expect(r.measured).to.contain("refresh 0.95 ✗").and.contain("preview 0.80");
    // Ours without a reference to compare with is not a measurement.
    expect(verdictOf(judgeTargets({ lifecycles: [life("python", "ours", every(0.5))] }), "python-commands").verdict).to.equal("not measured");
  });

  it("ratios are of the medians over rounds, per environment", function () {
    const lifecycles = [
      life("python", "ours", every(1.0), { environment: "uv" }),
      life("python", "ours", every(0.5), { environment: "uv" }),
      life("python", "ours", every(0.6), { environment: "uv" }),
      life("python", "reference", every(1.0), { environment: "uv" }),
      life("python", "ours", every(0.95), { environment: "poetry" }),
      life("python", "reference", every(1.0), { environment: "poetry" }),
    ];
    const r = verdictOf(judgeTargets({ lifecycles }), "python-commands");
    expect(r.measured).to.contain("trivial, uv: preview 0.60").and.contain("trivial, poetry: preview 0.95 ✗");
    expect(r.verdict).to.equal("misses");
  });

  it("Node commands use the 0.8 bound and only N = 1", function () {
    const lifecycles = [life("nodejs", "ours", every(0.85)), life("nodejs", "reference", every(1.0)), life("nodejs", "ours", every(5), { n: 100 }), life("nodejs", "reference", every(1), { n: 100 })];
    const r = verdictOf(judgeTargets({ lifecycles }), "node-commands");
    expect(r.verdict).to.equal("misses");
    expect(r.measured).to.not.contain("5.00");
    expect(BOUNDS.nodeCommands).to.equal(0.8);
  });

  it("1,000 resources: judged only with checkpoints skipped; a reference that could not run is said, not judged", function () {
    const lifecycles = [life("nodejs", "ours", every(0.6), { n: 1000 }), life("nodejs", "reference", every(1.0), { n: 1000 }), life("python", "ours", every(9), { n: 1000, provider: "declared" })];
    const failures = [{ language: "python" as const, kind: "reference" as const, provider: "trivial", n: 1000, why: "RecursionError: maximum recursion depth exceeded" }];
    expect(verdictOf(judgeTargets({ lifecycles, failures }), "scale-1000").verdict).to.equal("not measured");
    const r = verdictOf(judgeTargets({ lifecycles, failures, skipCheckpoints: true }), "scale-1000");
    expect(r.verdict).to.equal("holds");
    expect(r.measured).to.contain("nodejs trivial: preview 0.60").and.contain("python declared: the reference could not run (RecursionError");
    lifecycles[0].seconds["up-update"] = 0.75;
    expect(verdictOf(judgeTargets({ lifecycles, failures, skipCheckpoints: true }), "scale-1000").verdict).to.equal("misses");
  });

  it("10,000 resources: completed under 300 MiB of host RSS holds; above, or not completed, misses", function () {
    const usage = (mib: number) => Object.fromEntries(ENGINE_STEPS.map((s) => [s, { peakHostRssMiB: mib, peakRssMiB: mib + 50 }]));
    const ok = life("nodejs", "ours", every(60), { n: 10000, usage: usage(250) });
    expect(verdictOf(judgeTargets({ lifecycles: [ok] }), "scale-10000").verdict).to.equal("holds");
    const big = life("nodejs", "ours", every(60), { n: 10000, usage: { ...usage(250), refresh: { peakHostRssMiB: 301, peakRssMiB: 400 } } });
    const r = verdictOf(judgeTargets({ lifecycles: [big] }), "scale-10000");
    expect(r.verdict).to.equal("misses");
    expect(r.measured).to.contain("301 MiB");
    const failed = judgeTargets({ failures: [{ language: "python", kind: "ours", provider: "declared", n: 10000, why: "timed out" }] });
    expect(verdictOf(failed, "scale-10000").verdict).to.equal("misses");
  });

  it("prints a Targets table with one row per target and its verdict", function () {
    const text = formatTargets(judgeTargets({ startup: { oursPython: 190, pythonReference: 200 } }));
    expect(text).to.contain("## Targets");
    const rows = text.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| target"));
    expect(rows).to.have.length(5);
    expect(rows[0]).to.match(/\| misses \|$/);
    expect(rows[1]).to.match(/\| not measured \|$/);
  });
});
