// Provider packages (docs/provider-packages.md) used from TypeScript, Python
// and Go programs through the SDKs Pulumi's own generators write for them,
// under the real engine. What `pulumi package add` does in a project of those
// languages is done here in its parts, since their language hosts are not
// available on this machine: the schema comes from
// `pulumi package get-schema <our plugin> <package folder>` run in the
// consuming project (Parameterize, then GetSchema, as `pulumi package add`
// asks them); the SDK from Pulumi's generators as libraries (schema-tool, the
// generators the language hosts' GeneratePackage runs); it is installed as a
// user's package manager would (the Node SDK built by its own postinstall
// with this repository's TypeScript and linked into node_modules, the Python
// SDK importable from its folder, the Go SDK replaced into the program's
// go.mod); and the programs run as Automation API inline programs, whose
// process is the language host. Each generated resource registers its package
// with the engine (RegisterPackage: our plugin as the base provider, the
// package's parameter value), and the engine runs our plugin, parameterized,
// for the package's own type names.
import { expect } from "chai";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { FIXTURES, REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { inlineStack } from "../helpers/inline-stack.js";
import { E2E_BIN, E2E_ROOT, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { generateSdk, goProgram, installNodeSdk, nodeSdkStack } from "./package-consumer.js";
import { drive } from "./python-driver.js";

const require = createRequire(import.meta.url);
const automation = require("@pulumi/pulumi/automation");

const OUR_NODE = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;
const OUR_PYTHON = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const TEXT_FILE = "files:index:TextFile";
const COUNTER = "counters:index:Counter";

type Event = Record<string, any>;

/**
 * A folder of provider packages and consuming projects: packages/files (the Node
 * fixture, with its dependency in its own node_modules, as npm install puts it)
 * and packages/counters (the Python fixture), beside which each test makes its project.
 */
function packagesRoot(prefix: string): string {
  fs.mkdirSync(`${E2E_ROOT}/projects`, { recursive: true });
  const root = fs.mkdtempSync(`${E2E_ROOT}/projects/${prefix}-`);
  const files = path.join(root, "packages", "files");
  fs.cpSync(`${FIXTURES}provider-packages/files-node`, files, { recursive: true });
  const dep = path.join(files, "node_modules", "acme-banner");
  fs.mkdirSync(dep, { recursive: true });
  fs.writeFileSync(path.join(dep, "package.json"), `{ "name": "acme-banner", "version": "1.0.0", "main": "index.js" }\n`);
  fs.writeFileSync(path.join(dep, "index.js"), `module.exports = () => "from acme-banner, in the package's node_modules";\n`);
  fs.cpSync(`${FIXTURES}provider-packages/counters-python`, path.join(root, "packages", "counters"), { recursive: true });
  return root;
}

/** The package's parameter value, decoded (docs/provider-packages.md §6). */
const decoded = (base64: string) => JSON.parse(Buffer.from(base64, "base64").toString());

/** Every resource of a deployment by name; no `__provider` anywhere in it. */
function byName(deployment: any): Record<string, any> {
  expect(JSON.stringify(deployment)).to.not.contain("__provider");
  const out: Record<string, any> = {};
  for (const r of deployment.resources ?? []) out[r.urn.split("::").pop()] = r;
  return out;
}

/** Diagnostics worse than info: none are expected in any step. */
const complaints = (events: Event[]) => events.filter((e) => e.diagnosticEvent && !["debug", "info"].includes(e.diagnosticEvent.severity)).map((e) => e.diagnosticEvent);

describe("end to end (TypeScript): a Node provider package through its generated Node SDK", function () {
  this.timeout(15 * 60 * 1000);
  const PROJECT = "package-sdks-node";
  let sb: Sandbox;
  let root: string;
  let consumer: string;
  let sdk: { schema: any; dir: string };
  let stack: any;
  let content = "hello";
  const notes = () => path.join(consumer, "notes.txt");

  before(async function () {
    prepareEngine();
    sb = sandbox("e2e-package-sdks-node");
    root = packagesRoot("package-sdks-node");
    consumer = path.join(root, "consumer");
    fs.mkdirSync(consumer);
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: nodejs\n`);
    sdk = generateSdk(sb, consumer, OUR_NODE, "files", "nodejs");
    const files = installNodeSdk(sdk.dir, consumer);
    const program = async () => {
      const file = new files.TextFile("notes", { path: notes(), content });
      return { fileSize: file.size, banner: file.banner, ranBy: file.ranBy };
    };
    stack = await nodeSdkStack(sb, consumer, PROJECT, program);
  });
  after(function () {
    sb?.cleanup();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  async function run(op: "up" | "refresh" | "destroy", opts: object = {}) {
    const events: Event[] = [];
    const result = await stack[op]({ ...opts, onEvent: (e: Event) => events.push(e) });
    expect(result.summary.result).to.equal("succeeded");
    expect(complaints(events)).to.deep.equal([]);
    return { result, events, state: byName((await stack.exportStack()).deployment) };
  }

  it("the generated SDK states the package's version and its parameterization, and was compiled", function () {
    const manifest = JSON.parse(fs.readFileSync(path.join(sdk.dir, "package.json"), "utf8"));
    expect(manifest.name, "the generator's default name (docs/provider-packages.md §3)").to.equal("@pulumi/files");
    expect(manifest.version, "a real version, not the ${VERSION} placeholder").to.equal("1.2.0");
    expect(manifest.pulumi.name).to.equal("pulumi-nodejs");
    expect(manifest.pulumi.version).to.equal(sdk.schema.parameterization.baseProvider.version);
    expect(manifest.pulumi.parameterization.name).to.equal("files");
    expect(manifest.pulumi.parameterization.version).to.equal("1.2.0");
    expect(decoded(manifest.pulumi.parameterization.value)).to.deep.include({ source: { kind: "folder", path: "../packages/files" }, name: "files", version: "1.2.0" });
    expect(fs.existsSync(path.join(sdk.dir, "bin", "textFile.js"))).to.equal(true);
  });

  let first: Record<string, any>;

  it("up creates the package's resource through the SDK, run by our Node plugin from the package's folder", async function () {
    const { result, state } = await run("up");
    expect(result.summary.resourceChanges).to.deep.equal({ create: 2 });
    expect(result.outputs.fileSize.value).to.equal(5);
    expect(result.outputs.banner.value).to.equal("from acme-banner, in the package's node_modules");
    expect(result.outputs.ranBy.value.script).to.equal(OUR_NODE);
    expect(fs.readFileSync(notes(), "utf8")).to.equal("hello");
    first = state;
    expect(state.notes.type).to.equal(TEXT_FILE);
    expect(state.notes.inputs).to.deep.equal({ path: notes(), content: "hello" });
    expect(state.notes.provider).to.match(/::pulumi:providers:files::default_1_2_0::/);
    expect(state.default_1_2_0.type).to.equal("pulumi:providers:files");
    expect(state.default_1_2_0.inputs.version).to.equal("1.2.0");
    expect(state.default_1_2_0.inputs.__internal.name).to.equal("pulumi-nodejs");
  });

  it("an unchanged up changes nothing; refresh reads it with a new plugin process and changes nothing", async function () {
    const again = await run("up");
    expect(again.result.summary.resourceChanges).to.deep.equal({ same: 2 });
    expect(again.state.notes.outputs).to.deep.equal(first.notes.outputs);
    const refreshed = await run("refresh", { expectNoChanges: true });
    expect(refreshed.state.notes.outputs.ranBy.pid, "the provider's read ran").to.not.equal(first.notes.outputs.ranBy.pid);
    expect(refreshed.state.notes.outputs.ranBy.script).to.equal(OUR_NODE);
  });

  it("an update runs the package's update", async function () {
    content = "hello again";
    const { result, events, state } = await run("up");
    const ops = events.filter((e) => e.resOutputsEvent?.metadata.type === TEXT_FILE).map((e) => e.resOutputsEvent.metadata.op);
    expect(ops).to.deep.equal(["update"]);
    expect(result.outputs.fileSize.value).to.equal(11);
    expect(fs.readFileSync(notes(), "utf8")).to.equal("hello again");
    expect(state.notes.inputs.content).to.equal("hello again");
  });

  it("destroy deletes it through the package", async function () {
    const { result, state } = await run("destroy");
    expect(result.summary.resourceChanges).to.deep.equal({ delete: 2 });
    expect(state).to.deep.equal({});
    expect(fs.existsSync(notes())).to.equal(false);
  });
});

describe("end to end (Python): a Python provider package through its generated Python SDK", function () {
  this.timeout(15 * 60 * 1000);
  let sb: Sandbox;
  let root: string;
  let consumer: string;
  let sdk: { schema: any; dir: string };
  let site: string;
  let steps: Record<string, any>;

  before(async function () {
    prepareEngine();
    sb = sandbox("e2e-package-sdks-python");
    root = packagesRoot("package-sdks-python");
    consumer = path.join(root, "consumer");
    fs.mkdirSync(consumer);
    // A Python project as `pulumi new` lays it out, its virtualenv named in Pulumi.yaml (here the test
    // virtualenv, which has the program's pulumi): the Python the package's provider runs in.
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), `name: package-sdks-python\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: venv\n`);
    fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(consumer, "venv"));
    sdk = generateSdk(sb, consumer, OUR_PYTHON, "counters", "python");
    // pip install ./sdks/counters, built from the generated setup.py; into a folder of its own, not the shared
    // test virtualenv, which already has what it requires (pulumi, semver, parver: test/python-requirements.txt).
    site = path.join(consumer, "site-packages");
    execFileSync(VENV_PYTHON, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-index", "--no-build-isolation", "--target", site, sdk.dir], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    steps = await drive(sb, "lifecycle", "runtime-options", { driver: "package_sdks.py", extra: { work_dir: consumer, sdk_path: site } });
  });
  after(function () {
    sb?.cleanup();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  const ok = (name: string) => {
    const step = steps[name];
    expect(step.error, `${name}: ${JSON.stringify(step.error)}`).to.equal(undefined);
    expect(complaints(step.events), name).to.deep.equal([]);
    expect(JSON.stringify(step.resources), `${name}: no __provider`).to.not.contain("__provider");
    return step;
  };

  it("the generated SDK states the package's version and its parameterization", function () {
    const plugin = JSON.parse(fs.readFileSync(path.join(sdk.dir, "pulumi_counters", "pulumi-plugin.json"), "utf8"));
    expect(plugin.name).to.equal("pulumi-python");
    expect(plugin.version).to.equal(sdk.schema.parameterization.baseProvider.version);
    expect(plugin.parameterization.name).to.equal("counters");
    expect(plugin.parameterization.version).to.equal("0.3.0");
    expect(decoded(plugin.parameterization.value)).to.deep.include({ source: { kind: "folder", path: "../packages/counters" }, name: "counters", version: "0.3.0" });
    expect(fs.readFileSync(path.join(sdk.dir, "setup.py"), "utf8")).to.contain('VERSION = "0.3.0"');
    expect(fs.existsSync(path.join(site, "pulumi_counters-0.3.0.dist-info")), "pip installed it as pulumi_counters 0.3.0").to.equal(true);
  });

  it("up creates the package's resource through the SDK, run by our Python plugin with the package's modules", function () {
    const up = ok("up");
    expect(up.summary.resource_changes).to.deep.equal({ create: 2 });
    expect(up.outputs.value).to.equal(3);
    expect(up.outputs.ranBy.launchedAs, "the plugin that started the worker").to.equal(OUR_PYTHON);
    expect(up.outputs.ranBy.module).to.equal(path.join(root, "packages", "counters", "acme_counters", "provider.py"));
    expect(fs.realpathSync(up.outputs.ranBy.python)).to.equal(fs.realpathSync(VENV_PYTHON));
    expect(up.resources.visits.type).to.equal(COUNTER);
    expect(up.resources.visits.provider).to.match(/::pulumi:providers:counters::default_0_3_0::/);
    expect(up.resources.default_0_3_0.type).to.equal("pulumi:providers:counters");
    expect(up.resources.default_0_3_0.inputs.version).to.equal("0.3.0");
    expect(up.resources.default_0_3_0.inputs.__internal.name).to.equal("pulumi-python");
  });

  it("an unchanged up changes nothing; refresh reads it with a new worker and changes nothing", function () {
    expect(ok("up-again").summary.resource_changes).to.deep.equal({ same: 2 });
    const refresh = ok("refresh");
    expect(refresh.resources.visits.outputs.ranBy.pid, "the provider's read ran").to.not.equal(steps.up.resources.visits.outputs.ranBy.pid);
  });

  it("an update runs the package's update; destroy deletes it", function () {
    const change = ok("up-change");
    expect(change.summary.resource_changes).to.deep.equal({ update: 1, same: 1 });
    expect(change.outputs.value, "update ran advanced() of the package's steps module").to.equal(5);
    expect(change.resources.visits.inputs).to.deep.equal({ start: 3, step: 2 });
    const destroy = ok("destroy");
    expect(destroy.summary.resource_changes).to.deep.equal({ delete: 2 });
    expect(destroy.resources).to.deep.equal({});
  });
});

describe("end to end (Go): both provider packages through their generated Go SDKs", function () {
  this.timeout(15 * 60 * 1000);
  const PROJECT = "package-sdks-go";
  let sb: Sandbox;
  let root: string;
  let consumer: string;
  let exe: string;
  const notes = () => path.join(consumer, "notes.txt");

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-package-sdks-go");
    root = packagesRoot("package-sdks-go");
    consumer = path.join(root, "consumer");
    fs.mkdirSync(consumer);
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: go\n`);
    fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(consumer, ".venv"));
    // The generator's Go module is example.com/pulumi-<name>/sdk/go, the package in its <name> folder;
    // the program's go.mod requires and replaces it, as `pulumi package add` in a Go project does.
    const pairs = (["files", "counters"] as const).map((name) => {
      const { dir } = generateSdk(sb, consumer, name === "files" ? OUR_NODE : OUR_PYTHON, name, "go");
      return `example.com/pulumi-${name}/sdk/go/${name}=${dir}/${name}`;
    });
    exe = goProgram([], { GO_PROGRAM_SDKS: pairs.join(" "), GO_PROGRAM_TAG: "packagesdk" });
  });
  after(function () {
    sb?.cleanup();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  /** One operation of the Go driver (test/e2e/go-program/main.go); the driver itself gets none of the caller's Pulumi settings. */
  function runGo(operation: object): Promise<any> {
    const settings = { root: E2E_ROOT, workDir: consumer, project: PROJECT, stack: "dev", home: sb.home, env: sb.env, operations: [operation] };
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_")));
    return new Promise((resolve, reject) => {
      execFile(exe, [JSON.stringify(settings)], { cwd: consumer, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
        try {
          if (err) throw new Error(`go driver: ${err.message}\n${stderr}`);
          const doc = JSON.parse(stdout);
          if (doc.driverError) throw new Error(`go driver: ${doc.driverError}`);
          const [step] = doc.steps;
          expect(step.error, `${JSON.stringify(operation)}: ${stderr}`).to.equal(undefined);
          expect(complaints(step.events)).to.deep.equal([]);
          resolve(step);
        } catch (e) {
          reject(e);
        }
      });
    });
  }

  function exported(): Record<string, any> {
    const text = execFileSync(`${E2E_BIN}/pulumi`, ["stack", "export", "--stack", "dev"], { cwd: consumer, env: { ...process.env, ...sb.env }, encoding: "utf8" });
    return byName(JSON.parse(text).deployment);
  }

  it("up creates both packages' resources through the SDKs, each run by our plugin of its language", async function () {
    const step = await runGo({ name: "up", op: "up", inputs: { path: notes(), content: "hello", start: 3 } });
    expect(step.summary.resourceChanges).to.deep.equal({ create: 3 });
    expect(step.outputs).to.deep.include({ fileId: notes(), fileSize: 5, counterId: "counter-3", counterValue: 3 });
    expect(step.outputs.fileRanBy.script).to.equal(OUR_NODE);
    expect(step.outputs.counterRanBy.launchedAs).to.equal(OUR_PYTHON);
    expect(fs.readFileSync(notes(), "utf8")).to.equal("hello");
    const state = exported();
    expect([state.notes.type, state.visits.type]).to.deep.equal([TEXT_FILE, COUNTER]);
    expect(state.notes.provider).to.match(/::pulumi:providers:files::default_1_2_0::/);
    expect(state.visits.provider).to.match(/::pulumi:providers:counters::default_0_3_0::/);
    expect(state.default_1_2_0.inputs.__internal.name).to.equal("pulumi-nodejs");
    expect(state.default_0_3_0.inputs.__internal.name).to.equal("pulumi-python");
  });

  it("destroy deletes both through the packages", async function () {
    const step = await runGo({ name: "destroy", op: "destroy" });
    expect(step.summary.resourceChanges).to.deep.equal({ delete: 3 });
    expect(fs.existsSync(notes())).to.equal(false);
    expect(exported()).to.deep.equal({});
  });
});
