// `doctor` against a laid-out machine (a fake `pulumi` with links to this host
// beside it, first on PATH; the test virtualenv as the program's Python) and
// stack exports built as the engine writes them, with payloads made by the
// real serializers, good and broken: one line per finding, problems naming the
// URN, exit 1 on any problem, 2 on bad input, no provider code run.
import { expect } from "chai";
import fs from "node:fs";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { doctor, runDoctor } from "../../src/cli/doctor/doctor.js";
import { shadowAdvice } from "../../src/cli/install/install.js";
import { FIXTURES, PYTHON_PROGRAM, NODE_PROGRAM, REPO, SCENARIOS, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { nodeProvider, pickleFromPython310, pythonProvider } from "../helpers/payloads.js";
import { encryptedSecret, NODE_TYPE, plaintextSecret, PYTHON_TYPE, removeTemps, runVenvPython, stackExport, urnOf, writeTemp, type Entry } from "../helpers/stack-exports.js";

const require = createRequire(import.meta.url);
const { serializeProvider } = require(`${FIXTURES}serialize.cjs`);
const VERSION = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")).version;
const SDK_MANIFEST = JSON.parse(fs.readFileSync(`${REPO}node_modules/@pulumi/pulumi/package.json`, "utf8"));
const SDK_VERSION = SDK_MANIFEST.version;
// The pinned SDK (3.270) asks for Node >=22 in its engines; the Node running these tests may or may not have it.
const SDK_ENGINES: string = SDK_MANIFEST.engines.node;
const NODE_MEETS_SDK = Number(process.versions.node.split(".")[0]) >= Number(/^>=(\d+)$/.exec(SDK_ENGINES)![1]);
const ENGINES_LINE = NODE_MEETS_SDK
  ? `ok: node: @pulumi/pulumi ${SDK_VERSION} asks for Node ${SDK_ENGINES} (its package.json engines.node); ${process.execPath} ${process.version} runs the host and its providers`
  : `note: node: @pulumi/pulumi ${SDK_VERSION} asks for Node ${SDK_ENGINES} (its package.json engines.node), and ${process.execPath} ${process.version} runs the host and its providers: ` +
    "a provider that requires @pulumi/pulumi may fail there; put a node that matches first on PATH";
/** The notes every run from a directory where the repository's @pulumi/pulumi resolves has beside its own. */
const ENGINES_NOTES = NODE_MEETS_SDK ? 0 : 1;
/** The first line of every run on this machine: Linux, the Node running the tests (not the single executable). */
const PLATFORM_LINE = `ok: platform: Linux ${process.arch} (linux-${process.arch}); this command runs on Node ${process.version} (node, not the single executable)`;
const notes = (k: number) => `${k} note${k === 1 ? "" : "s"}`;
const NO_PROJECT = (dir: string) =>
  `note: program directory: ${dir}: no Pulumi.yaml at or above it, so this is not a Pulumi project: the engine starts the plugins in a project's directory, ` +
  "and its Pulumi.yaml (runtime, plugins.providers, the pulumi-dynamic-host section) is not checked here; run doctor in the project's directory or give it as DIR";
const CIPHERTEXT = "v1:c2VjcmV0:CIPHERTEXT-MUST-NOT-BE-PRINTED";
const n = (name: string) => urnOf(NODE_TYPE, name);
const p = (name: string) => urnOf(PYTHON_TYPE, name);

const tmpDirs: string[] = [];
function tmpDir(prefix: string, files: Record<string, string> = {}): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`)));
  tmpDirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text, { mode: 0o755 });
  }
  return dir;
}

interface Run {
  code: number;
  out: string[];
  err: string[];
  problems: string[];
}

describe("doctor: can this machine load a stack's dynamic providers, without running them", function () {
  this.timeout(120_000);
  let bin: string;
  let env: NodeJS.ProcessEnv;
  let empty: string;

  before(function () {
    const machine = tmpDir("doctor-machine", { "bin/pulumi": "#!/bin/sh\necho 'not a real pulumi'\n" });
    bin = path.join(machine, "bin");
    for (const name of ["pulumi-resource-pulumi-nodejs", "pulumi-resource-pulumi-python"]) fs.symlinkSync(`${REPO}bin/pulumi-dynamic-host`, path.join(bin, name));
    env = { PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: os.homedir(), PULUMI_HOME: path.join(machine, "home"), PULUMI_RUNTIME_VIRTUALENV: TEST_VENV };
    empty = tmpDir("doctor-empty-program");
  });
  after(function () {
    for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
    removeTemps();
  });

  async function check(dir: string, entries?: Entry[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
    const out: string[] = [];
    const err: string[] = [];
    const stackExportFile = entries && writeTemp(stackExport(entries));
    const code = await doctor({ dir, stackExport: stackExportFile, env: { ...env, ...extraEnv } }, (l) => out.push(l), (l) => err.push(l));
    expect(out.join("\n")).not.to.include("CIPHERTEXT-MUST-NOT-BE-PRINTED");
    return { code, out, err, problems: out.filter((l) => l.startsWith("problem: ")) };
  }

  it("checks the project's providers by reference: each resolves, or a problem says what is wrong, and no provider code runs (Node)", async function () {
    // Under the repository, so typescript and @pulumi/pulumi resolve as from a project's own node_modules.
    fs.mkdirSync(`${REPO}.cache`, { recursive: true });
    const dir = fs.realpathSync(fs.mkdtempSync(`${REPO}.cache/doctor-refs-`));
    tmpDirs.push(dir);
    const files: Record<string, string> = {
      "Pulumi.yaml": [
        "name: refs",
        "runtime: nodejs",
        "pulumi-dynamic-host:",
        "  latestCode: true",
        "  providers:",
        "    pulumi-nodejs:dynamic:Good: ./providers#good",
        "    pulumi-nodejs:dynamic:Gone: ./missing#x",
        "    pulumi-nodejs:dynamic:Misspelt: ./providers#goood",
        "    pulumi-nodejs:dynamic:Legacy: ./legacy#legacyProvider",
        "    pulumi-nodejs:dynamic:LegacyTypo: ./legacy#legacyProviderTypo",
        "    pulumi-python:dynamic:Counter: counters:Counter",
        "    pulumi-python:dynamic:Typo: counters:Countr",
        "    pulumi-python:dynamic:Nowhere: nowhere.mod:X",
        "",
      ].join("\n"),
      "package.json": '{ "name": "refs", "private": true }\n',
      // Loading either module would leave a file behind: doctor must not.
      "providers.ts": `require("fs").writeFileSync(${JSON.stringify(`${dir}/ran-ts`)}, "");\nexport const good = { create() {} };\nexport function helper() {}\nexport interface NotAValue { x: number }\n`,
      "legacy.js": `require("fs").writeFileSync(${JSON.stringify(`${dir}/ran-js`)}, "");\nexports.legacyProvider = { create() {} };\nmodule.exports.other = 1;\n`,
      "counters.py": "class Counter:\n    def create(self, props):\n        pass\n",
    };
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    const run = await check(dir);
    expect(run.out).to.include(`ok: provider references: 8 declared in ${dir}/Pulumi.yaml (pulumi-dynamic-host.providers; latestCode for 8)`);
    const ts = run.out.find((l) => l.startsWith("ok: pulumi-nodejs:dynamic:Good: "));
    expect(ts).to.match(new RegExp(`^ok: pulumi-nodejs:dynamic:Good: \\./providers#good is export good of ${dir}/providers\\.ts \\(TypeScript, compiled with .*typescript.* through ts-node .*\\)$`));
    expect(run.problems).to.include(
      `problem: pulumi-nodejs:dynamic:Gone: the provider reference "./missing#x" declared for pulumi-nodejs:dynamic:Gone: module ./missing was not found at ${dir}/missing ` +
        `(relative to the project directory ${dir}): Cannot find module '${dir}/missing'`,
    );
    // A misspelt export is found from the module's source, TypeScript or JavaScript, and the names it does export are given.
    expect(run.problems).to.include(
      `problem: pulumi-nodejs:dynamic:Misspelt: the provider reference "./providers#goood" declared for pulumi-nodejs:dynamic:Misspelt: ${dir}/providers.ts has no export named goood; did you mean good?; it exports good, helper`,
    );
    expect(run.out).to.include(`ok: pulumi-nodejs:dynamic:Legacy: ./legacy#legacyProvider is export legacyProvider of ${dir}/legacy.js`);
    expect(run.problems).to.include(
      `problem: pulumi-nodejs:dynamic:LegacyTypo: the provider reference "./legacy#legacyProviderTypo" declared for pulumi-nodejs:dynamic:LegacyTypo: ${dir}/legacy.js has no export named legacyProviderTypo; it exports legacyProvider, other`,
    );
    expect(fs.existsSync(`${dir}/ran-js`), "the JavaScript module was not run").to.equal(false);
    expect(run.out).to.include(`ok: pulumi-python:dynamic:Counter: counters:Counter is Counter of ${dir}/counters.py`);
    // A misspelt Python attribute gets its "did you mean" as a misspelt Node export does.
    expect(run.problems).to.include(`problem: pulumi-python:dynamic:Typo: counters:Countr: module 'counters' (${dir}/counters.py) has no attribute 'Countr'; did you mean counters:Counter?`);
    // Eight declarations without types: one note for them all.
    expect(run.out.filter((l) => l.includes("no inputs or outputs"))).to.deep.equal([
      "note: schema: 8 declared types declare no inputs or outputs (pulumi-nodejs:dynamic:Good, pulumi-nodejs:dynamic:Gone, pulumi-nodejs:dynamic:Misspelt and 5 more): " +
        "programs of every language can use them, but a YAML program can give them no property; docs/schema.md (pulumi-dynamic-host docs schema) says how to type them",
    ]);
    expect(run.problems.find((l) => l.startsWith("problem: pulumi-python:dynamic:Nowhere: nowhere.mod:X: "))).to.include("cannot find module nowhere.mod from the program directory (No module named 'nowhere')");
    expect(run.code).to.equal(1);
    expect(fs.existsSync(`${dir}/ran-ts`), "the TypeScript module was not run").to.equal(false);
  });

  describe("a good export, from the program directory that has what it needs", function () {
    let run: Run;
    before(async function () {
      run = await check(PYTHON_PROGRAM, [
        { type: NODE_TYPE, name: "configured", provider: await nodeProvider("configured") },
        { type: NODE_TYPE, name: "create-only", provider: await nodeProvider("createOnly") },
        { type: NODE_TYPE, name: "encrypted", provider: encryptedSecret(CIPHERTEXT) },
        { type: PYTHON_TYPE, name: "minimal", provider: pythonProvider("minimal") },
        { type: PYTHON_TYPE, name: "local", provider: pythonProvider("local") },
        { type: PYTHON_TYPE, name: "scripted", provider: plaintextSecret(pythonProvider("scripted")) },
      ]);
    });

    it("exits 0 with the plugins the engine launches, the Node and the Python, and the summary", function () {
      expect(run.err).to.deep.equal([]);
      expect(run.code, run.out.join("\n")).to.equal(0);
      expect(run.out[0]).to.equal(PLATFORM_LINE);
      expect(run.out.slice(1, 8)).to.deep.equal([
        NO_PROJECT(PYTHON_PROGRAM),
        `ok: pulumi: ${bin}/pulumi`,
        `ok: plugin pulumi-resource-pulumi-nodejs: ${bin}/pulumi-resource-pulumi-nodejs ($PATH, next to pulumi), this host ${VERSION}`,
        `ok: plugin pulumi-resource-pulumi-python: ${bin}/pulumi-resource-pulumi-python ($PATH, next to pulumi), this host ${VERSION}`,
        `ok: node: ${process.execPath} ${process.version} (runs the host)`,
        `ok: @pulumi/pulumi: ${SDK_VERSION} in ${REPO}node_modules/@pulumi/pulumi (what a provider's require("@pulumi/pulumi") loads)`,
        ENGINES_LINE,
      ]);
      expect(run.out[8]).to.match(new RegExp(`^ok: python: ${TEST_VENV}/bin/python 3\\.\\d+\\.\\d+ \\(the virtualenv ${TEST_VENV}, from PULUMI_RUNTIME_VIRTUALENV\\)$`));
      expect(run.out[9]).to.match(/^ok: python: pulumi \d+\.\d+\.\d+$/);
      expect(run.out[10]).to.match(/^ok: python: dill \d+\.\d+\.\d+$/);
      expect(run.out[run.out.length - 1]).to.equal(`summary: 0 problems, 0 warnings, ${notes(3 + ENGINES_NOTES)}; 6 dynamic resources: 5 can be loaded here, 0 cannot, 1 not checked`);
    });

    it("one line per resource: what it loads, and the encrypted one not checked", function () {
      expect(run.out.slice(11, -1)).to.deep.equal([
        `ok: ${n("configured")}: loads here (nodejs; requires sleep-promise/build/cjs.js)`,
        `ok: ${n("create-only")}: loads here (nodejs; requires nothing)`,
        `note: ${n("encrypted")}: not checked: its __provider is secret (encrypted in the export; run \`pulumi stack export --show-secrets\` to inspect it)`,
        `ok: ${p("minimal")}: loads here (python; __main__.Minimal by value, code of Python 3.11; modules pulumi.dynamic.dynamic)`,
        `ok: ${p("local")}: loads here (python; provider.SimpleProvider by reference; modules provider)`,
        `ok: ${p("scripted")}: loads here (python; __main__.Scripted by value, code of Python 3.11; modules pulumi.dynamic.dynamic, os, sys, time, contextvars)`,
        "note: stack export: 1 of 6 dynamic resources hold __provider as ciphertext: the export was made without --show-secrets, so it could not be read; " +
          "export with `pulumi stack export --show-secrets >FILE` (or `pulumi stack export --show-secrets | pulumi-dynamic-host doctor --stack-export -`)",
      ]);
      expect(run.out.join("\n")).not.to.include(pythonProvider("scripted").slice(0, 60));
    });
  });

  describe("Node: every module a closure requires must resolve from the program directory", function () {
    it("a module that does not resolve from DIR is a problem naming the URN and what to install; paths resolve against DIR", async function () {
      const entries = [
        { type: NODE_TYPE, name: "configured", provider: await nodeProvider("configured") },
        { type: NODE_TYPE, name: "scripted", provider: await nodeProvider("scripted") },
      ];
      const there = await check(NODE_PROGRAM, entries);
      expect(there.code).to.equal(1);
      expect(there.problems).to.deep.equal([
        `problem: ${n("scripted")}: its provider requires "definitely-not-installed-module-xyz", which does not resolve from ${NODE_PROGRAM} (not found): ` +
          `install definitely-not-installed-module-xyz in the program (\`npm install definitely-not-installed-module-xyz\` in ${NODE_PROGRAM} or a directory above it)`,
      ]);
      expect(there.out).to.include(`ok: ${n("configured")}: loads here (nodejs; requires sleep-promise/build/cjs.js)`);

      const elsewhere = await check(empty, entries);
      expect(elsewhere.code).to.equal(1);
      expect(elsewhere.problems).to.include(
        `problem: ${n("configured")}: its provider requires "sleep-promise/build/cjs.js", which does not resolve from ${empty} (not found): ` +
          `install sleep-promise in the program (\`npm install sleep-promise\` in ${empty} or a directory above it)`,
      );
      expect(elsewhere.problems).to.include(
        `problem: ${n("scripted")}: its provider requires "./local-helper.js", which does not resolve from ${empty} (not found): the path is taken from ${empty}: put the file there`,
      );
      expect(elsewhere.problems.filter((l) => l.includes(n("scripted")))).to.have.length(4);
      expect(elsewhere.out).to.include(`note: @pulumi/pulumi: does not resolve from ${empty} (only providers that require it need it)`);
    });

    it("built-in modules always resolve", async function () {
      const dir = tmpDir("builtin-provider", {
        "provider.cjs": 'module.exports = { async create() { const { createHash } = require("node:crypto"); return { id: createHash("sha1").update(require("util").format("x")).digest("hex"), outs: {} }; } };\n',
      });
      const text: string = await serializeProvider(require(`${dir}/provider.cjs`));
      const run = await check(empty, [{ type: NODE_TYPE, name: "builtins", provider: text }]);
      expect(run.code, run.out.join("\n")).to.equal(0);
      expect(run.out).to.include(`ok: ${n("builtins")}: loads here (nodejs; requires node:crypto, util)`);
    });
  });

  describe("Python: modules and by-reference classes are looked up with the program's interpreter", function () {
    const local = () => [{ type: PYTHON_TYPE, name: "local", provider: pythonProvider("local") }];

    it("a by-reference class whose module is missing from DIR", async function () {
      const run = await check(empty, local());
      expect(run.code).to.equal(1);
      expect(run.problems).to.deep.equal([
        `problem: ${p("local")}: its provider class provider.SimpleProvider is pickled by reference, and ${TEST_VENV}/bin/python cannot find module provider from ${empty} ` +
          `(No module named 'provider'): put provider.py in ${empty} (the program directory, first on sys.path) or install the package that provides it into that Python`,
      ]);
    });

    it("a by-reference class missing from its module, or a module that fails to import; what it prints does not disturb the check", async function () {
      const renamed = await check(tmpDir("renamed", { "provider.py": "class Other:\n    pass\n" }), local());
      expect(renamed.problems).to.have.length(1);
      expect(renamed.problems[0]).to.match(
        new RegExp(`^problem: ${p("local")}: its provider class provider\\.SimpleProvider is pickled by reference and cannot be loaded: module 'provider' \\(/.+/provider\\.py\\) has no attribute 'SimpleProvider': restore the class`),
      );
      const raising = await check(tmpDir("raising", { "provider.py": "raise RuntimeError('boom at import')\n" }), local());
      expect(raising.problems).to.deep.equal([
        `problem: ${p("local")}: its provider class provider.SimpleProvider is pickled by reference and cannot be loaded: importing 'provider' raised RuntimeError: boom at import: ` +
          "restore the class under that name, or run `pulumi up` from the program after moving it",
      ]);
      const chatty = await check(tmpDir("chatty", { "provider.py": "print('hello from import')\nclass SimpleProvider:\n    pass\n" }), local());
      expect(chatty.code, chatty.out.join("\n")).to.equal(0);
    });

    it("modules that by-value code imports: a dotted module is found without running its package's __init__", async function () {
      const dir = tmpDir("modules-program", {
        "helpermod.py": "VALUE = 1\n",
        "pkg/__init__.py": "open('init-ran', 'w').write('yes')\n",
        "pkg/sub.py": "VALUE = 2\n",
      });
      const payload = runVenvPython(
        "import sys\nsys.path.insert(0, '.')\nimport helpermod\nfrom pkg import sub as pkgsub\n" +
          "from pulumi.dynamic import CreateResult, ResourceProvider\nfrom pulumi.dynamic.dynamic import serialize_provider\n" +
          "class UsesModules(ResourceProvider):\n    def create(self, props):\n        return CreateResult('m', {'a': helpermod.VALUE, 'b': pkgsub.VALUE})\n" +
          "print(serialize_provider(UsesModules()))",
        dir,
      );
      fs.rmSync(path.join(dir, "init-ran"));
      const entries = [{ type: PYTHON_TYPE, name: "uses-modules", provider: payload }];
      const here = await check(dir, entries);
      expect(here.code, here.out.join("\n")).to.equal(0);
      expect(here.out).to.include(`ok: ${p("uses-modules")}: loads here (python; __main__.UsesModules by value, code of Python 3.11; modules pulumi.dynamic.dynamic, helpermod, pkg.sub)`);
      expect(fs.existsSync(path.join(dir, "init-ran")), "pkg/__init__.py ran").to.equal(false);

      fs.rmSync(path.join(dir, "pkg/sub.py"));
      const noSub = await check(dir, entries);
      expect(noSub.problems).to.deep.equal([
        `problem: ${p("uses-modules")}: its pickled provider uses module pkg.sub, which ${TEST_VENV}/bin/python ${noSub.out[7].split(" ")[3]} cannot find from ${dir} (No module named 'pkg.sub'): install the package that provides it into that Python`,
      ]);
      expect(fs.existsSync(path.join(dir, "init-ran")), "pkg/__init__.py ran").to.equal(false);

      const elsewhere = await check(empty, entries);
      expect(elsewhere.problems.map((l) => /uses module (\S+),/.exec(l)?.[1])).to.deep.equal(["helpermod", "pkg.sub"]);
    });

    it("code pickled by another Python", async function () {
      const run = await check(PYTHON_PROGRAM, [{ type: PYTHON_TYPE, name: "py310", provider: pickleFromPython310() }]);
      expect(run.code).to.equal(1);
      expect(run.problems).to.have.length(1);
      // What the plugin would answer: where it looked for a Python 3.10 with pulumi and dill, and the ways out.
      expect(run.problems[0]).to.match(
        new RegExp(
          `^problem: ${p("py310")}: its provider was pickled by Python 3\\.10 \\(dill ≥ 0\\.3\\), but this program's Python is ${TEST_VENV}/bin/python 3\\.11\\.\\d+, ` +
            "and bytecode from another Python version cannot run\\. No Python 3\\.10 with pulumi and dill was found; .* or run `pulumi up` once under the program's current Python: ",
        ),
      );
    });

    it("code pickled by another Python that the plugin would find beside the program's virtualenv", async function () {
      const other = `${REPO}.cache/test-venv-other/bin/python`;
      const minor = execFileSync(other, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).trim();
      const payload = execFileSync(other, [`${SCENARIOS}python_drift_provider.py`], { cwd: SCENARIOS, encoding: "utf8" }).trim();
      const run = await check(PYTHON_PROGRAM, [{ type: PYTHON_TYPE, name: "drift", provider: payload }]);
      expect(run.problems).to.deep.equal([]);
      expect(run.out.find((l) => l.includes(p("drift")))).to.match(
        new RegExp(
          `^ok: ${p("drift")}: loads here \\(python; __main__\\.Echo by value, code of Python ${minor.replace(".", "\\.")}, ` +
            `run by ${REPO}\\.cache/test-venv-other/bin/python${minor.replace(".", "\\.")} \\(Python ${minor.replace(".", "\\.")}\\.\\d+, pulumi 3\\.270\\.0, dill 0\\.4\\.1\\), not the program's Python; modules `,
        ),
      );
    });
  });

  it("corrupt payloads and missing ones: a problem naming the URN, with what to do", async function () {
    const scripted = pythonProvider("scripted");
    const run = await check(PYTHON_PROGRAM, [
      { type: NODE_TYPE, name: "not-js", provider: "exports.handler = __f0;\nfunction __f0() { return (" },
      { type: PYTHON_TYPE, name: "truncated-base64", provider: scripted.slice(0, scripted.length - 5) },
      { type: PYTHON_TYPE, name: "truncated-pickle", provider: scripted.slice(0, 400) },
      { type: PYTHON_TYPE, name: "not-text", provider: ["x"] },
      { type: PYTHON_TYPE, name: "missing", provider: null },
    ]);
    expect(run.code).to.equal(1);
    const restore = "run `pulumi up` from the program so the engine stores its provider anew (a refresh or destroy before that fails on it)";
    expect(run.problems).to.have.length(5);
    expect(run.problems[0]).to.equal(`problem: ${n("not-js")}: its __provider is not valid JavaScript: Unexpected token (2:26): ${restore}`);
    expect(run.problems[1]).to.match(new RegExp(`^problem: ${p("truncated-base64")}: its __provider is not the base64 text the pulumi Python SDK writes: its length \\d+ is not a multiple of 4, so it looks truncated: `));
    expect(run.problems[2]).to.match(new RegExp(`^problem: ${p("truncated-pickle")}: its __provider is base64 but not a pickle that can be read \\(.+\\): it looks truncated or corrupt: `));
    expect(run.problems[3]).to.equal(`problem: ${p("not-text")}: its __provider is an array, not text: ${restore}`);
    expect(run.problems[4]).to.equal(`problem: ${p("missing")}: it has no __provider in its outputs or inputs, so no plugin can run it: ${restore}`);
    expect(run.out[run.out.length - 1]).to.equal(`summary: 5 problems, 0 warnings, ${notes(1 + ENGINES_NOTES)}; 5 dynamic resources: 0 can be loaded here, 5 cannot, 0 not checked`);
  });

  it("an encrypted secret is a note, not a problem; a shown one is checked like any other; an export where none could be read is a problem saying to use --show-secrets", async function () {
    const run = await check(empty, [
      { type: PYTHON_TYPE, name: "encrypted", provider: encryptedSecret(CIPHERTEXT) },
      { type: PYTHON_TYPE, name: "shown", provider: plaintextSecret(pythonProvider("local")) },
    ]);
    expect(run.out).to.include(`note: ${p("encrypted")}: not checked: its __provider is secret (encrypted in the export; run \`pulumi stack export --show-secrets\` to inspect it)`);
    expect(run.problems).to.have.length(1);
    expect(run.problems[0]).to.include(`problem: ${p("shown")}: its provider class provider.SimpleProvider is pickled by reference`);
    expect(run.out).to.include(
      "note: stack export: 1 of 2 dynamic resources hold __provider as ciphertext: the export was made without --show-secrets, so it could not be read; " +
        "export with `pulumi stack export --show-secrets >FILE` (or `pulumi stack export --show-secrets | pulumi-dynamic-host doctor --stack-export -`)",
    );
    // Nothing could be read, so nothing was checked: exit 0 would pass an export doctor never looked into.
    const alone = await check(empty, [
      { type: PYTHON_TYPE, name: "encrypted", provider: encryptedSecret(CIPHERTEXT) },
      { type: PYTHON_TYPE, name: "also-encrypted", provider: encryptedSecret(CIPHERTEXT) },
    ]);
    expect(alone.code).to.equal(1);
    expect(alone.problems).to.deep.equal([
      "problem: stack export: all 2 dynamic resources hold __provider as ciphertext: the export was made without --show-secrets, so they could not be read; " +
        "export with `pulumi stack export --show-secrets >FILE` (or `pulumi stack export --show-secrets | pulumi-dynamic-host doctor --stack-export -`)",
    ]);
    expect(alone.out[alone.out.length - 1]).to.equal("summary: 1 problem, 0 warnings, 4 notes; 2 dynamic resources: 0 can be loaded here, 0 cannot, 2 not checked");
  });

  describe("the environment", function () {
    it("no plugin found, no node on PATH: every resource that needs them is a problem", async function () {
      const entries = [
        { type: NODE_TYPE, name: "create-only", provider: await nodeProvider("createOnly") },
        { type: PYTHON_TYPE, name: "minimal", provider: pythonProvider("minimal") },
      ];
      const noPlugins = await check(PYTHON_PROGRAM, entries, { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` });
      const none = (binary: string) => `plugin ${binary}: the engine finds none (Pulumi.yaml plugins.providers, $PATH, next to pulumi, the plugin cache): run \`pulumi-dynamic-host install\``;
      expect(noPlugins.out).to.include(`note: ${none("pulumi-resource-pulumi-nodejs")}`);
      expect(noPlugins.problems).to.deep.equal([
        `problem: ${n("create-only")}: cannot be loaded here: ${none("pulumi-resource-pulumi-nodejs")}`,
        `problem: ${p("minimal")}: cannot be loaded here: ${none("pulumi-resource-pulumi-python")}`,
      ]);
      const noNode = await check(PYTHON_PROGRAM, entries, { PATH: bin });
      const why = "node: there is no node on PATH, and the host's scripts run with `#!/usr/bin/env node`: install Node.js 20 or later";
      expect(noNode.problems).to.deep.equal([`problem: ${n("create-only")}: cannot be loaded here: ${why}`, `problem: ${p("minimal")}: cannot be loaded here: ${why}`]);
    });

    it("a plugin on PATH ahead of the one install put next to pulumi: the PATH order is the diagnosis and the fix, as install says, not `install` again", async function () {
      const other = tmpDir("other-plugins", { "pulumi-resource-pulumi-nodejs": "#!/bin/sh\nexit 1\n", "pulumi-resource-pulumi-python": "#!/bin/sh\nexit 1\n" });
      const binary = "pulumi-resource-pulumi-nodejs";
      const warning = (first: string) => `using ${binary} from $PATH at ${first}/${binary} expected ${bin}/${binary}`;
      const run = await check(empty, undefined, { PATH: `${other}:${env.PATH}` });
      expect(run.out).to.include(
        `note: plugin ${binary}: ${other}/${binary} ($PATH) is not this host, so the checks below may not match what it does; this host is installed next to pulumi (${bin}/${binary}) but is not the one the engine runs`,
      );
      // A warning, not a note: the engine prints one on every run, which the Quick start says it will not; doctor exits 1.
      expect(run.out).to.include(`warning: plugin ${binary}: ${shadowAdvice(`${other}/${binary}`, warning(other), bin)}`);
      expect(run.code).to.equal(1);
      expect(run.out[run.out.length - 1]).to.match(/^summary: 0 problems, 2 warnings, /);
      expect(run.out.join("\n")).not.to.match(/run `pulumi-dynamic-host install`|install` (registers|puts)/);
      // npm's bin (links to this host, as `npm i -g` makes them) ahead of pulumi's directory, where install ran.
      const npmBin = tmpDir("npm-bin");
      for (const name of [binary, "pulumi-resource-pulumi-python"]) fs.symlinkSync(`${REPO}bin/${name}`, path.join(npmBin, name));
      const npm = await check(empty, undefined, { PATH: `${npmBin}:${env.PATH}` });
      expect(npm.out).to.include(`ok: plugin ${binary}: ${npmBin}/${binary} ($PATH), this host ${VERSION}`);
      expect(npm.out).to.include(`warning: plugin ${binary}: ${shadowAdvice(`${npmBin}/${binary}`, warning(npmBin), bin)}`);
      expect(npm.code).to.equal(1);
      expect(npm.out.join("\n")).not.to.match(/run `pulumi-dynamic-host install`|install` (registers|puts)/);
    });

    it("a plugin on PATH, nothing next to pulumi: install is the first step", async function () {
      const machine = tmpDir("bare-pulumi", { "bin/pulumi": "#!/bin/sh\n" });
      const other = tmpDir("other-plugins", { "pulumi-resource-pulumi-nodejs": "#!/bin/sh\nexit 1\n" });
      const run = await check(empty, undefined, { PATH: `${other}:${machine}/bin:${path.dirname(process.execPath)}:/usr/bin:/bin` });
      expect(run.out).to.include(
        `note: plugin pulumi-resource-pulumi-nodejs: ${other}/pulumi-resource-pulumi-nodejs ($PATH) is not this host, so the checks below may not match what it does; \`pulumi-dynamic-host install\` registers this host`,
      );
    });

    it("a virtualenv that does not exist: the launcher's message and how to create it", async function () {
      const run = await check(PYTHON_PROGRAM, [{ type: PYTHON_TYPE, name: "minimal", provider: pythonProvider("minimal") }], { PULUMI_RUNTIME_VIRTUALENV: "/nonexistent/venv" });
      const why =
        `python: The 'virtualenv' option in Pulumi.yaml is set to "/nonexistent/venv", but "/nonexistent/venv" doesn't exist. Create it: python3 -m venv /nonexistent/venv; ` +
        `/nonexistent/venv/bin/python -m pip install --upgrade pip setuptools wheel; /nonexistent/venv/bin/python -m pip install -r ${PYTHON_PROGRAM}/requirements.txt`;
      expect(run.out).to.include(`note: ${why}`);
      expect(run.problems).to.deep.equal([`problem: ${p("minimal")}: cannot be loaded here: ${why}`]);
    });

    it("a Python without pulumi and dill (site-packages off): problems when the project is a Python one", async function () {
      const wrapper = tmpDir("bare-python", { "python": `#!/bin/sh\nexec ${VENV_PYTHON} -S "$@"\n` });
      const project = tmpDir("python-project", { "Pulumi.yaml": "name: pyproj\nruntime: python\n" });
      const run = await check(project, undefined, { PULUMI_RUNTIME_VIRTUALENV: undefined, PULUMI_PYTHON_CMD: `${wrapper}/python` });
      expect(run.code).to.equal(1);
      expect(run.out).to.include(`ok: program directory: ${project} (project pyproj in ${project})`);
      expect(run.problems.map((l) => l.replace(/\(ModuleNotFoundError: [^)]*\)/, "(…)"))).to.deep.equal([
        `problem: python: pulumi does not import in ${TEST_VENV}/bin/python (…): install it there: ${TEST_VENV}/bin/python -m pip install pulumi`,
        `problem: python: dill does not import in ${TEST_VENV}/bin/python (…): install it there: ${TEST_VENV}/bin/python -m pip install dill`,
      ]);
      expect(run.out).to.include(`note: @pulumi/pulumi: does not resolve from ${project} (only providers that require it need it)`);
      expect(run.out[run.out.length - 1]).to.equal("summary: 2 problems, 0 warnings, 1 note; no stack export given, so no resource was checked");
    });

    it("a system Python without pulumi: the advice makes a virtualenv (a system pip may refuse, PEP 668), named where the plugin finds it", async function () {
      const home = /^home\s*=\s*(.+)$/m.exec(fs.readFileSync(`${TEST_VENV}/pyvenv.cfg`, "utf8"))![1].trim();
      const system = tmpDir("system-python", { "python": `#!/bin/sh\nexec ${home}/python3 -S "$@"\n` });
      const python = tmpDir("python-project", { "Pulumi.yaml": "name: pyproj\nruntime: python\n" });
      const run = await check(python, undefined, { PULUMI_RUNTIME_VIRTUALENV: undefined, PULUMI_PYTHON_CMD: `${system}/python` });
      const advice = "a system Python's pip may refuse to install (PEP 668): in the project's folder, `python3 -m venv venv && venv/bin/pip install pulumi`, and name it in Pulumi.yaml: `runtime: {name: python, options: {virtualenv: venv}}`";
      expect(run.problems.find((l) => l.startsWith("problem: python: pulumi does not import"))).to.contain(advice);
      expect(run.out.join("\n")).not.to.contain("-m pip install");
      const node = tmpDir("node-project", { "Pulumi.yaml": "name: nodeproj\nruntime: nodejs\npulumi-dynamic-host:\n  providers:\n    pulumi-python:dynamic:C: counters:C\n" });
      const other = await check(node, undefined, { PULUMI_RUNTIME_VIRTUALENV: undefined, PULUMI_PYTHON_CMD: `${system}/python` });
      expect(other.problems.find((l) => l.startsWith("problem: python: pulumi does not import"))).to.contain(
        "beside Pulumi.yaml, where the plugin looks for one, `python3 -m venv .venv && .venv/bin/pip install pulumi`",
      );
    });

    it("outside a project, what only a project needs is a note, and doctor exits 0", async function () {
      const wrapper = tmpDir("bare-python", { "python": `#!/bin/sh\nexec ${VENV_PYTHON} -S "$@"\n` });
      const run = await check(empty, undefined, { PULUMI_RUNTIME_VIRTUALENV: undefined, PULUMI_PYTHON_CMD: `${wrapper}/python` });
      expect(run.out[1]).to.equal(NO_PROJECT(empty));
      expect(run.out.filter((l) => l.startsWith("note: python: pulumi does not import"))).to.have.length(1);
      expect(run.problems).to.deep.equal([]);
      expect(run.code, run.out.join("\n")).to.equal(0);
    });

    it("Pulumi.yaml: runtime options reach the interpreter choice; main: sets the program directory; plugins.providers is honoured", async function () {
      const project = tmpDir("yaml-project", {
        "Pulumi.yaml": `name: yamlproj\nmain: src/\nruntime:\n  name: python\n  options:\n    virtualenv: ${TEST_VENV}\nplugins:\n  providers:\n    - name: pulumi-nodejs\n      path: ./nowhere\n`,
        "src/provider.py": "class SimpleProvider:\n    pass\n",
      });
      const run = await check(project, [{ type: PYTHON_TYPE, name: "local", provider: pythonProvider("local") }], { PULUMI_RUNTIME_VIRTUALENV: undefined });
      expect(run.out[1]).to.equal(`ok: program directory: ${project}/src (project yamlproj in ${project})`);
      expect(run.out).to.include(
        `note: plugin pulumi-resource-pulumi-nodejs: ${project}/nowhere/pulumi-resource-pulumi-nodejs (Pulumi.yaml plugins.providers) is not an executable file: fix the path, or run \`pulumi-dynamic-host install --project\``,
      );
      expect(run.out.find((l) => l.startsWith("ok: python: /"))).to.match(/\(the virtualenv .+, from PULUMI_RUNTIME_VIRTUALENV \(Pulumi\.yaml runtime\.options\.virtualenv\)\)$/);
      expect(run.out).to.include(`ok: ${p("local")}: loads here (python; provider.SimpleProvider by reference; modules provider)`);
      expect(run.code, run.out.join("\n")).to.equal(0);
    });
  });

  describe("a project whose runtime is not python, declaring Python providers: which Python runs them, and why", function () {
    const declaring = (section = "") => ({
      "Pulumi.yaml": `name: jsproj\nruntime: nodejs\npulumi-dynamic-host:\n${section}  providers:\n    pulumi-python:dynamic:Counter: counters:Counter\n`,
      "counters.py": "class Counter:\n    pass\n",
    });

    it("a .venv beside Pulumi.yaml: the rule that chose it, and the reference checked with it (PULUMI_RUNTIME_VIRTUALENV is not looked at)", async function () {
      const project = tmpDir("js-venv", declaring());
      fs.symlinkSync(TEST_VENV, path.join(project, ".venv"));
      const run = await check(project, undefined, { PULUMI_RUNTIME_VIRTUALENV: "/nonexistent/venv" });
      const line = run.out.find((l) => l.startsWith("ok: python: "));
      expect(line, run.out.join("\n")).to.match(
        new RegExp(`^ok: python: ${project}/\\.venv/bin/python \\S+.*\\(for this nodejs project's Python providers, chosen by the virtualenv \\.venv beside ${project}/Pulumi\\.yaml\\)$`),
      );
      expect(run.out).to.include(`ok: pulumi-python:dynamic:Counter: counters:Counter is Counter of ${project}/counters.py`);
      expect(run.problems.filter((l) => l.startsWith("problem: python")), run.out.join("\n")).to.deep.equal([]);
    });

    it("the section's python: names nothing: a problem saying which rule and how to fix it", async function () {
      const project = tmpDir("js-missing", declaring("  python: ./gone\n"));
      const run = await check(project);
      expect(run.problems).to.include(
        `problem: python: no usable interpreter for this nodejs project's Python providers: ${project}/gone does not exist ` +
          `(chosen by pulumi-dynamic-host.python in ${project}/Pulumi.yaml ("./gone")); set \`python:\` in the pulumi-dynamic-host section of ` +
          `${project}/Pulumi.yaml to a python or a virtualenv with pulumi, or create .venv beside it`,
      );
      expect(run.code).to.equal(1);
    });

    it("python: in a Python project is a note: the program's own interpreter runs its providers", async function () {
      const project = tmpDir("py-key", { "Pulumi.yaml": "name: pyproj\nruntime: python\npulumi-dynamic-host:\n  python: .venv\n" });
      const run = await check(project);
      expect(run.out).to.include(`note: python: pulumi-dynamic-host.python in ${project}/Pulumi.yaml is not used: in a Python project, providers run with the program's own interpreter`);
    });
  });

  describe("what a newcomer meets first", function () {
    it("a directory without Pulumi.yaml is a note saying no project was found and what that means, not ok", async function () {
      const run = await check(empty);
      expect(run.out[1]).to.equal(NO_PROJECT(empty));
      expect(run.out.filter((l) => l.startsWith("ok: program directory"))).to.deep.equal([]);
    });

    it("the project's @pulumi/pulumi engines.node against the Node that runs the host: ok when met, a note when not", async function () {
      const project = (engines: string) =>
        tmpDir("engines-project", {
          "Pulumi.yaml": "name: engines\nruntime: nodejs\n",
          "node_modules/@pulumi/pulumi/package.json": JSON.stringify({ name: "@pulumi/pulumi", version: "3.999.0", engines: { node: engines } }),
        });
      const wants = (range: string) => `@pulumi/pulumi 3.999.0 asks for Node ${range} (its package.json engines.node)`;
      const unmet = await check(project(">=99"));
      expect(unmet.out).to.include(
        `note: node: ${wants(">=99")}, and ${process.execPath} ${process.version} runs the host and its providers: a provider that requires @pulumi/pulumi may fail there; put a node that matches first on PATH`,
      );
      const met = await check(project(`^${process.versions.node.split(".")[0]} || >=99`));
      expect(met.out).to.include(`ok: node: ${wants(`^${process.versions.node.split(".")[0]} || >=99`)}; ${process.execPath} ${process.version} runs the host and its providers`);
    });
  });

  describe("resources passing the reference helper: the reference it names is checked, once", function () {
    it("Node: providerReference() in __provider is checked as a declared reference is, no note about computed require() names", async function () {
      fs.mkdirSync(`${REPO}.cache`, { recursive: true });
      const dir = fs.realpathSync(fs.mkdtempSync(`${REPO}.cache/doctor-helper-`));
      tmpDirs.push(dir);
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: helper\nruntime: nodejs\n");
      fs.writeFileSync(path.join(dir, "providers.ts"), `require("fs").writeFileSync(${JSON.stringify(`${dir}/ran`)}, "");\nexport const good = { create() {} };\n`);
      const { providerReference } = require(`${REPO}reference/index.cjs`);
      const good = await serializeProvider(providerReference("./providers#good"));
      const typo = await serializeProvider(providerReference("./providers#goodd"));
      const run = await check(dir, [
        { type: NODE_TYPE, name: "a", provider: good },
        { type: NODE_TYPE, name: "b", provider: good },
        { type: NODE_TYPE, name: "c", provider: typo },
      ]);
      const okLine = run.out.filter((l) => l.startsWith('ok: providerReference() "./providers#good" (in 2 resources): ./providers#good is export good of '));
      expect(okLine, run.out.join("\n")).to.have.length(1);
      expect(run.problems).to.include(
        `problem: providerReference() "./providers#goodd" (in 1 resource): the provider reference "./providers#goodd" that the program passed with providerReference(): ${dir}/providers.ts has no export named goodd; did you mean good?; it exports good`,
      );
      expect(run.out).to.include(`ok: ${n("a")}: loads here (nodejs; requires fs, path; the provider reference ./providers#good)`);
      expect(run.problems).to.include(`problem: ${n("c")}: its provider is the reference "./providers#goodd", which cannot be loaded here (see the line about that reference above)`);
      expect(run.out.join("\n")).not.to.include("computed name");
      expect(run.code).to.equal(1);
      expect(fs.existsSync(`${dir}/ran`), "the provider module was not run").to.equal(false);
    });

    it("Python: provider_reference() in __provider is checked as a declared reference is; the helper's own module is the host's", async function () {
      const dir = tmpDir("doctor-python-helper", {
        "Pulumi.yaml": "name: helper\nruntime: python\n",
        "refs_providers.py": fs.readFileSync(`${FIXTURES}python-references/refs_providers.py`, "utf8"),
      });
      const payload = (name: string) => pythonProvider(name, "python_reference_payloads.py");
      const run = await check(dir, [
        { type: PYTHON_TYPE, name: "one", provider: payload("counter") },
        { type: PYTHON_TYPE, name: "two", provider: payload("counter") },
        { type: PYTHON_TYPE, name: "absent", provider: payload("absent") },
      ]);
      expect(run.out).to.include(`ok: provider_reference() "refs_providers:CounterProvider" (in 2 resources): refs_providers:CounterProvider is CounterProvider of ${dir}/refs_providers.py`);
      expect(run.problems.filter((l) => l.startsWith('problem: provider_reference() "refs_providers:Absent" (in 1 resource): refs_providers:Absent: '))).to.have.length(1);
      expect(run.out.find((l) => l.startsWith(`ok: ${p("one")}: loads here (python; pulumi_dynamic_host.reference.ProviderReference by reference`))).to.match(/; the provider reference refs_providers:CounterProvider\)$/);
      expect(run.problems).to.include(`problem: ${p("absent")}: its provider is the reference "refs_providers:Absent", which cannot be loaded here (see the line about that reference above)`);
      expect(run.problems.join("\n")).not.to.include("pulumi_dynamic_host");
    });
  });

  describe("usage and bad input: exit 2 with one line saying what is wrong", function () {
    async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runDoctor(args, (l) => out.push(l), (l) => err.push(l));
      return { code, out, err };
    }

    it("unknown options, two directories, --stack-export without a file", async function () {
      for (const args of [["--bogus"], ["a", "b"], ["--stack-export"]]) {
        const r = await cli(args);
        expect(r.code, args.join(" ")).to.equal(2);
        expect(r.err[0]).to.match(/^pulumi-dynamic-host doctor: /);
        expect(r.err.join("\n")).to.include("usage: pulumi-dynamic-host doctor [--stack-export FILE|-] [--verbose] [DIR]");
        expect(r.err.join("\n")).to.include("Exit status: 0 nothing to fix, 1 a warning or a problem found, 2 usage error or unreadable stack export.");
      }
      expect((await cli(["--help"])).code).to.equal(0);
    });

    it("a missing or malformed export, a DIR that is not a directory", async function () {
      const cases: [string[], RegExp][] = [
        [["--stack-export", "/nonexistent/export.json", empty], /^pulumi-dynamic-host doctor: cannot read the stack export \/nonexistent\/export\.json: no such file$/],
        [[`--stack-export=${writeTemp("{not json")}`, empty], /^pulumi-dynamic-host doctor: \/.+ is not JSON \(.+\); give the file `pulumi stack export` writes$/],
        [["--stack-export", writeTemp({ version: 3 }), empty], /^pulumi-dynamic-host doctor: \/.+ is not a stack export: at deployment: /],
        [["/nonexistent/dir"], /^pulumi-dynamic-host doctor: \/nonexistent\/dir is not a directory: DIR is the program's directory$/],
      ];
      for (const [args, message] of cases) {
        const r = await cli(args);
        expect(r.code, args.join(" ")).to.equal(2);
        expect(r.out).to.deep.equal([]);
        expect(r.err).to.have.length(1);
        expect(r.err[0]).to.match(message);
      }
    });
  });
});
