// Generated layouts around a real project (src/host/files/file-probe.ts and every
// place that looks at the user's file system through it): seeded, reproducible
// random layouts of the things a user's disk holds where the host looks (a
// file where a folder is expected, dangling and looping symlinks, folders that
// may not be read, names with spaces or bytes that are not UTF-8, paths past
// PATH_MAX), and each entry point run on each: the project root and its file,
// the Python launcher's interpreter rules, the search for another Python, the
// worker's program paths, the Pulumi.yaml declarations, a moved module's
// package, a Node provider reference, the cache root and `doctor`. Each must
// give the answer the layout calls for (computed here from the layout's own
// description) and never an internal error.
//
// PULUMI_DYNAMIC_HOST_LAYOUT_SEED=<n> replays one layout; PULUMI_DYNAMIC_HOST_LAYOUTS=<n> runs more.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openCacheRoot } from "../../src/host/files/cache-root.js";
import { isDirectory, isFile, kindOf, listDirectory, readText, realPath } from "../../src/host/files/file-probe.js";
import { findProjectRoot, projectFile } from "../../src/host/references/project-root.js";
import { DeclarationError, ProviderReferences } from "../../src/host/references/provider-references.js";
import { resolveInterpreter } from "../../src/python-bridge/interpreter/interpreter.js";
import { InterpreterSearch, realSearchDeps } from "../../src/python-bridge/interpreter/interpreter-search.js";
import { programPaths } from "../../src/python-bridge/interpreter/program-paths.js";
import { readProjectPython } from "../../src/python-bridge/interpreter/project-python.js";
import { resolveProjectInterpreter } from "../../src/python-bridge/interpreter/project-interpreter.js";
import { packageOfPath, relocate, UnresolvedModuleError } from "../../src/node-dynamic/moved-modules.js";
import { projectRequire, ReferenceLoadError, resolveModuleReference } from "../../src/node-dynamic/module-reference.js";
import { pluginLaunch } from "../../src/cli/doctor/plugin-launch.js";
import { doctor } from "../../src/cli/doctor/doctor.js";
import { REPO } from "../helpers/paths.js";

/** mulberry32: a small seeded generator, so a failing layout is replayed by its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!, chance: (p: number) => next() < p };
}

const ROOT_USER = process.getuid?.() === 0;
const MINOR = "3.99";
const PY = `python${MINOR}`;

/** How one entry is made; `file` and `dir` are what the host should take it for. */
type Shape = "file" | "dir" | "dangling" | "loop" | "link-file" | "link-dir" | "missing" | "unreadable-dir";

function make(p: string, shape: Shape, content = "x\n"): void {
  switch (shape) {
    case "file":
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
      break;
    case "dir":
      fs.mkdirSync(p, { recursive: true });
      break;
    case "unreadable-dir":
      fs.mkdirSync(p, { recursive: true });
      break; // chmod 000 once its contents are made (chmodLater)
    case "dangling":
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.symlinkSync(path.join(path.dirname(p), "no-such-target"), p);
      break;
    case "loop":
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.symlinkSync(path.basename(p), p); // points at itself: ELOOP
      break;
    case "link-file": {
      const target = `${p}.target-file`;
      make(target, "file", content);
      fs.symlinkSync(target, p);
      break;
    }
    case "link-dir": {
      const target = `${p}.target-dir`;
      fs.mkdirSync(target, { recursive: true });
      fs.symlinkSync(target, p);
      break;
    }
    case "missing":
      break;
  }
}

/** Whether the host should see a regular file / a folder at an entry made as `shape` (an unreadable folder is still a folder to stat). */
const seesFile = (s: Shape) => s === "file" || s === "link-file";
const seesDir = (s: Shape) => s === "dir" || s === "link-dir" || s === "unreadable-dir";

const PROJECT_NAMES = ["proj", "my project", "pé projét", "a  b", "x-y.z"];
const SIBLING_NAMES = ["__main__.py", "Pulumi.prod.yaml", "old venv", "venv-3.99", "zz", "node_modules", "requirements.txt", "a b c"];

