// Provider packages (src/host/packages, docs/provider-packages.md) without an
// engine: what a package folder is, Parameterize's two forms (the folder
// `pulumi package add` names, and the value restored on later runs), the
// packages one process serves, and what the core then does with them: the
// parameterized schema, and a request of the package's types served from its
// declarations with its folder as the place its code resolves from.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DynamicCore } from "../../src/host/core.js";
import { BadRequestError } from "../../src/host/errors.js";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { decodeValue, encodeValue, ParameterError, sourceOfArgs } from "../../src/host/packages/parameters.js";
import { isSemver, PackageError, pythonDependencies, readProviderPackage } from "../../src/host/packages/provider-package.js";
import { ServedPackages } from "../../src/host/packages/served-packages.js";
import { NODEJS, PYTHON } from "../../src/host/plugin/modes.js";
import type { ProviderReference } from "../../src/host/references/provider-references.js";
import type { Bag, CallInfo, DynamicRuntime, ProviderSource } from "../../src/host/runtime.js";
import { jsToStruct } from "../../src/host/wire/wire.js";
import { FIXTURES } from "../helpers/paths.js";

const FILES_NODE = `${FIXTURES}provider-packages/files-node`;
const NODE_PLUGIN = { language: "nodejs" as const, binary: "pulumi-resource-pulumi-nodejs" };
const PYTHON_PLUGIN = { language: "python" as const, binary: "pulumi-resource-pulumi-python" };

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

