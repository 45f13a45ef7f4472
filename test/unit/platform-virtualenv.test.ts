// A virtualenv's interpreter on each system, with the platform injected
// (src/host/files/platform.ts, docs/platform-code.md): `Scripts\python.exe` on
// Windows, `bin/python` on Linux and macOS, everywhere the host looks for one:
// the project's virtualenv option and PULUMI_RUNTIME_VIRTUALENV, uv's `.venv`,
// poetry's answer, a non-Python project's python: and .venv, and the search for
// another minor. Windows' PATH is `;`-separated and spelled `Path`.
import { expect } from "chai";
import {
  comparablePath,
  hasPathSeparator,
  pathVariable,
  prependToPath,
  samePathText,
  virtualenvBin,
  virtualenvPython,
  withoutTrailingSeparator,
  type Platform,
} from "../../src/host/files/platform.js";
import { InterpreterSearch, environmentFor, type SearchDeps } from "../../src/python-bridge/interpreter/interpreter-search.js";
import { resolveInterpreter, type ResolveDeps } from "../../src/python-bridge/interpreter/interpreter.js";
import { pathCandidates, resolveProjectInterpreter, type ProjectDeps } from "../../src/python-bridge/interpreter/project-interpreter.js";
import { noPythonError } from "../../src/python-bridge/interpreter/unusable-interpreter.js";

interface Machine {
  platform: Platform;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The virtualenv, absolute; its interpreter; its bin folder; the PATH a worker gets. */
  venv: string;
  python: string;
  bin: string;
  path: string;
}

const MACHINES: Machine[] = [
  {
    platform: "win32",
    cwd: "C:\\proj",
    env: { Path: "C:\\Windows\\system32;C:\\Python313", PWD: "C:\\proj" },
    venv: "C:\\proj\\venv",
    python: "C:\\proj\\venv\\Scripts\\python.exe",
    bin: "C:\\proj\\venv\\Scripts",
    path: "C:\\proj\\venv\\Scripts;C:\\Windows\\system32;C:\\Python313",
  },
  {
    platform: "darwin",
    cwd: "/Users/me/proj",
    env: { PATH: "/usr/bin:/opt/homebrew/bin", PWD: "/Users/me/proj" },
    venv: "/Users/me/proj/venv",
    python: "/Users/me/proj/venv/bin/python",
    bin: "/Users/me/proj/venv/bin",
    path: "/Users/me/proj/venv/bin:/usr/bin:/opt/homebrew/bin",
  },
  {
    platform: "linux",
    cwd: "/home/me/proj",
    env: { PATH: "/usr/bin", PWD: "/home/me/proj" },
    venv: "/home/me/proj/venv",
    python: "/home/me/proj/venv/bin/python",
    bin: "/home/me/proj/venv/bin",
    path: "/home/me/proj/venv/bin:/usr/bin",
  },
];

function launcherDeps(m: Machine, files: string[], poetry = ""): ResolveDeps {
  return { platform: m.platform, isFile: (p) => files.includes(p), isDirectory: () => false, poetryEnvPath: () => poetry };
}

