// Declared types from a Pulumi YAML program, under the real engine and Pulumi
// YAML's real language host (built from the Go module proxy by
// scripts/go-program.sh yaml-host): the project's Pulumi.yaml declares a Node and a
// Python provider with their property types; YAML loads the package schemas
// from our plugins' GetSchema, type-checks the program against them, and runs
// it through up, an up and a refresh that change nothing, an update,
// `pulumi import` (whose generated YAML comes from the schema too) and
// destroy. A typo'd property and a value of the wrong type are refused by
// YAML's type checker before anything is created. The schemas our plugins
// answer bind without errors in Pulumi's own schema binder (schema-tool,
// scripts/go-program.sh schema-tool).
//
// The providers report who ran them (test/e2e/declared-project): the Node one
// the script its process runs (our Node plugin), the Python one the plugin
// that started its worker (our Python plugin's launcher).
import { expect } from "chai";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO, TEST_VENV } from "../helpers/paths.js";
import { COUNTER, TEXT_FILE, TYPED_DECLARATIONS } from "./declared-project/typed.js";
import { E2E_BIN, E2E_ROOT, OUR_ENTRY, prepareEngine, sandbox, type Sandbox } from "./harness.js";

const STACK = "dev";
const OUR_NODE = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;
const OUR_PYTHON = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const FIXTURES = `${REPO}test/e2e/declared-project`;

function program(content: string, start: string, extra = ""): string {
  return `name: yaml-declared
runtime: yaml
${TYPED_DECLARATIONS}
resources:
  notes:
    type: ${TEXT_FILE}
    properties:
      path: \${pulumi.cwd}/data/notes.txt
      ${content}
  visits:
    type: ${COUNTER}
    properties:
      ${start}
${extra}
outputs:
  fileSize: \${notes.size}
  fileRanBy: \${notes.ranBy}
  counterValue: \${visits.value}
  counterRanBy: \${visits.ranBy}
`;
}

