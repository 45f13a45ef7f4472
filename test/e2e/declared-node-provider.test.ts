// A Python program using a Node provider, under the real engine: the driver
// test/e2e/python-program/declared_node.py runs an Automation API inline
// program that registers pulumi-nodejs:dynamic/files:TextFile with plain
// pulumi.CustomResource, in a fresh Python project (outside the repository,
// no package.json, no node_modules) whose Pulumi.yaml declares the type as
// ./text-file#textFileProvider, a copy of test/e2e/declared-project/text-file.js.
// The engine starts the Node plugin for the type: ours serves every request
// from the declaration, through up, an up with no change, refresh, an update,
// `pulumi import` of an existing file and destroy, and writes no __provider.
//
// Beside it, the same program under Pulumi's own Node plugin, which needs the
// serialized provider in every request: its failure is recorded as its own.
// `pulumi import` runs with the harness's language stand-in (see
// test/e2e/language-stand-in.mjs), as in the other import tests.
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import { REFERENCE_NODE_PLUGIN, REPO } from "../helpers/paths.js";
import { E2E_BIN, languageStandIn, prepareEngine, prepareReferenceEngine, REFERENCE_ROOT, sandbox, type Sandbox } from "./harness.js";
import { drive, type Step } from "./python-driver.js";

const TYPE = "pulumi-nodejs:dynamic/files:TextFile";
const OURS = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;
const urn = (name: string) => `urn:pulumi:py::declared-node::${TYPE}::${name}`;

type Event = Record<string, any>;

interface DeclaredStep extends Step {
  outputs: Record<string, any>;
  file: string | null;
}

interface Project {
  dir: string;
  /** The file the program manages. */
  file: string;
  /** A file made outside Pulumi, for `pulumi import`. */
  adopted: string;
}

/** A fresh Python project in the sandbox: the declared provider's module and nothing else of Node. */
function makeProject(sb: Sandbox): Project {
  const dir = fs.mkdtempSync(path.join(sb.dir, "project-"));
  fs.copyFileSync(`${REPO}test/e2e/declared-project/text-file.js`, path.join(dir, "text-file.js"));
  const adopted = path.join(dir, "adopted.txt");
  fs.writeFileSync(adopted, "made outside pulumi");
  return { dir, file: path.join(dir, "motd.txt"), adopted };
}

async function driveDeclared(sb: Sandbox, project: Project, scenario: string, root?: string): Promise<Record<string, DeclaredStep>> {
  const extra = { work_dir: project.dir, file: project.file, adopted: project.adopted };
  return (await drive(sb, scenario, "runtime-options", { driver: "declared_node.py", extra, root })) as Record<string, DeclaredStep>;
}

function succeeded(step: DeclaredStep): DeclaredStep {
  expect(step.error, `${step.name}: ${step.error?.message}`).to.equal(undefined);
  expect(step.events.length, `${step.name}: events`).to.be.greaterThan(0);
  return step;
}

/** Diagnostics above info: what would trouble a user. */
function troubles(step: Step): Event[] {
  return step.events.filter((e) => e.diagnostic_event && !["debug", "info"].includes(e.diagnostic_event.severity)).map((e) => e.diagnostic_event);
}

/** The provider's report that our Node plugin ran it, as the engine launched it. */
function expectOurs(ranBy: any) {
  expect(ranBy.script, "the script our plugin's process runs").to.equal(OURS);
  // The Node plugin runs under its own name: no launcher's name is passed on (src/cli/main.ts removes it).
  expect(ranBy.launchedAs).to.equal(null);
}