describe("platform: a virtualenv's interpreter on Windows, macOS and Linux (platform injected)", function () {
  for (const m of MACHINES) {
    describe(m.platform, function () {
      it("virtualenvPython and virtualenvBin", function () {
        expect(virtualenvPython(m.venv, m.platform)).to.equal(m.python);
        expect(virtualenvBin(m.venv, m.platform)).to.equal(m.bin);
      });

      it("the virtualenv option (relative, with a trailing separator) finds its interpreter; PATH gets its bin first under the name the environment uses", function () {
        const trailing = m.platform === "win32" ? "venv\\" : "venv/";
        const r = resolveInterpreter(m.cwd, { ...m.env, PULUMI_RUNTIME_VIRTUALENV: trailing, PYTHONHOME: "x" }, launcherDeps(m, [m.python]));
        expect(r.ok, JSON.stringify(r)).to.equal(true);
        if (!r.ok) return;
        expect(r.interpreter.python).to.equal(m.python);
        expect(r.interpreter.virtualenv).to.equal(m.venv);
        const key = pathVariable(m.env, m.platform);
        expect(r.interpreter.env[key]).to.equal(m.path);
        expect(Object.keys(r.interpreter.env).filter((k) => k.toUpperCase() === "PATH")).to.deep.equal([key]);
        expect(r.interpreter.env).to.not.have.property("PYTHONHOME");
      });

      it("an absolute virtualenv (VIRTUAL_ENV-style, a drive letter on Windows) is used as it is", function () {
        const r = resolveInterpreter(m.cwd, { ...m.env, PULUMI_RUNTIME_VIRTUALENV: m.venv }, launcherDeps(m, [m.python]));
        expect(r.ok && r.interpreter.python).to.equal(m.python);
      });

      it("the uv toolchain's .venv and poetry's answer", function () {
        const dotVenv = m.venv.replace(/venv$/, ".venv");
        const uv = resolveInterpreter(m.cwd, { ...m.env, PULUMI_RUNTIME_TOOLCHAIN: "uv" }, launcherDeps(m, [virtualenvPython(dotVenv, m.platform)]));
        expect(uv.ok && uv.interpreter.python).to.equal(virtualenvPython(dotVenv, m.platform));
        const poetry = resolveInterpreter(m.cwd, { ...m.env, PULUMI_RUNTIME_TOOLCHAIN: "poetry" }, launcherDeps(m, [m.python], m.venv));
        expect(poetry.ok && poetry.interpreter.python).to.equal(m.python);
      });

      it("a virtualenv with the other system's layout is broken, and the message names this system's interpreter", function () {
        const other = m.platform === "win32" ? `${m.venv}/bin/python` : `${m.venv}/Scripts/python.exe`;
        const r = resolveInterpreter(m.cwd, { ...m.env, PULUMI_RUNTIME_VIRTUALENV: m.venv }, launcherDeps(m, [other]));
        expect(r.ok).to.equal(false);
        if (r.ok || !("stderr" in r)) return;
        expect(r.stderr.join("\n")).to.include(`${m.python} -m pip install`);
      });

      it("a non-Python project: python: naming a virtualenv folder, then .venv beside Pulumi.yaml", function () {
        const deps: ProjectDeps = { ...launcherDeps(m, [m.python]), isDirectory: (p) => p === m.venv, onPath: () => undefined };
        const project = { file: `${m.cwd}${m.platform === "win32" ? "\\" : "/"}Pulumi.yaml`, root: m.cwd, runtime: "nodejs", python: "venv" };
        const r = resolveProjectInterpreter(m.cwd, { ...m.env }, project, deps);
        expect(r.ok && r.interpreter.python).to.equal(m.python);
        expect(r.ok && r.interpreter.env[pathVariable(m.env, m.platform)]).to.equal(m.path);
        const dotVenv = m.venv.replace(/venv$/, ".venv");
        const beside = resolveProjectInterpreter(m.cwd, { ...m.env }, { ...project, python: undefined }, { ...deps, isFile: (p) => p === virtualenvPython(dotVenv, m.platform) });
        expect(beside.ok && beside.interpreter.python).to.equal(virtualenvPython(dotVenv, m.platform));
        // python: naming the interpreter inside a virtualenv is that virtualenv's.
        const inside = resolveProjectInterpreter(m.cwd, { ...m.env }, { ...project, python: m.python }, {
          ...deps,
          isDirectory: () => false,
          isFile: (p) => p === m.python || p === (m.platform === "win32" ? `${m.venv}\\pyvenv.cfg` : `${m.venv}/pyvenv.cfg`),
        });
        expect(inside.ok && inside.interpreter.virtualenv).to.equal(m.venv);
      });

      it("the search for another minor looks into sibling virtualenvs with this system's layout, and sets PATH the same way", async function () {
        const sep = m.platform === "win32" ? "\\" : "/";
        const parent = m.cwd;
        const sibling = `${parent}${sep}venv312`;
        const candidate = m.platform === "win32" ? `${sibling}\\Scripts\\python.exe` : `${sibling}/bin/python3.12`;
        const files = new Set([candidate, `${sibling}${sep}pyvenv.cfg`]);
        const deps: SearchDeps = {
          platform: m.platform,
          run: async (file) => (file === candidate ? { stdout: JSON.stringify({ version: "3.12.4", pulumi: "3.270.0", dill: "0.4.1" }) } : { failure: "no" }),
          isFile: (p) => files.has(p),
          isDirectory: (p) => p === sibling,
          listDir: (p) => (p === parent ? ["venv", "venv312"] : []),
          readText: () => undefined,
        };
        const main = { python: m.python, env: { ...m.env }, virtualenv: m.venv };
        const search = await new InterpreterSearch(main, m.cwd, deps).find(["3.12"]);
        expect(search.found?.interpreter.python).to.equal(candidate);
        const key = pathVariable(m.env, m.platform);
        expect(environmentFor(candidate, m.env, deps).env[key]).to.equal(`${sibling}${sep}${m.platform === "win32" ? "Scripts;" : "bin:"}${m.env[key]}`);
      });
    });
  }

  it("the fix an unusable interpreter's error suggests names this system's virtualenv interpreter", function () {
    const call = { operation: "Create", urn: "urn:x", type: "t" } as Parameters<typeof noPythonError>[0];
    const choice = { rule: "command" as const, why: "python3 on PATH", runtime: "nodejs" };
    const win = noPythonError(call, {} as never, "python3 is not on PATH", { ...choice, file: "C:\\proj\\Pulumi.yaml" }, undefined, "win32");
    expect(win.message).to.include("python3 -m venv C:\\proj\\.venv && C:\\proj\\.venv\\Scripts\\python.exe -m pip install pulumi");
    const mac = noPythonError(call, {} as never, "python3 is not on PATH", { ...choice, file: "/Users/me/proj/Pulumi.yaml" }, undefined, "darwin");
    expect(mac.message).to.include("python3 -m venv /Users/me/proj/.venv && /Users/me/proj/.venv/bin/python -m pip install pulumi");
  });

  it("PATH lookups: `;` and python3.exe on Windows, `:` elsewhere", function () {
    expect(pathCandidates("python3", "C:\\a;C:\\b", "win32")).to.deep.equal(["C:\\a\\python3.exe", "C:\\a\\python3", "C:\\b\\python3.exe", "C:\\b\\python3"]);
    expect(pathCandidates("python3", "/a:/b", "darwin")).to.deep.equal(["/a/python3", "/b/python3"]);
    expect(pathCandidates("C:\\a;b", "", "linux")).to.deep.equal(["C:\\a;b"]);
  });

  it("Path keeps its spelling on Windows; PATH elsewhere", function () {
    expect(pathVariable({ Path: "x" }, "win32")).to.equal("Path");
    expect(pathVariable({}, "win32")).to.equal("PATH");
    expect(pathVariable({ Path: "x" }, "linux")).to.equal("PATH");
    expect(prependToPath({ Path: "C:\\x" }, "C:\\v\\Scripts", "win32")).to.deep.equal({ Path: "C:\\v\\Scripts;C:\\x" });
  });

  it("separators, trailing separators and roots", function () {
    expect(hasPathSeparator("envs\\py", "win32")).to.equal(true);
    expect(hasPathSeparator("envs\\py", "linux")).to.equal(false);
    expect(withoutTrailingSeparator("C:\\v\\", "win32")).to.equal("C:\\v");
    expect(withoutTrailingSeparator("C:\\", "win32")).to.equal("C:\\");
    expect(withoutTrailingSeparator("/v/", "darwin")).to.equal("/v");
    expect(withoutTrailingSeparator("/", "linux")).to.equal("/");
    expect(withoutTrailingSeparator("v\\", "linux")).to.equal("v\\");
  });

  it("comparing paths: case-insensitive on Windows and macOS, `/` and `\\` alike on Windows, exact on Linux", function () {
    expect(samePathText("C:\\Proj\\Node_Modules\\x", "c:/proj/node_modules/x/", "win32")).to.equal(true);
    expect(samePathText("/Users/Me/Proj", "/users/me/proj", "darwin")).to.equal(true);
    expect(samePathText("/home/Me/proj", "/home/me/proj", "linux")).to.equal(false);
    expect(comparablePath("/home/me/./proj/", "linux")).to.equal("/home/me/proj");
  });
});
