// A dynamic resource inside a multi-language component (pulumi/pulumi#5455),
// under the real engine and Pulumi YAML's real language host: the component
// provider (test/fixtures/components/widgets, a Node program run by the engine
// as pulumi-resource-widgets, found through the project's Pulumi.yaml
// `plugins.providers` path) creates a pulumi.dynamic.Resource in each
// component; our Node plugin runs it, started in the YAML program's folder.
// Plain's provider uses a Node builtin only; Greeter's uses a package that is
// in the component's node_modules and nowhere else, so its `require` must
// resolve from the component's folder, not the program's.
import { expect } from "chai";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { FIXTURES, REPO } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, placeYamlHost, prepareReferenceEngine, REFERENCE_ROOT, sandbox, type Sandbox } from "./harness.js";

const STACK = "dev";
const OUR_NODE = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;

function program(resources: string[]): string {
  const blocks: Record<string, string> = {
    plain: `  plain:\n    type: widgets:index:Plain\n    properties:\n      label: one\n`,
    greeter: `  greeter:\n    type: widgets:index:Greeter\n    properties:\n      label: two\n`,
    broken: `  broken:\n    type: widgets:index:Broken\n    properties:\n      label: three\n`,
  };
  const outs: Record<string, string> = {
    plain: `  plainRanBy: \${plain.ranBy}\n`,
    greeter: `  greeterRanBy: \${greeter.ranBy}\n  greeting: \${greeter.greeting}\n`,
    broken: `  brokenRanBy: \${broken.ranBy}\n`,
  };
  return (
    `name: component-consumer\nruntime: yaml\nplugins:\n  providers:\n    - name: widgets\n      path: ../components/widgets\n` +
    `resources:\n${resources.map((r) => blocks[r]).join("")}outputs:\n${resources.map((r) => outs[r]).join("")}`
  );
}

describe("end to end (YAML): a dynamic resource inside a Node multi-language component resolves its requires from the component's folder", function () {
  this.timeout(15 * 60 * 1000);
  let sb: Sandbox;
  let root: string;
  let consumer: string;
  let component: string;

  const run = (args: string[], bin = E2E_BIN): Promise<{ code: number; said: string }> => {
    const env = { ...process.env, ...sb.env, PATH: `${bin}:${process.env.PATH ?? ""}` };
    return new Promise((resolve) => {
      execFile(path.join(bin, "pulumi"), args, { cwd: consumer, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, said: stdout + stderr }),
      );
    });
  };
  const ok = async (args: string[]): Promise<string> => {
    const { code, said } = await run(args);
    expect(code, `pulumi ${args.join(" ")}:\n${said}`).to.equal(0);
    expect(said, `pulumi ${args.join(" ")}`).to.not.match(/warning:/);
    return said;
  };
  const outputs = async () => JSON.parse(await ok(["stack", "output", "--json", "--show-secrets", "--stack", STACK]));

  before(function () {
    placeYamlHost();
    sb = sandbox("e2e-component-dynamic");
    fs.mkdirSync(`${E2E_ROOT}/projects`, { recursive: true });
    root = fs.mkdtempSync(`${E2E_ROOT}/projects/component-dynamic-`);
    // The component's package, with its node_modules as npm would leave them: @pulumi/pulumi (the
    // repo's), and acme-greeting, which only the component has.
    component = path.join(root, "components", "widgets");
    fs.cpSync(`${FIXTURES}components/widgets`, component, { recursive: true });
    // Its launcher, run by the node running the tests (the fixture's finds node on PATH, which a run may not have).
    fs.writeFileSync(path.join(component, "pulumi-resource-widgets"), `#!/bin/sh\nexec "${process.execPath}" "$(dirname "$0")/index.js" "$@"\n`, { mode: 0o755 });
    const modules = path.join(component, "node_modules");
    fs.mkdirSync(path.join(modules, "@pulumi"), { recursive: true });
    fs.symlinkSync(fs.realpathSync(`${REPO}node_modules/@pulumi/pulumi`), path.join(modules, "@pulumi", "pulumi"));
    const dep = path.join(modules, "acme-greeting");
    fs.mkdirSync(dep);
    fs.writeFileSync(path.join(dep, "package.json"), `{ "name": "acme-greeting", "version": "1.0.0", "main": "index.js" }\n`);
    fs.writeFileSync(path.join(dep, "index.js"), `module.exports = (who) => "hello " + who + ", from the component's node_modules";\n`);
    // The consuming project: a YAML program, not a Node project (no package.json, no node_modules).
    consumer = path.join(root, "consumer");
    fs.mkdirSync(consumer);
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), program(["plain"]));
  });
  after(function () {
    sb?.cleanup();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("a component whose dynamic provider uses only a Node builtin deploys, run by our Node plugin", async function () {
    await ok(["stack", "init", STACK]);
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    const out = await outputs();
    expect(out.plainRanBy.script, "the plugin that ran the dynamic provider").to.equal(OUR_NODE);
    expect(out.plainRanBy.cwd, "the engine starts it in the program's folder").to.equal(consumer);
  });

  it("a component whose dynamic provider uses a package of the component's node_modules deploys too", async function () {
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), program(["plain", "greeter"]));
    await ok(["up", "--yes", "--skip-preview", "--stack", STACK]);
    const out = await outputs();
    expect(out.greeting).to.equal("hello two, from the component's node_modules");
    expect(out.greeterRanBy.script).to.equal(OUR_NODE);
    const state = JSON.parse(await ok(["stack", "export", "--stack", STACK]));
    const urns: string[] = state.deployment.resources.map((r: { urn: string }) => r.urn);
    expect(urns, "the dynamic resource's URN carries its component's type").to.include(
      `urn:pulumi:${STACK}::component-consumer::widgets:index:Greeter$pulumi-nodejs:dynamic:Resource::greeter-inner`,
    );
  });

  it("destroy deletes both components and their dynamic resources", async function () {
    await ok(["destroy", "--yes", "--skip-preview", "--stack", STACK]);
    const state = JSON.parse(await ok(["stack", "export", "--stack", STACK]));
    expect(state.deployment.resources ?? [], "nothing but the stack is left").to.satisfy((rs: { type: string }[]) => rs.every((r) => r.type === "pulumi:pulumi:Stack"));
  });

  it("a package the component's node_modules lacks: Check fails naming the component's folder and saying to install it there", async function () {
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), program(["broken"]));
    const { code, said } = await run(["preview", "--stack", STACK]);
    expect(code, said).to.not.equal(0);
    expect(said).to.contain(`Cannot find module 'acme-absent' required by the dynamic provider: it was resolved from the folder of component widgets:index:Broken, ${component}`);
    expect(said).to.contain(`then the program directory ${consumer}`);
    expect(said).to.contain(`install acme-absent in the component's folder ${component} (npm install acme-absent there)`);
    expect(said).to.not.contain("program's dependencies");
  });

  it("[difference] Pulumi's own Node plugin resolves the serialized provider's requires from the program's folder, and fails", async function () {
    prepareReferenceEngine();
    const bin = `${REFERENCE_ROOT}/bin`;
    fs.copyFileSync(`${E2E_BIN}/pulumi-language-yaml`, `${bin}/pulumi-language-yaml`);
    fs.chmodSync(`${bin}/pulumi-language-yaml`, 0o755);
    fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), program(["plain", "greeter"]));
    await ok(["stack", "init", "reference"]);
    const { code, said } = await run(["preview", "--stack", "reference"], bin);
    expect(code, said).to.not.equal(0);
    expect(said).to.match(/Cannot find module 'acme-greeting[/']/);
  });
});
