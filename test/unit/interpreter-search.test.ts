// Where the host looks for a Python of another minor (src/python-bridge/interpreter/interpreter-search.ts):
// the order of the places, each candidate run once, shims and interpreters without pulumi
// passed over with the reason kept for the error; then the real machine's second Python.
import { expect } from "chai";
import { InterpreterSearch, type SearchDeps } from "../../src/python-bridge/interpreter/interpreter-search.js";
import { REPO, TEST_VENV } from "../helpers/paths.js";

type Answer = { stdout: string } | { failure: string };

/** A machine of files and of what running each one prints. */
function machine(files: Record<string, Answer | "file">, dirs: Record<string, string[]> = {}, texts: Record<string, string> = {}) {
  const runs: string[] = [];
  const deps: SearchDeps = {
    run: async (file, args) => {
      runs.push([file, ...args.filter((a) => !a.includes("\n"))].join(" "));
      const a = files[file];
      if (a === undefined || a === "file") return { failure: `no answer for ${file}` };
      return a;
    },
    isFile: (p) => p in files,
    isDirectory: (p) => p in dirs || Object.keys(files).some((f) => f.startsWith(`${p}/`)),
    listDir: (p) => dirs[p] ?? [],
    readText: (p) => texts[p],
  };
  return { deps, runs };
}

const ok = (version: string, mods = { pulumi: "3.270.0", dill: "0.4.1" }): Answer => ({ stdout: JSON.stringify({ version, ...mods }) + "\n" });
const MAIN = { python: "/p/venv/bin/python", env: { PATH: "/usr/bin", HOME: "/home/u" }, virtualenv: "/p/venv" };

describe("python interpreter search (another minor for a pickle)", function () {
  it("a virtualenv beside the program's comes first, and its PATH and PYTHONHOME are set as the launcher sets them", async function () {
    const { deps, runs } = machine(
      { "/p/venv312/bin/python3.12": ok("3.12.4"), "/p/venv312/pyvenv.cfg": "file", "/usr/bin/python3.12": ok("3.12.1") },
      { "/p": ["venv", "venv312"] },
    );
    const search = await new InterpreterSearch({ ...MAIN, env: { ...MAIN.env, PYTHONHOME: "/x" } }, "/p", deps).find(["3.12"]);
    expect(search.found?.probe).to.deep.equal({ python: "/p/venv312/bin/python3.12", version: "3.12.4", pulumi: "3.270.0", dill: "0.4.1", problem: undefined });
    expect(search.found?.interpreter).to.deep.equal({ python: "/p/venv312/bin/python3.12", env: { PATH: "/p/venv312/bin:/usr/bin", HOME: "/home/u" }, virtualenv: "/p/venv312" });
    expect(runs).to.deep.equal(["/p/venv312/bin/python3.12 -c"]);
  });

  it("a shim that exits 127, a Python without pulumi, another version: each kept with its reason, then pyenv's", async function () {
    const { deps } = machine(
      {
        "/usr/base/python3.12": ok("3.12.1", { pulumi: undefined, pulumi_error: "ModuleNotFoundError: No module named 'pulumi'", dill: undefined, dill_error: "ModuleNotFoundError: No module named 'dill'" } as never),
        "/shims/python3.12": { failure: "exited with code 127: pyenv: python3.12: command not found" },
        "/home/u/.pyenv/versions/3.12.1/bin/python3.12": ok("3.12.1", { pulumi: undefined, pulumi_error: "ModuleNotFoundError: No module named 'pulumi'", dill: "0.4.1" } as never),
        "/home/u/.pyenv/versions/tools/bin/python3.12": ok("3.12.2"),
      },
      { "/home/u/.pyenv/versions": ["3.11.7", "3.12.1", "tools"] },
      { "/p/venv/pyvenv.cfg": "home = /usr/base\nversion = 3.11.7\n" },
    );
    const search = await new InterpreterSearch({ ...MAIN, env: { PATH: "/shims:/usr/bin", HOME: "/home/u" } }, "/p", deps).find(["3.12"]);
    expect(search.tried.map((t) => [t.python, t.problem])).to.deep.equal([
      ["/usr/base/python3.12", "it cannot import pulumi (ModuleNotFoundError: No module named 'pulumi') or dill (ModuleNotFoundError: No module named 'dill')"],
      ["/shims/python3.12", "exited with code 127: pyenv: python3.12: command not found"],
      ["/home/u/.pyenv/versions/3.12.1/bin/python3.12", "it cannot import pulumi (ModuleNotFoundError: No module named 'pulumi')"],
      ["/home/u/.pyenv/versions/tools/bin/python3.12", undefined],
    ]);
    expect(search.found?.probe.python).to.equal("/home/u/.pyenv/versions/tools/bin/python3.12");
  });

  it("a file named python3.12 that is another version is passed over; uv's find is asked when uv is on PATH", async function () {
    const { deps, runs } = machine({
      "/bin/uv": "file",
      "/odd/python3.12": ok("3.11.7"),
      "/uvpy/bin/python3.12": ok("3.12.3"),
    });
    (deps as { run: SearchDeps["run"] }).run = async (file, args) => {
      runs.push([file, ...args.filter((a) => !a.includes("\n"))].join(" "));
      if (file === "uv") return { stdout: "/uvpy/bin/python3.12\n" };
      return file === "/odd/python3.12" ? ok("3.11.7") : ok("3.12.3");
    };
    const search = await new InterpreterSearch({ python: "python3", env: { PATH: "/odd:/bin", HOME: "/h" } }, "/p", deps).find(["3.12"]);
    // No virtualenv: the directory of the python3 PATH finds (none here), then uv, then PATH.
    expect(runs).to.deep.equal(["uv python find --no-config 3.12", "/uvpy/bin/python3.12 -c"]);
    expect(search.found?.probe.version).to.equal("3.12.3");
    const again = await new InterpreterSearch({ python: "python3", env: { PATH: "/odd", HOME: "/h" } }, "/p", deps).find(["3.12"]);
    expect(again.tried.map((t) => [t.python, t.problem])).to.deep.equal([["/odd/python3.12", "it is Python 3.11.7"]]);
  });

  it("each candidate runs once per host process, however many searches and minors ask", async function () {
    const { deps, runs } = machine({ "/usr/bin/python3.12": ok("3.12.1", { pulumi: undefined, dill: "0.4.1" } as never) });
    const s = new InterpreterSearch({ python: "python3", env: { PATH: "/usr/bin", HOME: "/h" } }, "/p", deps);
    await Promise.all([s.find(["3.12"]), s.find(["3.12"]), s.find(["3.11", "3.12"])]);
    expect(runs).to.deep.equal(["/usr/bin/python3.12 -c"]);
  });

  it("on this machine: the second Python scripts/setup.sh links beside the test virtualenv is found and runs", async function () {
    const { execFileSync } = await import("node:child_process");
    const other = `${REPO}.cache/test-venv-other`;
    const minor = execFileSync(`${other}/bin/python`, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).trim();
    const search = await new InterpreterSearch({ python: `${TEST_VENV}/bin/python`, env: process.env, virtualenv: TEST_VENV }, REPO).find([minor]);
    expect(search.found?.probe).to.deep.include({ python: `${other}/bin/python${minor}`, pulumi: "3.270.0", dill: "0.4.1" });
    expect(search.found?.probe.version.startsWith(`${minor}.`)).to.equal(true);
  });
});
