// Registry packages in the host's cache (src/host/packages/registry-install.ts,
// npm-registry.ts) without a registry: npm's answers stood in for, so that
// what the host does with them (the version a range picks, the integrity it
// pins and checks, the cache folder, two processes installing at once, a
// registry serving other bytes) is checked here; the real npm, pip, verdaccio
// and pypiserver are in test/e2e/provider-package-registries.test.ts.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NpmRegistry, type NpmRun } from "../../src/host/packages/npm-registry.js";
import type { RegistrySource } from "../../src/host/packages/parameters.js";
import { entryDir, installed, RegistryError } from "../../src/host/packages/registry-install.js";
import { ServedPackages } from "../../src/host/packages/served-packages.js";
import { PypiRegistry, type PipRun } from "../../src/python-bridge/pypi-registry.js";
import { FIXTURES } from "../helpers/paths.js";

const INTEGRITY = "sha512-published";

/** npm as a registry holding @acme/pulumi-files 1.2.0 and 1.3.0 would answer; `served` is the integrity npm install finds. */
function fakeNpm(calls: string[][], served = INTEGRITY): NpmRun {
  return async (args, cwd) => {
    calls.push(args);
    if (args[0] === "view") {
      if (!args[1].startsWith("@acme/pulumi-files")) return { code: 1, stdout: JSON.stringify({ error: { code: "E404", summary: "Not Found - no such package available" } }), stderr: "" };
      const all = ["1.2.0", "1.3.0"].map((version) => ({ name: "@acme/pulumi-files", version, "dist.integrity": `${INTEGRITY}-${version}` }));
      const wanted = args[1].includes("@1.2") ? all.slice(0, 1) : all;
      return { code: 0, stdout: JSON.stringify(wanted.length === 1 ? wanted[0] : wanted), stderr: "" };
    }
    // install: the package's folder, as npm would lay it out, and its lock.
    const want = JSON.parse(fs.readFileSync(path.join(cwd, "package.json"), "utf8")).dependencies["@acme/pulumi-files"];
    const dir = path.join(cwd, "node_modules", "@acme", "pulumi-files");
    fs.cpSync(`${FIXTURES}provider-packages/files-node`, dir, { recursive: true });
    const manifest = path.join(dir, "package.json");
    fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replace('"version": "1.2.0"', `"version": "${want}"`));
    const lock = { packages: { "node_modules/@acme/pulumi-files": { version: want, integrity: served === INTEGRITY ? `${INTEGRITY}-${want}` : served } } };
    fs.writeFileSync(path.join(cwd, "package-lock.json"), JSON.stringify(lock));
    await new Promise((r) => setTimeout(r, 20));
    return { code: 0, stdout: "", stderr: "" };
  };
}