describe("provider packages: the folder, Parameterize's two forms, and the packages a process serves", function () {
  let tmp: string;
  let project: string;
  /** A copy of a fixture package under the temporary directory. */
  const copy = (fixture: string, to: string) => {
    fs.cpSync(fixture, to, { recursive: true });
    return to;
  };
  beforeEach(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "provider-packages-"));
    project = path.join(tmp, "project");
    fs.mkdirSync(path.join(project, "sub"), { recursive: true });
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: consumer\nruntime: yaml\n");
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("a package folder: its name from its type tokens, its version from package.json, its language from its references", async function () {
    const pkg = await readProviderPackage(FILES_NODE);
    expect(pkg).to.deep.include({ name: "files", version: "1.2.0", language: "nodejs", dir: FILES_NODE, distribution: "@acme/pulumi-files" });
    const [ref] = pkg.references.all();
    expect(ref).to.deep.include({ typeToken: "files:index:TextFile", reference: "./text-file#textFileProvider", projectDir: FILES_NODE });
    expect(ref.types?.inputs.has("content")).to.equal(true);
  });

  it("a Python package's version is its pyproject.toml [project] version; a dynamic one is refused", async function () {
    const dir = path.join(tmp, "counters");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "pulumi-provider.yaml"),
      "pulumi-dynamic-host:\n  providers:\n    counters:index:Counter:\n      provider: counters.provider:CounterProvider\n",
    );
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[build-system]\nrequires = ["hatchling"]\n\n[project]\nname = "acme-counters"\nversion = "0.3.1"  # released\n');
    expect(await readProviderPackage(dir)).to.deep.include({ name: "counters", version: "0.3.1", language: "python", distribution: "acme-counters" });
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "acme-counters"\ndynamic = ["version"]\n');
    expect((await rejection(readProviderPackage(dir))).message).to.contain('has a dynamic version; a provider package states its version in [project] version = "1.2.0"');
  });

  it("what keeps a folder from being a package is said, naming the file", async function () {
    const dir = copy(FILES_NODE, path.join(tmp, "pkg"));
    const problem = async () => {
      const e = await rejection(readProviderPackage(dir));
      expect(e).to.be.instanceOf(PackageError);
      return e.message;
    };
    const yamlFile = path.join(dir, "pulumi-provider.yaml");
    const declared = fs.readFileSync(yamlFile, "utf8");

    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "x", version: "v1" }));
    expect(await problem()).to.equal(
      `${path.join(dir, "package.json")}: the version "v1" is not a semantic version (major.minor.patch, e.g. 1.2.0), which the engine requires of a package's version`,
    );
    fs.rmSync(path.join(dir, "package.json"));
    expect(await problem()).to.contain("its providers are Node ones, and the folder has no package.json");

    fs.writeFileSync(yamlFile, declared.replace("files:index:TextFile", "pulumi-nodejs:dynamic:TextFile"));
    expect(await problem()).to.contain("the dynamic plugin's own package");
    fs.writeFileSync(yamlFile, `${declared}    other:index:Thing: ./text-file#textFileProvider\n`);
    expect(await problem()).to.contain(`declares types of "files" and "other"`);
    fs.writeFileSync(yamlFile, declared.replace("content: string", "content: text"));
    expect(await problem()).to.match(/pulumi-provider\.yaml: pulumi-dynamic-host\.providers\["files:index:TextFile"\]\.inputs\.content: "text" is not a type/);
    fs.writeFileSync(yamlFile, "providers: {}\n");
    expect(await problem()).to.contain("has no pulumi-dynamic-host section");
    fs.rmSync(yamlFile);
    expect(await problem()).to.equal(
      `${dir} is not a provider package: it has no pulumi-provider.yaml, the file that declares the package's types under pulumi-dynamic-host.providers (docs/provider-packages.md)`,
    );
  });

  it("a Python package is served by the Python plugin, its references imported from its folder; the Node plugin refuses it", async function () {
    const dir = path.join(tmp, "counters");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "pulumi-provider.yaml"), "pulumi-dynamic-host:\n  providers:\n    counters:index:Counter: counters:CounterProvider\n");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "acme-counters"\nversion = "0.3.1"\n');
    const served = new ServedPackages(PYTHON_PLUGIN, project);
    expect(await served.parameterize({ args: { args: [dir] } })).to.deep.equal({ name: "counters", version: "0.3.1" });
    expect(served.get("counters")!.references.lookup("counters:index:Counter")).to.deep.include({ reference: "counters:CounterProvider", packageDir: dir });
    const node = await rejection(new ServedPackages(NODE_PLUGIN, project).parameterize({ args: { args: [dir] } }));
    expect(node.message).to.contain("is a Python provider package (counters), and this plugin, pulumi-resource-pulumi-nodejs, serves Node ones");
  });

  it("a Python package's [project] dependencies, on one line or several, with comments and brackets in strings", function () {
    const dir = fs.mkdtempSync(path.join(tmp, "deps-"));
    const write = (text: string) => fs.writeFileSync(path.join(dir, "pyproject.toml"), text);
    expect(pythonDependencies(dir), "no pyproject.toml").to.equal(undefined);
    write('[project]\nname = "a"\ndependencies = ["pulumi>=3", \'acme-stepper>=2\']\n');
    expect(pythonDependencies(dir)).to.deep.equal(["pulumi>=3", "acme-stepper>=2"]);
    write('[project]\ndependencies = [\n  "pulumi>=3",  # the SDK ]\n  "requests[socks]>=2",\n]\n[tool.x]\ndependencies = ["not-this"]\n');
    expect(pythonDependencies(dir)).to.deep.equal(["pulumi>=3", "requests[socks]>=2"]);
    write('[tool.x]\ndependencies = ["not-this"]\n[project]\nname = "a"\n');
    expect(pythonDependencies(dir)).to.equal(undefined);
  });

  it("semantic versions as the engine parses them", function () {
    for (const v of ["1.2.0", "0.0.0", "1.2.3-rc.1", "1.2.3+build.5", "10.20.30-alpha-1"]) expect(isSemver(v), v).to.equal(true);
    for (const v of ["v1.2.0", "1.2", "01.2.3", "1.2.3-01", "1.2.3.post1", ""]) expect(isSemver(v), v).to.equal(false);
  });

  it("the arguments form takes one folder or registry spec; the value is JSON naming it, restored as written", function () {
    const none = () => false;
    expect(sourceOfArgs(["../pkgs/files"], "pulumi-resource-pulumi-nodejs", "npm", none)).to.deep.equal({ kind: "folder", path: "../pkgs/files" });
    expect(sourceOfArgs(["..\\pkgs\\files"], "b", "npm", none)).to.deep.equal({ kind: "folder", path: "../pkgs/files" });
    for (const p of [".", "./files", "/abs/files", "~/files", "C:\\pkgs\\files"]) expect(sourceOfArgs([p], "b", "npm", none).kind, p).to.equal("folder");
    // A bare word is a folder when one is there, else a spec of the plugin's registry.
    expect(sourceOfArgs(["files"], "b", "npm", (p) => p === "files")).to.deep.equal({ kind: "folder", path: "files" });
    expect(sourceOfArgs(["@acme/files@1.2.0"], "b", "npm", none)).to.deep.equal({ kind: "registry", spec: "@acme/files@1.2.0" });
    expect(sourceOfArgs(["acme-files==1.2.0"], "b", "pypi", none)).to.deep.equal({ kind: "registry", spec: "acme-files==1.2.0" });
    expect(() => sourceOfArgs([], "pulumi-resource-pulumi-nodejs", "npm", none)).to.throw(
      ParameterError,
      "pulumi-resource-pulumi-nodejs takes one parameter, the provider package (pulumi package add <path to pulumi-resource-pulumi-nodejs> <folder of the provider package, or an npm spec such as @acme/files@1.2.0>); it was given 0",
    );
    expect(() => sourceOfArgs(["a", "b"], "p", "pypi", none)).to.throw(ParameterError, 'it was given 2: "a" "b"');
    const value = { source: { kind: "folder" as const, path: "../pkgs/files" }, name: "files", version: "1.2.0" };
    const bytes = encodeValue(value);
    expect(JSON.parse(bytes.toString())).to.deep.equal({ "pulumi-dynamic-host": 1, source: { kind: "folder", path: "../pkgs/files" }, name: "files", version: "1.2.0" });
    expect(decodeValue(bytes)).to.deep.equal(value);
    expect(() => decodeValue(Buffer.from("\x01\x02"))).to.throw(ParameterError, "not one this host wrote (not JSON");
    expect(() => decodeValue(Buffer.from('{"name":"x"}'))).to.throw(ParameterError, 'no "pulumi-dynamic-host" key');
    expect(() => decodeValue(Buffer.from('{"pulumi-dynamic-host":2}'))).to.throw(ParameterError, "of format 2, which this version of the host does not read");
    expect(() => decodeValue(Buffer.from('{"pulumi-dynamic-host":1,"name":"f","version":"1.0.0","source":{"kind":"npm"}}'))).to.throw(ParameterError, "is not a folder or a registry package this host can restore");
    expect(() => decodeValue(Buffer.from('{"pulumi-dynamic-host":1,"name":"f","version":"1.0.0","source":{"kind":"git","path":"x"}}'))).to.throw(ParameterError, "is not a folder or a registry package");
    const pinned = { kind: "npm" as const, spec: "@acme/files@^1", package: "@acme/files", version: "1.2.0", integrity: "sha512-abc" };
    const registryValue = { source: pinned, name: "files", version: "1.2.0" };
    expect(decodeValue(encodeValue(registryValue))).to.deep.equal(registryValue);
  });

  it("added by folder (relative to the project, from any directory under it), then restored by value, in another process", async function () {
    copy(FILES_NODE, path.join(tmp, "pkgs", "files"));
    const adding = new ServedPackages(NODE_PLUGIN, path.join(project, "sub"));
    expect(await adding.parameterize({ args: { args: ["../pkgs/files"] } })).to.deep.equal({ name: "files", version: "1.2.0" });
    const added = adding.get("files")!;
    expect(added.dir).to.equal(path.join(tmp, "pkgs", "files"));
    // A later run: a fresh process, the value the SDK embeds.
    const later = new ServedPackages(NODE_PLUGIN, project);
    expect(await later.parameterize({ value: { name: "files", version: "1.2.0", value: added.value } })).to.deep.equal({ name: "files", version: "1.2.0" });
    expect(later.get("files")!.references.lookup("files:index:TextFile")?.projectDir).to.equal(added.dir);
  });

  it("a value whose folder is gone, or now holds another version, is refused naming the command that fixes it", async function () {
    const dir = copy(FILES_NODE, path.join(tmp, "pkgs", "files"));
    const adding = new ServedPackages(NODE_PLUGIN, project);
    await adding.parameterize({ args: { args: ["../pkgs/files"] } });
    const value = adding.get("files")!.value;
    const readd = `pulumi package add "$(dirname "$(command -v pulumi)")/pulumi-resource-pulumi-nodejs" <folder of files>`;

    const manifest = path.join(dir, "package.json");
    fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replace('"1.2.0"', '"1.3.0"'));
    const changed = await rejection(new ServedPackages(NODE_PLUGIN, project).parameterize({ value: { name: "files", version: "1.2.0", value } }));
    expect(changed.message).to.equal(
      `the project uses files 1.2.0, added from ${dir}, and that folder now holds files 1.3.0; to use it, add it again (${readd}), which regenerates the SDK; or put files 1.2.0 back there`,
    );

    fs.rmSync(dir, { recursive: true });
    const gone = await rejection(new ServedPackages(NODE_PLUGIN, project).parameterize({ value: { name: "files", version: "1.2.0", value } }));
    expect(gone.message).to.equal(
      `the folder "../pkgs/files" the project added files 1.2.0 from is not a folder: ${dir} does not exist or is not a directory; ` +
        `put the package back there, or add it again from where it is now: ${readd}`,
    );
    const mismatch = await rejection(new ServedPackages(NODE_PLUGIN, project).parameterize({ value: { name: "other", version: "1.2.0", value } }));
    expect(mismatch.message).to.equal("the engine asked for other 1.2.0, and the parameter value it sent names files 1.2.0");
  });

  it("one process serves several packages by name, one version each; each plugin serves its own language's packages", async function () {
    copy(FILES_NODE, path.join(tmp, "a"));
    const b = copy(FILES_NODE, path.join(tmp, "b"));
    fs.writeFileSync(path.join(b, "pulumi-provider.yaml"), fs.readFileSync(path.join(b, "pulumi-provider.yaml"), "utf8").replace("files:index", "notes:index"));
    const served = new ServedPackages(NODE_PLUGIN, project);
    await served.parameterize({ args: { args: [path.join(tmp, "a")] } });
    await served.parameterize({ args: { args: [b] } });
    expect([served.get("files")?.dir, served.get("notes")?.dir]).to.deep.equal([path.join(tmp, "a"), b]);
    // The same version again is the same package; another version is refused.
    await served.parameterize({ args: { args: ["../a"] } });
    const a2 = copy(FILES_NODE, path.join(tmp, "a2"));
    fs.writeFileSync(path.join(a2, "package.json"), JSON.stringify({ name: "@acme/pulumi-files", version: "2.0.0" }));
    const twice = await rejection(served.parameterize({ args: { args: [a2] } }));
    expect(twice.message).to.contain("this plugin process already serves files 1.2.0");
    expect(twice.message).to.contain("one process serves one version of a package, since type tokens carry no version");

    const wrong = await rejection(new ServedPackages(PYTHON_PLUGIN, project).parameterize({ args: { args: [b] } }));
    expect(wrong).to.be.instanceOf(PackageError);
    expect(wrong.message).to.equal(
      `${b} is a Node provider package (notes), and this plugin, pulumi-resource-pulumi-python, serves Python ones: add it with pulumi-resource-pulumi-nodejs`,
    );
  });
});

