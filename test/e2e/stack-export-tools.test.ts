// `inspect` and `doctor` on stack exports made by the real engine: a
// TypeScript program (an Automation API inline program, as in
// node-engine.test.ts) and a Python program (an Automation API driver in the
// test virtualenv, as python-program/program.py) are deployed through our
// plugins, their stacks exported, and the BUILT command
// (bin/pulumi-dynamic-host, the bundle) run on the exports as a user runs it.
import { expect } from "chai";
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, OUR_ENTRY, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const sleep = require("sleep-promise");
const VERSION = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")).version;
const SECRET_KEY = "4dabf18193072939515e22adb298388d";

// Node providers, serialized by @pulumi/pulumi when the program runs: `sleeper`
// captures the sleep-promise module, so its closure requires it.
const sleeper = {
  async create(inputs: Record<string, unknown>) {
    await sleep(1);
    return { id: `sleeper-${inputs.ms}`, outs: { slept: inputs.ms } };
  },
};
const labeller = {
  async create(inputs: Record<string, unknown>) {
    return { id: `label-${inputs.label}`, outs: { label: inputs.label } };
  },
};

// The Python program: a provider pickled by value (defined in __main__, using
// the json module) and one pickled by reference (tools_provider, next to it).
const PYTHON_PROVIDER = `from pulumi.dynamic import CreateResult, ResourceProvider


class LabelProvider(ResourceProvider):
    def create(self, props):
        return CreateResult("label-" + props["label"], {"label": props["label"]})
`;
const PYTHON_DRIVER = `import json, os, sys
sys.dont_write_bytecode = True
out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
from pulumi import automation as auto
from pulumi.dynamic import CreateResult, Resource, ResourceProvider
from tools_provider import LabelProvider

HERE = os.path.dirname(os.path.abspath(__file__))


class Counter(ResourceProvider):
    serialize_as_secret_always = False

    def create(self, props):
        return CreateResult("counter", {"doubled": json.dumps(props["n"] * 2)})


class Dyn(Resource):
    pass


def program():
    Dyn(Counter(), "counter", {"n": 21})
    Dyn(LabelProvider(), "label", {"label": "by-reference"})


s = json.loads(sys.argv[1])
stack = auto.create_or_select_stack(
    stack_name="dev",
    project_name="export-tools-py",
    program=program,
    opts=auto.LocalWorkspaceOptions(
        work_dir=HERE,
        pulumi_home=s["home"],
        env_vars=s["env"],
        pulumi_command=auto.PulumiCommand(root=s["root"], skip_version_check=True),
        project_settings=auto.ProjectSettings(
            name="export-tools-py",
            main=HERE,
            runtime=auto.ProjectRuntimeInfo(name="python", options={"toolchain": "pip", "virtualenv": s["venv"]}),
            backend=auto.ProjectBackend(url="file://" + s["backend"]),
        ),
    ),
)
stack.up()
d = stack.export_stack()
json.dump({"version": d.version, "deployment": d.deployment}, out)
out.flush()
`;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  lines: string[];
}

function runBuilt(args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(OUR_ENTRY, args, { env, encoding: "utf8", maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ code, stdout, stderr, lines: stdout.trim().split("\n") });
    });
  });
}

