// Python providers by reference under the real engine (issue 18). The program
// (test/e2e/python-program/program.py, its reference scenarios) runs the
// project test/e2e/python-references, whose modules hold the providers its
// Pulumi.yaml declares (pulumi-dynamic-host.providers), and passes them with
// the host's helper, pulumi_dynamic_host.reference.provider_reference.
//
// Covered: the import resource option in an up, `pulumi import` of one
// resource and of a file of several, an import of a type declared nowhere,
// get (a read by id), destroy and refresh with latestCode after the state's
// code broke, the helper through a whole lifecycle, and the same helper
// program under Pulumi's own Python plugin. Every provider reports the
// process that ran it (counters.whoami).
//
// `pulumi import` is a CLI command, not an Automation API operation, and the
// engine loads the project's language plugin first; the Python one cannot be
// built here (scripts/engine.sh), so the harness's stand-in, which runs no
// program, answers for it. The import itself is the engine's and ours.
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { E2E_BIN, expectOurPythonHost, languageStandIn, prepareEngine, prepareReferenceEngine, sandbox, type Sandbox } from "./harness.js";
import { drive as driveProgram, type DriveOptions, type Step } from "./python-driver.js";

const REFERENCES_DIR = `${REPO}test/e2e/python-references`;
const WORKER = `${REPO}python-stub/worker.py`;
const HELPER_DIR = `${REPO}python-stub/helper`;
const OUR_PYTHON = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const counterUrn = (stack: string, name: string) => `urn:pulumi:${stack}::e2e-python::pulumi-python:dynamic:Counter::${name}`;

type Event = Record<string, any>;

function recorded(step: Step): Event[] {
  expect(step.error, `${step.name}: ${step.error?.message}`).to.equal(undefined);
  expect(step.events.length, `${step.name}: events`).to.be.greaterThan(0);
  return step.events;
}

/** Diagnostics above debug: what a user is shown. */
function notices(step: Step): Event[] {
  return step.events.filter((e) => e.diagnostic_event && e.diagnostic_event.severity !== "debug").map((e) => e.diagnostic_event);
}

/** [op, name] of each resource step the engine ran, in order. */
function ran(step: Step): [string, string][] {
  return recorded(step)
    .filter((e) => e.res_outputs_event)
    .map((e) => e.res_outputs_event.metadata)
    .filter((m) => m.type !== "pulumi:pulumi:Stack" && !m.type.startsWith("pulumi:providers:"))
    .map((m) => [m.op, m.urn.split("::").pop()]);
}

/** The provider's report of the process that ran it: our worker, under our plugin as the engine launched it, in the project. */
function expectOurs(ranBy: any) {
  expectOurPythonHost({ host_cmdline: ranBy.parent_cmdline, launched_as: ranBy.launched_as }, OUR_PYTHON);
  expect(ranBy.process).to.equal(WORKER);
  expect(ranBy.cwd).to.equal(REFERENCES_DIR);
  expect(ranBy.module_file).to.equal(`${REFERENCES_DIR}/counters.py`);
}

/** What a resource is, of its state: id, inputs and outputs (not the engine's bookkeeping, such as timestamps). */
function essence(resources: Record<string, any>): Record<string, any> {
  return Object.fromEntries(Object.entries(resources).map(([name, r]) => [name, { id: r.id, inputs: r.inputs, outputs: r.outputs }]));
}

/** A pickle of the helper's object naming `reference`: the class by reference and the string, nothing else. */
function expectHelperPickle(text: unknown, reference: string) {
  expect(text).to.be.a("string");
  const bytes = Buffer.from(text as string, "base64").toString("latin1");
  expect(bytes).to.contain("pulumi_dynamic_host.reference").and.contain("ProviderReference").and.contain(reference);
  expect(bytes).to.not.contain("_create_code").and.not.contain("/");
}

