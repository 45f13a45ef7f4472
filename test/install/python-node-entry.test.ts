// pulumi-resource-pulumi-python where no sh runs it (issue 34, item 5). npm's
// Windows shims run a bin with its shebang's program, and Windows has no sh, so
// the package's preinstall (bin/choose-python-entry.mjs) puts a Node entry
// (bin/python-entry.mjs) under the Python plugin's name on Windows, or wherever
// PULUMI_DYNAMIC_HOST_PYTHON_ENTRY=node. Nothing here runs Windows: the tarball
// is installed with the variable set, npm's own cmd-shim writes the shims npm
// writes on Windows, and the plugin is started as they start it, in a mount
// namespace whose every shell binary is a tripwire (test/fixtures/without-sh.mjs)
// and with a PATH holding only node.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { installsRoot, npmInstall, npmInstallNodeEntry, type NpmInstall } from "../helpers/installs.js";
import { FIXTURES, REPO } from "../helpers/paths.js";
import { pythonProvider } from "../helpers/payloads.js";
import { ENGINE_ADDRESS, Plugin } from "../helpers/plugin.js";

const PLUGIN = "pulumi-resource-pulumi-python";
const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const LOUD = ["--logtostderr", "-v=2", ENGINE_ADDRESS];

/** npm's own cmd-shim (what bin-links uses on Windows), from the npm on PATH. */
function cmdShim(): (from: string, to: string) => Promise<void> {
  const npm = fs.realpathSync(execFileSync("bash", ["-c", "command -v npm"], { encoding: "utf8" }).trim());
  return createRequire(path.join(path.dirname(npm), "..", "package.json"))("cmd-shim");
}

/** The program and the file the .cmd shim npm would write on Windows for `install`'s Python plugin runs. */
async function windowsShim(install: NpmInstall): Promise<{ prog: string; target: string; cmd: string }> {
  const dir = path.join(install.prefix, "windows-shims");
  await cmdShim()(path.join(install.packageDir, "bin", PLUGIN), path.join(dir, PLUGIN));
  const cmd = fs.readFileSync(path.join(dir, `${PLUGIN}.cmd`), "utf8");
  const prog = /SET "_prog=([^"]*)"\r?\n\s*SET PATHEXT/.exec(cmd)?.[1];
  const target = /"%_prog%"\s+"%dp0%\\([^"]+)" %\*/.exec(cmd)?.[1];
  if (prog === undefined || target === undefined) throw new Error(`cmd-shim wrote a .cmd this test cannot read:\n${cmd}`);
  return { prog, target: path.resolve(dir, target.split("\\").join("/")), cmd };
}

