// A Python program using a Python provider declared in Pulumi.yaml, under the
// real engine, with the host's DeclaredResource helper (the wheel's
// pulumi_dynamic_host.declared): nothing is pickled, so neither the SDK's
// serializer nor a Python minor is in the state. The driver's
// "counter-lifecycle" scenario (test/e2e/python-program/declared_node.py) runs
// up, an up with no change, refresh, an update, `pulumi import` of counter-7
// and destroy in a fresh Python project holding counters.py
// (test/e2e/declared-project). Every result says which process ran it.
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import { REPO } from "../helpers/paths.js";
import { E2E_BIN, languageStandIn, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { drive, type Step } from "./python-driver.js";

const TYPE = "pulumi-python:dynamic:Counter";
const OUR_PYTHON_PLUGIN = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const urn = (name: string) => `urn:pulumi:py::declared-node::${TYPE}::${name}`;

type Event = Record<string, any>;

interface DeclaredStep extends Step {
  outputs: Record<string, any>;
}

function succeeded(step: DeclaredStep): DeclaredStep {
  expect(step.error, `${step.name}: ${step.error?.message}`).to.equal(undefined);
  return step;
}

/** Diagnostics a user is shown as trouble: warnings and errors. */
function troubles(step: Step): Event[] {
  return step.events.filter((e) => e.diagnostic_event && !["debug", "info"].includes(e.diagnostic_event.severity)).map((e) => e.diagnostic_event);
}

/** The provider's report that our Python plugin's worker ran it, as the engine launched the plugin. */
function expectOurs(ranBy: any) {
  expect(ranBy.launchedAs, "the plugin the engine ran").to.equal(OUR_PYTHON_PLUGIN);
  expect(ranBy.script).to.match(/\/python-stub\/worker\.py$/);
}

describe("end to end: a Python program uses a Python provider declared in Pulumi.yaml, through DeclaredResource", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;
  let ops: Record<string, DeclaredStep>;

  before(async function () {
    prepareEngine();
    sb = sandbox("e2e-declared-python-program");
    // `pulumi import` asks the project's language host which plugins it needs: the harness's stand-in answers.
    sb.env.PATH = `${languageStandIn()}:${sb.env.PATH}`;
    const dir = fs.mkdtempSync(path.join(sb.dir, "project-"));
    fs.copyFileSync(`${REPO}test/e2e/declared-project/counters.py`, path.join(dir, "counters.py"));
    const extra = { work_dir: dir, file: path.join(dir, "unused.txt"), adopted: path.join(dir, "unused.txt") };
    ops = (await drive(sb, "counter-lifecycle", "runtime-options", { driver: "declared_node.py", extra })) as Record<string, DeclaredStep>;
    expect(Object.keys(ops)).to.deep.equal(["up", "up-again", "refresh", "up-change", "import", "destroy"]);
  });
  after(function () {
    sb?.cleanup();
  });

  it("up creates the counter with our plugin; the state holds its inputs and the provider's outputs, no __provider", function () {
    const up = succeeded(ops.up);
    expect(up.summary!.resource_changes).to.deep.equal({ create: 2 });
    expect(troubles(up)).to.deep.equal([]);
    const c = up.resources.c;
    expect(c.urn).to.equal(urn("c"));
    expect(c.id).to.equal("counter-1");
    expect(c.inputs).to.deep.equal({ start: 1 });
    expect(c.outputs).to.deep.include({ start: 1, step: 1, value: 1 });
    expect(c.outputs).to.not.have.property("__provider");
    expectOurs(c.outputs.ranBy);
    expect(up.outputs.value).to.equal(1);
  });

  it("a second up changes nothing, and refresh reads the same", function () {
    expect(succeeded(ops["up-again"]).summary!.resource_changes).to.deep.equal({ same: 2 });
    const refresh = succeeded(ops.refresh);
    expect(refresh.summary!.resource_changes).to.deep.equal({ same: 2 });
    expectOurs(refresh.resources.c.outputs.ranBy);
  });

  it("a changed start updates the counter in place", function () {
    const change = succeeded(ops["up-change"]);
    expect(change.summary!.resource_changes).to.deep.equal({ same: 1, update: 1 });
    expect(change.resources.c.inputs).to.deep.equal({ start: 2 });
    expect(change.resources.c.outputs).to.deep.include({ start: 2, value: 3 });
    expect(change.outputs.value).to.equal(3);
  });

  it("pulumi import of counter-7 reads it with the declared provider, the id alone", function () {
    const cli = ops.import.cli!;
    expect(cli.code, cli.stdout + cli.stderr).to.equal(0);
    const adopted = ops.import.resources.adopted;
    expect([adopted.urn, adopted.id]).to.deep.equal([urn("adopted"), "counter-7"]);
    expect(adopted.inputs).to.deep.equal({ start: 7, step: 1 });
    expect(adopted.outputs).to.not.have.property("__provider");
    expectOurs(adopted.outputs.ranBy);
  });

  it("no state after any step holds a __provider, and destroy deletes everything", function () {
    for (const step of Object.values(ops)) {
      for (const [name, r] of Object.entries(step.resources)) {
        expect(JSON.stringify(r), `${step.name}: ${name}`).to.not.contain("__provider");
      }
    }
    const destroy = succeeded(ops.destroy);
    expect(destroy.summary!.resource_changes).to.deep.equal({ delete: 3 });
    expect(destroy.resources).to.deep.equal({});
  });
});