function writeJson(dir: string, name: string, doc: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

describe("end to end: inspect and doctor on stack exports made by the real engine", function () {
  this.timeout(5 * 60 * 1000);
  let sb: Sandbox;
  let env: Record<string, string>;
  const cleanups: string[] = [];

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-export-tools");
    // What a user's shell has: the sandbox's pulumi first on PATH, nothing of the caller's Pulumi set-up.
    env = { ...(Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_") && k !== "VIRTUAL_ENV")) as Record<string, string>), ...sb.env };
  });
  after(function () {
    sb?.cleanup();
    for (const d of cleanups) fs.rmSync(d, { recursive: true, force: true });
  });

  describe("a TypeScript program's stack", function () {
    let workDir: string;
    let exportFile: string;
    let deployment: any;
    const urn = (name: string) => `urn:pulumi:dev::export-tools-node::pulumi-nodejs:dynamic:Resource::${name}`;

    before(async function () {
      // Under the repository, so the program's require("sleep-promise") resolves from its node_modules.
      fs.mkdirSync(`${REPO}.cache`, { recursive: true });
      workDir = fs.mkdtempSync(`${REPO}.cache/export-tools-node-`);
      cleanups.push(workDir);
      const pulumiCommand = await automation.PulumiCommand.get({ root: E2E_ROOT, skipVersionCheck: true });
      const stack = await inlineStack(
        {
          stackName: "dev",
          projectName: "export-tools-node",
          program: async () => {
            new pulumi.dynamic.Resource(sleeper, "sleeper", { ms: 5 });
            new pulumi.dynamic.Resource(labeller, "label-a", { label: "a" });
            new pulumi.dynamic.Resource(labeller, "label-b", { label: "b" });
          },
        },
        { workDir, pulumiHome: sb.home, envVars: sb.env, pulumiCommand, projectSettings: { name: "export-tools-node", runtime: "nodejs", backend: { url: `file://${sb.backend}` } } },
      );
      const result = await stack.up({});
      expect(result.summary.result).to.equal("succeeded");
      deployment = await stack.exportStack();
      exportFile = writeJson(sb.dir, "node-export.json", deployment);
    });

    it("inspect --json lists each dynamic resource with its language, type, requires and shared payload", async function () {
      const r = await runBuilt(["inspect", exportFile, "--json"], env);
      expect(r.code, r.stderr).to.equal(0);
      const listed = JSON.parse(r.stdout) as any[];
      // In the engine's order: the three were created concurrently.
      expect(listed.map((x) => x.urn).sort()).to.deep.equal([urn("label-a"), urn("label-b"), urn("sleeper")]);
      const [s, a, b] = [urn("sleeper"), urn("label-a"), urn("label-b")].map((u) => listed.find((x) => x.urn === u));
      expect(s).to.deep.include({ type: "pulumi-nodejs:dynamic:Resource", language: "nodejs", status: "ok", secret: false, dynamicRequires: 0, sharedWith: [] });
      expect(s.modules).to.have.length(1);
      expect(s.modules[0]).to.match(/^sleep-promise(\/|$)/);
      const stored = deployment.deployment.resources.find((x: any) => x.urn === urn("sleeper")).outputs.__provider;
      expect(s.payloadBytes).to.equal(Buffer.byteLength(stored));
      expect(a).to.deep.include({ modules: [], sharedWith: [urn("label-b")] });
      expect(b).to.deep.include({ modules: [], sharedWith: [urn("label-a")] });
    });

    it("doctor from the program directory: exit 0, our plugins next to pulumi, node, every resource loads", async function () {
      const r = await runBuilt(["doctor", "--stack-export", exportFile, workDir], env);
      expect(r.code, r.stdout + r.stderr).to.equal(0);
      expect(r.lines).to.include.members([
        `ok: program directory: ${workDir} (project export-tools-node in ${workDir})`,
        `ok: pulumi: ${E2E_BIN}/pulumi`,
        `ok: plugin pulumi-resource-pulumi-nodejs: ${E2E_BIN}/pulumi-resource-pulumi-nodejs ($PATH, next to pulumi), this host ${VERSION}`,
        `ok: plugin pulumi-resource-pulumi-python: ${E2E_BIN}/pulumi-resource-pulumi-python ($PATH, next to pulumi), this host ${VERSION}`,
        `ok: ${urn("label-a")}: loads here (nodejs; requires nothing)`,
      ]);
      expect(r.lines.find((l) => l.startsWith("ok: node: "))).to.match(/^ok: node: \/.+\/node v\d+\.\d+\.\d+ \(runs the host\)$/);
      expect(r.lines.find((l) => l.includes(urn("sleeper")))).to.match(new RegExp(`^ok: ${urn("sleeper")}: loads here \\(nodejs; requires sleep-promise`));
      expect(r.lines[r.lines.length - 1]).to.match(/^summary: 0 problems, 0 warnings, \d+ notes?; 3 dynamic resources: 3 can be loaded here, 0 cannot, 0 not checked$/);
    });

    it("doctor from a directory where the required module does not resolve: exit 1, naming the URN", async function () {
      const elsewhere = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "export-tools-elsewhere-")));
      cleanups.push(elsewhere);
      const r = await runBuilt(["doctor", "--stack-export", exportFile, elsewhere], env);
      expect(r.code, r.stdout).to.equal(1);
      const problems = r.lines.filter((l) => l.startsWith("problem: "));
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(new RegExp(`^problem: ${urn("sleeper")}: its provider requires "sleep-promise[^"]*", which does not resolve from ${elsewhere} \\(not found\\): install sleep-promise in the program`));
    });

    it("doctor on an export whose payload was corrupted: exit 1, naming the URN", async function () {
      const edited = structuredClone(deployment);
      const res = edited.deployment.resources.find((x: any) => x.urn === urn("label-a"));
      res.outputs.__provider = res.outputs.__provider.slice(0, Math.floor(res.outputs.__provider.length / 2));
      const r = await runBuilt(["doctor", "--stack-export", writeJson(sb.dir, "node-corrupt.json", edited), workDir], env);
      expect(r.code, r.stdout).to.equal(1);
      const problems = r.lines.filter((l) => l.startsWith("problem: "));
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(new RegExp(`^problem: ${urn("label-a")}: its __provider is not valid JavaScript: .+: run \`pulumi up\` from the program`));
    });
  });

  describe("a Python program's stack", function () {
    let workDir: string;
    let exportFile: string;
    let deployment: any;
    const urn = (name: string) => `urn:pulumi:dev::export-tools-py::pulumi-python:dynamic:Resource::${name}`;

    before(async function () {
      workDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "export-tools-py-")));
      cleanups.push(workDir);
      fs.writeFileSync(path.join(workDir, "tools_provider.py"), PYTHON_PROVIDER);
      fs.writeFileSync(path.join(workDir, "program.py"), PYTHON_DRIVER);
      // As program.py's "runtime-options": under an inline program the engine does not pass the project's runtime options on.
      const settings = {
        root: E2E_ROOT,
        home: sb.home,
        backend: sb.backend,
        venv: TEST_VENV,
        env: { ...sb.env, PYTHONDONTWRITEBYTECODE: "1", PULUMI_RUNTIME_TOOLCHAIN: "pip", PULUMI_RUNTIME_VIRTUALENV: TEST_VENV },
      };
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(VENV_PYTHON, [path.join(workDir, "program.py"), JSON.stringify(settings)], { cwd: workDir, env, encoding: "utf8", maxBuffer: 64 << 20 }, (err, out, stderr) =>
          err ? reject(new Error(`python program: ${err.message}\n${stderr}`)) : resolve(out),
        );
      });
      deployment = JSON.parse(stdout);
      exportFile = writeJson(sb.dir, "python-export.json", deployment);
    });

    it("inspect --json: by value and by reference, modules, classes and the Python of the code", async function () {
      const r = await runBuilt(["inspect", exportFile, "--json"], env);
      expect(r.code, r.stderr).to.equal(0);
      const listed = JSON.parse(r.stdout) as any[];
      expect(listed.map((x) => x.urn).sort()).to.deep.equal([urn("counter"), urn("label")]);
      const [counter, label] = [urn("counter"), urn("label")].map((u) => listed.find((x) => x.urn === u));
      expect(counter).to.deep.include({ type: "pulumi-python:dynamic:Resource", language: "python", status: "ok", secret: false, providerClass: { module: "__main__", name: "Counter", byValue: true } });
      expect(counter.modules).to.include.members(["pulumi.dynamic.dynamic", "json"]);
      expect(counter.classes).to.include("pulumi.dynamic.dynamic.CreateResult");
      expect(counter.pythonVersion).to.equal("Python 3.11");
      // serialize_as_secret_always defaults to True: a secret, shown because the Automation API exports with --show-secrets.
      expect(label).to.deep.include({ status: "ok", secret: true, providerClass: { module: "tools_provider", name: "LabelProvider", byValue: false }, modules: ["tools_provider"], pythonVersion: null });
    });

    it("inspect on `pulumi stack export` without --show-secrets: the secret payload is reported encrypted, never printed", async function () {
      const encrypted = await new Promise<string>((resolve, reject) =>
        execFile(`${E2E_BIN}/pulumi`, ["stack", "export", "--stack", "dev"], { cwd: workDir, env: { ...env, PULUMI_CONFIG_PASSPHRASE: sb.env.PULUMI_CONFIG_PASSPHRASE }, encoding: "utf8" }, (err, out, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out),
        ),
      );
      const ciphertext = JSON.parse(encrypted).deployment.resources.find((x: any) => x.urn === urn("label")).outputs.__provider;
      expect(ciphertext[SECRET_KEY]).to.be.a("string");
      const file = path.join(sb.dir, "python-encrypted.json");
      fs.writeFileSync(file, encrypted);
      const r = await runBuilt(["inspect", file], env);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.include(`${urn("label")}\n  type: pulumi-python:dynamic:Resource\n  language: python\n  payload: secret (encrypted in the export; run \`pulumi stack export --show-secrets\` to inspect it)\n`);
      expect(r.stdout).not.to.include(ciphertext.ciphertext);
      expect(r.lines[r.lines.length - 1]).to.equal("2 dynamic resources (0 nodejs, 2 python); 1 encrypted, 0 unreadable");
    });

    it("doctor from the program directory: exit 0, the project's virtualenv, pulumi and dill, both resources load", async function () {
      const r = await runBuilt(["doctor", "--stack-export", exportFile, workDir], env);
      expect(r.code, r.stdout + r.stderr).to.equal(0);
      expect(r.lines).to.include.members([
        `ok: program directory: ${workDir} (project export-tools-py in ${workDir})`,
        `ok: plugin pulumi-resource-pulumi-python: ${E2E_BIN}/pulumi-resource-pulumi-python ($PATH, next to pulumi), this host ${VERSION}`,
        `ok: ${urn("label")}: loads here (python; tools_provider.LabelProvider by reference; modules tools_provider)`,
      ]);
      expect(r.lines).to.satisfy((ls: string[]) =>
        ls.some((l) => new RegExp(`^ok: python: ${TEST_VENV}/bin/python 3\\.\\d+\\.\\d+ \\(the virtualenv ${TEST_VENV}, from PULUMI_RUNTIME_VIRTUALENV \\(Pulumi\\.yaml runtime\\.options\\.virtualenv\\)\\)$`).test(l)),
      );
      expect(r.lines.filter((l) => /^ok: python: (pulumi|dill) \d/.test(l))).to.have.length(2);
      expect(r.lines.find((l) => l.includes(urn("counter")))).to.match(/^ok: .+: loads here \(python; __main__\.Counter by value, code of Python 3\.11; modules .*json/);
      expect(r.lines[r.lines.length - 1]).to.match(/^summary: 0 problems, 0 warnings, \d+ notes?; 2 dynamic resources: 2 can be loaded here, 0 cannot, 0 not checked$/);
    });

    it("doctor on an export edited so the pickle names a missing module, and with a corrupted payload: exit 1, naming each URN", async function () {
      const edited = structuredClone(deployment);
      const byUrn = (u: string) => edited.deployment.resources.find((x: any) => x.urn === u);
      // The by-reference pickle names its module as a string; the same length keeps the pickle's framing valid.
      const label = byUrn(urn("label")).outputs.__provider;
      const pickle = Buffer.from(JSON.parse(label.plaintext), "base64").toString("latin1");
      expect(pickle).to.include("tools_provider");
      label.plaintext = JSON.stringify(Buffer.from(pickle.replace("tools_provider", "tools_pr0vider"), "latin1").toString("base64"));
      const counter = byUrn(urn("counter"));
      counter.outputs.__provider = counter.outputs.__provider.slice(0, -3);
      const r = await runBuilt(["doctor", "--stack-export", writeJson(sb.dir, "python-broken.json", edited), workDir], env);
      expect(r.code, r.stdout).to.equal(1);
      const problems = r.lines.filter((l) => l.startsWith("problem: ")).sort();
      expect(problems[0]).to.match(new RegExp(`^problem: ${urn("counter")}: its __provider is not the base64 text the pulumi Python SDK writes: .+ so it looks truncated: run \`pulumi up\``));
      expect(problems[1]).to.equal(
        `problem: ${urn("label")}: its provider class tools_pr0vider.LabelProvider is pickled by reference, and ${TEST_VENV}/bin/python cannot find module tools_pr0vider from ${workDir} ` +
          `(No module named 'tools_pr0vider'): put tools_pr0vider.py in ${workDir} (the program directory, first on sys.path) or install the package that provides it into that Python`,
      );
      expect(r.stdout).not.to.include(label.plaintext.slice(1, 40));
    });
  });
});
