// A provider package (docs/provider-packages.md) used by a YAML program under
// the real engine and Pulumi YAML's real language host (scripts/go-program.sh
// yaml-host), through the engine's own parameterization: the project holds
// nothing of the provider (no code, no declarations, no links) until
// `pulumi package add <our Node plugin> <folder>` calls Parameterize with the
// folder, takes the package's schema and writes the SDK (for YAML, a lock file
// holding the parameter value) and the Pulumi.yaml `packages:` entry. Every
// later run restores the package from that value: up, an unchanged up,
// refresh, an update, `pulumi import` and destroy, with the state holding the
// package's own type names and no `__provider`. The package's provider requires a
// dependency from its own node_modules, which the project does not have, and
// reports which plugin ran it. A new version of the package is taken by
// adding it again (its old provider in the state, naming the version the
// folder no longer holds, is refused with the command that fixes it until
// then); a package moved away from where it was added is refused the same way.
// A Python package goes through the same lifecycle with our Python plugin, in
// the consuming project's Python, its modules imported from its own folder.
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import { FIXTURES, TEST_VENV } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, placeYamlHost, sandbox, type Sandbox } from "./harness.js";
import { pulumiIn } from "./package-consumer.js";

const STACK = "dev";
const OUR_NODE = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;
const OUR_PYTHON = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const TEXT_FILE = "files:index:TextFile";

function program(content: string): string {
  return `name: package-consumer
runtime: yaml
resources:
  notes:
    type: ${TEXT_FILE}
    properties:
      path: \${pulumi.cwd}/notes.txt
      ${content}
outputs:
  fileSize: \${notes.size}
  banner: \${notes.banner}
  ranBy: \${notes.ranBy}
`;
}

