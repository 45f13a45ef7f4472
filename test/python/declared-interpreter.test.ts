// The Python plugin in a project whose runtime is not python (here nodejs),
// started as the engine starts it, through its launcher: a declared Python
// provider (test/e2e/declared-project/counters.py, copied beside Pulumi.yaml)
// served to requests that carry no __provider, with the interpreter the
// project's rules pick (src/python-bridge/interpreter/project-interpreter.ts); the
// launcher's worker of another interpreter replaced; and, with no usable
// Python, one clear error per request.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { ENGINE_ADDRESS, Plugin } from "../helpers/plugin.js";
import { processState } from "../helpers/proc.js";

const TYPE = "pulumi-python:dynamic:Counter";
const urn = (name: string) => `urn:pulumi:dev::counters-js::${TYPE}::${name}`;
const LOUD = ["--logtostderr", "-v=2", ENGINE_ADDRESS];
/** Python-project settings a shell may carry: a nodejs project's rules must not look at them. */
const NOT_FOR_NODEJS = { PULUMI_RUNTIME_VIRTUALENV: undefined, PULUMI_RUNTIME_TOOLCHAIN: undefined, PULUMI_PYTHON_CMD: undefined };

describe("the Python plugin in a nodejs project: declared Python providers, and which Python runs them", function () {
  const started: Plugin[] = [];
  let scratch: string;
  before(function () {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "declared-python-")));
  });
  afterEach(async function () {
    await Promise.all(started.splice(0).map((p) => p.stop()));
  });
  after(function () {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** A nodejs project declaring the Counter, holding counters.py; `section` is added to the section. */
  function project(name: string, section = ""): string {
    const dir = path.join(scratch, name);
    fs.mkdirSync(dir);
    fs.copyFileSync(`${REPO}test/e2e/declared-project/counters.py`, path.join(dir, "counters.py"));
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      `name: counters-js\nruntime: nodejs\npulumi-dynamic-host:\n${section}  providers:\n    ${TYPE}: counters:CounterProvider\n`,
    );
    return dir;
  }

  const launch = async (cwd: string, env: NodeJS.ProcessEnv = {}) => {
    const p = await Plugin.launch("ours", { language: "python", cwd, args: LOUD, env: { ...NOT_FOR_NODEJS, PYTHONDONTWRITEBYTECODE: "1", ...env } });
    started.push(p);
    return p;
  };

  it("a .venv beside Pulumi.yaml runs the provider, imported from the project directory; the launcher's worker of $PULUMI_PYTHON_CMD is replaced", async function () {
    const dir = project("dot-venv");
    fs.symlinkSync(TEST_VENV, path.join(dir, ".venv"));
    // The launcher, knowing only a Python project's rules, starts $PULUMI_PYTHON_CMD; the nodejs project's .venv comes first.
    const p = await launch(dir, { PULUMI_PYTHON_CMD: VENV_PYTHON });
    const r = await p.client.create({ urn: urn("c"), type: TYPE, properties: { start: 3 } });
    expect(r.code, r.details).to.equal(0);
    expect(r.view.id).to.equal("counter-3");
    const { __provider, ...outs } = r.view.properties;
    expect(__provider, "no __provider is written for a declared type").to.equal(undefined);
    expect(outs).to.deep.include({ start: 3, value: 3 });
    expect(outs.ranBy.python).to.equal(`${dir}/.venv/bin/python`);
    expect(outs.ranBy.script).to.equal(`${REPO}python-stub/worker.py`);
    const m = /the launcher's python worker \(pid (\d+)\) is not used: (.*); starting one/.exec(p.stderr);
    expect(m, p.stderr).to.not.equal(null);
    expect(m![2]).to.equal(`it runs ${VENV_PYTHON}, the host would run ${dir}/.venv/bin/python`);
    expect(Number(m![1])).to.not.equal(outs.ranBy.pid);
    expect(p.stderr).to.contain(`python for this nodejs project: ${dir}/.venv/bin/python, chosen by the virtualenv .venv beside ${dir}/Pulumi.yaml`);
  });

  it("the section's python: names the interpreter (a path relative to Pulumi.yaml), over a .venv", async function () {
    const dir = project("python-key", `  python: ../python-key-env/bin/python\n`);
    fs.symlinkSync(TEST_VENV, path.join(scratch, "python-key-env"));
    fs.symlinkSync("/nonexistent", path.join(dir, ".venv"));
    const p = await launch(dir);
    const r = await p.client.create({ urn: urn("k"), type: TYPE, properties: { start: 4 } });
    expect(r.code, r.details).to.equal(0);
    expect(r.view.properties.ranBy.python).to.equal(`${scratch}/python-key-env/bin/python`);
  });

  it("python: names nothing: each request fails with one error naming the resource, method, type, Pulumi.yaml and fix", async function () {
    const dir = project("missing", `  python: ./no-such-env\n`);
    // The launcher starts a worker of $PULUMI_PYTHON_CMD, which the host, finding no usable interpreter, kills.
    const p = await launch(dir, { PULUMI_PYTHON_CMD: VENV_PYTHON });
    const discarded = /the launcher's python worker \(pid (\d+)\) is not used: the host found no usable interpreter/.exec(p.stderr);
    expect(discarded, p.stderr).to.not.equal(null);
    const r = await p.client.create({ urn: urn("m"), type: TYPE, properties: { start: 5 } });
    expect(r.code).to.equal(9); // FAILED_PRECONDITION
    expect(r.details).to.equal(
      `Create ${urn("m")}: the Python provider counters:CounterProvider, declared for ${TYPE} in ${dir}/Pulumi.yaml, cannot run: ` +
        `${dir}/no-such-env does not exist. This project's runtime is nodejs, so its Python providers run with the interpreter chosen by ` +
        `pulumi-dynamic-host.python in ${dir}/Pulumi.yaml ("./no-such-env"). To fix it, set \`python:\` in the pulumi-dynamic-host section of ` +
        `${dir}/Pulumi.yaml to a python executable or a virtualenv that has pulumi (a path relative to that file, e.g. \`python: .venv\`, ` +
        `or a command on PATH), or create a virtualenv beside it: python3 -m venv ${dir}/.venv && ${dir}/.venv/bin/python -m pip install pulumi`,
    );
    // The kill was sent before the port line; its end is read from /proc (no event tells of another's child).
    const gone = () => ["Z", undefined].includes(processState(Number(discarded![1])));
    for (let i = 0; i < 100 && !gone(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(gone(), "the discarded worker is killed").to.equal(true);
    const d = await p.client.delete({ urn: urn("m"), id: "counter-5", properties: { start: 5 } });
    expect(d.details).to.match(new RegExp(`^Delete ${urn("m").replace(/[$]/g, "\\$")}: the Python provider counters:CounterProvider`));
    expect(p.stderr).to.not.match(/Traceback|internal error/);
  });

  it("an interpreter without pulumi: the worker says so, and the error says how to install it there", async function () {
    const bare = path.join(scratch, "bare-python");
    // A virtualenv without pulumi: the Python that made the test virtualenv, with no packages.
    const base = fs.realpathSync(VENV_PYTHON);
    fs.mkdirSync(path.join(bare, "bin"), { recursive: true });
    fs.symlinkSync(base, path.join(bare, "bin", "python"));
    const dir = project("no-pulumi", `  python: ${bare}/bin/python\n`);
    const p = await launch(dir);
    const r = await p.client.create({ urn: urn("n"), type: TYPE, properties: { start: 6 } });
    expect(r.code, r.details).to.equal(9);
    expect(r.details).to.match(
      new RegExp(
        `^Create ${urn("n").replace(/[$]/g, "\\$")}: the Python provider counters:CounterProvider, declared for ${TYPE} in ${dir}/Pulumi.yaml, ` +
          `cannot run: \\S+ cannot import (dill|pulumi) \\(No module named '(dill|pulumi)'\\)\\. This project's runtime is nodejs`,
      ),
    );
    expect(r.details).to.match(/; or install pulumi for it: \S+ -m pip install pulumi$/);
    expect(p.stderr).to.not.match(/Traceback|internal error/);
  });
});
