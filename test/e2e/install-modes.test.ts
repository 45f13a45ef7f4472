// The real engine runs a TypeScript and a Python program through the host as
// users install it (test/helpers/installs.ts): the npm package, the release
// archive's single executable and the wheel, each registered with the engine
// the ways `pulumi-dynamic-host install` offers. Every pulumi here is a copy
// of the engine with stand-ins for the scripts pulumi ships next to it, which
// fail if the engine runs them; every provider reports the process that ran
// it. The single executable and the wheel run with no node on PATH.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { REPO } from "../helpers/paths.js";
import { archiveInstall, installsRoot, npmInstall, pathWithoutNode, wheelInstall } from "../helpers/installs.js";
import { expectOurPythonHost, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { drive, type Step } from "./python-driver.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const { whoami } = require(`${REPO}test/e2e/node-program/whoami.cjs`);

const NODE_PLUGIN = "pulumi-resource-pulumi-nodejs";
const PYTHON_PLUGIN = "pulumi-resource-pulumi-python";
const STAND_IN = "the stand-in for pulumi's bundled script ran";

type Event = Record<string, any>;

/**
 * A pulumi installation: <bin>/pulumi (the engine) beside stand-ins for the
 * plugins it ships; and <root>/bin/pulumi, a symlink to it, for the Automation
 * API to run. The API puts the directory of the pulumi it runs first on PATH
 * (the symlink's, which holds nothing else), so PATH stays the user's as far
 * as plugins go, while the engine resolves the symlink to find <bin>.
 */
function pulumiLayout(name: string, engineBin: string): { root: string; bin: string } {
  const root = path.join(installsRoot(), name);
  const bin = path.join(root, "bin");
  fs.mkdirSync(bin, { recursive: true });
  try {
    fs.linkSync(path.join(engineBin, "pulumi"), path.join(bin, "pulumi"));
  } catch {
    fs.copyFileSync(path.join(engineBin, "pulumi"), path.join(bin, "pulumi"));
    fs.chmodSync(path.join(bin, "pulumi"), 0o755);
  }
  for (const plugin of [NODE_PLUGIN, PYTHON_PLUGIN]) {
    fs.writeFileSync(path.join(bin, plugin), `#!/bin/sh\necho "${STAND_IN}: ${plugin}" >&2\nexit 1\n`, { mode: 0o755 });
  }
  const launcher = path.join(root, "launcher");
  fs.mkdirSync(path.join(launcher, "bin"), { recursive: true });
  fs.symlinkSync(path.join(bin, "pulumi"), path.join(launcher, "bin/pulumi"));
  return { root: launcher, bin };
}

/** Runs an installed command; its stdout lines. */
function command(file: string, args: string[], env: NodeJS.ProcessEnv): string[] {
  return execFileSync(file, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim().split("\n");
}

function notices(events: Event[], key: "diagnosticEvent" | "diagnostic_event"): Event[] {
  return events.filter((e) => e[key] && !["debug", "info", "info#err"].includes(e[key].severity)).map((e) => e[key]);
}

/** A TypeScript program's stack through up, up with a change, refresh and destroy; every operation's warnings and errors. */
async function nodeLifecycle(sb: Sandbox, root: string, workDir: string, stackName: string, afterCreate?: () => void) {
  let phase = 1;
  const program = async () => {
    new pulumi.dynamic.Resource(whoami, "a", { value: "one" });
    new pulumi.dynamic.Resource(whoami, "b", { value: phase === 1 ? "two" : "three" });
  };
  const stack = await inlineStack(
    { stackName, projectName: "installed-node", program },
    {
      workDir,
      pulumiHome: sb.home,
      envVars: sb.env,
      pulumiCommand: await automation.PulumiCommand.get({ root, skipVersionCheck: true }),
      projectSettings: { name: "installed-node", runtime: "nodejs", backend: { url: `file://${sb.backend}` } },
    },
  );
  afterCreate?.();
  const warnings: Event[] = [];
  const run = async (op: (o: object) => Promise<any>, opts: object = {}) => {
    const events: Event[] = [];
    const result = await op({ ...opts, onEvent: (e: Event) => events.push(e) });
    warnings.push(...notices(events, "diagnosticEvent"));
    return result;
  };
  const states: Record<string, any>[] = [];
  const snapshot = async () => {
    const out: Record<string, any> = {};
    for (const r of (await stack.exportStack()).deployment.resources ?? []) if (r.type.startsWith("pulumi-nodejs:")) out[r.urn.split("::").pop()] = r;
    states.push(out);
  };
  expect((await run((o) => stack.up(o))).summary.resourceChanges.create).to.equal(3);
  await snapshot();
  phase = 2;
  expect((await run((o) => stack.up(o))).summary.resourceChanges.update).to.equal(1);
  await snapshot();
  await run((o) => stack.refresh(o), { expectNoChanges: true });
  expect((await run((o) => stack.destroy(o))).summary.resourceChanges.delete).to.equal(3);
  return { warnings, created: states[0], updated: states[1] };
}

function pythonWarnings(steps: Record<string, Step>): Event[] {
  return Object.values(steps).flatMap((s) => notices(s.events, "diagnostic_event"));
}

function expectPythonRanBy(steps: Record<string, Step>, plugin: string, embedded: boolean, resource = "whoami") {
  for (const s of Object.values(steps)) expect(s.error, `${s.name}: ${s.error?.message}`).to.equal(undefined);
  const ranBy = steps.up.resources[resource].outputs.ran_by;
  expectOurPythonHost(ranBy, plugin, embedded);
  return ranBy;
}

describe("installed as users install it: the real engine runs programs through each install", function () {
  this.timeout(20 * 60 * 1000);
  let engineBin: string;
  let sb: Sandbox;
  /** A project directory of its own under the checkout, so the program's require("@pulumi/pulumi") resolves. */
  let nodeWorkDir: string;

  before(function () {
    engineBin = prepareEngine();
    sb = sandbox("e2e-installs");
    nodeWorkDir = fs.mkdtempSync(`${REPO}.cache/e2e-installed-node-`);
  });
  after(function () {
    sb?.cleanup();
    fs.rmSync(nodeWorkDir, { recursive: true, force: true });
  });

  describe("the npm package (npm pack, npm i -g)", function () {
    it("install next to pulumi: both languages run through it with no warning; uninstall puts pulumi's scripts back", async function () {
      const npm = npmInstall();
      const layout = pulumiLayout("npm-next-to-pulumi", engineBin);
      const env = { ...process.env, ...sb.env, PATH: `${layout.bin}:${npm.bin}:${process.env.PATH}` };
      const said = command(`${npm.bin}/pulumi-dynamic-host`, ["install"], env);
      expect(said).to.include(`kept ${layout.bin}/${NODE_PLUGIN} as ${layout.bin}/${NODE_PLUGIN}.before-pulumi-dynamic-host: it was a file that is neither Pulumi's own plugin nor this host; uninstall puts it back`);
      expect(said.filter((l) => /^(note|warning):/.test(l)), "pulumi's directory comes first on PATH: no shadowing warning").to.deep.equal([]);
      expect(fs.realpathSync(`${layout.bin}/${NODE_PLUGIN}`)).to.equal(`${npm.packageDir}/bin/${NODE_PLUGIN}`);

      const cli = { ...sb, env: { ...sb.env, PATH: env.PATH } };
      const node = await nodeLifecycle(cli, layout.root, nodeWorkDir, "npm-next-to-pulumi");
      expect(node.warnings).to.deep.equal([]);
      expect(node.created.a.outputs.ranBy).to.deep.equal({ argv1: `${layout.bin}/${NODE_PLUGIN}`, execPath: process.execPath });
      expect(node.updated.b.outputs.ranBy.argv1).to.equal(`${layout.bin}/${NODE_PLUGIN}`);

      const python = await drive(cli, "whoami", "runtime-options", { root: layout.root });
      expectPythonRanBy(python, `${layout.bin}/${PYTHON_PLUGIN}`, false);
      expect(pythonWarnings(python)).to.deep.equal([]);

      command(`${npm.bin}/pulumi-dynamic-host`, ["uninstall"], env);
      for (const plugin of [NODE_PLUGIN, PYTHON_PLUGIN]) {
        expect(fs.readFileSync(`${layout.bin}/${plugin}`, "utf8")).to.contain(STAND_IN);
        expect(fs.existsSync(`${layout.bin}/${plugin}.before-pulumi-dynamic-host`)).to.equal(false);
      }
      expect(fs.readdirSync(layout.bin).sort()).to.deep.equal(["pulumi", NODE_PLUGIN, PYTHON_PLUGIN].sort());
    });

    it("install next to pulumi with npm's bin first on PATH: install warns that the engine will warn, and the engine does", async function () {
      const npm = npmInstall();
      const layout = pulumiLayout("npm-shadowed", engineBin);
      const env = { ...process.env, ...sb.env, PATH: `${npm.bin}:${layout.bin}:${process.env.PATH}` };
      const notes = command(`${npm.bin}/pulumi-dynamic-host`, ["install"], env).filter((l) => l.startsWith("warning:"));
      expect(notes).to.have.length(2);
      expect(notes[0]).to.contain(`using ${NODE_PLUGIN} from $PATH at ${npm.bin}/${NODE_PLUGIN} expected ${layout.bin}/${NODE_PLUGIN}`);
      const node = await nodeLifecycle({ ...sb, env: { ...sb.env, PATH: env.PATH } }, layout.root, nodeWorkDir, "npm-shadowed");
      expect(node.warnings.map((w) => w.message.trim())).to.include(`using ${NODE_PLUGIN} from $PATH at ${npm.bin}/${NODE_PLUGIN} expected ${layout.bin}/${NODE_PLUGIN}`);
      command(`${npm.bin}/pulumi-dynamic-host`, ["uninstall"], env);
    });

    it("install --project: Pulumi.yaml plugins.providers wins over everything, with no warning; uninstall --project removes it", async function () {
      const npm = npmInstall();
      const layout = pulumiLayout("npm-project", engineBin);
      const env = { ...process.env, ...sb.env, PATH: `${layout.bin}:${process.env.PATH}` };
      const cli = { ...sb, env: { ...sb.env, PATH: env.PATH } };
      const register = () => command(`${npm.bin}/pulumi-dynamic-host`, ["install", "--project", nodeWorkDir], env);
      const node = await nodeLifecycle(cli, layout.root, nodeWorkDir, "npm-project", register);
      expect(fs.readFileSync(`${nodeWorkDir}/Pulumi.yaml`, "utf8")).to.contain(`path: ${npm.packageDir}/bin`);
      expect(node.warnings).to.deep.equal([]);
      expect(node.created.a.outputs.ranBy.argv1).to.equal(`${npm.packageDir}/bin/${NODE_PLUGIN}`);

      const python = await drive(cli, "whoami", "runtime-options", {
        root: layout.root,
        afterCreate: [`${npm.bin}/pulumi-dynamic-host`, "install", "--project", "."],
      });
      expectPythonRanBy(python, `${npm.packageDir}/bin/${PYTHON_PLUGIN}`, false);
      expect(pythonWarnings(python)).to.deep.equal([]);

      command(`${npm.bin}/pulumi-dynamic-host`, ["uninstall", "--project", nodeWorkDir], env);
      expect(fs.readFileSync(`${nodeWorkDir}/Pulumi.yaml`, "utf8")).not.to.contain("plugins");
    });

    it("install --dir: the names in a directory of the user's; the engine warns, as install says it will", async function () {
      const npm = npmInstall();
      const layout = pulumiLayout("npm-dir", engineBin);
      const dir = path.join(installsRoot(), "my-plugins");
      const env = { ...process.env, ...sb.env, PATH: `${dir}:${layout.bin}:${process.env.PATH}` };
      const said = command(`${npm.bin}/pulumi-dynamic-host`, ["install", "--dir", dir], env);
      expect(said[said.length - 1]).to.contain("the engine prints");
      const node = await nodeLifecycle({ ...sb, env: { ...sb.env, PATH: env.PATH } }, layout.root, nodeWorkDir, "npm-dir");
      expect(node.created.a.outputs.ranBy.argv1).to.equal(`${dir}/${NODE_PLUGIN}`);
      expect(node.warnings.map((w) => w.message.trim())).to.include(`using ${NODE_PLUGIN} from $PATH at ${dir}/${NODE_PLUGIN} expected ${layout.bin}/${NODE_PLUGIN}`);
    });
  });

  describe("the single executable (the release archive), with no node on PATH", function () {
    it("install next to pulumi: both languages run in the executable itself with no warning", async function () {
      const unpacked = archiveInstall();
      const layout = pulumiLayout("archive-next-to-pulumi", engineBin);
      const PATH = pathWithoutNode([layout.bin, unpacked]);
      const env = { ...sb.env, PATH };
      command(`${unpacked}/pulumi-dynamic-host`, ["install"], env);
      // Hard links of the executable, under the plugin names.
      expect(fs.statSync(`${layout.bin}/${NODE_PLUGIN}`).ino).to.equal(fs.statSync(`${unpacked}/pulumi-dynamic-host`).ino);

      const cli = { ...sb, env };
      const node = await nodeLifecycle(cli, layout.root, nodeWorkDir, "archive");
      expect(node.warnings).to.deep.equal([]);
      expect(node.created.a.outputs.ranBy).to.deep.equal({ argv1: `${layout.bin}/${NODE_PLUGIN}`, execPath: `${layout.bin}/${NODE_PLUGIN}` });

      // The Python end-to-end suite's whole lifecycle: preview, up, up with changes, an unchanged up, refresh, destroy.
      const python = await drive(cli, "lifecycle", "runtime-options", { root: layout.root });
      expect(Object.keys(python)).to.deep.equal(["preview", "up", "up-change", "up-unchanged", "refresh", "destroy"]);
      expect(python["up-change"].resources.basic.outputs.ran_by.launched_as).to.equal(`${layout.bin}/${PYTHON_PLUGIN}`);
      const ranBy = expectPythonRanBy(python, `${layout.bin}/${PYTHON_PLUGIN}`, true, "basic");
      expect(ranBy.worker, "the worker script, extracted from the executable").to.match(/\/pulumi-dynamic-host\/[^/]+\/python-stub\/worker\.py$/);
      expect(pythonWarnings(python)).to.deep.equal([]);
      command(`${unpacked}/pulumi-dynamic-host`, ["uninstall"], env);
    });
  });

  describe("the wheel (pip install into the program's virtualenv), with no node on PATH", function () {
    it("install --project from the virtualenv: both languages run through it with no warning, Python providers in that virtualenv", async function () {
      const wheel = wheelInstall();
      for (const name of ["pulumi-dynamic-host", NODE_PLUGIN, PYTHON_PLUGIN]) expect(fs.statSync(`${wheel.bin}/${name}`).mode & 0o111).to.not.equal(0);
      const layout = pulumiLayout("wheel-project", engineBin);
      const PATH = pathWithoutNode([wheel.bin, layout.bin]);
      const env = { ...sb.env, PATH };
      const cli = { ...sb, env };
      const register = () => command(`${wheel.bin}/pulumi-dynamic-host`, ["install", "--project", nodeWorkDir], env);
      const node = await nodeLifecycle(cli, layout.root, nodeWorkDir, "wheel", register);
      expect(node.warnings).to.deep.equal([]);
      expect(node.created.a.outputs.ranBy).to.deep.equal({ argv1: `${wheel.bin}/${NODE_PLUGIN}`, execPath: `${wheel.bin}/${NODE_PLUGIN}` });

      const python = await drive(cli, "lifecycle", "runtime-options", {
        root: layout.root,
        venv: wheel.venv,
        afterCreate: [`${wheel.bin}/pulumi-dynamic-host`, "install", "--project", "."],
      });
      expect(Object.keys(python)).to.deep.equal(["preview", "up", "up-change", "up-unchanged", "refresh", "destroy"]);
      const ranBy = expectPythonRanBy(python, `${wheel.bin}/${PYTHON_PLUGIN}`, true, "basic");
      expect(ranBy.prefix, "the worker runs in the program's virtualenv").to.equal(wheel.venv);
      expect(pythonWarnings(python)).to.deep.equal([]);
      command(`${wheel.bin}/pulumi-dynamic-host`, ["uninstall", "--project", nodeWorkDir], env);
    });
  });
});
