// What users install, checked before the engine sees it: the npm tarball holds
// what runs and nothing else, and each installed copy (npm i -g of the tarball,
// the release archive's single executable, the wheel's scripts) answers the
// engine's requests under both plugin names exactly as the checkout does.
// The single executable and the wheel run with no node on PATH.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { nodeUrn, type Outcome } from "../helpers/client.js";
import { archiveInstall, installsRoot, npmInstall, pathWithoutNode, PLUGIN_NAMES, release, wheelInstall } from "../helpers/installs.js";
import { BUN, REPO } from "../helpers/paths.js";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";
import { workerModules } from "../helpers/worker-modules.js";

const VERSION = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")).version as string;
const pythonUrn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
/** The reference helper's one source: the worker's copy, and the wheel's module. */
const HELPER = "python-stub/helper/pulumi_dynamic_host/reference.py";
/** The program-side helper for declared types (pulumi_dynamic_host.declared), shipped the same way. */
const DECLARED_HELPER = "python-stub/helper/pulumi_dynamic_host/declared.py";

/** The answers a plugin gives to GetPluginInfo and a Create with a real payload of its language. */
async function answers(language: "nodejs" | "python", executable?: string, env?: NodeJS.ProcessEnv): Promise<Outcome[]> {
  const plugin = await Plugin.launch("ours", { language, executable, env });
  try {
    const create =
      language === "nodejs"
        ? { urn: nodeUrn("pkg"), properties: { __provider: await nodeProvider("createOnly"), a: 1 } }
        : { urn: pythonUrn("pkg"), properties: { __provider: pythonProvider("minimal"), a: 1 } };
    return [await plugin.client.getPluginInfo(), await plugin.client.create(create)];
  } finally {
    await plugin.stop();
  }
}

