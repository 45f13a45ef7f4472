// Python provider classes in the program's own modules, under the real engine
// (issue 19, part 3). dill pickles a class defined outside __main__ BY
// REFERENCE, so the state's __provider names `<module>.GadgetProvider` and the
// plugin must import that module as the program did. Each layout is a project
// laid out in a sandbox with src/conformance/scenarios/gadgets.py in it, run by
// test/e2e/python-imports/driver.py as the Python language host would run it
// (cwd = the engine's pwd, "." first on sys.path: docs/python-imports.md),
// through up, refresh and destroy: refresh and destroy start new plugins that
// know the class only from the state.
//
// Each layout runs twice: under our plugin, and under Pulumi's own, started
// by its real launcher script (sdk/python/dist/pulumi-resource-pulumi-python
// of the engine's release), which picks the interpreter from the toolchain
// options as it does for users. Where the reference fails, that is asserted:
// it shows what we fix. Where it passes, the test says so.
import { expect } from "chai";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO, SCENARIOS, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { E2E_ROOT, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import type { Step } from "./python-driver.js";

const FIXTURE = `${REPO}test/e2e/python-imports`;
const DRIVER = `${FIXTURE}/driver.py`;
const WORKER = `${REPO}python-stub/worker.py`;
const TOOLCHAINS_BIN = `${REPO}.cache/python-toolchains/bin`;
const UV = `${TOOLCHAINS_BIN}/uv`;
const REFERENCE_LAUNCHER_ROOT = `${REPO}.cache/e2e-reference-launcher`;

/**
 * The engine with Pulumi's own Python plugin as the release ships it: its
 * launcher script from the engine's module sources (the same release as the
 * CLI), which runs `python -u -m pulumi.dynamic` in the interpreter it picks.
 */
function prepareReferenceLauncherEngine(): string {
  const built = prepareEngine();
  const modcache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
  const version = path.basename(path.dirname(built)).replace(/^engine-/, "");
  const launcher = `${modcache}/github.com/pulumi/pulumi/sdk/v3@${version}/python/dist/pulumi-resource-pulumi-python`;
  const bin = `${REFERENCE_LAUNCHER_ROOT}/bin`;
  fs.mkdirSync(bin, { recursive: true });
  for (const [from, name] of [
    [path.join(built, "pulumi"), "pulumi"],
    [launcher, "pulumi-resource-pulumi-python"],
  ]) {
    const to = path.join(bin, name);
    fs.rmSync(to, { force: true });
    fs.copyFileSync(from, to);
    fs.chmodSync(to, 0o755);
  }
  return REFERENCE_LAUNCHER_ROOT;
}

interface Layout {
  /** Files of the project, relative to its root; "@gadgets" is gadgets.py's text. */
  files: Record<string, string>;
  main?: string;
  module: string;
  /** Directories (relative to the root) the program puts on its sys.path itself. */
  programPath?: string[];
  /** The PULUMI_RUNTIME_* the engine derives from Pulumi.yaml's runtime options. */
  runtimeEnv: (root: string) => Record<string, string>;
  /** More of the CLI's (and so the plugin's) environment. */
  env?: Record<string, string>;
  /** Run in the laid-out project before the program (a toolchain making its virtualenv). */
  prepare?: (root: string) => void;
  /** The interpreter the plugin is to run the provider in. */
  python: (root: string) => string;
  /** What the reference's failed up says, when it fails for another reason than the import. */
  referenceFails?: string;
}

const pip = () => ({ PULUMI_RUNTIME_TOOLCHAIN: "pip", PULUMI_RUNTIME_VIRTUALENV: TEST_VENV });
const DEPENDENCIES = fs
  .readFileSync(`${REPO}test/python-requirements.txt`, "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));
const uvEnv = { UV_PYTHON_DOWNLOADS: "never", UV_NO_PROGRESS: "1" };

/** A package under src/ that the program in src/app imports, putting src/ on its path itself. */
const SRC_LAYOUT = {
  "src/app/__main__.py": "import os, sys\nsys.path.insert(0, os.path.dirname(os.getcwd()))\nfrom gadgetry import gadgets\n",
  "src/gadgetry/__init__.py": "",
  "src/gadgetry/gadgets.py": "@gadgets",
};

const LAYOUTS: Record<string, Layout> = {
  "a sibling module of the program": {
    files: { "gadgets.py": "@gadgets", "__main__.py": "import gadgets\n" },
    module: "gadgets",
    runtimeEnv: pip,
    python: () => VENV_PYTHON,
  },
  "a sibling module of the program, under PYTHONSAFEPATH": {
    files: { "gadgets.py": "@gadgets", "__main__.py": "import gadgets\n" },
    module: "gadgets",
    runtimeEnv: pip,
    env: { PYTHONSAFEPATH: "1" },
    python: () => VENV_PYTHON,
  },
  "a package under src/, main: src/app": {
    files: SRC_LAYOUT,
    main: "src/app",
    module: "gadgetry.gadgets",
    // What the program's __main__.py does (the common workaround for a src/ layout without an install).
    programPath: ["src"],
    runtimeEnv: pip,
    python: () => VENV_PYTHON,
  },
  "a package under src/, main: src/app, the virtualenv option relative to the project root": {
    files: SRC_LAYOUT,
    main: "src/app",
    module: "gadgetry.gadgets",
    programPath: ["src"],
    // `virtualenv: venv` in Pulumi.yaml: the language host finds it under the project root; the
    // reference launcher looks under its cwd (src/app) and stops before its port line.
    runtimeEnv: () => ({ PULUMI_RUNTIME_TOOLCHAIN: "pip", PULUMI_RUNTIME_VIRTUALENV: "venv" }),
    prepare: (root) => fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(root, "venv")),
    python: (root) => `${root}/venv/bin/python`,
    referenceFails: `but "PROJECT/src/app/venv" doesn't exist`,
  },
  "a sibling module of the program, toolchain uv": {
    files: {
      "gadgets.py": "@gadgets",
      "__main__.py": "import gadgets\n",
      "pyproject.toml": `[project]\nname = "imports-uv"\nversion = "0.1.0"\nrequires-python = ">=3.10"\ndependencies = ${JSON.stringify(DEPENDENCIES)}\n`,
    },
    module: "gadgets",
    runtimeEnv: () => ({ PULUMI_RUNTIME_TOOLCHAIN: "uv" }),
    // `uv sync` makes .venv beside pyproject.toml (and uv.lock), from PyPI, in the test virtualenv's Python.
    prepare: (root) => {
      execFileSync(UV, ["sync", "--quiet", "--python", VENV_PYTHON], { cwd: root, env: { ...process.env, ...uvEnv }, stdio: ["ignore", "ignore", "inherit"] });
    },
    python: (root) => `${root}/.venv/bin/python`,
  },
  "a sibling module of the program, toolchain poetry": {
    files: {
      "gadgets.py": "@gadgets",
      "__main__.py": "import gadgets\n",
      "pyproject.toml": `[project]\nname = "imports-poetry"\nversion = "0.1.0"\nrequires-python = ">=3.10"\ndependencies = ${JSON.stringify(DEPENDENCIES)}\n\n[tool.poetry]\npackage-mode = false\n`,
      "poetry.toml": "[virtualenvs]\nin-project = true\n",
    },
    module: "gadgets",
    runtimeEnv: () => ({ PULUMI_RUNTIME_TOOLCHAIN: "poetry" }),
    env: { PATH: `${TOOLCHAINS_BIN}:${process.env.PATH ?? ""}` },
    // The project's in-project virtualenv, found by `poetry env info --path` as both plugins ask it. It is
    // filled by uv from PyPI: poetry's own installer reads PyPI's JSON API, which this network does not serve.
    prepare: (root) => {
      const opts = { cwd: root, env: { ...process.env, ...uvEnv }, stdio: ["ignore", "ignore", "inherit"] as ("ignore" | "inherit")[] };
      execFileSync(UV, ["venv", "--quiet", "--python", VENV_PYTHON, ".venv"], opts);
      execFileSync(UV, ["pip", "install", "--quiet", "--python", ".venv/bin/python", ...DEPENDENCIES], opts);
      const found = execFileSync(`${TOOLCHAINS_BIN}/poetry`, ["env", "info", "--path"], { cwd: root, encoding: "utf8" }).trim();
      expect(found, "poetry's virtualenv for the project").to.equal(`${root}/.venv`);
    },
    python: (root) => `${root}/.venv/bin/python`,
  },
};

/** Lays out the project under `dir`, returns its root. */
function layOut(dir: string, layout: Layout): string {
  const root = path.join(dir, "project");
  const gadgets = fs.readFileSync(`${SCENARIOS}gadgets.py`, "utf8");
  for (const [rel, text] of Object.entries(layout.files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text === "@gadgets" ? gadgets : text);
  }
  layout.prepare?.(root);
  return root;
}

interface Run {
  root: string;
  ops: Record<string, Step>;
}

function run(sb: Sandbox, engineRoot: string, layout: Layout): Promise<Run> {
  const root = layOut(sb.dir, layout);
  const settings = {
    root: engineRoot,
    backend: sb.backend,
    home: sb.home,
    env: { ...sb.env, ...layout.env, PATH: `${engineRoot}/bin:${layout.env?.PATH ?? sb.env.PATH}` },
    project: root,
    main: layout.main ?? null,
    module: layout.module,
    program_path: (layout.programPath ?? []).map((p) => path.join(root, p)),
    runtime_env: layout.runtimeEnv(root),
  };
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_") && k !== "VIRTUAL_ENV" && k !== "PYTHONSAFEPATH"));
  return new Promise((resolve, reject) => {
    execFile(VENV_PYTHON, [DRIVER, JSON.stringify(settings)], { cwd: sb.dir, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`driver: ${err.message}\n${stderr}`));
      const doc = JSON.parse(stdout);
      if (doc.driver_error) return reject(new Error(`driver: ${doc.driver_error}\n${stderr}`));
      resolve({ root, ops: Object.fromEntries((doc.steps as Step[]).map((s) => [s.name, s])) });
    });
  });
}

