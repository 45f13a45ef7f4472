// Interpreter choice, branch by branch, against the reference launcher script's rules.
import { expect } from "chai";
import { resolveInterpreter, type ResolveDeps } from "../../src/python-bridge/interpreter/interpreter.js";

function deps(files: string[] = [], dirs: string[] = [], poetry = ""): ResolveDeps & { poetryCalls: number } {
  const d = {
    poetryCalls: 0,
    isFile: (p: string) => files.includes(p),
    isDirectory: (p: string) => dirs.includes(p),
    poetryEnvPath: () => {
      d.poetryCalls++;
      return poetry;
    },
  };
  return d;
}

const CWD = "/proj";
const base = { PATH: "/usr/bin", PWD: "/elsewhere" };

describe("python interpreter resolution (the reference launcher's rules)", function () {
  it("no virtualenv, no toolchain: python3", function () {
    const r = resolveInterpreter(CWD, { ...base }, deps());
    expect(r).to.deep.include({ ok: true });
    if (r.ok) {
      expect(r.interpreter.python).to.equal("python3");
      expect(r.interpreter.env.PATH).to.equal("/usr/bin");
      expect(r.interpreter.virtualenv).to.equal(undefined);
    }
  });

  it("PULUMI_PYTHON_CMD when no virtualenv is set", function () {
    const r = resolveInterpreter(CWD, { ...base, PULUMI_PYTHON_CMD: "/opt/py/bin/python3.12" }, deps());
    expect(r.ok && r.interpreter.python).to.equal("/opt/py/bin/python3.12");
  });

  it("a relative virtualenv is taken against the cwd, one trailing slash stripped; PATH prepended, PYTHONHOME unset", function () {
    const r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_VIRTUALENV: "venv/", PYTHONHOME: "/x", PULUMI_PYTHON_CMD: "ignored" }, deps(["/proj/venv/bin/python"]));
    expect(r.ok).to.equal(true);
    if (r.ok) {
      expect(r.interpreter.python).to.equal("/proj/venv/bin/python");
      expect(r.interpreter.env.PATH).to.equal("/proj/venv/bin:/usr/bin");
      expect(r.interpreter.env).to.not.have.property("PYTHONHOME");
      expect(r.interpreter.virtualenv).to.equal("/proj/venv");
    }
  });

  it("an absolute virtualenv is used as it is", function () {
    const r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_VIRTUALENV: "/abs/env" }, deps(["/abs/env/bin/python"]));
    expect(r.ok && r.interpreter.python).to.equal("/abs/env/bin/python");
  });

  it("toolchain uv means .venv; an explicit virtualenv wins over the toolchain", function () {
    let r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_TOOLCHAIN: "uv" }, deps(["/proj/.venv/bin/python"]));
    expect(r.ok && r.interpreter.python).to.equal("/proj/.venv/bin/python");
    r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_TOOLCHAIN: "uv", PULUMI_RUNTIME_VIRTUALENV: "/v" }, deps(["/v/bin/python"]));
    expect(r.ok && r.interpreter.python).to.equal("/v/bin/python");
  });

  it("toolchain poetry asks `poetry env info --path`; an empty answer falls back to python3", function () {
    const d = deps(["/cache/pypoetry/virtualenvs/p-1/bin/python"], [], "/cache/pypoetry/virtualenvs/p-1");
    let r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_TOOLCHAIN: "poetry" }, d);
    expect(d.poetryCalls).to.equal(1);
    expect(r.ok && r.interpreter.python).to.equal("/cache/pypoetry/virtualenvs/p-1/bin/python");
    r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_TOOLCHAIN: "poetry" }, deps());
    expect(r.ok && r.interpreter.python).to.equal("python3");
  });

  it("toolchain pip (or anything else) leaves the virtualenv unset", function () {
    const r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_TOOLCHAIN: "pip" }, deps());
    expect(r.ok && r.interpreter.python).to.equal("python3");
  });

  const help = (v: string) => [
    "Run the following commands to create the virtual environment and install dependencies into it:",
    `    1. python3 -m venv ${v}`,
    `    2. ${v}/bin/python -m pip install --upgrade pip setuptools wheel`,
    `    3. ${v}/bin/python -m pip install -r /proj/requirements.txt`,
    "For more information see: https://www.pulumi.com/docs/intro/languages/python/#virtual-environments",
  ];

  it("a missing virtualenv: the launcher's exact lines, exit 1", function () {
    const r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_VIRTUALENV: "nope" }, deps());
    expect(r).to.deep.equal({
      ok: false,
      exitCode: 1,
      stderr: [`The 'virtualenv' option in Pulumi.yaml is set to "/proj/nope", but "/proj/nope" doesn't exist.`, ...help("/proj/nope")],
    });
  });

  it("a directory that is not a virtualenv: the other first line", function () {
    const r = resolveInterpreter(CWD, { ...base, PULUMI_RUNTIME_VIRTUALENV: "/proj/empty" }, deps([], ["/proj/empty"]));
    expect(r.ok).to.equal(false);
    if (!r.ok) {
      expect(r.stderr[0]).to.equal(
        `The 'virtualenv' option in Pulumi.yaml is set to "/proj/empty", but "/proj/empty" doesn't appear to be a virtual environment.`,
      );
      expect(r.stderr.slice(1)).to.deep.equal(help("/proj/empty"));
    }
  });
  describe("main: below the project root, a relative virtualenv (a deliberate difference: the reference looks only under main:)", function () {
    const APP = "/proj/src/app";
    const withRoot = (files: string[]) => ({ ...deps(files), projectRoot: (cwd: string) => (cwd.startsWith("/proj") ? "/proj" : undefined) });

    it("found only under the project root, where the language host resolved it for the program: used", function () {
      const r = resolveInterpreter(APP, { ...base, PULUMI_RUNTIME_VIRTUALENV: "venv" }, withRoot(["/proj/venv/bin/python"]));
      expect(r.ok && r.interpreter.python).to.equal("/proj/venv/bin/python");
      expect(r.ok && r.interpreter.env.PATH).to.equal("/proj/venv/bin:/usr/bin");
      expect(r.ok && r.interpreter.env.PULUMI_RUNTIME_VIRTUALENV).to.equal("/proj/venv");
    });

    it("uv's .venv beside the root's uv.lock: used", function () {
      const r = resolveInterpreter(APP, { ...base, PULUMI_RUNTIME_TOOLCHAIN: "uv" }, withRoot(["/proj/.venv/bin/python"]));
      expect(r.ok && r.interpreter.python).to.equal("/proj/.venv/bin/python");
    });

    it("under both: the one under main:, as the launcher picks", function () {
      const r = resolveInterpreter(APP, { ...base, PULUMI_RUNTIME_VIRTUALENV: "venv" }, withRoot(["/proj/venv/bin/python", `${APP}/venv/bin/python`]));
      expect(r.ok && r.interpreter.python).to.equal(`${APP}/venv/bin/python`);
    });

    it("under neither: the launcher's error, naming the path under main:", function () {
      const r = resolveInterpreter(APP, { ...base, PULUMI_RUNTIME_VIRTUALENV: "venv" }, withRoot([]));
      expect(r.ok).to.equal(false);
      if (!r.ok) expect(r.stderr[0]).to.equal(`The 'virtualenv' option in Pulumi.yaml is set to "${APP}/venv", but "${APP}/venv" doesn't exist.`);
    });
  });
});