describe("pulumi-resource-pulumi-python where no sh runs it: the Node entry npm installs on Windows", function () {
  this.timeout(10 * 60 * 1000);
  let nodeEntry: NpmInstall;
  let shellLauncher: NpmInstall;
  /** A directory holding node alone, the PATH of the runs below. */
  let onlyNode: string;
  const started: Plugin[] = [];

  before(function () {
    shellLauncher = npmInstall();
    nodeEntry = npmInstallNodeEntry();
    onlyNode = path.join(installsRoot(), "only-node");
    fs.mkdirSync(onlyNode, { recursive: true });
    if (!fs.existsSync(path.join(onlyNode, "node"))) fs.symlinkSync(process.execPath, path.join(onlyNode, "node"));
  });
  afterEach(async function () {
    await Promise.all(started.splice(0).map((p) => p.stop()));
  });

  /** `argv` started as the engine starts a plugin, under without-sh.mjs; the tripwire's log beside. */
  const withoutSh = async (name: string, argv: string[]) => {
    const log = path.join(installsRoot(), `without-sh-${name}.log`);
    fs.writeFileSync(log, "");
    const p = await Plugin.launch("ours", {
      language: "python",
      executable: "unshare",
      args: ["--map-root-user", "--mount", process.execPath, `${FIXTURES}without-sh.mjs`, log, onlyNode, ...argv, ...LOUD],
    });
    started.push(p);
    return { p, shells: () => fs.readFileSync(log, "utf8") };
  };

  it("the preinstall chooses: the Node entry where asked (as on Windows), the shell launcher otherwise; npm's Windows shim then runs node, not sh", async function () {
    const first = (i: NpmInstall) => fs.readFileSync(path.join(i.packageDir, "bin", PLUGIN), "utf8").split("\n")[0];
    expect(first(nodeEntry)).to.equal("#!/usr/bin/env node");
    expect(first(shellLauncher)).to.equal("#!/bin/sh");
    // npm's links lead to the file the preinstall wrote.
    expect(fs.realpathSync(path.join(nodeEntry.bin, PLUGIN))).to.equal(path.join(nodeEntry.packageDir, "bin", PLUGIN));
    const shims = { node: await windowsShim(nodeEntry), sh: await windowsShim(shellLauncher) };
    expect(shims.sh.prog, "the shell launcher's shim (the issue: Windows has no sh)").to.equal("/bin/sh");
    expect(shims.node.prog, shims.node.cmd).to.equal("node");
    expect(shims.node.target).to.equal(path.join(nodeEntry.packageDir, "bin", PLUGIN));
  });

  /** A copy of the package's bin/ choice: the preinstall, the choice it makes, and the shell launcher it may replace. */
  const chooserCopy = (name: string) => {
    const copy = path.join(installsRoot(), name);
    fs.mkdirSync(path.join(copy, "bin"), { recursive: true });
    for (const f of ["choose-python-entry.mjs", "python-entry-choice.mjs", PLUGIN]) fs.copyFileSync(`${REPO}bin/${f}`, path.join(copy, "bin", f));
    fs.writeFileSync(path.join(copy, "package.json"), '{"type":"module"}');
    return copy;
  };

  it("on Windows (process.platform win32, no variable set) the preinstall chooses the Node entry; =sh keeps the shell launcher there", function () {
    // Node as Windows reports itself: process.platform is what the preinstall reads.
    const asWindows = ["--import", `data:text/javascript,Object.defineProperty(process, "platform", { value: "win32" });`];
    const env = { ...process.env };
    delete env.PULUMI_DYNAMIC_HOST_PYTHON_ENTRY;
    const windows = chooserCopy("choose-win32");
    execFileSync(process.execPath, [...asWindows, path.join(windows, "bin/choose-python-entry.mjs")], { env, stdio: "pipe" });
    expect(fs.readFileSync(path.join(windows, "bin", PLUGIN), "utf8")).to.equal(fs.readFileSync(path.join(nodeEntry.packageDir, "bin", PLUGIN), "utf8"));
    const kept = chooserCopy("choose-win32-sh");
    execFileSync(process.execPath, [...asWindows, path.join(kept, "bin/choose-python-entry.mjs")], { env: { ...env, PULUMI_DYNAMIC_HOST_PYTHON_ENTRY: "sh" }, stdio: "pipe" });
    expect(fs.readFileSync(path.join(kept, "bin", PLUGIN), "utf8")).to.equal(fs.readFileSync(`${REPO}bin/${PLUGIN}`, "utf8"));
  });

  it("a PULUMI_DYNAMIC_HOST_PYTHON_ENTRY other than node or sh fails the preinstall with a sentence naming it, and the file is left as it was", function () {
    const copy = chooserCopy("choose-bad");
    let err: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [path.join(copy, "bin/choose-python-entry.mjs")], { env: { ...process.env, PULUMI_DYNAMIC_HOST_PYTHON_ENTRY: "cmd" }, stdio: "pipe", encoding: "utf8" });
    } catch (e) {
      err = e as { status: number; stderr: string };
    }
    expect(err?.status).to.equal(1);
    expect(err?.stderr.trim()).to.equal(
      'pulumi-dynamic-host: PULUMI_DYNAMIC_HOST_PYTHON_ENTRY is "cmd"; it must be node (the Python plugin\'s name runs a Node entry) or sh (the shell launcher)',
    );
    expect(fs.readFileSync(path.join(copy, "bin", PLUGIN), "utf8")).to.equal(fs.readFileSync(`${REPO}bin/${PLUGIN}`, "utf8"));
  });

  it("started as the Windows shim starts it, with every shell a tripwire and only node on PATH: serves as the checkout does, and starts no shell", async function () {
    const checkout = await Plugin.launch("ours", { language: "python", args: LOUD });
    started.push(checkout);
    const { prog, target } = await windowsShim(nodeEntry);
    const ran = { shim: await withoutSh("shim", [prog, target]), link: await withoutSh("link", [path.join(nodeEntry.bin, PLUGIN)]) };
    const create = (p: Plugin, name: string) => p.client.create({ urn: urn(name), properties: { __provider: pythonProvider("minimal"), a: 1 } });
    const expected = await create(checkout, "pkg");
    expect(expected.code, expected.details).to.equal(0);
    for (const [how, { p, shells }] of Object.entries(ran)) {
      expect(await p.client.getPluginInfo(), how).to.deep.equal(await checkout.client.getPluginInfo());
      expect(await create(p, "pkg"), how).to.deep.equal(expected);
      expect(p.stderr, how).to.match(/python worker 0 ready: pid \d+/);
      // No worker starts beside the host: the host starts its own, as launch.sh leaves it to where it cannot.
      expect(p.stderr, how).to.not.contain("started by the launcher");
      expect(shells(), `${how}: shells started`).to.equal("");
    }
  });

  it("the shell launcher, started the same way, does not start: the tripwire is what the Node entry got past", async function () {
    let failed: Error | undefined;
    try {
      await withoutSh("shell-launcher", [path.join(shellLauncher.bin, PLUGIN)]);
    } catch (e) {
      failed = e as Error;
    }
    expect(failed?.message).to.match(/exited before/);
    const log = fs.readFileSync(path.join(installsRoot(), "without-sh-shell-launcher.log"), "utf8");
    expect(JSON.parse(log.split("\n")[0])).to.deep.equal(["/bin/sh", path.join(shellLauncher.bin, PLUGIN), ...LOUD]);
  });
});
