// Where the Python plugins import a by-reference provider class from (issue 19,
// part 3): the two places the reference's sys.path (its cwd, as `python -m`
// gives it, and not under PYTHONSAFEPATH) misses a module the program itself
// imported, and ours finds it (docs/python-imports.md). The class is pickled by
// the real SDK's serializer (dill, by reference: `<module>.GadgetProvider`).
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SCENARIOS, VENV_PYTHON } from "../helpers/paths.js";
import { launchPair } from "../helpers/plugin.js";
import { both, usePair } from "../helpers/pair.js";

const GADGETS = fs.readFileSync(`${SCENARIOS}gadgets.py`, "utf8");
const urnOf = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Gadget::${name}`;

/** The SDK's pickle of `<module>.GadgetProvider()`, made with `importPath` first on sys.path. */
function pickleByReference(importPath: string, module: string): string {
  const script =
    "import importlib, sys\n" +
    "from pulumi.dynamic.dynamic import serialize_provider\n" +
    `sys.path.insert(0, ${JSON.stringify(importPath)})\n` +
    `print(serialize_provider(importlib.import_module(${JSON.stringify(module)}).GadgetProvider()))\n`;
  return execFileSync(VENV_PYTHON, ["-c", script], { encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } }).trim();
}

/** A project: Pulumi.yaml at the root, then `files` (relative paths; "@gadgets" is gadgets.py). */
function project(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "program-paths-")));
  fs.writeFileSync(path.join(root, "Pulumi.yaml"), "name: proj\nruntime: python\n");
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text === "@gadgets" ? GADGETS : text);
  }
  return root;
}

describe("differential (Python): by-reference provider classes in the program's own modules", function () {
  describe("a package under src/, the plugin started in main: src/app", function () {
    const root = project({ "src/app/__main__.py": "", "src/gadgetry/__init__.py": "", "src/gadgetry/gadgets.py": "@gadgets" });
    after(() => fs.rmSync(root, { recursive: true, force: true }));
    const pair = usePair(() => launchPair({ language: "python", cwd: path.join(root, "src/app") }));

    it("[difference] ours imports gadgetry.gadgets from the project's src/; the reference has only its cwd on sys.path", async function () {
      const provider = pickleByReference(path.join(root, "src"), "gadgetry.gadgets");
      const [o, r] = await both(pair, (c) => c.create({ urn: urnOf("g"), properties: { __provider: provider, label: "g1" } }));
      expect(r.code, r.details).to.equal(2);
      expect(r.details).to.contain("ModuleNotFoundError: No module named 'gadgetry'");
      expect(o.code, o.details).to.equal(0);
      expect(o.view.id).to.equal("gadget-g1");
      expect(o.view.properties.ran_by.module_file).to.equal(path.join(root, "src/gadgetry/gadgets.py"));
      expect(o.view.properties.ran_by.cwd).to.equal(path.join(root, "src/app"));
    });
  });

  describe("a sibling module of the program, under PYTHONSAFEPATH", function () {
    const root = project({ "__main__.py": "", "gadgets.py": "@gadgets" });
    after(() => fs.rmSync(root, { recursive: true, force: true }));
    const pair = usePair(() => launchPair({ language: "python", cwd: root, env: { PYTHONSAFEPATH: "1" } }));

    it("[difference] ours imports gadgets from the program directory, as the language host's run_path gives it; the reference does not", async function () {
      const provider = pickleByReference(root, "gadgets");
      const [o, r] = await both(pair, (c) => c.create({ urn: urnOf("g"), properties: { __provider: provider, label: "g1" } }));
      expect(r.code, r.details).to.equal(2);
      expect(r.details).to.contain("ModuleNotFoundError: No module named 'gadgets'");
      expect(o.code, o.details).to.equal(0);
      expect(o.view.properties.ran_by.module_file).to.equal(path.join(root, "gadgets.py"));
    });
  });

  describe("a sibling module of the program", function () {
    const root = project({ "__main__.py": "", "gadgets.py": "@gadgets" });
    after(() => fs.rmSync(root, { recursive: true, force: true }));
    const pair = usePair(() => launchPair({ language: "python", cwd: root }));

    it("both import it from the program directory, with the same answer", async function () {
      const provider = pickleByReference(root, "gadgets");
      const [o, r] = await both(pair, (c) => c.create({ urn: urnOf("g"), properties: { __provider: provider, label: "g1" } }));
      expect(o.code, o.details).to.equal(0);
      expect(r.code, r.details).to.equal(0);
      const strip = (v: any) => ({ ...v, properties: { ...v.properties, ran_by: { ...v.properties.ran_by, process: "", python: "" } } });
      expect(strip(o.view)).to.deep.equal(strip(r.view));
      expect(o.view.properties.ran_by.module_file).to.equal(path.join(root, "gadgets.py"));
    });
  });
});