function build(script: string, ...args: string[]): string {
  const out = execFileSync("bash", [`${REPO}scripts/${script}`, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return out.trim().split("\n").pop()!;
}

/**
 * A YAML project in a sandbox, as both suites set it up: the engine with
 * Pulumi YAML's language host next to pulumi (as an installed CLI has it, so no
 * "using … from $PATH" warning), the declared-project fixtures, a .venv beside
 * Pulumi.yaml for the Python providers (docs/every-language.md), and the CLI run
 * in it.
 */
class YamlProject {
  readonly sb: Sandbox;
  readonly dir: string;
  readonly schemaTool: string;

  constructor(prefix: string, pulumiYaml: string) {
    prepareEngine();
    const yamlHost = build("go-program.sh", "yaml-host", "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml");
    fs.rmSync(`${E2E_BIN}/pulumi-language-yaml`, { force: true });
    fs.copyFileSync(yamlHost, `${E2E_BIN}/pulumi-language-yaml`);
    fs.chmodSync(`${E2E_BIN}/pulumi-language-yaml`, 0o755);
    this.schemaTool = build("go-program.sh", "schema-tool");
    this.sb = sandbox(`e2e-${prefix}`);
    fs.mkdirSync(`${E2E_ROOT}/projects`, { recursive: true });
    this.dir = fs.mkdtempSync(`${E2E_ROOT}/projects/${prefix}-`);
    for (const f of ["text-file.js", "counters.py"]) fs.copyFileSync(path.join(FIXTURES, f), path.join(this.dir, f));
    // A package boundary of its own keeps text-file.js CommonJS (this repository's package.json says "type": "module").
    fs.writeFileSync(path.join(this.dir, "package.json"), `{ "private": true }\n`);
    fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(this.dir, ".venv"));
    fs.mkdirSync(path.join(this.dir, "data"));
    fs.writeFileSync(path.join(this.dir, "Pulumi.yaml"), pulumiYaml);
  }

  cleanup(): void {
    this.sb.cleanup();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  cli(args: string[], cwd = this.dir): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = { ...process.env, ...this.sb.env };
    return new Promise((resolve) => {
      execFile(`${E2E_BIN}/pulumi`, args, { cwd, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  /** The CLI's stdout; it must succeed with no warning of any kind. */
  async ok(args: string[], cwd = this.dir): Promise<string> {
    const res = await this.cli(args, cwd);
    expect(res.code, `pulumi ${args.join(" ")}:\n${res.stdout}\n${res.stderr}`).to.equal(0);
    expect(res.stdout + res.stderr, `pulumi ${args.join(" ")}`).to.not.match(/warning:/);
    return res.stdout;
  }

  /** The schema `pulumi package get-schema <plugin>` answers, bound by Pulumi's binder (schema-tool). */
  async boundSchema(plugin: string): Promise<any> {
    // By the plugin's path: by name, the CLI asks Pulumi's registry, which does not know these packages.
    const text = await this.ok(["package", "get-schema", plugin]);
    const file = path.join(this.sb.dir, `${path.basename(plugin)}.json`);
    fs.writeFileSync(file, text);
    expect(execFileSync(this.schemaTool, ["bind", file], { encoding: "utf8" })).to.contain("bound without errors");
    return JSON.parse(text);
  }
}

describe("end to end (YAML): declared Node and Python providers, typed by their declarations, through the whole lifecycle", function () {
  this.timeout(15 * 60 * 1000);
  let project: YamlProject;
  let dir: string;
  const file = (name: string) => path.join(dir, "data", name);
  const cli = (args: string[], cwd?: string) => project.cli(args, cwd);
  const ok = (args: string[], cwd?: string) => project.ok(args, cwd);

  before(function () {
    project = new YamlProject("yaml-declared", program("content: hello", "start: 3"));
    dir = project.dir;
  });
  after(() => project?.cleanup());

  /** The stack's dynamic resources by name; no __provider anywhere, each written by our plugins. */
  async function exported(stack = STACK): Promise<Record<string, any>> {
    const text = await ok(["stack", "export", "--stack", stack]);
    expect(text).to.not.contain("__provider");
    const out: Record<string, any> = {};
    for (const r of JSON.parse(text).deployment.resources ?? []) {
      if (r.type === TEXT_FILE) expect(r.outputs.ranBy.script, `${r.urn}: the Node plugin that ran it`).to.equal(OUR_NODE);
      if (r.type === COUNTER) expect(r.outputs.ranBy.launchedAs, `${r.urn}: the Python plugin that ran it`).to.equal(OUR_PYTHON);
      if (r.type === TEXT_FILE || r.type === COUNTER) out[r.urn.split("::").pop()] = r;
    }
    return out;
  }

  const outputs = async () => JSON.parse(await ok(["stack", "output", "--json", "--stack", STACK]));

  let first: Record<string, any>;

  it("each plugin's GetSchema answers its package's schema (pulumi package get-schema), which Pulumi's binder binds", async function () {
    for (const [pkg, token, plugin] of [["pulumi-nodejs", TEXT_FILE, OUR_NODE], ["pulumi-python", COUNTER, OUR_PYTHON]] as const) {
      const schema = await project.boundSchema(plugin);
      expect(schema.name).to.equal(pkg);
      expect(Object.keys(schema.resources)).to.deep.equal([token]);
      // The command for people prints the same schema without an engine.
      const printed = execFileSync(OUR_ENTRY, ["schema", "--package", pkg], { cwd: dir, encoding: "utf8" });
      expect(JSON.parse(printed).resources).to.deep.equal(schema.resources);
    }
  });

  it("a typo'd property and a value of the wrong type are refused by YAML's type checker, before anything is created", async function () {
    const bad = path.join(dir, "typos");
    fs.mkdirSync(bad);
    for (const f of ["text-file.js", "counters.py", "package.json", ".venv"]) fs.cpSync(path.join(dir, f), path.join(bad, f), { verbatimSymlinks: true });
    fs.writeFileSync(path.join(bad, "Pulumi.yaml"), program("contnet: hello", "start: three").replace("name: yaml-declared", "name: yaml-typos"));
    await ok(["stack", "init", "typos"], bad);
    const res = await cli(["up", "--yes", "--skip-preview", "--stack", "typos"], bad);
    expect(res.code).to.not.equal(0);
    const said = res.stdout + res.stderr;
    expect(said).to.contain(`${TEXT_FILE} is not assignable from {path: string, contnet: string}`);
    expect(said).to.contain("content: Missing required property 'content'");
    expect(said).to.contain(`${COUNTER} is not assignable from {start: string}`);
    expect(said).to.contain("start: Cannot assign type 'string' to type 'integer'");
    expect(fs.existsSync(path.join(bad, "data", "notes.txt"))).to.equal(false);
    const state = JSON.parse(await ok(["stack", "export", "--stack", "typos"], bad));
    expect((state.deployment.resources ?? []).filter((r: any) => r.type === TEXT_FILE || r.type === COUNTER)).to.deep.equal([]);
  });

  it("up creates both from their declarations; the program reads their outputs in ${…}", async function () {
    await ok(["stack", "init", STACK]);
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    const out = await outputs();
    expect(out).to.deep.include({ fileSize: 5, counterValue: 3 });
    expect(out.fileRanBy.script).to.equal(OUR_NODE);
    expect(out.counterRanBy.launchedAs).to.equal(OUR_PYTHON);
    expect(fs.readFileSync(file("notes.txt"), "utf8")).to.equal("hello");
    first = await exported();
    expect(first.notes.inputs).to.deep.equal({ path: file("notes.txt"), content: "hello" });
    expect(first.visits.inputs).to.deep.equal({ start: 3 });
  });

  it("a second up with the same program changes nothing (--expect-no-changes)", async function () {
    await ok(["up", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
    const state = await exported();
    expect(state.notes.outputs).to.deep.equal(first.notes.outputs);
    expect(state.visits.outputs).to.deep.equal(first.visits.outputs);
  });

  it("refresh reads both and changes nothing (--expect-no-changes)", async function () {
    await ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
    const state = await exported();
    expect(state.notes.outputs.ranBy.pid, "the Node provider's read ran").to.not.equal(first.notes.outputs.ranBy.pid);
    expect(state.visits.outputs.ranBy.pid, "the Python provider's read ran").to.not.equal(first.visits.outputs.ranBy.pid);
  });

  it("an update of both runs their update", async function () {
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), program("content: hello again", "start: 3\n      step: 2"));
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    expect(await outputs()).to.deep.include({ fileSize: 11, counterValue: 5 });
    expect(fs.readFileSync(file("notes.txt"), "utf8")).to.equal("hello again");
    const state = await exported();
    expect(state.visits.inputs).to.deep.equal({ start: 3, step: 2 });
  });

  it("pulumi import adopts an existing file and counter; the YAML it writes comes from the schema", async function () {
    fs.writeFileSync(file("found.txt"), "found");
    const node = await ok(["import", TEXT_FILE, "found", file("found.txt"), "--yes", "--protect=false", "--stack", STACK]);
    expect(node).to.contain(`type: ${TEXT_FILE}`);
    expect(node).to.match(/content: found/);
    const python = await ok(["import", COUNTER, "seen", "counter-7", "--yes", "--protect=false", "--stack", STACK]);
    expect(python).to.contain(`type: ${COUNTER}`);
    const state = await exported();
    expect(state.found.inputs).to.deep.equal({ path: file("found.txt"), content: "found" });
    expect(state.seen.inputs).to.deep.equal({ start: 7, step: 1 });
  });

  it("destroy deletes everything, through the declarations", async function () {
    await ok(["destroy", "--yes", "--skip-preview", "--stack", STACK]);
    expect(await exported()).to.deep.equal({});
    expect(fs.existsSync(file("notes.txt"))).to.equal(false);
    expect(fs.existsSync(file("found.txt"))).to.equal(false);
  });
});

describe("end to end (YAML): packages of the project's own name (install --package), served from their declarations", function () {
  this.timeout(15 * 60 * 1000);
  let project: YamlProject;
  let dir: string;
  const PACKAGES = ["files", "counters"];
  /** Where install put each package's plugin name. */
  const placed: Record<string, string> = {};
  const ok = (args: string[]) => project.ok(args);

  before(function () {
    const own = program("content: hello", "start: 4")
      .replaceAll(TEXT_FILE, "files:index:TextFile")
      .replaceAll(COUNTER, "counters:index:Counter")
      .replace("name: yaml-declared", "name: yaml-own-package");
    project = new YamlProject("yaml-own-package", own);
    dir = project.dir;
    // As a user registers them: the host's command, for this project. It says where it put each name (beside the
    // host's own; for an npm i -g install, the prefix's bin, beside npm's links), as a symlink (`FILE -> TARGET`)
    // or a hard link or copy of the executable (`FILE: hard link of …`), then the entry it wrote.
    for (const pkg of PACKAGES) {
      const said = execFileSync(OUR_ENTRY, ["install", "--package", pkg, "--project"], { cwd: dir, encoding: "utf8" });
      placed[pkg] = said.split("\n")[0].split(/ -> |: (?:hard link|copy) of /)[0];
      expect(path.basename(placed[pkg])).to.equal(`pulumi-resource-${pkg}`);
      expect(said).to.contain(`plugins.providers`);
    }
  });
  after(function () {
    for (const pkg of PACKAGES) {
      // Out of the project, and the name out of the host's folder (for the checkout: not left in bin/).
      execFileSync(OUR_ENTRY, ["uninstall", "--package", pkg, "--project"], { cwd: dir });
      if (placed[pkg]) execFileSync(OUR_ENTRY, ["uninstall", "--package", pkg, "--dir", path.dirname(placed[pkg])]);
    }
    project?.cleanup();
  });

  async function resources(): Promise<Record<string, any>> {
    const state = JSON.parse(await ok(["stack", "export", "--stack", STACK]));
    const out: Record<string, any> = {};
    for (const r of state.deployment.resources ?? []) if (!r.type.startsWith("pulumi:")) out[r.urn.split("::").pop()] = r;
    return out;
  }

  it("each package's plugin answers its schema, named after the package, which Pulumi's binder binds", async function () {
    for (const [pkg, token] of [["files", "files:index:TextFile"], ["counters", "counters:index:Counter"]]) {
      const schema = await project.boundSchema(placed[pkg]);
      expect(schema.name).to.equal(pkg);
      expect(Object.keys(schema.resources)).to.deep.equal([token]);
    }
  });

  it("up, an unchanged up, refresh and destroy: the Node package in the host, the Python one in the project's Python", async function () {
    await ok(["stack", "init", STACK]);
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    const out = JSON.parse(await ok(["stack", "output", "--json", "--stack", STACK]));
    expect(out).to.deep.include({ fileSize: 5, counterValue: 4 });
    expect(out.fileRanBy.script, "the Node provider ran in the host run as pulumi-resource-files").to.equal(placed.files);
    expect(fs.realpathSync(out.counterRanBy.python)).to.equal(fs.realpathSync(path.join(dir, ".venv", "bin", "python")));
    const state = await resources();
    expect(Object.keys(state).sort()).to.deep.equal(["notes", "visits"]);
    expect(JSON.stringify(state)).to.not.contain("__provider");
    expect(state.notes.type).to.equal("files:index:TextFile");
    await ok(["up", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
    await ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK]);
    await ok(["destroy", "--yes", "--skip-preview", "--stack", STACK]);
    expect(await resources()).to.deep.equal({});
    expect(fs.existsSync(path.join(dir, "data", "notes.txt"))).to.equal(false);
  });

  it("a plugin of a package the project does not declare says so, and exits before any port line", function () {
    const other = path.join(project.sb.dir, "pulumi-resource-nothing");
    execFileSync(OUR_ENTRY, ["install", "--package", "nothing", "--dir", project.sb.dir]);
    let failure: any;
    try {
      execFileSync(other, ["127.0.0.1:1"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      failure = e;
    }
    expect(failure?.status).to.equal(1);
    expect(failure.stdout).to.equal("");
    expect(failure.stderr).to.equal(
      `pulumi-resource-nothing: ${path.join(dir, "Pulumi.yaml")} declares no type of the package nothing: declare its types under ` +
        `pulumi-dynamic-host.providers as nothing:<module>:<Type> (docs/schema.md)\n`,
    );
  });
});
