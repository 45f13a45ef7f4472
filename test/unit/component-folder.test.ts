// Locating the folder of the multi-language component a dynamic resource was
// made in (src/host/components/component-folder.ts): the parent types a URN
// names, the plugin the engine would run for the component's package (found
// in the engine's order), and that plugin's Node package folder. Every case
// builds real folders and files, with a decoy where a wrong order or a wrong
// boundary would find something else.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  ComponentFolders,
  findComponentPlugin,
  packageRootOf,
  parentTypesOfUrn,
} from "../../src/host/components/component-folder.js";

const DYNAMIC = "pulumi-nodejs:dynamic:Resource";

describe("component folder: the parent types of a URN", function () {
  const table: [string, string[]][] = [
    [`urn:pulumi:dev::proj::${DYNAMIC}::r`, []],
    [`urn:pulumi:dev::proj::widgets:index:Greeter$${DYNAMIC}::r`, ["widgets:index:Greeter"]],
    [`urn:pulumi:dev::proj::widgets:index:Outer$my:app:Helper$${DYNAMIC}::r`, ["my:app:Helper", "widgets:index:Outer"]],
    // The engine's own types and the dynamic packages are never a component's.
    [`urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource$pulumi:pulumi:Stack$${DYNAMIC}::r`, []],
    [`urn:pulumi:dev::proj::widgets:index:Greeter$${DYNAMIC}::a::b`, ["widgets:index:Greeter"]],
    ["not a urn", []],
    ["", []],
    [`urn:pulumi:dev::proj::widgets:index:Greeter$${DYNAMIC}`, []],
  ];
  for (const [urn, want] of table) {
    it(`${urn || "(empty)"} → ${JSON.stringify(want)}`, function () {
      expect(parentTypesOfUrn(urn)).to.deep.equal(want);
    });
  }
});

