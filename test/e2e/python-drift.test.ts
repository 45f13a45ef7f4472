// Python version drift under the real engine: a stack deployed by a program
// run with the second Python scripts/setup.sh provides (its provider class
// pickled by value, with that Python's bytecode), then refreshed and destroyed
// with the program on the test virtualenv's Python. Pulumi's own plugin runs
// the foreign bytecode and dies; ours finds the second Python beside the
// program's virtualenv, runs the resource there and says so under the resource;
// also in the layout `pulumi new` makes, the venv beside Pulumi.yaml and the
// stack's Pulumi.dev.yaml, with the old venv moved aside.
import { expect } from "chai";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { inspectPayload } from "../../src/python-bridge/pickle/pickle-inspect.js";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { E2E_ROOT, prepareEngine, prepareReferenceEngine, sandbox, type Sandbox } from "./harness.js";

const DRIVER = `${REPO}test/e2e/python-drift/drift.py`;
const OTHER_VENV = `${REPO}.cache/test-venv-other`;
const OTHER_PYTHON = `${OTHER_VENV}/bin/python`;

interface Diagnostic {
  severity: string;
  urn: string;
  message: string;
}

interface Run {
  operation: string;
  python: string;
  changes?: Record<string, number>;
  error?: { type: string; message: string };
  diagnostics: Diagnostic[];
  resources: Record<string, any>;
}

function minorOf(python: string): string {
  return execFileSync(python, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).trim();
}

