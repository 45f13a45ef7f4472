// Providers by reference, in the core: reading the project's declarations
// (Pulumi.yaml's pulumi-dynamic-host section), serving every request that
// carries no `__provider` from them (an import, a program of any language
// registering a declared type) and writing none, the error that says what to
// declare, the default diff across a `__provider` that comes or goes, and
// latestCode (the project's code instead of the state's), against a runtime
// that records which source each call got.
import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { DynamicCore } from "../../src/host/core.js";
import type { EngineLog, Severity } from "../../src/host/engine/engine-log.js";
import { BadRequestError, ProviderResultError } from "../../src/host/errors.js";
import { NODEJS, PYTHON } from "../../src/host/plugin/modes.js";
import { ProviderReferences, type ProviderReference } from "../../src/host/references/provider-references.js";
import type { Bag, CallInfo, DiffOutcome, DynamicRuntime, ProviderSource, ReadOutcome, UpdateOutcome } from "../../src/host/runtime.js";
import { jsToStruct, structToJs, type AnyStruct } from "../../src/host/wire/wire.js";

const TYPE = "pulumi-nodejs:dynamic/files:TextFile";
const URN = `urn:pulumi:dev::proj::${TYPE}::b`;
const signal = new CallSignal();

/** Records each call's source; read answers what `readAnswer` says. */
class Recorder implements DynamicRuntime {
  readonly language = "nodejs" as const;
  readonly bags = "decoded" as const;
  sources: string[] = [];
  readAnswer: ReadOutcome = { id: "id-1", outs: jsToStruct({ content: "hello" }), inputs: jsToStruct({ content: "hello" }) };
  diffAnswer: DiffOutcome = { changes: "none", replaces: [], deleteBeforeReplace: false };
  /** Unset: a provider without update of its own. */
  updateOuts: AnyStruct | undefined = jsToStruct({});
  private rec(s: ProviderSource) {
    this.sources.push(s.text ?? `ref:${s.reference.reference}`);
  }
  async configure(_: Bag) {}
  async check(_c: CallInfo, s: ProviderSource) {
    this.rec(s);
    return { inputs: jsToStruct({}), failures: [] };
  }
  async diff(_c: CallInfo, s: ProviderSource) {
    this.rec(s);
    return this.diffAnswer;
  }
  async create(_c: CallInfo, s: ProviderSource) {
    this.rec(s);
    return { id: "x", outs: jsToStruct({}) };
  }
  async read(_c: CallInfo, s: ProviderSource) {
    this.rec(s);
    return this.readAnswer;
  }
  async update(_c: CallInfo, s: ProviderSource): Promise<UpdateOutcome> {
    this.rec(s);
    return this.updateOuts ? { outs: this.updateOuts } : {};
  }
  async delete(_c: CallInfo, s: ProviderSource) {
    this.rec(s);
  }
  isReferenceText(text: string, ref: ProviderReference) {
    return text === `serialized reference ${ref.reference}`;
  }
  cancelAll() {}
  async close() {}
}

class Messages implements EngineLog {
  sent: { severity: Severity; urn: string; message: string }[] = [];
  log(severity: Severity, urn: string, message: string) {
    this.sent.push({ severity, urn, message });
  }
  async send(severity: Severity, urn: string, message: string) {
    this.log(severity, urn, message);
    return true;
  }
  async reachable() {
    return false;
  }
  async close() {}
}

function project(yaml: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "refs-")));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yaml);
  return dir;
}

const DECLARED = `name: proj
runtime: nodejs
pulumi-dynamic-host:
  providers:
    ${TYPE}: ./providers#textFile
    pulumi-python:dynamic:Counter: counters:Counter
`;