describe("end to end (YAML): a Node provider package added with `pulumi package add`, served through Parameterize", function () {
  this.timeout(15 * 60 * 1000);
  let sb: Sandbox;
  let root: string;
  let consumer: string;
  let pkgDir: string;

  const cli = (args: string[], cwd = consumer) => pulumiIn(sb).cli(args, cwd);
  const ok = (args: string[], cwd = consumer) => pulumiIn(sb).ok(args, cwd);

  before(function () {
    placeYamlHost();
    sb = sandbox("e2e-provider-packages");
    fs.mkdirSync(`${E2E_ROOT}/projects`, { recursive: true });
    root = fs.mkdtempSync(`${E2E_ROOT}/projects/provider-packages-`);
    // The package, where a team keeps it: a folder beside the consuming project, with its dependency
    // installed in its own node_modules (as npm install would put it).
    pkgDir = path.join(root, "packages", "files");
    fs.cpSync(`${FIXTURES}provider-packages/files-node`, pkgDir, { recursive: true });
    const dep = path.join(pkgDir, "node_modules", "acme-banner");
    fs.mkdirSync(dep, { recursive: true });
    fs.writeFileSync(path.join(dep, "package.json"), `{ "name": "acme-banner", "version": "1.0.0", "main": "index.js" }\n`);
    fs.writeFileSync(path.join(dep, "index.js"), `module.exports = () => "from acme-banner, in the package's node_modules";\n`);
    // The consuming project: a program and nothing else.
    consumer = path.join(root, "consumer");
    fs.mkdirSync(consumer);
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), program("content: hello"));
  });
  after(function () {
    sb?.cleanup();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  async function resources(): Promise<Record<string, any>> {
    const text = await ok(["stack", "export", "--stack", STACK]);
    expect(text).to.not.contain("__provider");
    const out: Record<string, any> = {};
    for (const r of JSON.parse(text).deployment.resources ?? []) out[r.urn.split("::").pop()] = r;
    return out;
  }
  const outputs = async () => JSON.parse((await cli(["stack", "output", "--json", "--stack", STACK])).stdout);

  it("pulumi package add <our Node plugin> <folder>: Parameterize names the package, and Pulumi.yaml and the YAML SDK record it", async function () {
    const said = await ok(["package", "add", OUR_NODE, "../packages/files"]);
    expect(said).to.contain("Added package files");
    const project = fs.readFileSync(path.join(consumer, "Pulumi.yaml"), "utf8");
    expect(project).to.match(/packages:\n\s+files:\n/);
    expect(project).to.match(/source: pulumi-nodejs\n/);
    expect(project).to.match(/parameters:\n\s+- \.\.\/packages\/files\n/);
    const lock = fs.readFileSync(path.join(consumer, "sdks", "files", "files-1.2.0.yaml"), "utf8");
    expect(lock).to.match(/name: pulumi-nodejs\n/);
    const value = /value: (\S+)/.exec(lock)![1];
    expect(JSON.parse(Buffer.from(value, "base64").toString())).to.deep.equal({
      "pulumi-dynamic-host": 1,
      source: { kind: "folder", path: "../packages/files" },
      name: "files",
      version: "1.2.0",
    });
  });

  let first: Record<string, any>;

  it("up creates the package's resource, run by our Node plugin from the package's folder", async function () {
    await ok(["stack", "init", STACK]);
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    const out = await outputs();
    expect(out.fileSize).to.equal(5);
    expect(out.banner, "the provider's require() resolved from the package's node_modules").to.equal("from acme-banner, in the package's node_modules");
    expect(out.ranBy.script).to.equal(OUR_NODE);
    expect(fs.readFileSync(path.join(consumer, "notes.txt"), "utf8")).to.equal("hello");
    first = await resources();
    expect(first.notes.type).to.equal(TEXT_FILE);
    expect(first.notes.inputs).to.deep.equal({ path: path.join(consumer, "notes.txt"), content: "hello" });
    // The package's default provider: the base plugin's name and the package's version and parameter.
    const provider = first.default_1_2_0;
    expect(provider.type).to.equal("pulumi:providers:files");
    expect(provider.inputs.version).to.equal("1.2.0");
    expect(provider.inputs.__internal.name).to.equal("pulumi-nodejs");
  });

  it("a second up changes nothing, and refresh reads it and changes nothing (--expect-no-changes)", async function () {
    await ok(["up", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
    await ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
    const state = await resources();
    expect(state.notes.outputs.ranBy.pid, "the provider's read ran").to.not.equal(first.notes.outputs.ranBy.pid);
  });

  it("an update runs the package's update", async function () {
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), fs.readFileSync(path.join(consumer, "Pulumi.yaml"), "utf8").replace("content: hello", "content: hello again"));
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    expect((await outputs()).fileSize).to.equal(11);
    expect(fs.readFileSync(path.join(consumer, "notes.txt"), "utf8")).to.equal("hello again");
  });

  it("a new version of the package: its old provider in the state is refused until it is added again, then up moves the resource to it", async function () {
    const manifest = path.join(pkgDir, "package.json");
    fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replace('"version": "1.2.0"', '"version": "1.3.0"'));
    // The state's provider names 1.2.0, which the folder no longer holds.
    const refresh = await cli(["refresh", "--yes", "--skip-preview", "--stack", STACK]);
    expect(refresh.code).to.not.equal(0);
    expect(refresh.stdout + refresh.stderr).to.contain(
      `the project uses files 1.2.0, added from ${pkgDir}, and that folder now holds files 1.3.0; to use it, add it again`,
    );
    await ok(["package", "add", OUR_NODE, "../packages/files"]);
    expect(fs.readdirSync(path.join(consumer, "sdks", "files"))).to.deep.equal(["files-1.3.0.yaml"]);
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    const state = await resources();
    expect(state.notes.provider).to.match(/::pulumi:providers:files::default_1_3_0::/);
    expect(state.default_1_2_0, "the old provider is gone, deleted without being loaded").to.equal(undefined);
    expect(state.notes.outputs.content).to.equal("hello again");
    await ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
  });

  it("pulumi import adopts an existing file through the package's provider; the YAML it writes comes from the package's schema", async function () {
    fs.writeFileSync(path.join(consumer, "found.txt"), "found");
    const said = await ok(["import", TEXT_FILE, "found", path.join(consumer, "found.txt"), "--yes", "--protect=false", "--stack", STACK]);
    expect(said).to.match(/type: files:(index:)?TextFile/);
    expect(said).to.match(/content: found/);
    const state = await resources();
    expect(state.found.type).to.equal(TEXT_FILE);
    expect(state.found.inputs).to.deep.equal({ path: path.join(consumer, "found.txt"), content: "found" });
    expect(state.found.provider).to.match(/::pulumi:providers:files::default_1_3_0::/);
  });

  it("destroy deletes them through the package", async function () {
    await ok(["destroy", "--yes", "--skip-preview", "--stack", STACK]);
    expect(Object.values(await resources()).filter((r) => r.type === TEXT_FILE)).to.deep.equal([]);
    expect(fs.existsSync(path.join(consumer, "notes.txt"))).to.equal(false);
    expect(fs.existsSync(path.join(consumer, "found.txt"))).to.equal(false);
  });

  it("a package moved from where it was added is refused, naming the folder and the command that fixes it", async function () {
    fs.renameSync(pkgDir, `${pkgDir}-moved`);
    try {
      const res = await cli(["preview", "--stack", STACK]);
      expect(res.code).to.not.equal(0);
      const said = res.stdout + res.stderr;
      expect(said).to.contain(`the folder "../packages/files" the project added files 1.3.0 from is not a folder: ${pkgDir} does not exist`);
      expect(said).to.contain(`add it again from where it is now: pulumi package add "$(dirname "$(command -v pulumi)")/pulumi-resource-pulumi-nodejs" <folder of files>`);
    } finally {
      fs.renameSync(`${pkgDir}-moved`, pkgDir);
    }
  });
});