/** A runtime that records which provider each call was given. */
class RecordingRuntime implements DynamicRuntime {
  readonly bags = "decoded" as const;
  readonly language = "nodejs" as const;
  sources: ProviderSource[] = [];
  async configure(_: Bag) {}
  isReferenceText(_text: string, _ref: ProviderReference) {
    return false;
  }
  async check(_call: CallInfo, source: ProviderSource, _olds: Bag, news: Bag) {
    this.sources.push(source);
    return { inputs: news ?? jsToStruct({}), failures: [] };
  }
  async diff() {
    return { changes: "none" as const, replaces: [], deleteBeforeReplace: false };
  }
  async create(_call: CallInfo, source: ProviderSource) {
    this.sources.push(source);
    return { id: "id", outs: jsToStruct({ size: 1 }) };
  }
  async read(_call: CallInfo, _s: ProviderSource, id: string) {
    return { id, outs: jsToStruct({}) };
  }
  async update() {
    return {};
  }
  async delete() {}
  cancelAll() {}
  async close() {}
}

describe("provider packages in the core: the parameterized schema, and requests of the package's types", function () {
  const signal = new CallSignal();
  const urn = "urn:pulumi:dev::consumer::files:index:TextFile::notes";
  let tmp: string;
  beforeEach(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "provider-packages-core-"));
    fs.writeFileSync(path.join(tmp, "Pulumi.yaml"), "name: consumer\nruntime: yaml\n");
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("GetSchema of the package states its name, version and parameterization (this plugin as base provider, the value)", async function () {
    const core = new DynamicCore(NODEJS, new RecordingRuntime(), { cwd: tmp, pluginVersion: () => "3.4.5" });
    expect(await core.parameterize({ args: { args: [FILES_NODE] } })).to.deep.equal({ name: "files", version: "1.2.0" });
    const schema = JSON.parse((await core.schema({ name: "files", version: "1.2.0" }))!);
    expect(schema).to.deep.include({ name: "files", version: "1.2.0", language: { nodejs: { respectSchemaVersion: true } } });
    expect(schema.parameterization.baseProvider).to.deep.equal({ name: "pulumi-nodejs", version: "3.4.5" });
    expect(decodeValue(Buffer.from(schema.parameterization.parameter, "base64"))).to.deep.equal({ source: { kind: "folder", path: FILES_NODE }, name: "files", version: "1.2.0" });
    expect(Object.keys(schema.resources)).to.deep.equal(["files:index:TextFile"]);
    // The project's own schema is unchanged by it: it declares nothing.
    expect(await core.schema()).to.equal(undefined);
    const other = await rejection(core.schema({ name: "files", version: "9.0.0" }));
    expect(other.message).to.equal("GetSchema: the schema of files 9.0.0 was asked for, and this process serves files 1.2.0");
  });

  it("a request of the package's type runs its declaration, resolved from the package's folder; before Parameterize it is refused", async function () {
    const rt = new RecordingRuntime();
    const core = new DynamicCore(NODEJS, rt, { cwd: tmp });
    const news = jsToStruct({ path: "/tmp/x", content: "hi" });
    const before = await rejection(core.check({ urn, type: "files:index:TextFile", news }, signal));
    expect(before).to.be.instanceOf(BadRequestError);
    expect(before.message).to.contain("serves pulumi-nodejs resources, but the request is for type files:index:TextFile of package files");
    await core.parameterize({ args: { args: [FILES_NODE] } });
    await core.check({ urn, type: "files:index:TextFile", news }, signal);
    await core.create({ urn, type: "files:index:TextFile", properties: news }, signal);
    for (const source of rt.sources) expect(source.reference).to.deep.include({ reference: "./text-file#textFileProvider", projectDir: FILES_NODE });
    // The declared input types are checked as for a project's declarations.
    const typo = await core.check({ urn, type: "files:index:TextFile", news: jsToStruct({ path: "/tmp/x", contnet: "hi" }) }, signal);
    expect(typo.failures.map((f) => f.property)).to.include("contnet");
  });

  it("the Parameterize RPC's refusals are bad requests (INVALID_ARGUMENT) saying what was wrong", async function () {
    const core = new DynamicCore(PYTHON, new RecordingRuntime(), { cwd: tmp });
    const e = await rejection(core.parameterize({ args: { args: [path.join(tmp, "nothing")] } }));
    expect(e).to.be.instanceOf(BadRequestError);
    expect((e as BadRequestError).code).to.equal(3);
    expect(e.message).to.equal(`Parameterize: the folder "${path.join(tmp, "nothing")}" given to pulumi package add is not a folder: ${path.join(tmp, "nothing")} does not exist or is not a directory`);
  });
});