/** Runs one operation of drift.py with `python` (the program's Python), its plugin finding `venv`, under the CLI at `root`. */
function run(sb: Sandbox, workDir: string, operation: string, python: string, venv: string, root: string): Promise<Run> {
  const settings = { root, backend: sb.backend, home: sb.home, env: sb.env, venv, work_dir: workDir };
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_") && k !== "VIRTUAL_ENV"));
  return new Promise((resolve, reject) => {
    execFile(python, [DRIVER, operation, JSON.stringify(settings)], { cwd: workDir, env, encoding: "utf8", maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`drift.py ${operation}: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as Run);
    });
  });
}

describe("engine: Python version drift (a stack deployed under another Python)", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;
  let workDir: string;
  let main: string;
  let other: string;
  let referenceRoot: string;

  before(function () {
    if (!fs.existsSync(OTHER_PYTHON)) throw new Error(`no second Python at ${OTHER_VENV}: run scripts/setup.sh`);
    prepareEngine();
    referenceRoot = prepareReferenceEngine();
    main = minorOf(VENV_PYTHON);
    other = minorOf(OTHER_PYTHON);
  });
  beforeEach(function () {
    sb = sandbox("e2e-python-drift");
    workDir = path.join(sb.dir, "program");
    fs.mkdirSync(workDir);
  });
  afterEach(function () {
    sb?.cleanup();
  });

  it("deployed under the second Python, refreshed under the program's: the reference plugin dies; ours runs it with the second Python", async function () {
    const up = await run(sb, workDir, "up", OTHER_PYTHON, OTHER_VENV, E2E_ROOT);
    expect(up.error, JSON.stringify(up.error)).to.equal(undefined);
    expect(up.python).to.equal(other);
    expect(up.resources.echo.outputs).to.include({ a: "x", created_by: other });
    const urn = up.resources.echo.urn as string;

    // Pulumi's own plugin, as its launcher runs it for a program on the test virtualenv.
    const refRefresh = await run(sb, workDir, "refresh", VENV_PYTHON, TEST_VENV, referenceRoot);
    expect(refRefresh.error, "the reference plugin's refresh").to.not.equal(undefined);
    // Its Python segfaults unpickling the code in Read; all the user is told:
    expect(refRefresh.diagnostics.filter((d) => d.severity === "error")).to.deep.equal([
      { severity: "error", urn, message: "error reading from server: EOF\n" },
      { severity: "error", urn: null, message: "update failed\n" },
    ]);
    expect(refRefresh.resources.echo.outputs).to.not.have.property("read_by");

    const refresh = await run(sb, workDir, "refresh", VENV_PYTHON, TEST_VENV, E2E_ROOT);
    expect(refresh.error, JSON.stringify(refresh.error)).to.equal(undefined);
    expect(refresh.python).to.equal(main);
    expect(refresh.resources.echo.outputs).to.include({ read_by: other, created_by: other });
    const warnings = refresh.diagnostics.filter((d) => d.severity === "warning");
    expect(warnings).to.have.length(1);
    expect(warnings[0]!.urn).to.equal(urn);
    expect(warnings[0]!.message).to.include(
      `this resource's provider __main__.Echo was pickled by Python ${other}, and this program's Python cannot run that bytecode; ` +
        `running it with ${OTHER_VENV}/bin/python${other} (Python ${other}.`,
    );

    const destroy = await run(sb, workDir, "destroy", VENV_PYTHON, TEST_VENV, E2E_ROOT);
    expect(destroy.error, JSON.stringify(destroy.error)).to.equal(undefined);
    // The resource and the stack.
    expect(destroy.changes).to.deep.include({ delete: 2 });
    expect(destroy.resources).to.deep.equal({});
    expect(destroy.diagnostics.filter((d) => d.severity === "warning").map((d) => d.urn)).to.deep.equal([urn]);
  });

  it("the layout `pulumi new` makes (`virtualenv: venv` beside Pulumi.yaml and Pulumi.dev.yaml): deployed under the second Python, the venv recreated under the program's, refresh and destroy run it from the old venv kept beside", async function () {
    // The stack file beside Pulumi.yaml: a file among the virtualenv's siblings, where the search once
    // stat'ed <project>/Pulumi.dev.yaml/bin/python3.x and failed with ENOTDIR (an internal error per resource).
    fs.writeFileSync(path.join(workDir, "Pulumi.dev.yaml"), "config: {}\n");
    const venv = path.join(workDir, "venv");
    makeVenv(venv, OTHER_VENV);
    const up = await run(sb, workDir, "up", path.join(venv, "bin", "python"), "venv", E2E_ROOT);
    expect(up.error, JSON.stringify(up.error)).to.equal(undefined);
    expect(up.resources.echo.outputs).to.include({ a: "x", created_by: other });
    const urn = up.resources.echo.urn as string;

    // As a user upgrading Python does: the old venv moved aside, a new one made where Pulumi.yaml says.
    fs.renameSync(venv, path.join(workDir, "venv-old"));
    makeVenv(venv, TEST_VENV);
    expect(fs.readdirSync(workDir).sort()).to.deep.equal(["Pulumi.dev.yaml", "Pulumi.yaml", "venv", "venv-old"]);
    const expected =
      `this resource's provider __main__.Echo was pickled by Python ${other}, and this program's Python cannot run that bytecode; ` +
      `running it with ${workDir}/venv-old/bin/python${other} (Python ${other}.`;

    const refresh = await run(sb, workDir, "refresh", path.join(venv, "bin", "python"), "venv", E2E_ROOT);
    expect(refresh.error, JSON.stringify(refresh.error)).to.equal(undefined);
    expect(refresh.python).to.equal(main);
    expect(refresh.resources.echo.outputs).to.include({ read_by: other, created_by: other });
    const warnings = refresh.diagnostics.filter((d) => d.severity === "warning");
    expect(warnings.map((w) => w.urn)).to.deep.equal([urn]);
    expect(warnings[0]!.message).to.include(expected);
    expect(refresh.diagnostics.map((d) => d.message).join("\n")).not.to.match(/internal error|ENOTDIR/);

    const destroy = await run(sb, workDir, "destroy", path.join(venv, "bin", "python"), "venv", E2E_ROOT);
    expect(destroy.error, JSON.stringify(destroy.error)).to.equal(undefined);
    expect(destroy.changes).to.deep.include({ delete: 2 });
    expect(destroy.resources).to.deep.equal({});
    const destroyWarnings = destroy.diagnostics.filter((d) => d.severity === "warning");
    expect(destroyWarnings.map((d) => d.urn)).to.deep.equal([urn]);
    expect(destroyWarnings[0]!.message).to.include(expected);
  });

  it("`pulumi up` once under the program's Python rewrites the resource's __provider: nothing needs the second Python after", async function () {
    const first = await run(sb, workDir, "up", OTHER_PYTHON, OTHER_VENV, E2E_ROOT);
    expect(first.error, JSON.stringify(first.error)).to.equal(undefined);
    expect(codeOf(first.resources.echo.outputs.__provider)).to.equal(`Python ${other}`);

    const up = await run(sb, workDir, "up", VENV_PYTHON, TEST_VENV, E2E_ROOT);
    expect(up.error, JSON.stringify(up.error)).to.equal(undefined);
    expect(up.changes).to.deep.include({ update: 1 });
    // Check, Diff and Update take the program's new __provider: nothing ran in the second Python.
    expect(up.diagnostics.filter((d) => d.severity === "warning")).to.deep.equal([]);
    expect(codeOf(up.resources.echo.outputs.__provider)).to.equal(`Python ${main}`);
    expect(codeOf(up.resources.echo.inputs.__provider)).to.equal(`Python ${main}`);

    const refresh = await run(sb, workDir, "refresh", VENV_PYTHON, TEST_VENV, E2E_ROOT);
    expect(refresh.error, JSON.stringify(refresh.error)).to.equal(undefined);
    expect(refresh.resources.echo.outputs).to.include({ read_by: main });
    const destroy = await run(sb, workDir, "destroy", VENV_PYTHON, TEST_VENV, E2E_ROOT);
    expect(destroy.error, JSON.stringify(destroy.error)).to.equal(undefined);
    expect([...refresh.diagnostics, ...destroy.diagnostics].filter((d) => d.severity === "warning")).to.deep.equal([]);
  });
});

/**
 * A real virtualenv at `dir` of the Python `like` was made from (its pyvenv.cfg `home`), with
 * `like`'s packages (pulumi, dill) reached through a .pth file instead of installed again.
 */
function makeVenv(dir: string, like: string): void {
  const home = /^home = (.+)$/m.exec(fs.readFileSync(path.join(like, "pyvenv.cfg"), "utf8"))![1]!;
  const minor = minorOf(path.join(like, "bin", "python"));
  execFileSync(path.join(home, `python${minor}`), ["-m", "venv", "--without-pip", dir]);
  const site = (venv: string) => path.join(venv, "lib", `python${minor}`, "site-packages");
  fs.writeFileSync(path.join(site(dir), "borrowed.pth"), `${fs.realpathSync(site(like))}\n`);
}

/** "Python 3.12": which Python wrote a state's __provider, read without running it. */
function codeOf(provider: unknown): string | undefined {
  const inspection = inspectPayload(provider as string);
  return inspection.ok ? inspection.facts.code?.describe : undefined;
}