describe("end to end (YAML): a Python provider package added with `pulumi package add`, served through Parameterize", function () {
  this.timeout(15 * 60 * 1000);
  const COUNTER = "counters:index:Counter";
  let sb: Sandbox;
  let root: string;
  let consumer: string;
  let pkgDir: string;
  const cli = (args: string[]) => pulumiIn(sb).cli(args, consumer);
  const ok = (args: string[]) => pulumiIn(sb).ok(args, consumer);
  const counterProgram = (props: string) => `name: counter-consumer
runtime: yaml
resources:
  visits:
    type: ${COUNTER}
    properties:
      ${props}
outputs:
  value: \${visits.value}
  ranBy: \${visits.ranBy}
`;

  before(function () {
    placeYamlHost();
    sb = sandbox("e2e-provider-packages-python");
    fs.mkdirSync(`${E2E_ROOT}/projects`, { recursive: true });
    root = fs.mkdtempSync(`${E2E_ROOT}/projects/provider-packages-python-`);
    pkgDir = path.join(root, "packages", "counters");
    fs.cpSync(`${FIXTURES}provider-packages/counters-python`, pkgDir, { recursive: true });
    // The consuming project: a program, and the Python it runs Python providers in (a .venv beside
    // Pulumi.yaml, as for any YAML project with Python providers: docs/every-language.md), which has
    // pulumi but nothing of the package.
    consumer = path.join(root, "consumer");
    fs.mkdirSync(consumer);
    fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(consumer, ".venv"));
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), counterProgram("start: 3"));
  });
  after(function () {
    sb?.cleanup();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  async function resources(): Promise<Record<string, any>> {
    const text = await ok(["stack", "export", "--stack", STACK]);
    expect(text).to.not.contain("__provider");
    const out: Record<string, any> = {};
    for (const r of JSON.parse(text).deployment.resources ?? []) out[r.urn.split("::").pop()] = r;
    return out;
  }
  const outputs = async () => JSON.parse((await cli(["stack", "output", "--json", "--stack", STACK])).stdout);

  it("pulumi package add <our Python plugin> <folder>, then up: run by our Python plugin, its modules imported from the package's folder", async function () {
    expect(await ok(["package", "add", OUR_PYTHON, "../packages/counters"])).to.contain("Added package counters");
    expect(fs.readFileSync(path.join(consumer, "Pulumi.yaml"), "utf8")).to.match(/source: pulumi-python\n/);
    expect(fs.existsSync(path.join(consumer, "sdks", "counters", "counters-0.3.0.yaml"))).to.equal(true);
    await ok(["stack", "init", STACK]);
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    const out = await outputs();
    expect(out.value).to.equal(3);
    expect(out.ranBy.launchedAs, "the plugin that started the worker").to.equal(OUR_PYTHON);
    expect(out.ranBy.module).to.equal(path.join(pkgDir, "acme_counters", "provider.py"));
    expect(fs.realpathSync(out.ranBy.python)).to.equal(fs.realpathSync(path.join(consumer, ".venv", "bin", "python")));
    const state = await resources();
    expect(state.visits.type).to.equal(COUNTER);
    expect(state.default_0_3_0.type).to.equal("pulumi:providers:counters");
  });

  it("a second up and a refresh change nothing; an update runs the package's update; destroy deletes it", async function () {
    await ok(["up", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
    await ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), counterProgram("start: 3\n      step: 2"));
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    expect((await outputs()).value, "update ran advanced() of the package's steps module").to.equal(5);
    await ok(["destroy", "--yes", "--skip-preview", "--stack", STACK]);
    expect(Object.values(await resources()).filter((r) => r.type === COUNTER)).to.deep.equal([]);
  });
});
