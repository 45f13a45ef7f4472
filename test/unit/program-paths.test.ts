// Where the Python worker imports the program's modules from (program-paths.ts),
// for the layouts the engine starts the plugin in, with the real finder of the
// project root on real directories.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { programPathEnv, programPaths, PROGRAM_PATH_VARIABLE } from "../../src/python-bridge/interpreter/program-paths.js";

describe("program paths: the Python worker's sys.path for the program", function () {
  let root: string;
  const mk = (rel: string, file?: string) => {
    const p = path.join(root, rel);
    fs.mkdirSync(file === undefined ? p : path.dirname(p), { recursive: true });
    if (file !== undefined) fs.writeFileSync(p, file);
    return p;
  };
  beforeEach(function () {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "program-paths-")));
  });
  afterEach(function () {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("no main: the project directory first, nothing after it (it is the root)", function () {
    mk("Pulumi.yaml", "name: p\nruntime: python\n");
    expect(programPaths(root, {})).to.deep.equal({ first: [root], last: [] });
  });

  it("no main, a src/ layout: the project directory first, its src/ last", function () {
    mk("Pulumi.yaml", "name: p\nruntime: python\n");
    mk("src/pkg/__init__.py", "");
    expect(programPaths(root, {})).to.deep.equal({ first: [root], last: [path.join(root, "src")] });
  });

  it("main: src/app (the plugin starts there): the main directory first, the root and src/ last", function () {
    mk("Pulumi.yaml", "name: p\nruntime: python\nmain: src/app\n");
    const app = mk("src/app/__main__.py", "");
    expect(programPaths(path.dirname(app), {})).to.deep.equal({ first: [path.dirname(app)], last: [root, path.join(root, "src")] });
  });

  it("main: src (the plugin starts in src/): src/ once, first; the root last", function () {
    mk("Pulumi.yaml", "name: p\nruntime: python\nmain: src\n");
    const src = path.dirname(mk("src/__main__.py", ""));
    expect(programPaths(src, {})).to.deep.equal({ first: [src], last: [root] });
  });

  it("main: a file in infra/: its directory first (the plugin's cwd), the root last; no src/ when there is none", function () {
    mk("Pulumi.yaml", "name: p\nruntime: python\nmain: infra/deploy.py\n");
    const infra = path.dirname(mk("infra/deploy.py", ""));
    expect(programPaths(infra, {})).to.deep.equal({ first: [infra], last: [root] });
  });

  it("a Pulumi.yml counts as the project file too", function () {
    mk("Pulumi.yml", "name: p\nruntime: python\n");
    const sub = path.dirname(mk("sub/__main__.py", ""));
    expect(programPaths(sub, {})).to.deep.equal({ first: [sub], last: [root] });
  });

  it("no project file above the directory: the directory alone", function () {
    const dir = path.dirname(mk("loose/x.py", ""));
    expect(programPaths(dir, {}, { findProjectRoot: () => undefined, isDirectory: () => true })).to.deep.equal({ first: [dir], last: [] });
  });

  it("PYTHONSAFEPATH: the main directory only (the program has it), no fallbacks", function () {
    mk("Pulumi.yaml", "name: p\nruntime: python\nmain: src/app\n");
    const app = path.dirname(mk("src/app/__main__.py", ""));
    expect(programPaths(app, { PYTHONSAFEPATH: "1" })).to.deep.equal({ first: [app], last: [] });
    // Python takes any non-empty value as set, and an empty one as unset.
    expect(programPaths(app, { PYTHONSAFEPATH: "" }).last).to.deep.equal([root, path.join(root, "src")]);
  });

  it("a relative cwd is made absolute", function () {
    const here = process.cwd();
    mk("Pulumi.yaml", "name: p\n");
    process.chdir(root);
    try {
      expect(programPaths(".", {}).first).to.deep.equal([root]);
    } finally {
      process.chdir(here);
    }
  });

  it("the worker's variable is the JSON of the paths", function () {
    mk("Pulumi.yaml", "name: p\n");
    mk("src/.keep", "");
    const env = programPathEnv(root, {});
    expect(Object.keys(env)).to.deep.equal([PROGRAM_PATH_VARIABLE]);
    expect(JSON.parse(env[PROGRAM_PATH_VARIABLE])).to.deep.equal({ first: [root], last: [path.join(root, "src")] });
    expect(JSON.parse(programPathEnv(root, { PYTHONSAFEPATH: "1" })[PROGRAM_PATH_VARIABLE])).to.deep.equal({ first: [root], last: [] });
  });
});
