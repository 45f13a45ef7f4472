// The Python of a project whose runtime is not python (project-interpreter.ts),
// rule by rule, and the reading of Pulumi.yaml it depends on (project-python.ts).
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveProjectInterpreter, type ProjectDeps } from "../../src/python-bridge/interpreter/project-interpreter.js";
import { readProjectPython, type ProjectPython } from "../../src/python-bridge/interpreter/project-python.js";

const ROOT = "/proj";
const FILE = "/proj/Pulumi.yaml";
const base = { PATH: "/usr/bin:/bin", PWD: "/elsewhere", PYTHONHOME: "/home-of-python" };

function deps(files: string[] = [], dirs: string[] = [], onPath: Record<string, string> = {}): ProjectDeps {
  return {
    isFile: (p) => files.includes(p),
    isDirectory: (p) => dirs.includes(p),
    poetryEnvPath: () => {
      throw new Error("poetry is not asked outside a Python project");
    },
    onPath: (name) => onPath[name],
  };
}

const nodejs = (python?: string): ProjectPython => ({ file: FILE, root: ROOT, runtime: "nodejs", python });

describe("python interpreter of a project whose runtime is not python", function () {
  it("a Python project, or no project, keeps the reference launcher's rules (the section's python: and .venv are not looked at)", function () {
    const d = deps(["/proj/.venv/bin/python", "/opt/py"], [], { python3: "/usr/bin/python3" });
    for (const project of [undefined, { file: FILE, root: ROOT, runtime: "python", python: "/opt/py" }]) {
      const r = resolveProjectInterpreter(ROOT, { ...base }, project, d);
      expect(r.ok && r.interpreter.python).to.equal("python3");
      expect(r.ok && r.interpreter.choice).to.equal(undefined);
    }
    const venv = resolveProjectInterpreter(ROOT, { ...base, PULUMI_RUNTIME_VIRTUALENV: "nope" }, { file: FILE, root: ROOT, runtime: "python" }, d);
    expect(venv).to.deep.include({ ok: false, exitCode: 1 });
  });

  it("a. python: naming a virtualenv directory, relative to Pulumi.yaml: its bin/python, PATH prepended, PYTHONHOME dropped", function () {
    const r = resolveProjectInterpreter("/proj/app", { ...base }, nodejs("envs/py"), deps(["/proj/envs/py/bin/python"], ["/proj/envs/py"]));
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(r.interpreter.python).to.equal("/proj/envs/py/bin/python");
    expect(r.interpreter.virtualenv).to.equal("/proj/envs/py");
    expect(r.interpreter.env.PATH).to.equal("/proj/envs/py/bin:/usr/bin:/bin");
    expect(r.interpreter.env).to.not.have.property("PYTHONHOME");
    expect(r.interpreter.choice).to.deep.equal({
      rule: "section",
      why: `pulumi-dynamic-host.python in ${FILE} ("envs/py")`,
      file: FILE,
      runtime: "nodejs",
    });
  });

  it("a. a bare name that is a directory beside Pulumi.yaml is that directory; .venv is a path", function () {
    let r = resolveProjectInterpreter(ROOT, { ...base }, nodejs("venv"), deps(["/proj/venv/bin/python"], ["/proj/venv"], { venv: "/usr/bin/venv" }));
    expect(r.ok && r.interpreter.virtualenv).to.equal("/proj/venv");
    r = resolveProjectInterpreter(ROOT, { ...base }, nodejs(".venv"), deps(["/proj/.venv/bin/python"], ["/proj/.venv"]));
    expect(r.ok && r.interpreter.python).to.equal("/proj/.venv/bin/python");
  });

  it("a. an executable: a virtualenv's (beside pyvenv.cfg) gets the virtualenv's environment; any other runs as it is", function () {
    let r = resolveProjectInterpreter(ROOT, { ...base }, nodejs("./env/bin/python3.12"), deps(["/proj/env/bin/python3.12", "/proj/env/pyvenv.cfg"]));
    expect(r.ok && [r.interpreter.python, r.interpreter.virtualenv, r.interpreter.env.PATH]).to.deep.equal([
      "/proj/env/bin/python3.12",
      "/proj/env",
      "/proj/env/bin:/usr/bin:/bin",
    ]);
    r = resolveProjectInterpreter(ROOT, { ...base }, nodejs("/opt/python/bin/python3"), deps(["/opt/python/bin/python3"]));
    expect(r.ok && [r.interpreter.python, r.interpreter.virtualenv, r.interpreter.env.PYTHONHOME]).to.deep.equal([
      "/opt/python/bin/python3",
      undefined,
      "/home-of-python",
    ]);
  });

  it("a. a command name is looked up on PATH and kept as a command (as the launcher names it)", function () {
    const r = resolveProjectInterpreter(ROOT, { ...base }, nodejs("python3.12"), deps([], [], { "python3.12": "/usr/bin/python3.12" }));
    expect(r.ok && r.interpreter.python).to.equal("python3.12");
    expect(r.ok && r.interpreter.env.PWD).to.equal(ROOT);
  });

  it("a. the section wins over a .venv beside Pulumi.yaml", function () {
    const r = resolveProjectInterpreter(ROOT, { ...base }, nodejs("/opt/py"), deps(["/opt/py", "/proj/.venv/bin/python"]));
    expect(r.ok && r.interpreter.python).to.equal("/opt/py");
  });

  it("a. what python: names does not exist, or is not a virtualenv, or is not on PATH: unusable, not fatal, saying so", function () {
    const cases: [string, ProjectDeps, string][] = [
      ["./missing/bin/python", deps(), "/proj/missing/bin/python does not exist"],
      ["envs/empty", deps([], ["/proj/envs/empty"]), "/proj/envs/empty is a directory but not a virtualenv (it has no bin/python)"],
      ["python3.99", deps(), "the command python3.99 is not on PATH"],
    ];
    for (const [named, d, problem] of cases) {
      const r = resolveProjectInterpreter(ROOT, { ...base }, nodejs(named), d);
      expect(r, named).to.deep.equal({
        ok: false,
        unusable: { problem, choice: { rule: "section", why: `pulumi-dynamic-host.python in ${FILE} (${JSON.stringify(named)})`, file: FILE, runtime: "nodejs" } },
      });
    }
    const wrong = resolveProjectInterpreter(ROOT, { ...base }, { ...nodejs(), problem: "pulumi-dynamic-host.python in /proj/Pulumi.yaml is 3: …" }, deps());
    expect(!wrong.ok && "unusable" in wrong && wrong.unusable.problem).to.match(/is 3/);
  });

  it("b. else .venv, then venv, beside Pulumi.yaml (not beside a main: below it)", function () {
    let r = resolveProjectInterpreter("/proj/src", { ...base }, nodejs(), deps(["/proj/.venv/bin/python", "/proj/venv/bin/python", "/proj/src/.venv/bin/python"]));
    expect(r.ok && r.interpreter.python).to.equal("/proj/.venv/bin/python");
    expect(r.ok && r.interpreter.choice?.why).to.equal(`the virtualenv .venv beside ${FILE}`);
    r = resolveProjectInterpreter(ROOT, { ...base }, nodejs(), deps(["/proj/venv/bin/python"]));
    expect(r.ok && r.interpreter.python).to.equal("/proj/venv/bin/python");
    expect(r.ok && r.interpreter.env.PATH).to.equal("/proj/venv/bin:/usr/bin:/bin");
  });

  it("c. else $PULUMI_PYTHON_CMD or python3 on PATH; neither there: unusable", function () {
    let r = resolveProjectInterpreter(ROOT, { ...base }, nodejs(), deps([], [], { python3: "/usr/bin/python3" }));
    expect(r.ok && [r.interpreter.python, r.interpreter.choice?.rule]).to.deep.equal(["python3", "command"]);
    expect(r.ok && r.interpreter.env.PYTHONHOME).to.equal("/home-of-python");
    r = resolveProjectInterpreter(ROOT, { ...base, PULUMI_PYTHON_CMD: "python3.11" }, nodejs(), deps([], [], { "python3.11": "/usr/bin/python3.11" }));
    expect(r.ok && r.interpreter.python).to.equal("python3.11");
    r = resolveProjectInterpreter(ROOT, { ...base }, nodejs(), deps());
    expect(!r.ok && "unusable" in r && r.unusable).to.deep.equal({
      problem: "python3 is not on PATH",
      choice: { rule: "command", why: `python3 on PATH (no pulumi-dynamic-host.python in ${FILE}, and no .venv or venv beside it)`, file: FILE, runtime: "nodejs" },
    });
  });

  it("PULUMI_RUNTIME_VIRTUALENV and the toolchain, Python-project options, are not looked at", function () {
    const r = resolveProjectInterpreter(ROOT, { ...base, PULUMI_RUNTIME_VIRTUALENV: "/v", PULUMI_RUNTIME_TOOLCHAIN: "poetry" }, nodejs(), deps(["/v/bin/python"], [], { python3: "/usr/bin/python3" }));
    expect(r.ok && r.interpreter.python).to.equal("python3");
  });
});

