// Import and repair under the real engine, TypeScript program: providers by
// reference (Pulumi.yaml's pulumi-dynamic-host section, and the
// providerReference() helper). Each test's project is a directory of its own
// under .cache/e2e (so @pulumi/pulumi and typescript resolve from the
// repository's node_modules, as from a project's own), holding Pulumi.yaml and
// the provider module in TypeScript. The providers report which plugin ran
// them (process.argv[1]), so every assertion about "our host ran it" is read
// from the state.
import { expect } from "chai";
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { REPO, REFERENCE_NODE_PLUGIN } from "../helpers/paths.js";
import { E2E_ROOT, languageStandIn, prepareEngine, prepareReferenceEngine, sandbox, type Sandbox } from "./harness.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const { providerReference } = require(`${REPO}reference/index.cjs`);

const PROJECT = "refs-node";
const TYPE = "pulumi-nodejs:dynamic/files:TextFile";
const OURS = `${E2E_ROOT}/bin/pulumi-resource-pulumi-nodejs`;

type Event = Record<string, any>;

/** The provider the project declares: files on disk, id = path; read returns inputs so it can import. */
const PROVIDERS_TS = `import * as fs from "fs";

interface TextFileInputs {
  path: string;
  content: string;
}

const ranBy = (): string => process.argv[1];

export const textFileProvider = {
  async diff(_id: string, olds: TextFileInputs, news: TextFileInputs) {
    return { changes: olds.content !== news.content || olds.path !== news.path, replaces: olds.path !== news.path ? ["path"] : [] };
  },
  async create(inputs: TextFileInputs) {
    fs.writeFileSync(inputs.path, inputs.content);
    return { id: inputs.path, outs: { path: inputs.path, content: inputs.content, ranBy: ranBy() } };
  },
  async read(id: string) {
    if (!fs.existsSync(id)) return { id: undefined };
    const content = fs.readFileSync(id, "utf8");
    return { id, props: { path: id, content, ranBy: ranBy() }, inputs: { path: id, content } };
  },
  async update(_id: string, _olds: TextFileInputs, news: TextFileInputs) {
    fs.writeFileSync(news.path, news.content);
    return { outs: { path: news.path, content: news.content, ranBy: ranBy() } };
  },
  async delete(id: string) {
    fs.rmSync(id, { force: true });
  },
};
`;

/** The same provider in JavaScript, for Pulumi's own plugin (which cannot load TypeScript). */
const PROVIDERS_JS = `"use strict";
const fs = require("fs");
const ranBy = () => process.argv[1];
exports.textFileProvider = {
  async create(inputs) {
    fs.writeFileSync(inputs.path, inputs.content);
    return { id: inputs.path, outs: { path: inputs.path, content: inputs.content, ranBy: ranBy() } };
  },
  async read(id) {
    if (!fs.existsSync(id)) return { id: undefined };
    const content = fs.readFileSync(id, "utf8");
    return { id, props: { path: id, content, ranBy: ranBy() }, inputs: { path: id, content } };
  },
  async update(_id, _olds, news) {
    fs.writeFileSync(news.path, news.content);
    return { outs: { path: news.path, content: news.content, ranBy: ranBy() } };
  },
  async delete(id) {
    fs.rmSync(id, { force: true });
  },
};
`;

/** A provider serialized by closure whose read and delete are broken: what the state keeps until the next up. */
const BROKEN_CJS = `"use strict";
const fs = require("fs");
exports.broken = {
  async create(inputs) {
    fs.writeFileSync(inputs.path, inputs.content);
    return { id: inputs.path, outs: { path: inputs.path, content: inputs.content, ranBy: process.argv[1] } };
  },
  async read() {
    throw new Error("read bug in the code serialized at the last up");
  },
  async delete() {
    throw new Error("delete bug in the code serialized at the last up");
  },
};
`;

interface Project {
  dir: string;
  /** A file path inside the project's data directory. */
  file(name: string): string;
}

