// A TypeScript Automation API program run by Bun, under the real engine, using
// a provider the project declares: test/e2e/bun-program/driver.ts (an inline
// program registering the type with DeclaredResource, this package's
// declared/index.cjs, and @pulumi/pulumi from the repository's node_modules)
// runs in a fresh project under .cache/e2e whose Pulumi.yaml declares
// test/e2e/declared-project/text-file.js. Bun runs the program and its
// Automation API (the inline program's language server included); the engine
// runs the provider in our Node plugin. Through up, an up with no change,
// refresh, an update and destroy, the state holds no __provider.
import { expect } from "chai";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BUN, REPO } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, prepareEngine, sandbox, type Sandbox } from "./harness.js";

const DRIVER = `${REPO}test/e2e/bun-program/driver.ts`;
const OURS = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;

interface Step {
  name: string;
  events: Record<string, any>[];
  summary?: Record<string, any>;
  error?: string;
  resources: Record<string, any>;
  outputs?: Record<string, { value: any; secret: boolean }>;
  /** The managed file's content after the step, null when there is none. */
  file: string | null;
}

interface Project {
  dir: string;
  file: string;
}

/** A fresh project: a package.json of its own (so text-file.js is CommonJS, as in a Node project) and the declared provider. */
function makeProject(): Project {
  const base = `${E2E_ROOT}/projects`;
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, "bun-"));
  fs.writeFileSync(path.join(dir, "package.json"), `{ "name": "bun-declared", "private": true }\n`);
  fs.copyFileSync(`${REPO}test/e2e/declared-project/text-file.js`, path.join(dir, "text-file.js"));
  return { dir, file: path.join(dir, "motd.txt") };
}

/** Runs the driver under Bun to its exit; its steps by name, and the runtime versions it reported. */
function driveUnderBun(sb: Sandbox, project: Project): Promise<{ runtime: Record<string, string | null>; steps: Record<string, Step> }> {
  const result = path.join(sb.dir, "bun-result.json");
  const settings = { root: E2E_ROOT, backend: sb.backend, home: sb.home, env: sb.env, workDir: project.dir, file: project.file, result };
  // Nothing of the caller's Pulumi set-up leaks in: the sandbox's variables are all the driver passes on.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_")));
  return new Promise((resolve, reject) => {
    execFile(BUN, [DRIVER, JSON.stringify(settings)], { cwd: project.dir, env, encoding: "utf8", maxBuffer: 64 << 20 }, (err, _stdout, stderr) => {
      const doc = fs.existsSync(result) ? JSON.parse(fs.readFileSync(result, "utf8")) : undefined;
      if (doc?.driverError) return reject(new Error(`bun driver: ${doc.driverError}\n${stderr}`));
      if (err || !doc) return reject(new Error(`bun driver: ${err?.message ?? "no result written"}\n${stderr}`));
      resolve({ runtime: doc.runtime, steps: Object.fromEntries((doc.steps as Step[]).map((s) => [s.name, s])) });
    });
  });
}

function succeeded(step: Step): Step {
  expect(step.error, `${step.name}: ${step.error}`).to.equal(undefined);
  expect(step.events.length, `${step.name}: events`).to.be.greaterThan(0);
  return step;
}

/** Diagnostics above info: what would trouble a user. */
function troubles(step: Step): Record<string, any>[] {
  return step.events.filter((e) => e.diagnosticEvent && !["debug", "info"].includes(e.diagnosticEvent.severity)).map((e) => e.diagnosticEvent);
}

describe("end to end (Bun): a TypeScript program run by Bun uses a declared Node provider through DeclaredResource", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;
  let project: Project;
  let runtime: Record<string, string | null>;
  let steps: Record<string, Step>;

  before(async function () {
    prepareEngine();
    expect(fs.existsSync(BUN), `${BUN}: run scripts/setup.sh --tests`).to.equal(true);
    sb = sandbox("e2e-bun-declared");
    project = makeProject();
    ({ runtime, steps } = await driveUnderBun(sb, project));
    expect(Object.keys(steps)).to.deep.equal(["up", "up-again", "refresh", "up-change", "destroy"]);
  });
  after(function () {
    sb?.cleanup();
    if (project) fs.rmSync(project.dir, { recursive: true, force: true });
  });

  it("Bun ran the program", function () {
    expect(runtime.bun, "process.versions.bun in the driver").to.be.a("string").and.match(/^\d+\.\d+\.\d+$/);
  });

  it("up creates the file with our Node plugin; the state holds the inputs and the provider's outputs, no __provider", function () {
    const up = succeeded(steps.up);
    expect(up.summary!.resourceChanges).to.deep.equal({ create: 2 });
    expect(troubles(up)).to.deep.equal([]);
    const motd = up.resources.motd;
    expect(motd.type).to.equal("pulumi-nodejs:dynamic/files:TextFile");
    expect(motd.id).to.equal(project.file);
    expect(motd.inputs).to.deep.equal({ path: project.file, content: "first" });
    expect(motd.outputs).to.deep.include({ path: project.file, content: "first", size: 5 });
    // Our host's entry, as the engine ran it; the Node plugin runs under its own name, so no launcher's name is passed on.
    expect(motd.outputs.ranBy).to.include({ script: OURS, launchedAs: null });
    expect(up.file).to.equal("first");
    // The program read them with output(): the stack's outputs.
    expect(up.outputs!.size.value).to.equal(5);
    expect(up.outputs!.ranBy.value).to.deep.equal(motd.outputs.ranBy);
  });

  it("no state after any step holds a __provider", function () {
    for (const step of Object.values(steps)) expect(JSON.stringify(step.resources), step.name).to.not.contain("__provider");
  });

  it("a second up changes nothing, and refresh runs the provider's read (in a new plugin process) and finds nothing changed", function () {
    expect(succeeded(steps["up-again"]).summary!.resourceChanges).to.deep.equal({ same: 2 });
    const refresh = succeeded(steps.refresh);
    expect(refresh.summary!.resourceChanges).to.deep.equal({ same: 2 });
    expect(troubles(refresh)).to.deep.equal([]);
    const read = refresh.resources.motd.outputs;
    expect(read).to.deep.include({ path: project.file, content: "first", size: 5 });
    expect(read.ranBy.script).to.equal(OURS);
    expect(read.ranBy.pid, "the state's report is the read's own").to.not.equal(steps.up.resources.motd.outputs.ranBy.pid);
  });

  it("changed content updates the file in place", function () {
    const change = succeeded(steps["up-change"]);
    expect(change.summary!.resourceChanges).to.deep.equal({ same: 1, update: 1 });
    const motd = change.resources.motd;
    expect(motd.inputs).to.deep.equal({ path: project.file, content: "second" });
    expect(motd.outputs).to.deep.include({ content: "second", size: 6 });
    expect(motd.outputs.ranBy.script).to.equal(OURS);
    expect(change.outputs!.size.value).to.equal(6);
    expect(change.file).to.equal("second");
  });

  it("destroy deletes the file", function () {
    const destroy = succeeded(steps.destroy);
    expect(destroy.summary!.resourceChanges).to.deep.equal({ delete: 2 });
    expect(destroy.resources).to.deep.equal({});
    expect(destroy.file).to.equal(null);
  });
});