describe("provider packages from a registry: resolved, pinned, installed once into the cache", function () {
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pdh-registries-")));
  });
  beforeEach(() => {
    env = { PULUMI_DYNAMIC_HOST_CACHE_DIR: fs.mkdtempSync(path.join(tmp, "cache-")) };
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("a range resolves to the highest version npm lists, with the integrity the registry published for it", async function () {
    const npm = new NpmRegistry(fakeNpm([]));
    expect(await npm.resolve("@acme/pulumi-files@^1", tmp)).to.deep.equal({ package: "@acme/pulumi-files", version: "1.3.0", integrity: `${INTEGRITY}-1.3.0` });
    expect(await npm.resolve("@acme/pulumi-files@1.2.0", tmp)).to.deep.equal({ package: "@acme/pulumi-files", version: "1.2.0", integrity: `${INTEGRITY}-1.2.0` });
    const missing = await npm.resolve("@acme/other", tmp).catch((e) => e);
    expect(missing).to.be.instanceOf(RegistryError);
    expect(missing.message).to.equal(`npm could not find "@acme/other" (npm view @acme/other, in ${tmp}): E404: Not Found - no such package available`);
  });

  it("installs into a cache folder keyed by name, version and integrity; the second time, and in two processes at once, it is installed once", async function () {
    const calls: string[][] = [];
    const npm = new NpmRegistry(fakeNpm(calls));
    const pinned: RegistrySource = { kind: "npm", spec: "@acme/pulumi-files@1.2.0", package: "@acme/pulumi-files", version: "1.2.0", integrity: `${INTEGRITY}-1.2.0` };
    const [a, b] = await Promise.all([installed(npm, pinned, tmp, env), installed(npm, pinned, tmp, env)]);
    const entry = entryDir(env.PULUMI_DYNAMIC_HOST_CACHE_DIR!, npm, pinned);
    expect(a.dir).to.equal(path.join(entry, "node_modules", "@acme", "pulumi-files"));
    expect(b.dir).to.equal(a.dir);
    expect(path.relative(env.PULUMI_DYNAMIC_HOST_CACHE_DIR!, entry).split(path.sep).slice(0, 4)).to.deep.equal(["packages", "npm", "acme+pulumi-files", "1.2.0"]);
    const installs = calls.filter((c) => c[0] === "install").length;
    expect(installs, "both processes may install; one folder is kept").to.be.within(1, 2);
    await installed(npm, pinned, tmp, env);
    expect(calls.filter((c) => c[0] === "install").length, "the third time comes from the cache").to.equal(installs);
    expect(fs.readdirSync(path.dirname(entry)).filter((d) => d.startsWith(".installing")), "no temporary folder left").to.deep.equal([]);
    // Another integrity of the same version is another folder.
    expect(entryDir(env.PULUMI_DYNAMIC_HOST_CACHE_DIR!, npm, { ...pinned, integrity: "sha512-other" })).to.not.equal(entry);
  });

  it("a registry that now serves other bytes under the pinned version is refused, and nothing is kept in the cache", async function () {
    const npm = new NpmRegistry(fakeNpm([], "sha512-tampered"));
    const pinned: RegistrySource = { kind: "npm", spec: "@acme/pulumi-files@1.2.0", package: "@acme/pulumi-files", version: "1.2.0", integrity: `${INTEGRITY}-1.2.0` };
    const e = await installed(npm, pinned, tmp, env).catch((err) => err);
    expect(e).to.be.instanceOf(RegistryError);
    expect(e.message).to.equal(
      `npm installed @acme/pulumi-files 1.2.0 with integrity sha512-tampered, and the project added @acme/pulumi-files@1.2.0 with integrity ${INTEGRITY}-1.2.0: ` +
        "the registry npm uses now serves other bytes under that version, so it is not installed",
    );
    expect(fs.existsSync(entryDir(env.PULUMI_DYNAMIC_HOST_CACHE_DIR!, npm, pinned))).to.equal(false);
  });

  it("Parameterize: a bare word that is no folder is a spec; the value pins it, and restores it from the cache in a later process", async function () {
    const project = fs.mkdtempSync(path.join(tmp, "project-"));
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: p\nruntime: yaml\n");
    const prev = process.env.PULUMI_DYNAMIC_HOST_CACHE_DIR;
    process.env.PULUMI_DYNAMIC_HOST_CACHE_DIR = env.PULUMI_DYNAMIC_HOST_CACHE_DIR;
    try {
      const plugin = { language: "nodejs" as const, binary: "pulumi-resource-pulumi-nodejs" };
      const calls: string[][] = [];
      const adding = new ServedPackages(plugin, project, { use: new NpmRegistry(fakeNpm(calls)) });
      expect(await adding.parameterize({ args: { args: ["@acme/pulumi-files@^1"] } })).to.deep.equal({ name: "files", version: "1.3.0" });
      const value = adding.get("files")!.value;
      expect(JSON.parse(value.toString()).source).to.deep.equal({ kind: "npm", spec: "@acme/pulumi-files@^1", package: "@acme/pulumi-files", version: "1.3.0", integrity: `${INTEGRITY}-1.3.0` });
      const later = new ServedPackages(plugin, project, { use: new NpmRegistry(fakeNpm(calls)) });
      expect(await later.parameterize({ value: { name: "files", version: "1.3.0", value } })).to.deep.equal({ name: "files", version: "1.3.0" });
      expect(calls.map((c) => c[0])).to.deep.equal(["view", "install"]);
      // Without a registry (a Python plugin with no usable Python), the spec is refused saying why.
      const none = new ServedPackages(plugin, project, { unavailable: "this project has no usable Python to install it with: no python3 on PATH" });
      const e = await none.parameterize({ value: { name: "files", version: "1.3.0", value } }).catch((err) => err);
      expect(e.message).to.equal("the project uses files 1.3.0, added from @acme/pulumi-files@^1, and this project has no usable Python to install it with: no python3 on PATH");
      // A Python plugin is not asked for an npm package.
      const python = new ServedPackages({ language: "python", binary: "pulumi-resource-pulumi-python" }, project);
      const wrong = await python.parameterize({ value: { name: "files", version: "1.3.0", value } }).catch((err) => err);
      expect(wrong.message).to.equal("the project uses files 1.3.0, a Node package, and this plugin, pulumi-resource-pulumi-python, does not serve those: pulumi-resource-pulumi-nodejs does");
    } finally {
      if (prev === undefined) delete process.env.PULUMI_DYNAMIC_HOST_CACHE_DIR;
      else process.env.PULUMI_DYNAMIC_HOST_CACHE_DIR = prev;
    }
  });

  describe("a Python index, through pip's report", function () {
    const SHA = "a".repeat(64);
    /** pip as an index holding acme-counters 0.3.0 (needing acme-stepper, which the Python lacks) would answer; `files` is what the wheel installs. */
    function fakePip(calls: string[][], files: string[]): PipRun {
      return async (args) => {
        calls.push(args);
        const report = args.indexOf("--report");
        if (report >= 0) {
          const withDeps = !args.includes("--no-deps");
          const install = [{ metadata: { name: "acme-counters", version: "0.3.0" }, download_info: { archive_info: { hashes: { sha256: SHA } } } }];
          if (withDeps) install.push({ metadata: { name: "acme-stepper", version: "2.0.0" }, download_info: { archive_info: { hashes: { sha256: "b".repeat(64) } } } });
          fs.writeFileSync(args[report + 1], JSON.stringify({ install }));
          return { code: 0, stdout: "", stderr: "" };
        }
        const site = args[args.indexOf("--target") + 1];
        if (args.includes("--require-hashes")) {
          const info = path.join(site, "acme_counters-0.3.0.dist-info");
          fs.mkdirSync(info, { recursive: true });
          fs.writeFileSync(path.join(info, "RECORD"), [...files, "acme_counters-0.3.0.dist-info/RECORD,,"].map((f) => `${f},sha256=x,1`).join("\n"));
        }
        return { code: 0, stdout: "", stderr: "" };
      };
    }
    const interpreter = { python: "/venv/bin/python", env: {} };

    it("resolves to the file's sha256; installs the package by hash, then only the dependencies the Python lacks; finds the declarations in the wheel", async function () {
      const calls: string[][] = [];
      const pypi = new PypiRegistry(interpreter, fakePip(calls, ["acme_counters/__init__.py", "acme_counters/pulumi-provider.yaml"]));
      const resolved = await pypi.resolve("acme-counters>=0.3", tmp);
      expect(resolved).to.deep.equal({ package: "acme-counters", version: "0.3.0", integrity: `sha256:${SHA}` });
      const into = fs.mkdtempSync(path.join(tmp, "entry-"));
      const got = await pypi.install({ kind: "pypi", spec: "acme-counters>=0.3", ...resolved }, into, tmp);
      expect(got).to.deep.equal({
        dir: path.join(into, "site"),
        declarations: path.join(into, "site", "acme_counters", "pulumi-provider.yaml"),
        manifest: { name: "acme-counters", version: "0.3.0" },
      });
      const installs = calls.filter((c) => !c.includes("--dry-run"));
      expect(installs[0]).to.include.members(["--no-deps", "--require-hashes"]);
      expect(installs[1].slice(-1)).to.deep.equal(["acme-stepper==2.0.0"]);
      expect(pypi.variant, "the cache folder is per interpreter").to.equal("/venv/bin/python");
    });

    it("a wheel without pulumi-provider.yaml is refused, saying where the file belongs", async function () {
      const pypi = new PypiRegistry(interpreter, fakePip([], ["acme_counters/__init__.py"]));
      const into = fs.mkdtempSync(path.join(tmp, "entry-"));
      const e = await pypi.install({ kind: "pypi", spec: "acme-counters==0.3.0", package: "acme-counters", version: "0.3.0", integrity: `sha256:${SHA}` }, into, tmp).catch((err) => err);
      expect(e).to.be.instanceOf(RegistryError);
      expect(e.message).to.equal("acme-counters 0.3.0 installs no pulumi-provider.yaml: a Python provider package carries exactly one in its wheel, among its modules (docs/provider-packages.md)");
    });
  });
});