function makeProject(sb: Sandbox, section: object | undefined): Project {
  const base = `${E2E_ROOT}/projects`;
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, "refs-"));
  fs.writeFileSync(path.join(dir, "package.json"), `{ "name": "${PROJECT}", "private": true }\n`);
  fs.writeFileSync(path.join(dir, "providers.ts"), PROVIDERS_TS);
  fs.writeFileSync(path.join(dir, "providers-js.js"), PROVIDERS_JS);
  fs.writeFileSync(path.join(dir, "broken.cjs"), BROKEN_CJS);
  fs.mkdirSync(path.join(dir, "data"));
  // Pulumi.yaml as the Automation API writes it, from these settings; sb.cleanup() does not reach here.
  const settings: Record<string, unknown> = { name: PROJECT, runtime: "nodejs", backend: { url: `file://${sb.backend}` } };
  if (section) settings["pulumi-dynamic-host"] = section;
  projectSettings.set(dir, settings);
  return { dir, file: (name) => path.join(dir, "data", name) };
}

const projectSettings = new Map<string, Record<string, unknown>>();

async function stackFor(sb: Sandbox, project: Project, stackName: string, program: () => Promise<unknown>, root = E2E_ROOT) {
  const pulumiCommand = await automation.PulumiCommand.get({ root, skipVersionCheck: true });
  return inlineStack(
    { stackName, projectName: PROJECT, program },
    { workDir: project.dir, pulumiHome: sb.home, envVars: sb.env, pulumiCommand, projectSettings: projectSettings.get(project.dir) },
  );
}

function recorder() {
  const events: Event[] = [];
  return { events, onEvent: (e: Event) => events.push(e) };
}

function diagnostics(events: Event[]): Event[] {
  return events.filter((e) => e.diagnosticEvent).map((e) => e.diagnosticEvent);
}

/** step op by resource name, in the order the engine ran them. */
function steps(events: Event[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events) {
    const m = e.resOutputsEvent?.metadata;
    if (m && m.type.startsWith("pulumi-nodejs:")) out[m.urn.split("::").pop()] = m.op;
  }
  return out;
}

function resources(deployment: any): Record<string, any> {
  const out: Record<string, any> = {};
  for (const r of deployment.deployment.resources ?? []) if (r.type.startsWith("pulumi-nodejs:")) out[r.urn.split("::").pop()] = r;
  return out;
}

const plain = (v: any) => (v && typeof v === "object" && "plaintext" in v ? JSON.parse(v.plaintext) : v);

/**
 * `pulumi import` in the project, as a user runs it, with the language host
 * stand-in first on PATH (see test/e2e/language-stand-in.mjs: the real one is
 * not available here, and import runs no program).
 */