describe("what users install: the npm package, the single executable and the wheel", function () {
  this.timeout(10 * 60 * 1000);
  const expected: Record<string, Outcome[]> = {};

  before(async function () {
    for (const language of ["nodejs", "python"] as const) expected[language] = await answers(language);
    expect(expected.nodejs[1].code, "the checkout's Node create").to.equal(0);
    expect(expected.python[1].code, "the checkout's Python create").to.equal(0);
  });

  describe("npm pack, then npm i -g of the tarball", function () {
    it("the tarball holds the bundle, bin/, proto/, python-stub/, the reference and declared helpers, the conformance scenarios and docs/*.md, and no tests, bench, sources or maps", function () {
      const { files } = npmInstall();
      expect(files).to.include.members([
        "package.json",
        "bin/launch.mjs",
        "bin/python-entry.mjs",
        "bin/choose-python-entry.mjs",
        "bin/python-entry-choice.mjs",
        ...PLUGIN_NAMES.map((n) => `bin/${n}`),
        "dist/bundle/boot.mjs",
        "dist/bundle/cli/host.cjs",
        "dist/bundle/cli/host-nodejs.cjs",
        "dist/bundle/cli/host-python.cjs",
        "proto/pulumirpc/provider.proto",
        "proto/google/rpc/status.proto",
        // worker.py and every module it loads (protocol.py, operations.py, …).
        ...workerModules().map((f) => `python-stub/${f}`),
        "python-stub/start.py",
        "python-stub/prestart.py",
        "python-stub/launch.sh",
        "python-stub/bytecode.py",
        "reference/index.cjs",
        "reference/index.d.ts",
        "context/index.cjs",
        "context/index.d.ts",
        "declared/index.cjs",
        "declared/index.d.ts",
        HELPER,
        DECLARED_HELPER,
        "src/conformance/scenarios/node/node-providers.cjs",
        "src/conformance/scenarios/node-program/local-helper.js",
        "src/conformance/scenarios/python_providers.py",
        "src/conformance/scenarios/python-program/provider.py",
        // The packages the conformance kit's Node scenarios require, brought by the kit (src/conformance/kit-packages.ts).
        "dist/bundle/conformance-packages/sleep-promise/package.json",
        "dist/bundle/conformance-packages/ms/index.js",
        ...fs.readdirSync(`${REPO}docs`).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
      ]);
      const unexpected = files.filter(
        (f) =>
          !/^(package\.json|README\.md|bin\/[^/]+|dist\/bundle\/boot\.mjs|dist\/bundle\/cli\/host(-nodejs|-python)?\.cjs(\.LEGAL\.txt)?|proto\/.+\.proto|python-stub\/.+\.py|python-stub\/launch\.sh|(reference|context|declared)\/index\.(cjs|d\.ts)|src\/conformance\/scenarios\/.+\.(cjs|js|py|json|txt|md)|dist\/bundle\/conformance-packages\/(sleep-promise|ms)\/.+|docs\/[^/]+\.md)$/.test(f),
      );
      expect(unexpected).to.deep.equal([]);
      const pkg = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8"));
      expect(pkg.private, "package.json is not private").to.equal(undefined);
      expect(pkg.dependencies ?? {}, "everything the host runs with is bundled").to.deep.equal({});
      // The declared helper requires the program's own @pulumi/pulumi: a peer, never installed for it.
      expect(pkg.peerDependencies).to.deep.equal({ "@pulumi/pulumi": ">=3.0.0" });
      expect(pkg.peerDependenciesMeta).to.deep.equal({ "@pulumi/pulumi": { optional: true } });
      expect(pkg.exports["./declared"]).to.deep.equal({ types: "./declared/index.d.ts", default: "./declared/index.cjs" });
    });

    it("in a project: pulumi-dynamic-host/declared resolves through exports and requires the project's own @pulumi/pulumi, under Node and Bun", function () {
      const { tarball } = npmInstall();
      // What a local install of a package without dependencies makes: the tarball's package/ under node_modules.
      const project = (name: string, sdk: boolean) => {
        const dir = path.join(installsRoot(), name);
        const installed = path.join(dir, "node_modules/pulumi-dynamic-host");
        fs.mkdirSync(installed, { recursive: true });
        execFileSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
        if (sdk) {
          fs.mkdirSync(path.join(dir, "node_modules/@pulumi"));
          fs.symlinkSync(`${REPO}node_modules/@pulumi/pulumi`, path.join(dir, "node_modules/@pulumi/pulumi"));
        }
        fs.writeFileSync(
          path.join(dir, "check.cjs"),
          `let r;
try {
  const { DeclaredResource } = require("pulumi-dynamic-host/declared");
  r = { file: require.resolve("pulumi-dynamic-host/declared"), sameSdk: Object.getPrototypeOf(DeclaredResource) === require("@pulumi/pulumi").CustomResource };
} catch (e) {
  r = { error: e.message };
}
console.log(JSON.stringify(r));
`,
        );
        return dir;
      };
      const withSdk = project("with-sdk", true);
      const withoutSdk = project("without-sdk", false);
      for (const runtime of [process.execPath, BUN]) {
        const check = (dir: string) => JSON.parse(execFileSync(runtime, ["check.cjs"], { cwd: dir, encoding: "utf8" }));
        expect(check(withSdk), runtime).to.deep.equal({ file: path.join(withSdk, "node_modules/pulumi-dynamic-host/declared/index.cjs"), sameSdk: true });
        expect(check(withoutSdk).error, runtime).to.equal(
          `pulumi-dynamic-host/declared: @pulumi/pulumi cannot be found from ${withoutSdk}/node_modules/pulumi-dynamic-host/declared; ` +
            `install it in the project (npm install @pulumi/pulumi), beside pulumi-dynamic-host`,
        );
      }
    });

    it("installs the three commands, and both plugin names answer as the checkout does", async function () {
      const npm = npmInstall();
      for (const name of PLUGIN_NAMES) expect(fs.realpathSync(path.join(npm.bin, name))).to.equal(path.join(npm.packageDir, "bin", name));
      expect(execFileSync(path.join(npm.bin, "pulumi-dynamic-host"), ["version"], { encoding: "utf8" }).trim()).to.equal(VERSION);
      for (const language of ["nodejs", "python"] as const) {
        const got = await answers(language, path.join(npm.bin, `pulumi-resource-pulumi-${language}`));
        expect(got, language).to.deep.equal(expected[language]);
      }
    });
  });

  describe("npm run dist", function () {
    it("makes the release archive (the executable under its name and the Node plugin's, the Python plugin's launcher) and a platform wheel", function () {
      const { archive, wheel } = release();
      const listing = execFileSync("tar", ["-tvzf", archive], { encoding: "utf8" });
      const top = `pulumi-dynamic-host-${VERSION}-${process.platform}-${process.arch}`;
      for (const name of PLUGIN_NAMES) expect(listing).to.contain(`${top}/${name}`);
      expect(listing.match(/ link to /g) ?? [], "the Node plugin's name stored as a hard link to the first").to.have.length(1);
      const launcher = execFileSync("tar", ["-xzOf", archive, `${top}/pulumi-resource-pulumi-python`], { encoding: "utf8" });
      expect(launcher.split("\n")[0]).to.equal("#!/bin/sh");
      expect(launcher).to.contain(`pulumi-dynamic-host ${VERSION} (the single executable)`);
      for (const f of fs.readdirSync(`${REPO}docs`).filter((f) => f.endsWith(".md"))) expect(listing).to.contain(`${top}/docs/${f}`);
      expect(path.basename(wheel)).to.match(new RegExp(`^pulumi_dynamic_host-${VERSION.replace(/\./g, "\\.")}-py3-none-(manylinux_2_\\d+_x86_64|manylinux_2_\\d+_aarch64|macosx_\\d+_\\d+_(arm64|x86_64))\\.whl$`));
    });

    for (const [label, dir] of [
      ["the release archive's single executable", () => archiveInstall()],
      ["the wheel's scripts in a virtualenv", () => wheelInstall().bin],
    ] as const) {
      it(`${label}: both plugin names answer as the checkout does, with no node on PATH`, async function () {
        const bin = dir();
        const PATH = pathWithoutNode([bin]);
        expect(execFileSync(path.join(bin, "pulumi-dynamic-host"), ["version"], { encoding: "utf8", env: { PATH } }).trim()).to.equal(VERSION);
        for (const language of ["nodejs", "python"] as const) {
          const got = await answers(language, path.join(bin, `pulumi-resource-pulumi-${language}`), { PATH });
          expect(got, language).to.deep.equal(expected[language]);
        }
      });
    }

    for (const [label, dir] of [
      ["the release archive (hard links)", () => archiveInstall()],
      ["the wheel's scripts (the executable once, launchers beside it)", () => wheelInstall().bin],
    ] as const) {
      it(`${label}: doctor takes both plugin names found on PATH for this host, and names the platform and the Node embedded in it`, function () {
        const bin = dir();
        const cwd = fs.mkdtempSync(path.join(installsRoot(), "doctor-"));
        let out: string;
        try {
          out = execFileSync(path.join(bin, "pulumi-dynamic-host"), ["doctor"], { cwd, encoding: "utf8", env: { PATH: pathWithoutNode([bin]) } });
        } catch (e) {
          // doctor exits 1 over problems of this machine (no pulumi, say): its report is still on stdout.
          out = String((e as { stdout?: string }).stdout ?? "");
        } finally {
          fs.rmSync(cwd, { recursive: true, force: true });
        }
        for (const name of ["pulumi-resource-pulumi-nodejs", "pulumi-resource-pulumi-python"]) {
          expect(out, name).to.include(`ok: plugin ${name}: ${bin}/${name} ($PATH), this host ${VERSION}`);
        }
        expect(out).to.match(new RegExp(`^ok: platform: Linux ${process.arch} \\(linux-${process.arch}\\); this command runs on Node v\\d+\\.\\d+\\.\\d+ embedded in this single executable$`, "m"));
      });
    }

    it("the wheel installs the executable once (the Node plugin's name) and small launchers under the two other names", function () {
      const { bin } = wheelInstall();
      const exe = fs.statSync(path.join(bin, "pulumi-resource-pulumi-nodejs")).size;
      expect(exe, "the executable").to.be.greaterThan(20 * 2 ** 20);
      for (const name of ["pulumi-dynamic-host", "pulumi-resource-pulumi-python"]) {
        const file = path.join(bin, name);
        expect(fs.statSync(file).size, name).to.be.lessThan(4096);
        expect(fs.readFileSync(file, "utf8").split("\n")[0], name).to.equal("#!/bin/sh");
      }
      // The wheel itself holds the executable once: its size is about the executable's, compressed.
      const wheelBytes = fs.statSync(release().wheel).size;
      expect(wheelBytes, "the wheel").to.be.lessThan(exe);
      // The command for people, through its launcher: itself, with its own usage.
      const PATH = pathWithoutNode([bin]);
      const help = execFileSync(path.join(bin, "pulumi-dynamic-host"), ["docs"], { encoding: "utf8", env: { PATH } });
      expect(help).to.match(/^import-and-repair +Importing and repairing dynamic resources$/m);
      const doc = execFileSync(path.join(bin, "pulumi-dynamic-host"), ["docs", "import-and-repair"], { encoding: "utf8", env: { PATH } });
      expect(doc).to.equal(fs.readFileSync(`${REPO}docs/import-and-repair.md`, "utf8"));
    });

    it("the wheel holds the reference and declared-type helpers; the worker imports the installed reference helper, else its own", async function () {
      const { venv, bin } = wheelInstall();
      const python = path.join(venv, "bin/python");
      const installed = execFileSync(python, ["-c", "import pulumi_dynamic_host.reference as m; print(m.__file__)"], { encoding: "utf8" }).trim();
      expect(installed.startsWith(`${venv}/lib/`) && installed.endsWith("/site-packages/pulumi_dynamic_host/reference.py"), installed).to.equal(true);
      expect(fs.readFileSync(installed, "utf8")).to.equal(fs.readFileSync(`${REPO}${HELPER}`, "utf8"));
      const declared = execFileSync(python, ["-c", "import pulumi_dynamic_host.declared as m; print(m.__file__)"], { encoding: "utf8" }).trim();
      expect(fs.readFileSync(declared, "utf8")).to.equal(fs.readFileSync(`${REPO}${DECLARED_HELPER}`, "utf8"));
      // A program passing the helper's object: unpickling it imports the helper, the wheel's copy where installed.
      const create = { urn: "urn:pulumi:dev::references::pulumi-python:dynamic:Counter::c", properties: { __provider: pythonProvider("counter", "python_reference_payloads.py"), start: 2 } };
      const cwd = `${REPO}test/fixtures/python-references`;
      const helperFiles: string[] = [];
      for (const [executable, env] of [
        [path.join(bin, "pulumi-resource-pulumi-python"), { PATH: pathWithoutNode([bin]), PULUMI_RUNTIME_VIRTUALENV: venv }],
        [path.join(archiveInstall(), "pulumi-resource-pulumi-python"), { PATH: pathWithoutNode([archiveInstall()]) }],
      ] as const) {
        const plugin = await Plugin.launch("ours", { language: "python", executable, cwd, env });
        try {
          const r = await plugin.client.create(create);
          expect(r.code, r.details).to.equal(0);
          helperFiles.push(r.view.properties.ran.helper_file);
        } finally {
          await plugin.stop();
        }
      }
      expect(helperFiles[0]).to.equal(installed);
      expect(helperFiles[1]).to.match(/\/python-stub\/helper\/pulumi_dynamic_host\/reference\.py$/);
      expect(helperFiles[1].startsWith(REPO), "the executable's own extracted copy, not the checkout's").to.equal(false);
    });

    it("the single executable writes python-stub/ once to a per-version cache directory, whole, under concurrent first starts", async function () {
      const bin = archiveInstall();
      const cache = path.join(installsRoot(), "stub-cache");
      const env = { PATH: pathWithoutNode([bin]), PULUMI_DYNAMIC_HOST_CACHE_DIR: cache };
      const plugins = await Promise.all(
        Array.from({ length: 6 }, () => Plugin.launch("ours", { language: "python", executable: path.join(bin, "pulumi-resource-pulumi-python"), env })),
      );
      try {
        const results = await Promise.all(plugins.map((p) => p.client.create({ urn: pythonUrn("race"), properties: { __provider: pythonProvider("minimal") } })));
        expect(results.map((r) => r.code)).to.deep.equal(results.map(() => 0));
      } finally {
        await Promise.all(plugins.map((p) => p.stop()));
      }
      // Beside the extracted files: the worker's compiled code, kept between starts (python-stub/bytecode.py), with no temporary file left.
      const kept = fs.readdirSync(path.join(cache, "python-bytecode"), { recursive: true }).map(String);
      expect(kept.filter((f) => f.endsWith(".tmp")), "no temporary compiled-code file left").to.deep.equal([]);
      expect(kept.some((f) => path.basename(f).startsWith("worker.py-") && f.endsWith(".bin")), `the worker's compiled code is kept: ${kept}`).to.equal(true);
      const entries = fs.readdirSync(cache).filter((e) => e !== "python-bytecode");
      expect(entries, "one directory, no temporary leftovers").to.have.length(1);
      expect(entries[0]).to.match(new RegExp(`^${VERSION.replace(/\./g, "\\.")}-[0-9a-f]{12}$`));
      const stub = path.join(cache, entries[0], "python-stub");
      for (const f of [...workerModules(), "start.py", "bytecode.py", HELPER.slice("python-stub/".length)]) {
        expect(fs.readFileSync(path.join(stub, f), "utf8")).to.equal(fs.readFileSync(`${REPO}python-stub/${f}`, "utf8"));
      }
    });
  });
});
