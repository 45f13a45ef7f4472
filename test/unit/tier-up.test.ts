import { expect } from "chai";
import { itAppliesAsTabled } from "../helpers/v8-settings.js";
import { execFileSync } from "node:child_process";
import { tierUpSoonerApplies } from "../../src/host/tier-up.js";

describe("tier-up: the host's lower V8 interrupt budget", function () {
  itAppliesAsTabled(tierUpSoonerApplies, [
    ["node's own flag", {}, ["--interrupt-budget=100000"], "11.3.244.8", false],
    ["node's own flag, underscore spelling", {}, ["--interrupt_budget=100000"], "11.3.244.8", false],
    ["NODE_OPTIONS naming it", { NODE_OPTIONS: "--interrupt-budget=1" }, [], "11.3.244.8", false],
  ]);

  // In a fresh process, a small function is called until V8 has optimized it.
  // Optimizing on the main thread (--no-concurrent-recompilation) makes the
  // count exact: how many calls it took is the budget's doing alone.
  const moduleUrl = new URL("../../src/host/tier-up.js", import.meta.url).href;
  const callsToOptimize = (lower: boolean) => {
    const script = `
      import { tierUpSooner } from ${JSON.stringify(moduleUrl)};
      const lowered = ${lower ? "tierUpSooner()" : "false"};
      function work(a) { let s = 0; for (let i = 0; i < 20; i++) s += (a * i) % 7; return s; }
      let calls = 0;
      for (; calls < 100000; calls++) { work(calls); if (%GetOptimizationStatus(work) & 16) break; }
      console.log(JSON.stringify({ lowered, calls }));`;
    const env = { ...process.env, NODE_OPTIONS: "" };
    const out = execFileSync(process.execPath, ["--allow-natives-syntax", "--no-concurrent-recompilation", "--input-type=module", "-e", script], { env, encoding: "utf8" });
    return JSON.parse(out) as { lowered: boolean; calls: number };
  };

  it("a function is optimized after a fraction of the calls it takes with V8's default", function () {
    this.timeout(20_000);
    const before = callsToOptimize(false);
    const after = callsToOptimize(true);
    expect(after.lowered).to.equal(true);
    expect(before.calls, "V8's default optimizes it at all within the loop").to.be.lessThan(100000);
    expect(after.calls).to.be.lessThan(before.calls / 4);
  });
});