describe("reading a project's runtime and python: (project-python.ts)", function () {
  let dir: string;
  beforeEach(function () {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "project-python-")));
  });
  afterEach(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const write = (text: string) => fs.writeFileSync(path.join(dir, "Pulumi.yaml"), text);

  it("no Pulumi.yaml at or above: undefined", async function () {
    expect(await readProjectPython("/")).to.equal(undefined);
  });

  it("the runtime as a scalar or as a map; the section's python:, found from a subdirectory", async function () {
    write("name: p\nruntime: nodejs # the program\npulumi-dynamic-host:\n  python: .venv\n");
    fs.mkdirSync(path.join(dir, "src"));
    expect(await readProjectPython(path.join(dir, "src"))).to.deep.equal({ file: `${dir}/Pulumi.yaml`, root: dir, runtime: "nodejs", python: ".venv" });
    write("name: p\nruntime:\n  name: yaml\n  options: {}\n");
    expect(await readProjectPython(dir)).to.deep.equal({ file: `${dir}/Pulumi.yaml`, root: dir, runtime: "yaml" });
    write("name: p\nruntime: 'python'\npulumi-dynamic-host:\n  python: ignored\n");
    expect((await readProjectPython(dir))?.runtime).to.equal("python");
  });

  it("a python: that is not a string is a problem the resolution reports", async function () {
    write("name: p\nruntime: go\npulumi-dynamic-host:\n  python: [a]\n");
    const p = await readProjectPython(dir);
    expect(p?.problem).to.equal(`pulumi-dynamic-host.python in ${dir}/Pulumi.yaml is ["a"]: it takes a path to a python executable or a virtualenv, or a command name`);
  });
});