describe("provider references: the project's declarations", function () {
  const dirs: string[] = [];
  const make = (yaml: string) => {
    const d = project(yaml);
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it("reads the entries of the mode's own package, found upward from a subdirectory (main:)", async function () {
    const dir = make(DECLARED);
    fs.mkdirSync(path.join(dir, "src"));
    const node = await ProviderReferences.load(path.join(dir, "src"), "nodejs");
    expect(node.lookup(TYPE)).to.deep.equal({
      typeToken: TYPE,
      reference: "./providers#textFile",
      latestCode: false,
      declaredIn: path.join(dir, "Pulumi.yaml"),
      projectDir: dir,
    });
    expect(node.lookup("pulumi-python:dynamic:Counter")).to.equal(undefined);
    const python = await ProviderReferences.load(dir, "python");
    expect(python.lookup("pulumi-python:dynamic:Counter")?.reference).to.equal("counters:Counter");
  });

  it("latestCode: project-wide, with a per-type off switch", async function () {
    const dir = make(`name: p
pulumi-dynamic-host:
  latestCode: true
  providers:
    pulumi-nodejs:dynamic:A: ./a#A
    pulumi-nodejs:dynamic:B:
      provider: ./b#B
      latestCode: false
`);
    const refs = await ProviderReferences.load(dir, "nodejs");
    expect(refs.lookup("pulumi-nodejs:dynamic:A")?.latestCode).to.equal(true);
    expect(refs.lookup("pulumi-nodejs:dynamic:B")?.latestCode).to.equal(false);
  });

  it("a reference of the wrong shape is an error naming the file, the type and the expected shape", async function () {
    const dir = make(`name: p\npulumi-dynamic-host:\n  providers:\n    pulumi-python:dynamic:C: ./counters.py\n`);
    const refs = await ProviderReferences.load(dir, "python");
    expect(() => refs.lookup("pulumi-python:dynamic:C")).to.throw(
      `${dir}/Pulumi.yaml: pulumi-dynamic-host.providers["pulumi-python:dynamic:C"] is "./counters.py", which is not a provider reference: ` +
        `a Python reference is "<module>:<attribute>", e.g. providers.counter:CounterProvider`,
    );
  });

  it("an unknown key in the section is an error naming it", async function () {
    const dir = make(`name: p\npulumi-dynamic-host:\n  provider:\n    x: y\n`);
    const refs = await ProviderReferences.load(dir, "nodejs");
    expect(() => refs.lookup(TYPE)).to.throw(/Pulumi\.yaml: pulumi-dynamic-host: Unrecognized key: "provider"; the section is \{ latestCode/);
  });

  it("the section's python: key is read by both modes, and must be a non-empty string", async function () {
    const dir = make(`name: p\nruntime: nodejs\npulumi-dynamic-host:\n  python: .venv\n  providers:\n    ${TYPE}: ./providers#textFileProvider\n`);
    for (const language of ["nodejs", "python"] as const) {
      expect((await ProviderReferences.load(dir, language)).all()).to.have.length(language === "nodejs" ? 1 : 0);
    }
    const bad = make(`name: p\nruntime: nodejs\npulumi-dynamic-host:\n  python: 3\n`);
    const refs = await ProviderReferences.load(bad, "python");
    expect(() => refs.all()).to.throw(/pulumi-dynamic-host\.python: .*; the section is \{ latestCode\?: boolean, python\?: <path or command>, providers/);
  });

  it("no project file, or one without the section: nothing declared", async function () {
    expect((await ProviderReferences.load("/", "nodejs")).lookup(TYPE)).to.equal(undefined);
    const dir = make("name: p\nruntime: nodejs\n");
    expect((await ProviderReferences.load(dir, "nodejs")).lookup(TYPE)).to.equal(undefined);
  });
});

describe("provider references: import and latestCode in the core", function () {
  let dir: string;
  let rt: Recorder;
  let log: Messages;
  const core = (yaml = DECLARED, mode = NODEJS) => {
    dir = project(yaml);
    rt = new Recorder();
    log = new Messages();
    return new DynamicCore(mode, rt, { cwd: dir, engineLog: log });
  };
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("an import (Read with no state and no inputs) runs the declared provider and stores no __provider", async function () {
    const c = core();
    const resp = await c.read({ urn: URN, type: TYPE, id: "id-1" }, signal);
    expect(rt.sources).to.deep.equal(["ref:./providers#textFile"]);
    expect(structToJs(resp.properties)).to.deep.equal({ content: "hello" });
    expect(structToJs(resp.inputs)).to.deep.equal({ content: "hello" });
    expect(log.sent).to.have.length(1);
    expect(log.sent[0]).to.include({ severity: "debug", urn: URN });
    expect(log.sent[0].message).to.equal(
      `Read: the request carries no __provider (an import); running ./providers#textFile, declared for ${TYPE} in ${dir}/Pulumi.yaml`,
    );
  });

  it("the type comes from the URN when the request has none", async function () {
    const c = core();
    await c.read({ urn: URN, id: "id-1" }, signal);
    expect(rt.sources).to.deep.equal(["ref:./providers#textFile"]);
  });

  it("an import whose read returns no inputs fails saying what to return", async function () {
    const c = core();
    rt.readAnswer = { id: "id-1", outs: jsToStruct({ content: "hello" }) };
    try {
      await c.read({ urn: URN, type: TYPE, id: "id-1" }, signal);
      expect.fail("should throw");
    } catch (e) {
      expect(e).to.be.instanceOf(ProviderResultError);
      expect((e as Error).message).to.equal(
        `Read ${URN}: the resource is being imported, and the read of ./providers#textFile returned its outputs but no inputs; ` +
          "the engine imports a resource only with both. Return them from read: { id, props, inputs }",
      );
    }
  });

  it("a refresh (the state in properties) whose read returns no inputs is no import: the old inputs stay", async function () {
    const c = core();
    rt.readAnswer = { id: "id-1", outs: jsToStruct({ content: "hello" }) };
    const resp = await c.read({ urn: URN, type: TYPE, id: "id-1", properties: jsToStruct({ __provider: "state text" }) }, signal);
    expect(resp.inputs).to.equal(undefined);
    expect(structToJs(resp.properties)).to.deep.equal({ content: "hello", __provider: "state text" });
  });

  it("an import of a resource that does not exist (read answers no id) is passed on for the engine to say so", async function () {
    const c = core();
    rt.readAnswer = { id: "", outs: jsToStruct({}) };
    const resp = await c.read({ urn: URN, type: TYPE, id: "gone" }, signal);
    expect(resp.id).to.equal("");
  });

  it("an import of an undeclared type says it is an import, and exactly what to add where", async function () {
    const c = core("name: proj\nruntime: nodejs\n");
    const other = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Other::o";
    try {
      await c.read({ urn: other, type: "pulumi-nodejs:dynamic:Other", id: "i" }, signal);
      expect.fail("should throw");
    } catch (e) {
      expect(e).to.be.instanceOf(BadRequestError);
      expect((e as BadRequestError).code).to.equal(grpc.status.UNKNOWN);
      expect((e as Error).message).to.equal(
        `Read ${other}: the request's properties has no "__provider" property, so the dynamic provider cannot be loaded; ` +
          "__provider must be the serialized provider the SDK writes into every dynamic resource. The resource is being imported: " +
          "the engine sends only its id, no inputs and no state, so no serialized provider exists yet. To import a " +
          `pulumi-nodejs:dynamic:Other, declare where its provider lives in ${dir}/Pulumi.yaml:\n` +
          "  pulumi-dynamic-host:\n    providers:\n      pulumi-nodejs:dynamic:Other: ./providers#textFileProvider\n" +
          '(a "<module>#<export>" reference to the provider in the project\'s code; docs/import-and-repair.md, pulumi-dynamic-host docs import-and-repair)',
      );
    }
    expect(rt.sources).to.deep.equal([]);
  });

  it("a get (inputs hold the program's __provider) and a refresh run the serialized text, as before", async function () {
    const c = core();
    await c.read({ urn: URN, type: TYPE, id: "i", inputs: jsToStruct({ __provider: "program text" }) }, signal);
    await c.read({ urn: URN, type: TYPE, id: "i", properties: jsToStruct({ __provider: "state text" }) }, signal);
    await c.delete({ urn: URN, type: TYPE, id: "i", properties: jsToStruct({ __provider: "state text" }) }, signal);
    expect(rt.sources).to.deep.equal(["program text", "state text", "state text"]);
    expect(log.sent).to.deep.equal([]);
  });

  it("latestCode: Read, Update, Delete and Diff run the project's code; Check and Create the request's", async function () {
    const c = core(DECLARED.replace("pulumi-dynamic-host:\n", "pulumi-dynamic-host:\n  latestCode: true\n"));
    const state = jsToStruct({ __provider: "state text" });
    await c.read({ urn: URN, type: TYPE, id: "i", properties: state }, signal);
    await c.update({ urn: URN, type: TYPE, id: "i", olds: state, news: jsToStruct({ __provider: "new text" }) }, signal);
    await c.diff({ urn: URN, type: TYPE, id: "i", olds: state, news: jsToStruct({ __provider: "new text" }) }, signal);
    await c.check({ urn: URN, type: TYPE, olds: state, news: jsToStruct({ __provider: "new text" }) }, signal);
    await c.create({ urn: URN, type: TYPE, properties: jsToStruct({ __provider: "new text" }) }, signal);
    const resp = await c.read({ urn: URN, type: TYPE, id: "i", properties: state }, signal);
    await c.delete({ urn: URN, type: TYPE, id: "i", properties: state }, signal);
    const ref = "ref:./providers#textFile";
    expect(rt.sources).to.deep.equal([ref, ref, ref, "new text", "new text", ref, ref]);
    // A refresh by the project's code keeps the state's __provider: the state changes only on update.
    expect(structToJs(resp.properties).__provider).to.equal("state text");
    expect(log.sent.filter((m) => m.severity === "debug").map((m) => m.message.split(":")[0])).to.deep.equal(["Read", "Update", "Diff", "Read", "Delete"]);
    const warnings = log.sent.filter((m) => m.severity === "warning");
    expect(warnings).to.have.length(1);
    expect(warnings[0].urn).to.equal(URN);
    expect(warnings[0].message).to.equal(
      "deleting with the project's current code (./providers#textFile) rather than the code serialized in the state at the last " +
        `update, which differs from it; latestCode is set in ${dir}/Pulumi.yaml`,
    );
  });

  it("latestCode: a state that already holds the reference's text runs as it is, with no warning", async function () {
    const c = core(DECLARED.replace("pulumi-dynamic-host:\n", "pulumi-dynamic-host:\n  latestCode: true\n"));
    const state = jsToStruct({ __provider: "serialized reference ./providers#textFile" });
    await c.delete({ urn: URN, type: TYPE, id: "i", properties: state }, signal);
    expect(rt.sources).to.deep.equal(["serialized reference ./providers#textFile"]);
    expect(log.sent).to.deep.equal([]);
  });

  it("a malformed section fails the calls that consult it, naming the file", async function () {
    const c = core("name: p\npulumi-dynamic-host: [1, 2]\n");
    try {
      await c.read({ urn: URN, type: TYPE, id: "i" }, signal);
      expect.fail("should throw");
    } catch (e) {
      expect(e).to.be.instanceOf(BadRequestError);
      expect((e as Error).message).to.match(new RegExp(`^Read ${URN.replace(/[$]/g, "\\$")}: ${dir}/Pulumi\\.yaml: pulumi-dynamic-host: `));
    }
  });

  it("each mode reads only its own package's entries", async function () {
    const c = core(DECLARED, PYTHON);
    const urn = "urn:pulumi:dev::proj::pulumi-python:dynamic:Counter::c";
    await c.read({ urn, type: "pulumi-python:dynamic:Counter", id: "i" }, signal);
    expect(rt.sources).to.deep.equal(["ref:counters:Counter"]);
  });
});

describe("declared types served by their declaration alone: requests with no __provider", function () {
  let dir: string;
  let rt: Recorder;
  let log: Messages;
  const core = (yaml = DECLARED) => {
    dir = project(yaml);
    rt = new Recorder();
    log = new Messages();
    return new DynamicCore(NODEJS, rt, { cwd: dir, engineLog: log });
  };
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ref = "ref:./providers#textFile";

  it("every method runs the declared provider, and no answer holds a __provider", async function () {
    const c = core();
    const inputs = jsToStruct({ content: "hello" });
    rt.readAnswer = { id: "i", outs: jsToStruct({ content: "hello", size: 5 }), inputs: jsToStruct({ content: "hello" }) };
    const checked = await c.check({ urn: URN, type: TYPE, news: inputs }, signal);
    const diffed = await c.diff({ urn: URN, type: TYPE, id: "i", olds: inputs, news: inputs, old_inputs: inputs }, signal);
    const created = await c.create({ urn: URN, type: TYPE, properties: inputs }, signal);
    const read = await c.read({ urn: URN, type: TYPE, id: "i", properties: jsToStruct({ content: "hello", size: 5 }) }, signal);
    const updated = await c.update({ urn: URN, type: TYPE, id: "i", olds: jsToStruct({ content: "hello" }), news: inputs }, signal);
    await c.delete({ urn: URN, type: TYPE, id: "i", properties: jsToStruct({ content: "hello" }) }, signal);
    expect(rt.sources).to.deep.equal([ref, ref, ref, ref, ref, ref]);
    expect(diffed.changes).to.equal(1);
    for (const bag of [checked.inputs, created.properties, read.properties, read.inputs, updated.properties]) {
      expect(structToJs(bag)).to.not.have.property("__provider");
    }
    expect(structToJs(read.properties)).to.deep.equal({ content: "hello", size: 5 });
    // Which code ran is said once for the type, not in every request.
    expect(log.sent.map((m) => m.message)).to.deep.equal([
      `Check: the request carries no __provider; running ./providers#textFile, declared for ${TYPE} in ${dir}/Pulumi.yaml`,
    ]);
  });

  it("an update by a provider without update keeps the old outputs, less a __provider the state held from serialized code", async function () {
    const c = core();
    rt.updateOuts = undefined;
    const olds = jsToStruct({ content: "a", __provider: "closure text of the old program" });
    const resp = await c.update({ urn: URN, type: TYPE, id: "i", olds, news: jsToStruct({ content: "a" }) }, signal);
    expect(rt.sources).to.deep.equal([ref]);
    expect(structToJs(resp.properties)).to.deep.equal({ content: "a" });
  });

  it("an undeclared type with no __provider fails naming the resource, the method, the type and what to declare where", async function () {
    const c = core("name: proj\nruntime: python\n");
    const other = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Other::o";
    try {
      await c.create({ urn: other, type: "pulumi-nodejs:dynamic:Other", properties: jsToStruct({ a: 1 }) }, signal);
      expect.fail("should throw");
    } catch (e) {
      expect(e).to.be.instanceOf(BadRequestError);
      expect((e as Error).message).to.equal(
        `Create ${other}: the request's properties has no "__provider" property, so the dynamic provider cannot be loaded; ` +
          "__provider must be the serialized provider the SDK writes into every dynamic resource, or the type must be declared: " +
          "a program that registers pulumi-nodejs:dynamic:Other without serialized code (a program in another language, or the " +
          "DeclaredResource helper) is served by the project's declaration of it; to serve it, declare where its provider lives in " +
          `${dir}/Pulumi.yaml:\n  pulumi-dynamic-host:\n    providers:\n      pulumi-nodejs:dynamic:Other: ./providers#textFileProvider\n` +
          '(a "<module>#<export>" reference to the provider in the project\'s code; docs/import-and-repair.md, pulumi-dynamic-host docs import-and-repair)',
      );
    }
    expect(rt.sources).to.deep.equal([]);
  });

  describe("a default diff: the declared reference's __provider coming or going is no change", function () {
    const withText = jsToStruct({ content: "a", __provider: "serialized reference ./providers#textFile" });
    const without = jsToStruct({ content: "a" });
    const unknownDiff = () => {
      rt.diffAnswer = { changes: "unknown", replaces: [], deleteBeforeReplace: false, byDefault: true };
    };
    const table: [string, AnyStruct, AnyStruct, number][] = [
      ["imported (none), then the program passes the reference", without, withText, 1],
      ["the reference's text, then the program registers the type without code", withText, without, 1],
      ["none, then a closure: the code changes", without, jsToStruct({ content: "a", __provider: "closure text" }), 0],
      ["none, then the reference's text and another input", without, jsToStruct({ content: "b", __provider: "serialized reference ./providers#textFile" }), 0],
    ];
    for (const [what, before, after, none] of table) {
      it(what, async function () {
        const c = core();
        unknownDiff();
        const resp = await c.diff({ urn: URN, type: TYPE, id: "i", olds: before, news: after, old_inputs: before }, signal);
        // DIFF_NONE is 1, DIFF_UNKNOWN 0: the engine then compares the inputs itself.
        expect(resp.changes).to.equal(none ? 1 : 0);
      });
    }

    it("a diff of the user's decides, whatever the __provider", async function () {
      const c = core();
      rt.diffAnswer = { changes: "some", replaces: [], deleteBeforeReplace: false };
      const resp = await c.diff({ urn: URN, type: TYPE, id: "i", olds: without, news: withText, old_inputs: without }, signal);
      expect(resp.changes).to.equal(2);
    });
  });
});