/** A scratch tree: a project, a PATH folder, a PULUMI_HOME, a component package; removed after. */
function scratch() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "component-folder-")));
  const write = (rel: string, text: string, mode = 0o644) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode });
    return file;
  };
  const plugin = (rel: string) => write(rel, "#!/bin/sh\n", 0o755);
  return { root, write, plugin, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

describe("component folder: the plugin the engine would run for a package, in its order", function () {
  let s: ReturnType<typeof scratch>;
  let env: NodeJS.ProcessEnv;
  beforeEach(function () {
    s = scratch();
    // A copy of the plugin in every place the engine looks: the project's entry, PATH, and two versions in the cache.
    s.plugin("components/widgets/pulumi-resource-widgets");
    s.plugin("on-path/pulumi-resource-widgets");
    s.plugin("home/plugins/resource-widgets-v0.9.0/pulumi-resource-widgets");
    s.plugin("home/plugins/resource-widgets-v0.10.0/pulumi-resource-widgets");
    s.plugin("home/plugins/resource-widgets-v1.0.0/pulumi-resource-widgets");
    s.write("home/plugins/resource-widgets-v1.0.0.partial", "");
    s.write("project/Pulumi.yaml", "name: p\nruntime: yaml\nplugins:\n  providers:\n    - name: widgets\n      path: ../components/widgets\n");
    env = { PATH: `${s.root}/empty:${s.root}/on-path`, PULUMI_HOME: `${s.root}/home` };
  });
  afterEach(() => s.cleanup());
  const project = () => path.join(s.root, "project");

  it("the project's plugins.providers entry, relative to the project root, before PATH and the cache", async function () {
    const found = await findComponentPlugin("widgets", { projectRoot: project(), env });
    expect(found).to.deep.equal({
      plugin: path.join(s.root, "components/widgets/pulumi-resource-widgets"),
      foundBy: `the plugins.providers entry of widgets in ${path.join(project(), "Pulumi.yaml")}`,
      folder: path.join(s.root, "components/widgets"),
    });
  });

  it("an entry of another name is not it; without the project's entry, PATH comes before the cache", async function () {
    s.write("project/Pulumi.yaml", "name: p\nruntime: yaml\nplugins:\n  providers:\n    - name: gadgets\n      path: ../components/widgets\n");
    const found = await findComponentPlugin("widgets", { projectRoot: project(), env });
    expect(found).to.deep.include({ plugin: path.join(s.root, "on-path/pulumi-resource-widgets"), foundBy: "$PATH", folder: path.join(s.root, "on-path") });
  });

  it("PULUMI_IGNORE_AMBIENT_PLUGINS skips PATH: the cache's highest version, one still being written left out", async function () {
    const found = await findComponentPlugin("widgets", { env: { ...env, PULUMI_IGNORE_AMBIENT_PLUGINS: "true" } });
    expect(found).to.deep.include({ plugin: path.join(s.root, "home/plugins/resource-widgets-v0.10.0/pulumi-resource-widgets"), foundBy: "the plugin cache" });
  });

  it("a packages: entry whose source is a local folder is the project's plugin (after plugins.providers); a named source is not", async function () {
    s.write("project/Pulumi.yaml", "name: p\nruntime: yaml\npackages:\n  widgets: ../components/widgets\n  gadgets:\n    source: gadgets\n    version: 1.0.0\n");
    const found = await findComponentPlugin("widgets", { projectRoot: project(), env });
    expect(found).to.deep.include({ folder: path.join(s.root, "components/widgets"), foundBy: `the packages entry of widgets in ${path.join(project(), "Pulumi.yaml")}` });
    expect(await findComponentPlugin("gadgets", { projectRoot: project(), env })).to.equal(undefined);
  });

  it("a project file that is not YAML gives no project entries (PATH then answers); nowhere at all gives undefined", async function () {
    s.write("project/Pulumi.yaml", "name: [unclosed\n");
    expect(await findComponentPlugin("widgets", { projectRoot: project(), env })).to.deep.include({ foundBy: "$PATH" });
    expect(await findComponentPlugin("gizmos", { projectRoot: project(), env })).to.equal(undefined);
  });

  it("on Windows, the project's folder is looked in for <name>.exe then <name>.cmd", async function () {
    s.write("components/widgets/pulumi-resource-widgets.cmd", "@echo off\n");
    const found = await findComponentPlugin("widgets", { projectRoot: project(), env, platform: "win32" });
    expect(found?.plugin).to.equal(path.join(s.root, "components/widgets/pulumi-resource-widgets.cmd"));
  });
});

describe("component folder: the plugin's Node package folder", function () {
  let s: ReturnType<typeof scratch>;
  beforeEach(() => (s = scratch()));
  afterEach(() => s.cleanup());

  it("the nearest package.json at or above the plugin's folder, its symlinks resolved (an npm bin link)", function () {
    s.write("lib/node_modules/acme-widgets/package.json", "{}");
    s.plugin("lib/node_modules/acme-widgets/bin/cli.js");
    fs.mkdirSync(path.join(s.root, "bin"));
    fs.symlinkSync("../lib/node_modules/acme-widgets/bin", path.join(s.root, "bin", "widgets-bin"));
    expect(packageRootOf(path.join(s.root, "bin", "widgets-bin"), "/nonexistent-home")).to.equal(path.join(s.root, "lib/node_modules/acme-widgets"));
  });

  it("not above a package folder in node_modules, nor at the home directory: a plugin that is no Node package has none", function () {
    s.write("package.json", "{}");
    s.plugin("home/.pulumi/plugins/resource-aws-v6.0.0/pulumi-resource-aws");
    expect(packageRootOf(path.join(s.root, "home/.pulumi/plugins/resource-aws-v6.0.0"), path.join(s.root, "home"))).to.equal(undefined);
    s.plugin("node_modules/nopkg/lib/x");
    expect(packageRootOf(path.join(s.root, "node_modules/nopkg/lib"), "/nonexistent-home")).to.equal(undefined);
    // The decoy is found when no boundary stands between: the walk itself goes up.
    expect(packageRootOf(path.join(s.root, "home/.pulumi/plugins"), "/nonexistent-home")).to.equal(s.root);
  });
});

describe("component folder: the component of a resource", function () {
  let s: ReturnType<typeof scratch>;
  beforeEach(() => (s = scratch()));
  afterEach(() => s.cleanup());

  it("the nearest parent with a plugin that is a Node package; a program's own component type and a Go plugin's type are passed over", async function () {
    s.write("components/widgets/package.json", "{}");
    s.plugin("components/widgets/pulumi-resource-widgets");
    s.plugin("on-path/pulumi-resource-gocloud");
    s.write("project/Pulumi.yaml", "name: p\nruntime: yaml\nplugins:\n  providers:\n    - name: widgets\n      path: ../components/widgets\n");
    const folders = new ComponentFolders({ projectRoot: path.join(s.root, "project"), env: { PATH: `${s.root}/on-path` }, home: path.join(s.root, "home") });
    const urn = `urn:pulumi:dev::p::widgets:index:Outer$gocloud:index:Bucket$my:app:Helper$${DYNAMIC}::r`;
    expect(await folders.of(urn)).to.deep.equal({
      package: "widgets",
      componentType: "widgets:index:Outer",
      plugin: path.join(s.root, "components/widgets/pulumi-resource-widgets"),
      foundBy: `the plugins.providers entry of widgets in ${path.join(s.root, "project", "Pulumi.yaml")}`,
      dir: path.join(s.root, "components/widgets"),
    });
    expect(await folders.of(`urn:pulumi:dev::p::my:app:Helper$${DYNAMIC}::r`), "a program's own component").to.equal(undefined);
    expect(await folders.of(`urn:pulumi:dev::p::${DYNAMIC}::r`), "no parent").to.equal(undefined);
  });
});