interface Layout {
  seed: number;
  base: string;
  project: string;
  /** The project file the host should find from the project directory: the project's own, or the outer one. */
  expectedProjectFile: string;
  venvPythonIsFile: boolean;
  venvIsDir: boolean;
  /** The first candidate the search should find (every candidate answers as Python 3.99 here), or undefined. */
  expectedFound?: string;
  srcIsDir: boolean;
  pkgVersion?: string;
  pkgEntryIsFile: boolean;
  providerIsFile: boolean;
  cacheDir: string;
  cacheUsable: boolean;
  /** Folders to make unreadable once everything is in place (and readable again before removal). */
  locked: string[];
  /** What was made, for a failure's message. */
  notes: string[];
}

function generate(seed: number, scratch: string): Layout {
  const r = rng(seed);
  const notes: string[] = [];
  const locked: string[] = [];
  const shape = (what: string, shapes: readonly Shape[]): Shape => {
    const s = r.pick(shapes);
    notes.push(`${what}: ${s}`);
    return s;
  };
  const base = path.join(scratch, `layout-${seed}`);
  fs.mkdirSync(base, { recursive: true });
  // An outer project: where the search for Pulumi.yaml ends when the project's own is not a file.
  fs.writeFileSync(path.join(base, "Pulumi.yaml"), "name: outer\nruntime: python\n");
  const project = path.join(base, r.pick(PROJECT_NAMES));
  fs.mkdirSync(project, { recursive: true });

  const pulumiYaml = shape("Pulumi.yaml", ["file", "file", "link-file", "dir", "dangling", "loop", "missing"]);
  const yamlText = r.chance(0.5)
    ? "name: p\nruntime:\n  name: python\n  options:\n    virtualenv: venv\npulumi-dynamic-host:\n  providers:\n    pulumi-python:dynamic:Counter: providers.counter:CounterProvider\n    pulumi-nodejs:dynamic:Thing: ./providers#provider\n"
    : r.chance(0.5)
      ? "name: p\nruntime: python\n"
      : "name: p\nruntime: [this is: not: yaml\n";
  make(path.join(project, "Pulumi.yaml"), pulumiYaml, yamlText);
  // The stack file beside it: the layout `pulumi new` makes, a file where the drift search once stat'ed a folder.
  make(path.join(project, "Pulumi.dev.yaml"), "file", "config: {}\n");

  // The program's virtualenv.
  const venvShape = shape("venv", ["dir", "dir", "dir", "file", "dangling", "loop", "link-dir", "missing"]);
  const venv = path.join(project, "venv");
  make(venv, venvShape);
  let venvPythonIsFile = false;
  if (venvShape === "dir" || venvShape === "link-dir") {
    const bin = shape("venv/bin", ["dir", "dir", "file", "dangling", "loop"]);
    make(path.join(venv, "bin"), bin);
    if (bin === "dir") {
      const py = shape("venv/bin/python", ["file", "file", "link-file", "dir", "dangling", "loop"]);
      make(path.join(venv, "bin", "python"), py, "#!/bin/sh\nexit 3\n");
      venvPythonIsFile = seesFile(py);
    }
    make(path.join(venv, "pyvenv.cfg"), shape("venv/pyvenv.cfg", ["file", "dir", "dangling"]), `home = ${path.join(base, "no-such-home")}\n`);
  }

  // Siblings of the virtualenv: whatever a project directory holds.
  const candidates: { name: string; valid: boolean }[] = [];
  const count = 2 + Math.floor(r.next() * 5);
  for (let i = 0; i < count; i++) {
    const name = `${r.pick(SIBLING_NAMES)}${i}`;
    const s = shape(`sibling ${name}`, ["file", "dir", "dangling", "loop", "link-dir", "unreadable-dir", "link-file"]);
    const p = path.join(project, name);
    make(p, s);
    let valid = false;
    if (seesDir(s)) {
      const inner = shape(`${name}/bin/${PY}`, ["file", "file", "dir", "dangling", "missing", "binfile"] as unknown as Shape[]);
      if ((inner as string) === "binfile") make(path.join(p, "bin"), "file");
      else make(path.join(p, "bin", PY), inner, "#!/bin/sh\n");
      valid = seesFile(inner);
      if (s === "unreadable-dir") {
        locked.push(p);
        // A folder this user may not read holds nothing it can see (root reads every folder).
        valid &&= ROOT_USER;
      }
    }
    candidates.push({ name, valid });
  }
  // A folder whose name is not UTF-8, holding what would be a candidate: left out (a path made from its decoded name names no file).
  if (r.chance(0.5)) {
    const raw = Buffer.concat([Buffer.from(`${project}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from("-name")]);
    fs.mkdirSync(Buffer.concat([raw, Buffer.from("/bin")]), { recursive: true });
    fs.writeFileSync(Buffer.concat([raw, Buffer.from(`/bin/${PY}`)]), "#!/bin/sh\n");
    notes.push("a sibling named with bytes that are not UTF-8");
  }
  // A name at NAME_MAX.
  if (r.chance(0.3)) {
    const name = `n${"é".repeat(127)}`; // 255 bytes
    make(path.join(project, name, "bin", PY), "file", "#!/bin/sh\n");
    candidates.push({ name, valid: true });
    notes.push("a sibling named with 255 bytes");
  }

  // pyenv's versions, after the siblings in the search.
  const pyenv = path.join(base, "pyenv");
  const versions = shape("pyenv/versions", ["missing", "file", "dir", "dir", "dangling"]);
  make(path.join(pyenv, "versions"), versions);
  let pyenvFound: string | undefined;
  if (versions === "dir") {
    const v = shape(`pyenv/versions/${MINOR}.1`, ["file", "dir", "loop"]);
    make(path.join(pyenv, "versions", `${MINOR}.1`), v);
    if (v === "dir") {
      const py = shape(`pyenv ${PY}`, ["file", "dangling", "dir"]);
      make(path.join(pyenv, "versions", `${MINOR}.1`, "bin", PY), py, "#!/bin/sh\n");
      if (seesFile(py)) pyenvFound = path.join(pyenv, "versions", `${MINOR}.1`, "bin", PY);
    }
  }

  // The program's src/ (program paths), a package in node_modules (moved module paths), a provider module (references).
  const src = shape("src", ["dir", "file", "dangling", "missing", "loop"]);
  make(path.join(project, "src"), src);
  const nm = shape("node_modules/leftpad", ["dir", "dir", "file", "dangling", "missing"]);
  make(path.join(project, "node_modules", "leftpad"), nm);
  let pkgVersion: string | undefined;
  let pkgEntryIsFile = false;
  if (nm === "dir") {
    const pj = shape("leftpad/package.json", ["file", "file", "dir", "dangling"]);
    const garbled = r.chance(0.2);
    make(path.join(project, "node_modules", "leftpad", "package.json"), pj, garbled ? "{not json" : JSON.stringify({ name: "leftpad", version: "1.2.3" }));
    if (seesFile(pj)) {
      pkgVersion = garbled ? undefined : "1.2.3";
      const entry = shape("leftpad/index.js", ["file", "dir", "dangling", "missing"]);
      make(path.join(project, "node_modules", "leftpad", "index.js"), entry, "module.exports = 1;\n");
      pkgEntryIsFile = seesFile(entry);
    }
  }
  const provider = shape("providers.js", ["file", "dir", "dangling", "loop", "missing"]);
  make(path.join(project, "providers.js"), provider, "exports.provider = { create: async () => ({ id: '1' }) };\n");

  // The cache root.
  const cacheShape = shape("cache root", ["missing", "dir", "file", "dangling", "loop", "loose", "under-a-file", "long"] as unknown as Shape[]);
  let cacheDir = path.join(base, "cache root");
  let cacheUsable = false;
  switch (cacheShape as string) {
    case "missing":
      cacheUsable = true; // made
      break;
    case "dir":
      fs.mkdirSync(cacheDir, { mode: 0o700 });
      cacheUsable = true;
      break;
    case "loose":
      fs.mkdirSync(cacheDir);
      fs.chmodSync(cacheDir, 0o777);
      break;
    case "under-a-file":
      fs.writeFileSync(cacheDir, "");
      cacheDir = path.join(cacheDir, "inside");
      break;
    case "long":
      cacheDir = path.join(base, ...Array.from({ length: 40 }, (_, i) => `${"d".repeat(120)}${i}`)); // past PATH_MAX
      break;
    default:
      make(cacheDir, cacheShape);
  }

  // The expected project file from the project directory.
  const own = path.join(project, "Pulumi.yaml");
  const expectedProjectFile = seesFile(pulumiYaml) ? own : path.join(base, "Pulumi.yaml");
  // The expected search result: siblings in sorted order (names that are UTF-8), then pyenv's.
  const sorted = candidates.filter((c) => c.valid).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const expectedFound = sorted.length ? path.join(project, sorted[0]!.name, "bin", PY) : pyenvFound;
  return {
    seed,
    base,
    project,
    expectedProjectFile,
    venvPythonIsFile,
    venvIsDir: seesDir(venvShape),
    expectedFound,
    srcIsDir: seesDir(src),
    pkgVersion,
    pkgEntryIsFile,
    providerIsFile: seesFile(provider),
    cacheDir,
    cacheUsable,
    locked,
    notes,
  };
}

/** An error the layout explains is one of these classes, with a message; anything else is an internal error. */
function expectExplained(e: unknown, classes: (new (...args: never[]) => Error)[], where: string): void {
  const err = e as Error;
  expect(classes.some((c) => e instanceof c), `${where}: ${err?.name}: ${err?.message}\n${err?.stack}`).to.equal(true);
}

describe("generated layouts: no internal error from the file system, and the documented answer at every entry point", function () {
  this.timeout(600_000);
  const fixed = process.env.PULUMI_DYNAMIC_HOST_LAYOUT_SEED;
  const seeds = fixed ? [Number(fixed)] : Array.from({ length: Number(process.env.PULUMI_DYNAMIC_HOST_LAYOUTS ?? 120) }, (_, i) => 1000 + i * 7919);
  let scratch: string;
  const layouts: Layout[] = [];

  before(function () {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pdh-layouts-")));
    for (const seed of seeds) layouts.push(generate(seed, scratch));
    for (const l of layouts) for (const p of l.locked) fs.chmodSync(p, 0o000);
  });
  after(function () {
    for (const l of layouts) for (const p of l.locked) fs.chmodSync(p, 0o755);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const each = async (check: (l: Layout, where: string) => unknown) => {
    for (const l of layouts) await check(l, `layout seed ${l.seed} (${l.notes.join("; ")})`);
  };

  it("file-probe: every entry of every layout (and a path past PATH_MAX) is an answer, never an exception", async function () {
    await each((l, where) => {
      const walk = (dir: string, depth: number) => {
        for (const name of listDirectory(dir)) {
          const p = path.join(dir, name);
          for (const q of [p, path.join(p, "bin", PY), path.join(p, "x".repeat(300)), `${p}/${"y/".repeat(3000)}z`]) {
            expect(() => [kindOf(q), isFile(q), isDirectory(q), readText(q, 1024), realPath(q)], `${where}: ${q}`).not.to.throw();
          }
          if (depth < 3 && isDirectory(p)) walk(p, depth + 1);
        }
      };
      walk(l.base, 0);
      expect(kindOf(path.join(l.project, "Pulumi.dev.yaml", "bin", `python${MINOR}`)), where).to.equal("missing");
    });
  });

  it("the project root and its Pulumi.yaml: the nearest one that is a file, from the project and from below it past PATH_MAX", async function () {
    await each((l, where) => {
      expect(projectFile(path.dirname(l.expectedProjectFile)), where).to.equal(l.expectedProjectFile);
      expect(findProjectRoot(l.project), where).to.equal(path.dirname(l.expectedProjectFile));
      expect(findProjectRoot(path.join(l.project, ...Array.from({ length: 50 }, () => "d".repeat(100)))), where).to.equal(path.dirname(l.expectedProjectFile));
      expect(pluginLaunch.bind(null, l.project, {}), where).not.to.throw(TypeError);
    });
  });

  it("the launcher's rules: `virtualenv: venv` is used when venv/bin/python is a file, and otherwise the reference's message", async function () {
    await each((l, where) => {
      const r = resolveInterpreter(l.project, { PULUMI_RUNTIME_VIRTUALENV: "venv", PATH: "/usr/bin" });
      if (l.venvPythonIsFile) {
        expect(r, where).to.deep.include({ ok: true });
        expect(r.ok && r.interpreter.python, where).to.equal(path.join(l.project, "venv", "bin", "python"));
      } else {
        expect(r.ok, where).to.equal(false);
        const problem = l.venvIsDir ? "doesn't appear to be a virtual environment." : "doesn't exist.";
        expect(!r.ok && "stderr" in r && r.stderr[0], where).to.equal(`The 'virtualenv' option in Pulumi.yaml is set to "${l.project}/venv", but "${l.project}/venv" ${problem}`);
      }
      const p = resolveProjectInterpreter(l.project, { PATH: "/nowhere" }, { file: l.expectedProjectFile, root: path.dirname(l.expectedProjectFile), runtime: "nodejs" });
      expect(p, where).to.have.property("ok");
    });
  });

  it("the search for another Python: only folders beside the virtualenv are looked into, in order, then pyenv's versions", async function () {
    await each(async (l, where) => {
      const tried: string[] = [];
      const deps = {
        ...realSearchDeps,
        run: async (file: string) => (tried.push(file), { stdout: JSON.stringify({ version: `${MINOR}.0`, pulumi: "3.0.0", dill: "0.4.0" }) }),
      };
      const main = { python: path.join(l.project, "venv", "bin", "python"), env: { PATH: "", HOME: path.join(l.base, "home"), PYENV_ROOT: path.join(l.base, "pyenv") }, virtualenv: path.join(l.project, "venv") };
      const search = await new InterpreterSearch(main, l.project, deps).find([MINOR]);
      expect(search.found?.probe.python, where).to.equal(l.expectedFound);
      for (const t of tried) expect(isFile(t), `${where}: ran ${t}`).to.equal(true);
    });
  });

  it("the worker's program paths: the project root and its src/ only when they are folders", async function () {
    await each((l, where) => {
      const root = path.dirname(l.expectedProjectFile);
      const { first, last } = programPaths(l.project, {});
      expect(first, where).to.deep.equal([l.project]);
      const expected = [root, path.join(root, "src")].filter((p) => p !== l.project && isDirectory(p));
      expect(last, where).to.deep.equal(expected);
      if (root === l.project) expect(last.includes(path.join(l.project, "src")), where).to.equal(l.srcIsDir);
    });
  });

  it("Pulumi.yaml's declarations and python: read from the file found, a malformed one a DeclarationError naming it", async function () {
    await each(async (l, where) => {
      for (const language of ["nodejs", "python"] as const) {
        const refs = await ProviderReferences.load(l.project, language);
        expect(refs.file, where).to.equal(l.expectedProjectFile);
        try {
          refs.all();
        } catch (e) {
          expectExplained(e, [DeclarationError], where);
          expect((e as Error).message, where).to.contain(l.expectedProjectFile);
        }
      }
      const py = await readProjectPython(l.project, true);
      expect(py?.file, where).to.equal(l.expectedProjectFile);
    });
  });

  it("a moved module's package: the program's copy when its package.json and file are files, else UnresolvedModuleError", async function () {
    await each((l, where) => {
      const id = "/gone/checkout/node_modules/leftpad/index.js";
      try {
        const moved = relocate(id, packageOfPath(id)!, projectRequire(l.project), l.project);
        expect(l.pkgEntryIsFile, where).to.equal(true);
        expect(moved.version, where).to.equal(l.pkgVersion);
      } catch (e) {
        expectExplained(e, [UnresolvedModuleError], where);
        expect(l.pkgEntryIsFile, where).to.equal(false);
      }
    });
  });

  it("a Node provider reference: resolved when the module is a file, else ReferenceLoadError naming it", async function () {
    await each((l, where) => {
      try {
        const r = resolveModuleReference({ reference: "./providers#provider", projectDir: l.project, origin: "declared in a test" });
        expect(r.file, where).to.equal(realPath(path.join(l.project, "providers.js")));
        expect(l.providerIsFile, where).to.equal(true);
      } catch (e) {
        expectExplained(e, [ReferenceLoadError], where);
        expect(l.providerIsFile, where).to.equal(false);
      }
    });
  });

  it("the cache root: usable when it is (or can be made) a folder of this user's that others may not write; otherwise why, never an exception", async function () {
    await each((l, where) => {
      const state = openCacheRoot({ PULUMI_DYNAMIC_HOST_CACHE_DIR: l.cacheDir });
      expect(state.usable, `${where}: ${JSON.stringify(state)}`).to.equal(l.cacheUsable);
      if (state.usable) expect(fs.statSync(state.dir).mode & 0o077, where).to.equal(0);
    });
  });

  it("as a user who may not read every folder: the same layouts again, as nobody (when this runs as root)", function () {
    // Root reads every folder, so the unreadable ones above are only exercised by another user.
    if (!ROOT_USER || process.env.PULUMI_DYNAMIC_HOST_LAYOUTS_AS_NOBODY || !fs.existsSync("/usr/bin/setpriv")) this.skip();
    const asNobody = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      spawnSync("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, ...args], {
        cwd: REPO,
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: os.tmpdir(), PULUMI_DYNAMIC_HOST_LAYOUTS_AS_NOBODY: "1", ...env },
      });
    const mocha = path.join(REPO, "node_modules/mocha/bin/mocha.js");
    const me = fileURLToPath(import.meta.url);
    if (asNobody(["-e", `require("fs").accessSync(${JSON.stringify(me)})`]).status !== 0) this.skip(); // the checkout is not readable by others here
    const r = asNobody([mocha, "--no-config", "--timeout", "600000", "--exit", me], { PULUMI_DYNAMIC_HOST_LAYOUTS: String(seeds.length) });
    expect(r.status, `${r.stdout}\n${r.stderr}`).to.equal(0);
    expect(r.stdout).to.match(/\b1[01] passing\b/);
  });

  it("doctor: a report and an exit code on every layout, never an internal error or a stack", async function () {
    const sample = layouts.filter((_, i) => i % 10 === 0);
    for (const l of sample) {
      const where = `layout seed ${l.seed} (${l.notes.join("; ")})`;
      const lines: string[] = [];
      const env = { PATH: process.env.PATH, HOME: path.join(l.base, "home"), PULUMI_DYNAMIC_HOST_CACHE_DIR: l.cacheDir, PULUMI_HOME: path.join(l.base, "pulumi-home") };
      const code = await doctor({ dir: l.project, env }, (x) => lines.push(x), (x) => lines.push(x));
      expect([0, 1, 2], `${where}\n${lines.join("\n")}`).to.include(code);
      const cacheNote = lines.find((x) => x.startsWith("note: cache: "));
      if (l.cacheUsable) expect(cacheNote, where).to.equal(undefined);
      else expect(cacheNote, where).to.match(new RegExp(`^note: cache: the cache directory ${l.cacheDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} .*PULUMI_DYNAMIC_HOST_CACHE_DIR`));
      expect(lines.join("\n"), where).not.to.match(/internal error|\n\s+at |TypeError|ENOTDIR|ELOOP/);
    }
  });
});