describe("end to end (Python): providers by reference under the real engine", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-python-references");
    sb.env.PATH = `${languageStandIn()}:${sb.env.PATH}`;
  });
  after(function () {
    sb?.cleanup();
  });

  const drive = (scenario: string, opts: DriveOptions = {}) => driveProgram(sb, scenario, "runtime-options", opts);

  describe("the import resource option in an up", function () {
    let ops: Record<string, Step>;
    before(async function () {
      ops = await drive("import-option");
      expect(Object.keys(ops)).to.deep.equal(["up", "up-again", "destroy"]);
    });

    it("imports: the declared provider's read runs with the id, and its outputs and inputs land in the state", function () {
      expect(ran(ops.up)).to.deep.include.members([
        ["import", "imported"],
        ["create", "created"],
      ]);
      expect(ops.up.summary!.resource_changes).to.deep.equal({ create: 2, import: 1 });
      expect(notices(ops.up)).to.deep.equal([]);
      const imported = ops.up.resources.imported;
      expect(imported.id).to.equal("counter-7");
      expect(imported.outputs.start).to.equal(7);
      expectOurs(imported.outputs.ran_by);
      // The host writes no __provider for a type served by its declaration: the state holds what read returned.
      expect(imported.inputs).to.deep.equal({ start: 7 });
      expect(imported.outputs).to.not.have.property("__provider");
    });

    it("the program passes the declared reference, so the next up changes nothing", function () {
      const { created } = ops.up.resources;
      // `created` was created from the program: its __provider is the SDK's pickle of provider_reference(...).
      expectHelperPickle(created.inputs.__provider, "counters:CounterProvider");
      // counters.CounterProvider has no diff: the host's default diff finds that the __provider the program
      // adds names the declared reference, and the rest of the inputs is equal.
      expect(ops["up-again"].summary!.resource_changes).to.deep.equal({ same: 3 });
      const before = essence(ops.up.resources).imported;
      const after = essence(ops["up-again"].resources).imported;
      expect(after.outputs).to.deep.equal(before.outputs);
      expect(after.inputs).to.deep.equal({ ...before.inputs, __provider: created.inputs.__provider });
    });

    it("destroy deletes the imported resource with the rest", function () {
      expect(ops.destroy.summary!.resource_changes).to.deep.equal({ delete: 3 });
      expect(ops.destroy.resources).to.deep.equal({});
    });
  });

  it("the import option with a program that passes its provider object itself: imported, then one update writes its __provider", async function () {
    const ops = await drive("import-by-value");
    expect(ran(ops.up).filter(([, name]) => name === "adopted")).to.deep.equal([
      ["import", "adopted"],
      ["update", "adopted"],
    ]);
    const adopted = ops.up.resources.adopted;
    expect(adopted.id).to.equal("counter-8");
    // The program's own provider, pickled by value, written by the update; it ran the update itself.
    const pickled = Buffer.from(adopted.inputs.__provider, "base64").toString("latin1");
    expect(pickled).to.contain("ByValueCounter").and.contain("__main__").and.contain("_create_code");
    expect(adopted.outputs.ran_by.worker).to.equal(WORKER);
    expect(ops["up-again"].summary!.resource_changes).to.deep.equal({ same: 2 });
    expect(ops.destroy.summary!.resource_changes).to.deep.equal({ delete: 2 });
  });

  describe("pulumi import, of one resource and of a file of several", function () {
    let ops: Record<string, Step>;
    before(async function () {
      ops = await drive("cli-import");
      expect(Object.keys(ops)).to.deep.equal(["import-one", "import-file", "up", "destroy"]);
    });

    it("one resource: `pulumi import <type> <name> <id>` reads it with the declared provider into the state", function () {
      const cli = ops["import-one"].cli!;
      expect(cli.code, cli.stdout + cli.stderr).to.equal(0);
      expect(cli.stdout).to.not.match(/error:/);
      const one = ops["import-one"].resources.one;
      expect(one.urn).to.equal(counterUrn("cli-import", "one"));
      expect(one.id).to.equal("counter-11");
      expect(one.inputs).to.deep.equal({ start: 11 });
      expectOurs(one.outputs.ran_by);
    });

    it("a file of several, of two declared types: `pulumi import --file`", function () {
      const cli = ops["import-file"].cli!;
      expect(cli.code, cli.stdout + cli.stderr).to.equal(0);
      const { two, three } = ops["import-file"].resources;
      expect([two.id, two.inputs.start]).to.deep.equal(["counter-12", 12]);
      expect([three.type, three.id, three.inputs.count]).to.deep.equal(["pulumi-python:dynamic:Tally", "tally-13", 13]);
      expect(three.inputs).to.deep.equal({ count: 13 });
      expectOurs(three.outputs.ran_by);
    });

    it("the program that declares them passing provider_reference(): its up changes nothing", function () {
      const up = ops.up;
      expect(up.summary!.resource_changes).to.deep.equal({ same: 4 });
      expect(notices(up)).to.deep.equal([]);
      // The unchanged up keeps the imported outputs; the state's inputs take the program's, its __provider included.
      const imported = essence(ops["import-file"].resources);
      for (const [name, r] of Object.entries(essence(up.resources))) {
        expect(r.outputs, name).to.deep.equal(imported[name].outputs);
        expect({ ...r.inputs, __provider: undefined }, name).to.deep.equal({ ...imported[name].inputs, __provider: undefined });
        expectHelperPickle(r.inputs.__provider, name === "three" ? "counters:TallyProvider" : "counters:CounterProvider");
      }
      expect(ops.destroy.summary!.resource_changes).to.deep.equal({ delete: 4 });
    });
  });

  it("an import of a type declared nowhere fails, naming the type token and what to add to which Pulumi.yaml", async function () {
    const { up } = await drive("import-undeclared");
    expect(up.error, "the up should fail").to.not.equal(undefined);
    const errors = notices(up).filter((d) => d.severity === "error" && d.urn);
    expect(errors).to.have.length(1);
    expect(errors[0].urn).to.equal("urn:pulumi:import-undeclared::e2e-python::pulumi-python:dynamic:Unlisted::stray");
    expect(errors[0].message).to.contain(
      "The resource is being imported: the engine sends only its id, no inputs and no state, so no serialized provider exists yet. " +
        `To import a pulumi-python:dynamic:Unlisted, declare where its provider lives in ${REFERENCES_DIR}/Pulumi.yaml:\n` +
        "  pulumi-dynamic-host:\n    providers:\n      pulumi-python:dynamic:Unlisted: providers.counter:CounterProvider\n",
    );
    expect(up.resources).to.deep.equal({});
  });

  it("get (a read by id) keeps working: with the helper's object, and with a provider pickled by value", async function () {
    const { up, destroy } = await drive("get");
    expect(ran(up)).to.deep.include.members([
      ["read", "got"],
      ["read", "got-by-value"],
    ]);
    const { got, "got-by-value": byValue } = up.resources;
    expect([got.id, got.outputs.start]).to.deep.equal(["counter-5", 5]);
    expectOurs(got.outputs.ran_by);
    expectHelperPickle(got.outputs.__provider, "counters:CounterProvider");
    expect([byValue.id, byValue.outputs.start, byValue.outputs.code]).to.deep.equal(["counter-6", 6, "by value"]);
    expect(byValue.outputs.ran_by.worker).to.equal(WORKER);
    expect(destroy.error).to.equal(undefined);
  });

  describe("latestCode: refresh and destroy run the project's fixed code, not the broken code in the state", function () {
    let ops: Record<string, Step>;
    let marker: string;
    before(async function () {
      marker = path.join(sb.dir, "repaired-deleted");
      ops = await drive("repair", { marker });
      expect(Object.keys(ops)).to.deep.equal(["up", "refresh", "destroy"]);
    });

    it("the up wrote the broken provider into the state, pickled by value", function () {
      const fragile = ops.up.resources.fragile;
      expect(fragile.outputs.code).to.equal("state");
      const pickled = Buffer.from(fragile.outputs.__provider, "base64").toString("latin1");
      expect(pickled).to.contain("BrokenProvider").and.contain("__main__").and.contain("_create_code");
    });

    it("refresh runs the project's read (the state's raises)", function () {
      const fragile = ops.refresh.resources.fragile;
      expect(fragile.outputs.code).to.equal("project");
      expectOurs(fragile.outputs.ran_by);
      expect(fragile.outputs.ran_by.module_file).to.equal(`${REFERENCES_DIR}/counters.py`);
      // The state keeps its own code: latestCode changes what runs, not what is stored.
      expect(fragile.outputs.__provider).to.equal(ops.up.resources.fragile.outputs.__provider);
    });

    it("destroy runs the project's delete (the state's raises), and the engine shows our warning under the resource", function () {
      expect(ops.destroy.summary!.resource_changes).to.deep.equal({ delete: 2 });
      expect(fs.readFileSync(marker, "utf8")).to.equal("deleted by the project's fixed code");
      const urn = "urn:pulumi:repair::e2e-python::pulumi-python:dynamic:Repaired::fragile";
      const warnings = notices(ops.destroy).filter((d) => d.severity === "warning");
      expect(warnings.map((d) => d.urn)).to.deep.equal([urn]);
      expect(warnings[0].message).to.equal(
        "deleting with the project's current code (repairs:FixedProvider) rather than the code serialized in the state at the " +
          `last update, which differs from it; latestCode is set in ${REFERENCES_DIR}/Pulumi.yaml\n`,
      );
    });
  });

  describe("the helper in a program through create, update, refresh and destroy", function () {
    let ops: Record<string, Step>;
    before(async function () {
      ops = await drive("helper-lifecycle");
      expect(Object.keys(ops)).to.deep.equal(["up", "up-change", "refresh", "destroy"]);
    });

    it("creates with the named provider; the state holds only the reference", function () {
      const counted = ops.up.resources.counted;
      expect([counted.id, counted.outputs.start]).to.deep.equal(["counter-1", 1]);
      expectOurs(counted.outputs.ran_by);
      expect(counted.outputs.ran_by.helper_file, "no wheel in the virtualenv: the worker's own copy").to.equal(`${HELPER_DIR}/pulumi_dynamic_host/reference.py`);
      expectHelperPickle(counted.inputs.__provider, "counters:CounterProvider");
      expect(counted.outputs.__provider).to.equal(counted.inputs.__provider);
      expect(notices(ops.up)).to.deep.equal([]);
    });

    it("updates in place, refreshes to the same, and destroys", function () {
      expect(ran(ops["up-change"])).to.deep.include(["update", "counted"]);
      const counted = ops["up-change"].resources.counted;
      expect([counted.id, counted.outputs.start]).to.deep.equal(["counter-1", 2]);
      expect(counted.inputs.__provider).to.equal(ops.up.resources.counted.inputs.__provider);
      expect(ops.refresh.summary!.resource_changes).to.deep.equal({ same: 2 });
      expect(ops.refresh.resources.counted.outputs.start).to.equal(2);
      expectOurs(ops.refresh.resources.counted.outputs.ran_by);
      expect(ops.destroy.summary!.resource_changes).to.deep.equal({ delete: 2 });
    });
  });

  describe("the same helper program under Pulumi's own Python plugin", function () {
    let ops: Record<string, Step>;

    before(async function () {
      const ref = sandbox("e2e-python-references-upstream");
      // The helper importable by Pulumi's plugin too, as the wheel installed in the program's environment makes it.
      ref.env.PYTHONPATH = HELPER_DIR;
      try {
        ops = await driveProgram(ref, "helper-lifecycle", "runtime-options", { root: prepareReferenceEngine() });
      } finally {
        ref.cleanup();
      }
      expect(Object.keys(ops)).to.deep.equal(["up", "up-change", "refresh", "destroy"]);
    });

    it("create, update, refresh and destroy succeed, each run by `python -m pulumi.dynamic` with the project's provider", function () {
      for (const step of Object.values(ops)) expect(step.error, step.name).to.equal(undefined);
      const [up, change, refresh] = [ops.up, ops["up-change"], ops.refresh].map((s) => s.resources.counted);
      for (const counted of [up, change, refresh]) {
        const ranBy = counted.outputs.ran_by;
        // Pulumi's launcher execs the interpreter: the engine started this process itself.
        expect(ranBy.parent_cmdline[0]).to.match(/\/pulumi$/);
        expect(ranBy.python).to.equal(VENV_PYTHON);
        expect(ranBy.process.startsWith(`${TEST_VENV}/lib/`) && ranBy.process.endsWith("/site-packages/pulumi/dynamic/__main__.py"), ranBy.process).to.equal(true);
        expect(ranBy.module_file).to.equal(`${REFERENCES_DIR}/counters.py`);
        expect(ranBy.helper_file).to.equal(`${HELPER_DIR}/pulumi_dynamic_host/reference.py`);
      }
      expect([up.id, up.outputs.start, change.outputs.start, refresh.outputs.start]).to.deep.equal(["counter-1", 1, 2, 2]);
      expectHelperPickle(up.inputs.__provider, "counters:CounterProvider");
      expect(ops.destroy.summary!.resource_changes).to.deep.equal({ delete: 2 });
    });
  });
});
