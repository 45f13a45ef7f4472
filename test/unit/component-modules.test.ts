// A serialized provider made inside a multi-language component resolves its
// modules from the component's folder first, then the program's
// (src/node-dynamic/module-home.ts, through the loader); a missing one is
// reported with both folders and the component's as the place to install it.
// A program's text resolves from the program directory alone, and its advice
// names the program's package, or the directory when it is not a Node project.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ComponentFolder } from "../../src/host/components/component-folder.js";
import { ProviderLoader, ProviderLoadError } from "../../src/node-dynamic/loader.js";
import { packageNameOf } from "../../src/node-dynamic/module-home.js";

/** A provider text (as the serializer writes one) whose object carries what `require(id)` returned. */
const requiring = (id: string) => `exports.handler = __f0;\nfunction __f0() { return { got: require(${JSON.stringify(id)}), async create() { return { id: "x" }; } }; }\n`;

function install(dir: string, name: string, value: string): void {
  const pkg = path.join(dir, "node_modules", name);
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name, version: "1.0.0", main: "index.js" }));
  fs.writeFileSync(path.join(pkg, "index.js"), `module.exports = ${JSON.stringify(value)};\n`);
}

describe("a component's serialized provider: its modules from the component's folder, then the program's", function () {
  let root: string;
  let program: string;
  let component: ComponentFolder;
  before(function () {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "component-modules-")));
    program = path.join(root, "consumer");
    const dir = path.join(root, "components", "widgets");
    fs.mkdirSync(program, { recursive: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), "{}");
    install(dir, "acme-shared", "the component's copy");
    install(program, "acme-shared", "the program's copy");
    install(program, "acme-program-only", "only the program has it");
    component = {
      package: "widgets",
      componentType: "widgets:index:Greeter",
      plugin: path.join(dir, "pulumi-resource-widgets"),
      foundBy: "the plugins.providers entry of widgets in Pulumi.yaml",
      dir,
    };
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const load = (text: string, withComponent: boolean) => new ProviderLoader(program).get(withComponent ? { text, component } : { text }) as Promise<{ got?: unknown }>;
  const failure = (p: Promise<unknown>) => p.then(() => expect.fail("it loaded"), (e: Error) => e);

  it("a package both have: the component's copy for the component's text, the program's for the program's", async function () {
    expect((await load(requiring("acme-shared"), true)).got).to.equal("the component's copy");
    expect((await load(requiring("acme-shared"), false)).got).to.equal("the program's copy");
    expect((await load(requiring("acme-shared/index.js"), true)).got, "a file of the package, as the serializer names one").to.equal("the component's copy");
  });

  it("one loader keeps the same text apart for the component and the program", async function () {
    const loader = new ProviderLoader(program);
    const text = requiring("acme-shared");
    const [a, b] = [await loader.get({ text, component }), await loader.get({ text })];
    expect([(a as { got?: unknown }).got, (b as { got?: unknown }).got]).to.deep.equal(["the component's copy", "the program's copy"]);
  });

  it("a package only the program has is still found, after the component's folder; a builtin resolves as itself", async function () {
    expect((await load(requiring("acme-program-only"), true)).got).to.equal("only the program has it");
    expect((await load(requiring("node:path"), true)).got).to.equal(path);
    expect((await load(requiring("os"), true)).got).to.equal(os);
  });

  it("found nowhere: the error names the component's folder, the plugin, the program directory, and where to install it", async function () {
    const err = await failure(load(requiring("acme-absent/lib/x.js"), true));
    expect(err).to.be.instanceOf(ProviderLoadError);
    expect(err.message).to.equal(
      `the serialized provider's handler threw: Error: Cannot find module 'acme-absent/lib/x.js' required by the dynamic provider: ` +
        `it was resolved from the folder of component widgets:index:Greeter, ${component.dir} (the package of ${component.plugin}, ` +
        `which the engine runs for widgets, found through the plugins.providers entry of widgets in Pulumi.yaml), then the program ` +
        `directory ${program} (their node_modules and those of their parents); install acme-absent in the component's folder ` +
        `${component.dir} (npm install acme-absent there): the component's package holds the modules of the dynamic providers it creates`,
    );
  });

  it("a program that is not a Node project (no package.json at or above it) is told its directory, not 'the program's dependencies'", async function () {
    const err = await failure(load(requiring("@acme/absent"), false));
    expect(err.message).to.equal(
      `the serialized provider's handler threw: Error: Cannot find module '@acme/absent' required by the dynamic provider: ` +
        `it was resolved from the program directory ${program} (its node_modules and those of its parents); ` +
        `install @acme/absent in the program directory ${program} (npm install @acme/absent there)`,
    );
  });
});

describe("the package a require names, for the install advice", function () {
  const table: [string, string | undefined][] = [
    ["acme", "acme"],
    ["acme/lib/x.js", "acme"],
    ["@scope/pkg", "@scope/pkg"],
    ["@scope/pkg/x.js", "@scope/pkg"],
    ["@scope", undefined],
    ["./local.js", undefined],
    ["/abs/file.js", undefined],
    ["C:\\x\\y.js", undefined],
    ["node:fs", undefined],
    ["", undefined],
  ];
  for (const [id, want] of table) {
    it(`${JSON.stringify(id)} → ${want ?? "none"}`, function () {
      expect(packageNameOf(id)).to.equal(want);
    });
  }
});
