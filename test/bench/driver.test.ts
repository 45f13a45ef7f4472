// The bench's two clients (bench/drivers.ts) count, stop and report alike: the
// Go load driver (bench/loadgen) and the stubs' grpc-js client send the same
// units to our host in Node mode, and each must stop a unit at its first failed
// call, name that call's method and code, and call back at each mark.
import { expect } from "chai";
import { performance } from "node:perf_hooks";
import { makeDriver, type ClientKind, type Driver, type RunStats } from "../../bench/drivers.js";
import { percentile } from "../../bench/measure.js";
import { createRequest, type Prepared, type Target } from "../../bench/workloads.js";
import { pb } from "../helpers/client.js";
import { Plugin } from "../helpers/plugin.js";

describe("bench clients", function () {
  this.timeout(120_000);
  let plugin: Plugin;
  const drivers: Driver[] = [];

  before(async function () {
    plugin = await Plugin.launch("ours", { language: "nodejs" });
  });

  after(async function () {
    for (const d of drivers) await d.close();
    await plugin?.stop();
  });

  const target: Target = { language: "nodejs", providers: { trivial: "", io: "", cpu: "", crud: "", echo: "", distinct: [] } };
  const info = () => ["getPluginInfo", new pb.emptyPb.Empty()] as const;
  // Not a provider: the host answers the Create with an error.
  const bad = () => ["create", createRequest(target, "bad", { __provider: "this is not a serialized provider" })] as const;

  async function runWith(kind: ClientKind): Promise<{ warm: RunStats; stats: RunStats; marks: number[] }> {
    const driver = makeDriver(kind);
    drivers.push(driver);
    const prepared: Prepared = {
      warmup: { units: [[info()]], concurrency: 1 },
      measure: { units: [[info(), bad(), info()], [info()], [info()], [info(), info()]], concurrency: 2 },
    };
    const session = await driver.open(plugin, prepared);
    const deadline = performance.now() + 60_000;
    const warm = await session.run("warmup", { deadline });
    const marks: number[] = [];
    const stats = await session.run("measure", { deadline, marks: [2, 4], onMark: (done) => marks.push(done) });
    await session.close();
    return { warm, stats, marks };
  }

  for (const kind of ["go", "node"] as const) {
    it(`${kind}: stops a unit at its first failure and reports the call`, async function () {
      const { warm, stats, marks } = await runWith(kind);
      expect(warm).to.include({ done: 1, ok: 1, failed: 0 });
      // Unit 0: info OK, create fails, the last info is never sent. Units 1–3: four more OK calls.
      expect(stats).to.include({ done: 4, ok: 5, failed: 1 });
      expect(stats.aborted).to.equal(undefined);
      expect(stats.firstError).to.match(/^create: code \d+: \S/);
      expect(percentile(stats.latencies, 99)).to.be.at.least(percentile(stats.latencies, 50)).and.greaterThan(0);
      expect(stats.wallMs).to.be.greaterThan(0);
      expect(stats.clientCpuMs).to.be.at.least(0);
      expect(marks).to.deep.equal([2, 4]);
    });
  }

  it("both clients name the same failure", async function () {
    const [go, node] = [await runWith("go"), await runWith("node")];
    expect(go.stats.firstError).to.equal(node.stats.firstError);
  });
});
