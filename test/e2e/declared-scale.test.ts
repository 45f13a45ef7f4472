// Many declared resources in one Python program, under the real engine (one
// provider, every language). A Python program whose provider class lives in
// the program cannot pass a few hundred dynamic resources: the SDK's
// serialize_provider nests one wrapper per call until a RecursionError, under
// either plugin. A declared type registered with the host's DeclaredResource
// helper serializes nothing, so 1,000 counters go through up, an unchanged up
// and destroy, their state holding no __provider. The times of each step at
// N = 100 and 1,000 are printed for the record (docs/every-language.md), never
// asserted: this machine is shared and noisy.
//
// The engine's checkpoints are skipped (PULUMI_SKIP_CHECKPOINTS): with the
// file backend they rewrite the whole state after every step, which at 1,000
// resources is most of the time and none of the plugin's.
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import { REPO } from "../helpers/paths.js";
import { E2E_ROOT, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { drive, type Step } from "./python-driver.js";

interface ScaleStep extends Step {
  seconds: number;
  state: { count: number; with_provider: number; sample: { inputs: Record<string, unknown>; outputs: Record<string, any> } | null };
}

function project(): string {
  const base = `${E2E_ROOT}/projects`;
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, "scale-"));
  fs.copyFileSync(`${REPO}test/e2e/declared-project/counters.py`, path.join(dir, "counters.py"));
  return dir;
}

async function scale(sb: Sandbox, n: number, mode: "declared" | "pickled"): Promise<Record<string, ScaleStep>> {
  const dir = project();
  try {
    const steps = await drive(sb, "scale", "runtime-options", { driver: "declared_scale.py", extra: { project_dir: dir, n, mode } });
    return steps as Record<string, ScaleStep>;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function expectServed(steps: Record<string, ScaleStep>, n: number): void {
  const { up, destroy } = steps;
  const again = steps["up-again"];
  expect(up.error, up.error?.message).to.equal(undefined);
  expect(up.state.count).to.equal(n);
  expect(up.state.with_provider, "resources whose state holds a __provider").to.equal(0);
  expect(up.state.sample?.inputs).to.deep.equal({ start: 1 });
  expect(up.state.sample?.outputs).to.include({ start: 1, value: 1 });
  expect(up.state.sample?.outputs.ranBy.launchedAs).to.match(/pulumi-resource-pulumi-python$/);
  expect(again.error, again.error?.message).to.equal(undefined);
  expect(again.summary?.resource_changes).to.deep.equal({ same: n + 1 });
  expect(destroy.error, destroy.error?.message).to.equal(undefined);
  expect(destroy.state.count).to.equal(0);
}

describe("end to end (Python): 1,000 declared resources in one program, past the SDK's serializer", function () {
  this.timeout(1_200_000);
  let sb: Sandbox;
  const times: string[] = [];

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-scale");
    sb.env.PULUMI_SKIP_CHECKPOINTS = "true";
  });
  after(function () {
    sb?.cleanup();
    if (times.length) console.log(`      times (s): ${times.join("; ")}`);
  });

  for (const n of [100, 1000]) {
    it(`${n} counters registered with DeclaredResource: up, an unchanged up and destroy, no __provider in the state`, async function () {
      const steps = await scale(sb, n, "declared");
      expectServed(steps, n);
      times.push(`declared N=${n}: up ${steps.up.seconds}, unchanged up ${steps["up-again"].seconds}, destroy ${steps.destroy.seconds}`);
    });
  }

  it("the same 1,000 counters pickled from the program's own class stop at the SDK's serializer, before any plugin is asked (recorded)", async function () {
    const steps = await scale(sb, 1000, "pickled");
    expect(steps.up.error?.message).to.match(/RecursionError|maximum recursion depth/);
    times.push(`pickled N=1000: up failed after ${steps.up.seconds}`);
  });
});