describe("end to end: a Python program uses a Node provider declared in Pulumi.yaml", function () {
  this.timeout(10 * 60 * 1000);

  describe("under our Node plugin: up, up again, refresh, update, pulumi import, destroy", function () {
    let sb: Sandbox;
    let project: Project;
    let ops: Record<string, DeclaredStep>;

    before(async function () {
      prepareEngine();
      sb = sandbox("e2e-declared-node");
      sb.env.PATH = `${languageStandIn()}:${sb.env.PATH}`;
      project = makeProject(sb);
      expect(fs.existsSync(path.join(project.dir, "node_modules"))).to.equal(false);
      ops = await driveDeclared(sb, project, "lifecycle");
      expect(Object.keys(ops)).to.deep.equal(["up", "up-again", "refresh", "up-change", "import", "destroy"]);
    });
    after(function () {
      sb?.cleanup();
    });

    it("up creates the file: the state holds the program's inputs and the Node provider's outputs, and the program reads them", function () {
      const up = succeeded(ops.up);
      expect(up.summary!.resource_changes).to.deep.equal({ create: 2 });
      expect(troubles(up)).to.deep.equal([]);
      const motd = up.resources.motd;
      expect([motd.urn, motd.id]).to.deep.equal([urn("motd"), project.file]);
      // The outputs registered as None are not sent as inputs.
      expect(motd.inputs).to.deep.equal({ path: project.file, content: "first" });
      expect(motd.outputs).to.deep.include({ path: project.file, content: "first", size: 5 });
      expectOurs(motd.outputs.ranBy);
      expect(up.file).to.equal("first");
      // The Python program's Outputs resolved to the Node provider's values.
      expect(up.outputs.size).to.equal(5);
      // (The Python SDK drops the None of launchedAs from the exported dict.)
      expect(up.outputs.ranBy).to.deep.equal({ script: OURS, pid: motd.outputs.ranBy.pid });
    });

    it("no state after any step holds a __provider", function () {
      for (const step of Object.values(ops)) expect(JSON.stringify(step.resources), step.name).to.not.contain("__provider");
    });

    it("a second up changes nothing; refresh runs the provider's read and finds no change", function () {
      expect(succeeded(ops["up-again"]).summary!.resource_changes).to.deep.equal({ same: 2 });
      // The driver refreshes with expect_no_changes: a change would be its error.
      const refresh = succeeded(ops.refresh);
      expect(refresh.summary!.resource_changes).to.deep.equal({ same: 2 });
      const read = refresh.resources.motd.outputs;
      expect(read).to.deep.include({ path: project.file, content: "first", size: 5 });
      expectOurs(read.ranBy);
      expect(read.ranBy.pid, "the state's report is the read's own").to.not.equal(ops.up.resources.motd.outputs.ranBy.pid);
    });

    it("changed content updates the file in place", function () {
      const change = succeeded(ops["up-change"]);
      expect(change.summary!.resource_changes).to.deep.equal({ same: 1, update: 1 });
      const motd = change.resources.motd;
      expect(motd.inputs).to.deep.equal({ path: project.file, content: "second" });
      expect(motd.outputs).to.deep.include({ content: "second", size: 6 });
      expectOurs(motd.outputs.ranBy);
      expect([change.file, change.outputs.size]).to.deep.equal(["second", 6]);
    });

    it("pulumi import of an existing file reads it with the declared provider into the state", function () {
      const cli = ops.import.cli!;
      expect(cli.code, cli.stdout + cli.stderr).to.equal(0);
      expect(cli.stdout).to.not.match(/error:/);
      const adopted = ops.import.resources.adopted;
      expect([adopted.urn, adopted.id]).to.deep.equal([urn("adopted"), project.adopted]);
      expect(adopted.inputs).to.deep.equal({ path: project.adopted, content: "made outside pulumi" });
      expect(adopted.outputs).to.deep.include({ path: project.adopted, content: "made outside pulumi", size: 19 });
      expectOurs(adopted.outputs.ranBy);
      expect(ops.import.resources.motd.outputs.content, "the program's resource untouched").to.equal("second");
    });

    it("destroy deletes both files", function () {
      const destroy = succeeded(ops.destroy);
      expect(destroy.summary!.resource_changes).to.deep.equal({ delete: 3 });
      expect(destroy.resources).to.deep.equal({});
      expect(destroy.file).to.equal(null);
      expect(fs.existsSync(project.adopted)).to.equal(false);
    });
  });

  describe("under Pulumi's own Node plugin (recorded beside ours)", function () {
    let sb: Sandbox;
    let project: Project;
    let up: DeclaredStep;

    before(async function () {
      const root = prepareReferenceEngine();
      sb = sandbox("e2e-declared-node-reference");
      project = makeProject(sb);
      ({ up } = await driveDeclared(sb, project, "up", root));
    });
    after(function () {
      sb?.cleanup();
    });

    it("cannot serve a request without __provider: the up fails under the resource with its own error, and nothing is created", function () {
      expect(up.error, "the up should fail").to.not.equal(undefined);
      const errors = troubles(up).filter((d) => d.severity === "error" && d.urn === urn("motd"));
      expect(errors, JSON.stringify(troubles(up))).to.have.length(1);
      // Its Check hands the missing __provider, undefined, to the module loader of the serialized code.
      expect(errors[0].message).to.equal("code must be a string, not undefined\n");
      // Pulumi's plugin, not ours: it prints the stack of its own Check to stderr, which the engine shows.
      const printed = troubles(up).filter((d) => d.severity === "info#err").map((d) => d.message).join("");
      expect(printed).to.match(/at getProvider \(\S*\/dynamic-provider\/index\.ts:\d+:\d+\)/);
      expect(printed).to.match(/at ResourceProviderService\.check \(\S*\/dynamic-provider\/index\.ts:\d+:\d+\)/);
      expect(fs.readFileSync(REFERENCE_ROOT + "/bin/pulumi-resource-pulumi-nodejs", "utf8")).to.contain(REFERENCE_NODE_PLUGIN);
      expect(up.resources).to.deep.equal({});
      expect(up.file).to.equal(null);
    });
  });
});
