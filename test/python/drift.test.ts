// Python version drift: a state whose __provider was pickled by value under
// another CPython minor (a program deployed with Python 3.12, now run with
// 3.11). dill pickles the bytecode itself, which only that minor can run: the
// reference plugin unpickles it and crashes. Ours finds an interpreter of that
// minor with pulumi and dill (here the second virtualenv scripts/setup.sh
// links at .cache/test-venv-other, beside the program's .cache/test-venv) and
// runs that resource there, with one warning under the resource; with none to
// be found, it answers with an error saying what to do.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FakeEngine, WARNING } from "../helpers/fake-engine.js";
import { PYTHON_PROGRAM, REPO, SCENARIOS, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { Plugin } from "../helpers/plugin.js";

const OTHER_VENV = `${REPO}.cache/test-venv-other`;
const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;

/** "3.12" for a python executable. */
function minorOf(python: string): string {
  return execFileSync(python, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).trim();
}

/** The Echo provider of src/conformance/scenarios/python_drift_provider.py, pickled by `python`'s own SDK. */
function echoPickledBy(python: string): string {
  return execFileSync(python, [`${SCENARIOS}python_drift_provider.py`], { cwd: SCENARIOS, encoding: "utf8" }).trim();
}

describe("python version drift", function () {
  let main: string;
  let other: string;
  let ownPickle: string;
  let otherPickle: string;
  let engine: FakeEngine;
  let p: Plugin | undefined;

  before(function () {
    // No skipping: scripts/setup.sh --tests provides the second Python, or says it could not.
    if (!fs.existsSync(`${OTHER_VENV}/bin/python`)) {
      throw new Error(`no second Python at ${OTHER_VENV}: run scripts/setup.sh (it makes one from uv or pyenv)`);
    }
    main = minorOf(VENV_PYTHON);
    other = minorOf(`${OTHER_VENV}/bin/python`);
    expect(other, "the second Python must be another minor than the test virtualenv's").to.not.equal(main);
    ownPickle = echoPickledBy(VENV_PYTHON);
    otherPickle = echoPickledBy(`${OTHER_VENV}/bin/python`);
  });
  beforeEach(async function () {
    engine = await FakeEngine.start();
  });
  afterEach(async function () {
    await p?.stop();
    p = undefined;
    engine.stop();
  });

  const env = { PULUMI_PROJECT: "proj", DRIFT_TEST_MARK: "marked" };

  it("a pickle of another minor runs in a worker of that Python found beside the program's virtualenv, with one warning", async function () {
    p = await Plugin.launch("ours", { language: "python", args: [engine.address], env });
    expect((await p.client.configure({ "proj:color": "blue" })).code).to.equal(0);
    const seen = {
      python: other,
      executable: `${OTHER_VENV}/bin/python${other}`,
      cwd: PYTHON_PROGRAM,
      mark: "marked",
      color: "blue",
    };
    const created = await p.client.create({ urn: urn("old"), properties: { __provider: otherPickle, a: "x" } });
    expect(created.code, created.details).to.equal(0);
    expect(created.view.properties).to.deep.equal({ __provider: otherPickle, a: "x", ...seen });
    const read = await p.client.read({ urn: urn("old"), id: "echo-1", properties: created.view.properties });
    expect(read.code, read.details).to.equal(0);
    expect(read.view.properties).to.include(seen);
    expect((await p.client.delete({ urn: urn("old"), id: "echo-1", properties: created.view.properties })).code).to.equal(0);
    // A second resource of the same code is warned about on its own.
    expect((await p.client.create({ urn: urn("old2"), properties: { __provider: otherPickle } })).code).to.equal(0);

    const warning = (name: string) => ({
      severity: WARNING,
      urn: urn(name),
      message:
        `this resource's provider __main__.Echo was pickled by Python ${other}, and this program's Python cannot run that bytecode; ` +
        `running it with ${OTHER_VENV}/bin/python${other} (Python ${fullVersion(`${OTHER_VENV}/bin/python`)}, pulumi 3.270.0, dill 0.4.1). ` +
        "`pulumi up` under the program's Python writes a new __provider for resources it updates",
    });
    await engine.until((logs) => logs.length >= 2, "two warnings");
    expect(engine.logs).to.deep.equal([warning("old"), warning("old2")]);
  });

  it("a pickle of the program's own minor still runs in the program's worker, without a warning", async function () {
    p = await Plugin.launch("ours", { language: "python", args: [engine.address], env });
    const created = await p.client.create({ urn: urn("own"), properties: { __provider: ownPickle } });
    expect(created.code, created.details).to.equal(0);
    expect(created.view.properties).to.include({ python: main, executable: `${TEST_VENV}/bin/python`, cwd: PYTHON_PROGRAM });
    // Then one that does warn: when its warning has arrived, it is the only message there is.
    expect((await p.client.create({ urn: urn("old"), properties: { __provider: otherPickle } })).code).to.equal(0);
    await engine.until((logs) => logs.some((l) => l.urn === urn("old")), "the other pickle's warning");
    expect(engine.logs.map((l) => l.urn)).to.deep.equal([urn("old")]);
  });

  it("with no interpreter of that minor to be found, the error names the pickle's Python, what was tried and the two ways out", async function () {
    // The program's virtualenv alone in its directory, no pyenv, and on PATH only a pyenv-style shim that exits 127.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "drift-hidden-"));
    const venv = path.join(dir, "venv");
    fs.symlinkSync(fs.realpathSync(TEST_VENV), venv);
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin);
    const shim = path.join(bin, `python${other}`);
    fs.writeFileSync(shim, `#!/bin/sh\necho "pyenv: python${other}: command not found" >&2\nexit 127\n`, { mode: 0o755 });
    try {
      p = await Plugin.launch("ours", {
        language: "python",
        args: [engine.address],
        env: { ...env, PULUMI_RUNTIME_VIRTUALENV: venv, PYENV_ROOT: path.join(dir, "no-pyenv"), PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin` },
      });
      const answer = await p.client.create({ urn: urn("old"), properties: { __provider: otherPickle } });
      expect(answer.code).to.equal(2);
      expect(answer.details).to.equal(
        `Create ${urn("old")}: the __main__.Echo provider was pickled by Python ${other} (dill ≥ 0.3), but this program's Python is ` +
          `${fullVersion(VENV_PYTHON)} (${venv}/bin/python, dill 0.4.1), and bytecode from another Python version cannot run. ` +
          `No Python ${other} with pulumi and dill was found; tried ${shim}: exited with code 127: pyenv: python${other}: command not found ` +
          `(the host looks in virtualenvs beside the program's, \`uv python find\`, python${other} on PATH and pyenv's versions). ` +
          `Either install Python ${other} with pulumi and dill in one of those places (for example a virtualenv next to the program's), ` +
          "and the host runs this resource's provider there; or run `pulumi up` once under the program's current Python: every resource " +
          "the program still declares and whose update runs gets a __provider pickled by it, but resources whose diff reports no change " +
          "keep the old pickle in their outputs, and resources removed from the program, replaced resources' old copies, `pulumi refresh` " +
          "and `pulumi destroy` still need the old one",
      );
      // The program's own pickles are unaffected.
      expect((await p.client.create({ urn: urn("own"), properties: { __provider: ownPickle } })).code).to.equal(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** "3.12.1" for a python executable. */
function fullVersion(python: string): string {
  return execFileSync(python, ["-c", "import sys; print(sys.version.split()[0])"], { encoding: "utf8" }).trim();
}