function pulumiImport(sb: Sandbox, project: Project, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, ...sb.env, PATH: `${languageStandIn()}:${sb.env.PATH}` };
  return new Promise((resolve) => {
    execFile(`${E2E_ROOT}/bin/pulumi`, ["import", ...args], { cwd: project.dir, env, encoding: "utf8" }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const textFile = (provider: unknown, name: string, props: object, opts?: object) =>
  new pulumi.dynamic.Resource(provider, name, props, opts, "files", "TextFile");

describe("end to end (Node): import and repair with providers by reference", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-node-refs");
  });
  after(function () {
    sb?.cleanup();
    for (const dir of projectSettings.keys()) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe("import, with the type declared in Pulumi.yaml and the program passing providerReference()", function () {
    let project: Project;
    before(function () {
      project = makeProject(sb, { providers: { [TYPE]: "./providers#textFileProvider" } });
    });

    it("the import option: the project's read runs with the id; its outputs and inputs land in the state, no __provider; the next up changes nothing", async function () {
      const f = project.file("imported.txt");
      fs.writeFileSync(f, "made outside pulumi");
      const program = async () => {
        textFile(providerReference("./providers#textFileProvider"), "imported", { path: f, content: "made outside pulumi" }, { import: f });
      };
      const stack = await stackFor(sb, project, "import-option", program);
      const rec = recorder();
      const result = await stack.up({ onEvent: rec.onEvent });
      expect(result.summary.result).to.equal("succeeded");
      expect(steps(rec.events)).to.deep.equal({ imported: "import" });
      const state = resources(await stack.exportStack()).imported;
      expect(state.id).to.equal(f);
      expect(state.outputs).to.include({ path: f, content: "made outside pulumi", ranBy: OURS });
      // The host writes no __provider for a type served by its declaration: the state holds what read returned.
      expect(state.inputs).to.deep.equal({ path: f, content: "made outside pulumi" });
      expect(state.outputs).to.not.have.property("__provider");

      // The program passes the declared reference: its __provider coming is no change, and the unchanged up keeps it.
      const again = recorder();
      const next = await stack.up({ onEvent: again.onEvent });
      expect(next.summary.resourceChanges).to.deep.equal({ same: 2 });
      expect(plain(resources(await stack.exportStack()).imported.inputs.__provider)).to.contain('pulumiDynamicHostReference: "./providers#textFileProvider"');
      expect(diagnostics(again.events).filter((d) => !["debug", "info"].includes(d.severity))).to.deep.equal([]);
    });

    it("pulumi import of one resource, then of a file of several; a program declaring them then changes nothing", async function () {
      const files = ["one", "two", "three"].map((n) => {
        const f = project.file(`${n}.txt`);
        fs.writeFileSync(f, `content of ${n}`);
        return f;
      });
      const stack = await stackFor(sb, project, "pulumi-import", async () => undefined);
      const one = await pulumiImport(sb, project, [TYPE, "one", files[0], "--yes", "--generate-code=false", "--stack", "pulumi-import", "--non-interactive"]);
      expect(one.code, `${one.stdout}\n${one.stderr}`).to.equal(0);
      const list = path.join(project.dir, "imports.json");
      fs.writeFileSync(list, JSON.stringify({ resources: [{ type: TYPE, name: "two", id: files[1] }, { type: TYPE, name: "three", id: files[2] }] }));
      const many = await pulumiImport(sb, project, ["--file", list, "--yes", "--generate-code=false", "--stack", "pulumi-import", "--non-interactive"]);
      expect(many.code, `${many.stdout}\n${many.stderr}`).to.equal(0);

      const state = resources(await stack.exportStack());
      expect(Object.keys(state).sort()).to.deep.equal(["one", "three", "two"]);
      for (const [i, name] of ["one", "two", "three"].entries()) {
        expect(state[name].id).to.equal(files[i]);
        expect(state[name].outputs).to.include({ content: `content of ${name}`, ranBy: OURS });
        expect(state[name].inputs).to.include({ path: files[i], content: `content of ${name}` });
      }

      const declaring = await stackFor(sb, project, "pulumi-import", async () => {
        for (const [i, name] of ["one", "two", "three"].entries()) {
          textFile(providerReference("./providers#textFileProvider"), name, { path: files[i], content: `content of ${name}` });
        }
      });
      const rec = recorder();
      const preview = await declaring.preview({ onEvent: rec.onEvent });
      expect(preview.changeSummary).to.deep.equal({ same: 4 });
    });

    it("the import option with a program that passes the provider object itself: imported, then one in-place update of __provider; the next up changes nothing", async function () {
      const f = project.file("closure.txt");
      fs.writeFileSync(f, "made outside pulumi");
      const { textFileProvider } = require(path.join(project.dir, "providers-js.js"));
      const stack = await stackFor(sb, project, "import-closure", async () => {
        textFile(textFileProvider, "closure", { path: f, content: "made outside pulumi" }, { import: f });
      });
      const rec = recorder();
      await stack.up({ onEvent: rec.onEvent });
      const ops = rec.events.filter((e) => e.resOutputsEvent?.metadata.urn.endsWith("::closure")).map((e) => e.resOutputsEvent.metadata.op);
      expect(ops).to.deep.equal(["import", "update"]);
      const state = resources(await stack.exportStack()).closure;
      // The program's own closure, written by the update.
      expect(plain(state.inputs.__provider)).to.contain("writeFileSync");
      const next = await stack.up({});
      expect(next.summary.resourceChanges).to.deep.equal({ same: 2 });
    });

    it("a get (the id option) still reads with the program's inputs", async function () {
      const f = project.file("got.txt");
      fs.writeFileSync(f, "read, not managed");
      const stack = await stackFor(sb, project, "get", async () => {
        textFile(providerReference("./providers#textFileProvider"), "got", { path: f, content: "read, not managed" }, { id: f });
      });
      const rec = recorder();
      await stack.up({ onEvent: rec.onEvent });
      expect(steps(rec.events)).to.deep.equal({ got: "read" });
      const state = resources(await stack.exportStack()).got;
      expect(state.external).to.equal(true);
      expect(state.outputs).to.include({ content: "read, not managed", ranBy: OURS });
    });
  });

  it("import of a type nobody declared fails with the type token and what to add to which Pulumi.yaml", async function () {
    const project = makeProject(sb, undefined);
    const f = project.file("stray.txt");
    fs.writeFileSync(f, "x");
    const stack = await stackFor(sb, project, "undeclared", async () => {
      textFile(providerReference("./providers#textFileProvider"), "stray", { path: f, content: "x" }, { import: f });
    });
    const rec = recorder();
    let error: any;
    await stack.up({ onEvent: rec.onEvent }).catch((e: any) => (error = e));
    expect(error, "up should fail").to.not.equal(undefined);
    const errors = diagnostics(rec.events).filter((d) => d.severity === "error").map((d) => d.message).join("\n");
    expect(errors).to.contain(`The resource is being imported: the engine sends only its id, no inputs and no state`);
    expect(errors).to.contain(`To import a ${TYPE}, declare where its provider lives in ${project.dir}/Pulumi.yaml:`);
    expect(errors).to.contain(`      ${TYPE}: ./providers#textFileProvider`);
  });

  describe("latestCode: refresh and destroy run the project's fixed code, not the state's broken one", function () {
    let project: Project;
    let stack: any;
    let f: string;
    before(async function () {
      project = makeProject(sb, { latestCode: true, providers: { [TYPE]: "./providers#textFileProvider" } });
      f = project.file("repaired.txt");
      const { broken } = require(path.join(project.dir, "broken.cjs"));
      stack = await stackFor(sb, project, "repair", async () => {
        textFile(broken, "repaired", { path: f, content: "v1" });
      });
      const result = await stack.up({});
      expect(result.summary.result).to.equal("succeeded");
      const state = resources(await stack.exportStack()).repaired;
      // The state holds the broken closure, serialized by value.
      expect(plain(state.outputs.__provider)).to.contain("delete bug in the code serialized at the last up");
    });

    it("refresh runs the project's read (the state's read throws), saying so in a debug line under the resource", async function () {
      fs.writeFileSync(f, "changed outside");
      const rec = recorder();
      const result = await stack.refresh({ onEvent: rec.onEvent, debug: true });
      expect(result.summary.result).to.equal("succeeded");
      const urn = `urn:pulumi:repair::${PROJECT}::${TYPE}::repaired`;
      const said = diagnostics(rec.events).filter((d) => d.severity === "debug" && d.urn === urn && d.message.includes("latestCode"));
      // (The engine then diffs the refreshed state, which says the same for Diff.)
      expect(said.map((d) => d.message.trim())).to.include(
        `Read: running the project's ./providers#textFileProvider (latestCode, ${project.dir}/Pulumi.yaml) instead of the provider serialized in the state`,
      );
      const state = resources(await stack.exportStack()).repaired;
      expect(state.outputs).to.include({ content: "changed outside", ranBy: OURS });
      // The state's own __provider is kept: only an update writes a new one.
      expect(plain(state.outputs.__provider)).to.contain("delete bug in the code serialized at the last up");
    });

    it("destroy runs the project's delete, with a warning under the resource that the state's code was not run", async function () {
      const rec = recorder();
      const result = await stack.destroy({ onEvent: rec.onEvent });
      expect(result.summary.result).to.equal("succeeded");
      expect(fs.existsSync(f)).to.equal(false);
      const warnings = diagnostics(rec.events).filter((d) => d.severity === "warning");
      expect(warnings.map((d) => d.urn)).to.deep.equal([`urn:pulumi:repair::${PROJECT}::${TYPE}::repaired`]);
      expect(warnings[0].message).to.contain("deleting with the project's current code (./providers#textFileProvider) rather than the code serialized in the state");
    });
  });

  it("the same program without latestCode still runs the state's code (the off switch): destroy fails with its bug", async function () {
    const project = makeProject(sb, { latestCode: true, providers: { [TYPE]: { provider: "./providers#textFileProvider", latestCode: false } } });
    const f = project.file("kept.txt");
    const { broken } = require(path.join(project.dir, "broken.cjs"));
    const stack = await stackFor(sb, project, "off-switch", async () => {
      textFile(broken, "kept", { path: f, content: "v1" });
    });
    await stack.up({});
    let error: any;
    await stack.destroy({}).catch((e: any) => (error = e));
    expect(String(error)).to.contain("delete bug in the code serialized at the last up");
    expect(fs.existsSync(f)).to.equal(true);
  });

  it("a program passing providerReference() through create, update, refresh and destroy, run by our host from TypeScript", async function () {
    const project = makeProject(sb, undefined);
    const f = project.file("life.txt");
    let content = "first";
    const stack = await stackFor(sb, project, "lifecycle", async () => {
      textFile(providerReference("./providers#textFileProvider"), "life", { path: f, content });
    });
    const created = recorder();
    await stack.up({ onEvent: created.onEvent });
    expect(steps(created.events)).to.deep.equal({ life: "create" });
    let state = resources(await stack.exportStack()).life;
    expect(state.outputs).to.include({ content: "first", ranBy: OURS });
    const text = plain(state.inputs.__provider);
    // Nothing of the program is captured: no machine path, no provider code.
    expect(text).to.not.contain(project.dir);
    expect(text).to.not.contain("writeFileSync");

    content = "second";
    const updated = recorder();
    await stack.up({ onEvent: updated.onEvent });
    expect(steps(updated.events)).to.deep.equal({ life: "update" });
    expect(fs.readFileSync(f, "utf8")).to.equal("second");

    fs.writeFileSync(f, "drifted");
    await stack.refresh({});
    state = resources(await stack.exportStack()).life;
    expect(state.outputs).to.include({ content: "drifted", ranBy: OURS });
    // Stable across code-only changes: editing the provider module changes no state.
    expect(plain(state.inputs.__provider)).to.equal(text);

    await stack.destroy({});
    expect(fs.existsSync(f)).to.equal(false);
  });

  it("the same helper program under Pulumi's own Node plugin, with a JavaScript module (it cannot load TypeScript)", async function () {
    const root = prepareReferenceEngine();
    const project = makeProject(sb, undefined);
    const f = project.file("reference.txt");
    let content = "first";
    const stack = await stackFor(
      sb,
      project,
      "under-reference",
      async () => {
        textFile(providerReference("./providers-js#textFileProvider"), "ref", { path: f, content });
      },
      root,
    );
    await stack.up({});
    let state = resources(await stack.exportStack()).ref;
    expect(state.outputs).to.include({ content: "first", ranBy: REFERENCE_NODE_PLUGIN });
    content = "second";
    await stack.up({});
    expect(fs.readFileSync(f, "utf8")).to.equal("second");
    fs.writeFileSync(f, "drifted");
    await stack.refresh({});
    state = resources(await stack.exportStack()).ref;
    expect(state.outputs).to.include({ content: "drifted", ranBy: REFERENCE_NODE_PLUGIN });
    await stack.destroy({});
    expect(fs.existsSync(f)).to.equal(false);
  });
});
