// Python providers by reference, through our pulumi-resource-pulumi-python and
// its real worker, started like the engine starts it in a program directory
// (test/fixtures/python-references) whose Pulumi.yaml declares them: imports
// (a Read with only URN, type and id), references that cannot give a
// provider, the helper's object (pulumi_dynamic_host.reference) in
// `__provider`, and latestCode. The helper's object also runs under the
// Python reference plugin, with the helper importable there as the wheel makes it.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ProviderReference } from "../../src/host/references/provider-references.js";
import { PythonRuntime } from "../../src/python-bridge/runtime.js";
import { FIXTURES, REPO, TEST_VENV } from "../helpers/paths.js";
import { pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";

const PROGRAM = `${FIXTURES}python-references`;
const DECLARED_IN = `${PROGRAM}/Pulumi.yaml`;
const WORKER = `${REPO}python-stub/worker.py`;
const HELPER_DIR = `${REPO}python-stub/helper`;
const ENV = { PULUMI_PROJECT: "references", PYTHONDONTWRITEBYTECODE: "1" };
const CONFIG = { "references:greeting": "hello" };

const typeOf = (name: string) => `pulumi-python:dynamic:${name}`;
const urnOf = (type: string, name: string) => `urn:pulumi:dev::references::${typeOf(type)}::${name}`;
/** The SDK's serialize_provider of the fixture's payloads (helper objects, and a provider pickled by value). */
const payload = (name: string) => pythonProvider(name, "python_reference_payloads.py");

/** A Read as the engine's ImportStep sends it: URN, type and id, no state and no inputs. */
function importRead(p: Plugin, type: string, id: string, name = "imported") {
  return p.client.read({ urn: urnOf(type, name), type: typeOf(type), id });
}

/** The first line of an error's details, and the traceback below it (after the blank line), if any. */
function split(details: string): { first: string; traceback: string } {
  const at = details.indexOf("\n\n");
  return at < 0 ? { first: details, traceback: "" } : { first: details.slice(0, at), traceback: details.slice(at + 2) };
}

describe("Python providers by reference, served by our plugin's worker", function () {
  let p: Plugin;

  before(async function () {
    p = await Plugin.launch("ours", { language: "python", cwd: PROGRAM, env: ENV });
    expect((await p.client.configure(CONFIG)).code).to.equal(0);
  });
  after(async function () {
    await p?.stop();
  });

  describe("an import: the engine's Read with only URN, type and id", function () {
    it("runs the declared class's read with the id; outputs and inputs hold what read returned, no __provider", async function () {
      const r = await importRead(p, "Counter", "counter-7");
      expect(r.code, r.details).to.equal(0);
      expect(r.view.id).to.equal("counter-7");
      expect(r.view.properties).to.not.have.property("__provider");
      expect(r.view.properties).to.deep.include({ start: 7, seen: [] });
      expect(r.view.properties.ran).to.deep.include({
        provider: "CounterProvider",
        constructed: 1,
        module_file: `${PROGRAM}/refs_providers.py`,
        process: WORKER,
        configured: "hello",
      });
      expect(r.view.inputs).to.deep.equal({ start: 7 });
    });

    it("constructs and configures a class once, whatever serves it: imports, and the helper's object in __provider", async function () {
      const answers = await Promise.all([
        importRead(p, "Counter", "counter-8", "a"),
        importRead(p, "Counter", "counter-9", "b"),
        p.client.create({ urn: urnOf("Counter", "c"), properties: { __provider: payload("counter"), start: 3 } }),
        p.client.read({ urn: urnOf("Counter", "d"), id: "counter-4", properties: { __provider: payload("counter"), start: 4 } }),
      ]);
      for (const a of answers) expect(a.code, a.details).to.equal(0);
      expect(answers.map((a) => a.view.properties.ran.constructed)).to.deep.equal([1, 1, 1, 1]);
      expect(answers.map((a) => a.view.properties.ran.configured)).to.deep.equal(["hello", "hello", "hello", "hello"]);
    });

    it("uses an instance as it is, and finds a class nested in another", async function () {
      const shared = await importRead(p, "Shared", "s-1");
      expect(shared.code, shared.details).to.equal(0);
      expect(shared.view.properties.ran).to.include({ provider: "SharedProvider", constructed: 0, process: WORKER });
      const nested = await importRead(p, "Nested", "n-1");
      expect(nested.code, nested.details).to.equal(0);
      expect(nested.view.properties.ran).to.include({ provider: "Outer.Inner", process: WORKER });
    });

    it("a read that reports no inputs cannot import, and says so", async function () {
      const r = await importRead(p, "NoInputs", "x");
      expect(r.code).to.equal(2);
      expect(r.details).to.equal(
        `Read ${urnOf("NoInputs", "imported")}: the resource is being imported, and the read of refs_providers:NoInputs returned ` +
          `its outputs but no inputs; the engine imports a resource only with both. Return them from read: ReadResult(id, outs, inputs)`,
      );
    });

    it("a type with no declaration: the error names the type token and what to add to which Pulumi.yaml", async function () {
      const r = await importRead(p, "Undeclared", "u-1");
      expect(r.code).to.equal(2);
      expect(r.details).to.contain(`Read ${urnOf("Undeclared", "imported")}: the request's properties has no "__provider" property`);
      expect(r.details).to.contain(`To import a ${typeOf("Undeclared")}, declare where its provider lives in ${DECLARED_IN}:`);
      expect(r.details).to.contain(`  pulumi-dynamic-host:\n    providers:\n      ${typeOf("Undeclared")}: providers.counter:CounterProvider\n`);
    });
  });

  describe("a declared reference that gives no provider: an error naming the reference, where it was declared, and what was wrong", function () {
    const declared = (reference: string, type: string) => `the provider reference "${reference}" declared for ${typeOf(type)} in ${DECLARED_IN}: `;
    const cases: { type: string; reference: string; problem: string | RegExp; traceback: RegExp | "" }[] = [
      {
        type: "NoModule",
        reference: "refs_absent:Provider",
        problem:
          `module refs_absent was not found (ModuleNotFoundError: No module named 'refs_absent'); ` +
          `looked on sys.path: ${PROGRAM} (the program directory, sys.path[0]), `,
        traceback: "",
      },
      {
        type: "MissingDependency",
        reference: "refs_missing_dependency:Provider",
        problem: "importing module refs_missing_dependency raised ModuleNotFoundError: No module named 'refs_not_installed_anywhere'",
        traceback: /refs_missing_dependency\.py", line 2, in <module>\n.*\n.*\nModuleNotFoundError: No module named 'refs_not_installed_anywhere'\n$/,
      },
      {
        type: "Raising",
        reference: "refs_raising:Provider",
        problem: "importing module refs_raising raised RuntimeError: cannot reach the inventory service at import time",
        traceback: /^Traceback \(most recent call last\):\n {2}File "[^"]*refs_raising\.py", line 8, in <module>\n[^]*RuntimeError: cannot reach the inventory service at import time\n$/,
      },
      {
        type: "NoAttribute",
        reference: "refs_providers:Absent",
        problem: `module refs_providers (${PROGRAM}/refs_providers.py) has no attribute Absent; it has CounterProvider, CreateResult, FreshProvider, `,
        traceback: "",
      },
      {
        type: "NotAProvider",
        reference: "refs_providers:settings",
        problem:
          "settings is not a dynamic provider: it is a builtins.dict, with none of the methods check, diff, create, read, delete; " +
          "name a pulumi.dynamic.ResourceProvider subclass (constructed with no arguments) or instance",
        traceback: "",
      },
      {
        type: "NotAProviderClass",
        reference: "refs_providers:Plain",
        problem: "Plain is not a dynamic provider: it is a class whose instances have none of the methods check, diff, create, read, delete; ",
        traceback: "",
      },
      {
        type: "BadConstructor",
        reference: "refs_providers:NeedsArguments",
        problem:
          "NeedsArguments is a class, and constructing it with no arguments raised TypeError: " +
          "NeedsArguments.__init__() missing 1 required positional argument: 'region'",
        traceback: /TypeError: NeedsArguments.__init__\(\) missing 1 required positional argument: 'region'\n$/,
      },
    ];
    for (const c of cases) {
      it(`${c.type}: ${c.reference}`, async function () {
        const r = await importRead(p, c.type, "x-1");
        expect(r.code).to.equal(2);
        const { first, traceback } = split(r.details);
        const start = `Read ${urnOf(c.type, "imported")}: ${declared(c.reference, c.type)}`;
        expect(first.startsWith(start + c.problem), `${first}\n  does not start with\n${start + c.problem}`).to.equal(true);
        if (c.traceback === "") expect(traceback).to.equal("");
        else expect(traceback).to.match(c.traceback);
        // None of the worker's or the import system's own frames.
        expect(traceback).to.not.contain("python-stub").and.not.contain("importlib");
      });
    }

    it("a failure is not cached: the next request tries again, and another type's reference still loads", async function () {
      const again = await importRead(p, "Raising", "x-2");
      expect(split(again.details).first).to.contain("importing module refs_raising raised RuntimeError");
      expect((await importRead(p, "Counter", "counter-1")).code).to.equal(0);
    });
  });

  describe("the helper's object in __provider: a program passing provider_reference()", function () {
    it("every method runs the provider it names, and __provider is carried as it came", async function () {
      const counter = payload("counter");
      const urn = urnOf("Counter", "helper");
      const check = await p.client.check({ urn, olds: {}, news: { __provider: counter, start: 5 } });
      expect(check.code, check.details).to.equal(0);
      expect(check.view.inputs).to.deep.equal({ __provider: counter, start: 5 });
      const created = await p.client.create({ urn, properties: { __provider: counter, start: 5 } });
      expect(created.code, created.details).to.equal(0);
      expect(created.view.id).to.equal("counter-5");
      expect(created.view.properties).to.deep.include({ __provider: counter, start: 5 });
      // No wheel in the test virtualenv: unpickling imported the worker's own copy of the helper, last on sys.path.
      expect(created.view.properties.ran).to.include({
        provider: "CounterProvider",
        process: WORKER,
        configured: "hello",
        helper_file: `${HELPER_DIR}/pulumi_dynamic_host/reference.py`,
      });
      const updated = await p.client.update({ urn, id: "counter-5", olds: created.view.properties, news: { __provider: counter, start: 6 } });
      expect(updated.code, updated.details).to.equal(0);
      expect(updated.view.properties).to.deep.include({ __provider: counter, start: 6 });
      const read = await p.client.read({ urn, id: "counter-6", properties: updated.view.properties });
      expect(read.code, read.details).to.equal(0);
      expect(read.view.properties.seen).to.deep.equal(["__provider", "ran", "start"]);
      expect(read.view.inputs).to.deep.equal({ __provider: counter, start: 6 });
      const deleted = await p.client.delete({ urn, id: "counter-6", properties: read.view.properties });
      expect(deleted.code, deleted.details).to.equal(0);
    });

    it("a reference that names nothing is said as the program passed it", async function () {
      const urn = urnOf("Counter", "absent");
      const r = await p.client.create({ urn, properties: { __provider: payload("absent") } });
      expect(r.code).to.equal(2);
      expect(r.details).to.match(
        new RegExp(
          `^Create ${urn.replace(/[$]/g, "\\$")}: the provider reference "refs_providers:Absent" that the program passed with ` +
            `provider_reference\\(\\): module refs_providers \\(${PROGRAM}/refs_providers\\.py\\) has no attribute Absent; it has `,
        ),
      );
    });
  });

  describe("latestCode: the project's code instead of the code serialized in the state", function () {
    const stale = () => payload("stale");

    it("a refresh of a latestCode type runs the project's read, and keeps the state's __provider", async function () {
      const r = await p.client.read({ urn: urnOf("Fresh", "f"), id: "f-1", properties: { __provider: stale(), value: "v" } });
      expect(r.code, r.details).to.equal(0);
      expect(r.view.properties).to.include({ code: "project", value: "v", __provider: stale() });
      expect(r.view.properties.ran).to.include({ provider: "FreshProvider", process: WORKER });
    });

    it("a destroy of a latestCode type runs the project's fixed delete", async function () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "refs-delete-"));
      try {
        const marker = path.join(dir, "deleted");
        const r = await p.client.delete({ urn: urnOf("Fresh", "f"), id: "f-1", properties: { __provider: stale(), marker } });
        expect(r.code, r.details).to.equal(0);
        expect(fs.readFileSync(marker, "utf8")).to.equal(`deleted by the project's code in ${WORKER}`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("a type without latestCode runs the state's code, broken delete and all", async function () {
      const read = await p.client.read({ urn: urnOf("Counter", "s"), id: "s-1", properties: { __provider: stale(), value: "v" } });
      expect(read.code, read.details).to.equal(0);
      expect(read.view.properties.code).to.equal("state");
      const deleted = await p.client.delete({ urn: urnOf("Counter", "s"), id: "s-1", properties: { __provider: stale() } });
      expect(deleted.code).to.equal(2);
      expect(deleted.details).to.contain("Exception: the delete serialized in the state is broken");
    });
  });
});

describe("the helper's object under Pulumi's own Python plugin (python -m pulumi.dynamic)", function () {
  let ref: Plugin;

  before(async function () {
    // As the pulumi-dynamic-host wheel, installed in the program's environment, makes the helper importable.
    ref = await Plugin.launch("reference", { language: "python", cwd: PROGRAM, env: { ...ENV, PYTHONPATH: HELPER_DIR } });
    expect((await ref.client.configure(CONFIG)).code).to.equal(0);
  });
  after(async function () {
    await ref?.stop();
  });

  it("runs the provider the reference names: the helper's methods delegate to it", async function () {
    const counter = payload("counter");
    const urn = urnOf("Counter", "helper");
    const created = await ref.client.create({ urn, properties: { __provider: counter, start: 5 } });
    expect(created.code, created.details).to.equal(0);
    expect(created.view.id).to.equal("counter-5");
    expect(created.view.properties).to.deep.include({ __provider: counter, start: 5 });
    const { process: ranIn, ...ran } = created.view.properties.ran;
    expect(ran).to.deep.equal({
      provider: "CounterProvider",
      constructed: 1,
      module_file: `${PROGRAM}/refs_providers.py`,
      configured: "hello",
      helper_file: `${HELPER_DIR}/pulumi_dynamic_host/reference.py`,
    });
    // The reference plugin's own process: `python -m pulumi.dynamic` in the test virtualenv.
    expect(ranIn.startsWith(`${TEST_VENV}/lib/`) && ranIn.endsWith("/site-packages/pulumi/dynamic/__main__.py"), ranIn).to.equal(true);
    const read = await ref.client.read({ urn, id: "counter-6", properties: created.view.properties });
    expect(read.code, read.details).to.equal(0);
    expect(read.view.inputs).to.deep.equal({ __provider: counter, start: 6 });
    const check = await ref.client.check({ urn, olds: {}, news: { __provider: counter, start: 1 } });
    expect(check.view.inputs).to.deep.equal({ __provider: counter, start: 1 });
  });

  it("a reference that names nothing fails with the helper's own error", async function () {
    const r = await ref.client.create({ urn: urnOf("Counter", "absent"), properties: { __provider: payload("absent") } });
    expect(r.code).to.equal(2);
    expect(r.details).to.contain(
      `ReferenceProblem: provider reference "refs_providers:Absent": module refs_providers (${PROGRAM}/refs_providers.py) has no attribute Absent; it has `,
    );
  });
});

describe("PythonRuntime.isReferenceText: is a state's __provider the helper's object for this reference (read without running it)", function () {
  const runtime = new PythonRuntime(undefined as never);
  const declared = (reference: string): ProviderReference => ({
    typeToken: typeOf("Fresh"),
    reference,
    latestCode: true,
    declaredIn: DECLARED_IN,
    projectDir: PROGRAM,
  });

  it("the helper's object holding the same reference: yes", function () {
    expect(runtime.isReferenceText(payload("fresh"), declared("refs_providers:FreshProvider"))).to.equal(true);
  });

  it("another reference, a provider pickled by value, an object that only looks like the helper's, or not a pickle: no", function () {
    expect(runtime.isReferenceText(payload("counter"), declared("refs_providers:FreshProvider"))).to.equal(false);
    expect(runtime.isReferenceText(payload("stale"), declared("refs_providers:FreshProvider"))).to.equal(false);
    expect(runtime.isReferenceText(payload("lookalike"), declared("refs_providers:FreshProvider"))).to.equal(false);
    expect(runtime.isReferenceText("not base64 at all!", declared("refs_providers:FreshProvider"))).to.equal(false);
    expect(runtime.isReferenceText("", declared("refs_providers:FreshProvider"))).to.equal(false);
  });
});