/** The engine's error diagnostics of a step, joined. */
function errors(step: Step): string {
  return step.events
    .filter((e) => e.diagnostic_event?.severity === "error")
    .map((e) => e.diagnostic_event.message)
    .join("\n");
}

/** A pickle naming the class by reference: its module and name, no code of it. */
function expectByReference(text: unknown, module: string) {
  expect(text).to.be.a("string");
  const bytes = Buffer.from(text as string, "base64").toString("latin1");
  expect(bytes).to.contain(module).and.contain("GadgetProvider");
  expect(bytes).to.not.contain("_create_code").and.not.contain("def create");
}

describe("end to end (Python): provider classes in the program's own modules load as the program imported them", function () {
  this.timeout(10 * 60 * 1000);
  let ourRoot: string;
  let referenceRoot: string;

  before(function () {
    ourRoot = E2E_ROOT;
    prepareEngine();
    referenceRoot = prepareReferenceLauncherEngine();
    for (const tool of ["uv", "poetry"]) {
      expect(fs.existsSync(`${TOOLCHAINS_BIN}/${tool}`), `${tool} (scripts/setup.sh installs it)`).to.equal(true);
    }
  });

  for (const [name, layout] of Object.entries(LAYOUTS)) {
    describe(name, function () {
      let ours: Run;
      let theirs: Run;
      before(async function () {
        const sb = sandbox("e2e-python-imports");
        const ref = sandbox("e2e-python-imports-reference");
        try {
          ours = await run(sb, ourRoot, layout);
          theirs = await run(ref, referenceRoot, layout);
        } finally {
          sb.cleanup();
          ref.cleanup();
        }
      });

      it("ours: up, refresh and destroy succeed, the class imported from the program's module in the program's directory", function () {
        const root = ours.root;
        const pwd = layout.main ? path.join(root, layout.main) : root;
        const file = path.join(root, ...(layout.programPath ?? []), ...layout.module.split(".")) + ".py";
        for (const s of ["up", "refresh", "destroy"]) expect(ours.ops[s].error, `${s}: ${ours.ops[s].error?.message}`).to.equal(undefined);
        const upState = ours.ops.up.resources.gadget;
        const refreshed = ours.ops.refresh.resources.gadget;
        expectByReference(upState.inputs.__provider, layout.module);
        for (const ranBy of [upState.outputs.ran_by, refreshed.outputs.ran_by]) {
          expect(ranBy.process).to.equal(WORKER);
          expect(ranBy.python).to.equal(layout.python(root));
          expect(ranBy.cwd).to.equal(pwd);
          expect(ranBy.module).to.equal(layout.module);
          expect(ranBy.module_file).to.equal(file);
        }
        expect(ours.ops.destroy.summary!.resource_changes).to.deep.equal({ delete: 2 });
      });

      if (layout.referenceFails) {
        it("the reference: its launcher looks for the virtualenv under main: and stops, so the up fails (what we fix)", function () {
          expect(theirs.ops.up.error, "the reference's up").to.be.an("object");
          expect(errors(theirs.ops.up) + (theirs.ops.up.error?.message ?? "")).to.contain(layout.referenceFails!.replace("PROJECT", theirs.root));
          expect(theirs.ops.up.resources).to.deep.equal({});
        });
      } else if (name.includes("PYTHONSAFEPATH") || name.includes("src/")) {
        it("the reference: the plugin cannot import the module, so the up fails (what we fix)", function () {
          const top = layout.module.split(".")[0];
          expect(theirs.ops.up.error, "the reference's up").to.be.an("object");
          expect(errors(theirs.ops.up)).to.contain(`No module named '${top}'`);
          expect(theirs.ops.up.resources).to.deep.equal({});
        });
      } else {
        it("the reference passes too: its sys.path[0] is its cwd, the program's directory", function () {
          for (const s of ["up", "refresh", "destroy"]) expect(theirs.ops[s].error, `${s}: ${theirs.ops[s].error?.message}`).to.equal(undefined);
          const ranBy = theirs.ops.up.resources.gadget.outputs.ran_by;
          expect(ranBy.python).to.equal(layout.python(theirs.root));
          expect(ranBy.process.endsWith("/site-packages/pulumi/dynamic/__main__.py"), ranBy.process).to.equal(true);
          expect(ranBy.module_file).to.equal(path.join(theirs.root, "gadgets.py"));
        });
      }
    });
  }
});
