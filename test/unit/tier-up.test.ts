import { expect } from "chai";
import { itAppliesAsTabled } from "../helpers/v8-settings.js";
import { execFileSync } from "node:child_process";
import { SUSTAINED_LOAD, tierUpSoonerApplies } from "../../src/host/tuning/tier-up.js";

describe("tier-up: the host's lower V8 interrupt budget, once under sustained load", function () {
  itAppliesAsTabled(tierUpSoonerApplies, [
    ["node's own flag", {}, ["--interrupt-budget=100000"], "11.3.244.8", false],
    ["node's own flag, underscore spelling", {}, ["--interrupt_budget=100000"], "11.3.244.8", false],
    ["NODE_OPTIONS naming it", { NODE_OPTIONS: "--interrupt-budget=1" }, [], "11.3.244.8", false],
  ]);

  // In a fresh process, a small function is called until V8 has optimized it.
  // Optimizing on the main thread (--no-concurrent-recompilation) makes the
  // count exact: how many calls it took is the budget's doing alone.
  const moduleUrl = new URL("../../src/host/tuning/tier-up.js", import.meta.url).href;
  const servedUrl = new URL("../../src/host/tuning/served-requests.js", import.meta.url).href;
  const run = (body: string) => {
    const script = `
      import { tierUpSooner, tierUpUnderLoad } from ${JSON.stringify(moduleUrl)};
      import { requestServed } from ${JSON.stringify(servedUrl)};
      const callsToOptimize = (work) => {
        let calls = 0;
        for (; calls < 100000; calls++) { work(calls); if (%GetOptimizationStatus(work) & 16) break; }
        return calls;
      };
      ${body}`;
    const env = { ...process.env, NODE_OPTIONS: "" };
    const out = execFileSync(process.execPath, ["--allow-natives-syntax", "--no-concurrent-recompilation", "--input-type=module", "-e", script], { env, encoding: "utf8" });
    return JSON.parse(out);
  };
  // Each measurement gets a function of its own, fresh to V8.
  const work = (name: string) => `function ${name}(a) { let s = 0; for (let i = 0; i < 20; i++) s += (a * i) % 7; return s; }`;

  it("a function is optimized after a fraction of the calls it takes with V8's default", function () {
    this.timeout(20_000);
    const r = run(`${work("before")} ${work("after")}
      const calls = callsToOptimize(before);
      const lowered = tierUpSooner();
      console.log(JSON.stringify({ before: calls, lowered, after: callsToOptimize(after) }));`);
    expect(r.lowered).to.equal(true);
    expect(r.before, "V8's default optimizes it at all within the loop").to.be.lessThan(100000);
    expect(r.after).to.be.lessThan(r.before / 4);
  });

  it("armed, the budget stays V8's until the host has served SUSTAINED_LOAD requests, then it is lowered", function () {
    this.timeout(20_000);
    const r = run(`${work("atStart")} ${work("justBefore")} ${work("after")}
      const armed = tierUpUnderLoad();
      const first = callsToOptimize(atStart);
      for (let i = 0; i < ${SUSTAINED_LOAD} - 1; i++) requestServed();
      const short = callsToOptimize(justBefore);
      requestServed();
      console.log(JSON.stringify({ armed, atStart: first, justBefore: short, after: callsToOptimize(after) }));`);
    expect(r.armed).to.equal(true);
    expect(r.justBefore, "one request short of the count").to.be.greaterThan(r.atStart / 2);
    expect(r.after).to.be.lessThan(r.justBefore / 4);
  });
});
