// Where the Python plugins import a by-reference provider class from (issue 19,
// part 3): the two places the reference's sys.path (its cwd, as `python -m`
// gives it, and not under PYTHONSAFEPATH) misses a module the program itself
// imported, and ours finds it (docs/python-imports.md). The class is pickled by
// the real SDK's serializer (dill, by reference: `<module>.GadgetProvider`).
// Each case lays out a project of its own and starts the plugin in it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { contains, equal, session, type Case, type CaseContext } from "../../case.js";
import type { Outcome } from "../../client.js";
import { BASE_ENV, py } from "./python-common.js";

const SUITE = "differential (Python): by-reference provider classes in the program's own modules";
const urnOf = (ctx: CaseContext, name: string) => ctx.urn(name, "pulumi-python:dynamic:Gadget");

/** A project: Pulumi.yaml at the root, then `files` (relative paths; "@gadgets" is the scenario gadgets.py); removed after the case. */
function project(ctx: CaseContext, files: Record<string, string>): string {
  const gadgets = fs.readFileSync(py(ctx).file("gadgets.py"), "utf8");
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "program-paths-")));
  ctx.defer(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, "Pulumi.yaml"), "name: proj\nruntime: python\n");
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text === "@gadgets" ? gadgets : text);
  }
  return root;
}

interface Ran {
  root: string;
  o: Outcome;
}

/** Lays out the project, pickles `<module>.GadgetProvider` with `importPath` first on sys.path, starts the plugin in `cwd`, creates. */
async function gadget(ctx: CaseContext, files: Record<string, string>, importPath: (root: string) => string, module: string, cwd: (root: string) => string, env: Record<string, string | undefined> = {}): Promise<Ran> {
  const root = project(ctx, files);
  const provider = py(ctx).byReference(importPath(root), module, "GadgetProvider");
  const p = await ctx.launch({ cwd: cwd(root), env: { ...BASE_ENV, ...env } });
  return { root, o: await p.client.create({ urn: urnOf(ctx, "g"), properties: { __provider: provider, label: "g1" } }) };
}

const srcLayout = session({ id: "python/program-paths/src-layout", language: "python", suite: [SUITE, "a package under src/, the plugin started in main: src/app"], launch: { env: BASE_ENV } });
const safePath = session({ id: "python/program-paths/safe-path", language: "python", suite: [SUITE, "a sibling module of the program, under PYTHONSAFEPATH"], launch: { env: BASE_ENV } });
const sibling = session({ id: "python/program-paths/sibling", language: "python", suite: [SUITE, "a sibling module of the program"], launch: { env: BASE_ENV } });

export const pythonProgramPaths: Case[] = [
  srcLayout.case<Ran>("src-package", {
    title: "[difference] ours imports gadgetry.gadgets from the project's src/; the reference has only its cwd on sys.path",
    ask: (ctx) =>
      gadget(ctx, { "src/app/__main__.py": "", "src/gadgetry/__init__.py": "", "src/gadgetry/gadgets.py": "@gadgets" }, (root) => path.join(root, "src"), "gadgetry.gadgets", (root) => path.join(root, "src/app")),
    difference: {
      doc: "docs/parity.md (where a by-reference provider class is imported from; docs/python-imports.md)",
      ours({ root, o }) {
        equal(o.code, 0, o.details);
        equal(o.view.id, "gadget-g1");
        equal(o.view.properties.ran_by.module_file, path.join(root, "src/gadgetry/gadgets.py"));
        equal(o.view.properties.ran_by.cwd, path.join(root, "src/app"));
      },
      reference({ o }) {
        equal(o.code, 2, o.details);
        contains(o.details, "ModuleNotFoundError: No module named 'gadgetry'");
      },
    },
  }),

  safePath.case<Ran>("safe-path-sibling", {
    title: "[difference] ours imports gadgets from the program directory, as the language host's run_path gives it; the reference does not",
    ask: (ctx) => gadget(ctx, { "__main__.py": "", "gadgets.py": "@gadgets" }, (root) => root, "gadgets", (root) => root, { PYTHONSAFEPATH: "1" }),
    difference: {
      doc: "docs/parity.md (where a by-reference provider class is imported from; docs/python-imports.md)",
      ours({ root, o }) {
        equal(o.code, 0, o.details);
        equal(o.view.properties.ran_by.module_file, path.join(root, "gadgets.py"));
      },
      reference({ o }) {
        equal(o.code, 2, o.details);
        contains(o.details, "ModuleNotFoundError: No module named 'gadgets'");
      },
    },
  }),

  sibling.case<Ran>("sibling", {
    title: "both import it from the program directory, with the same answer",
    ask: (ctx) => gadget(ctx, { "__main__.py": "", "gadgets.py": "@gadgets" }, (root) => root, "gadgets", (root) => root),
    // Each side lays out its own project: the paths are compared relative to it; which process and Python ran it may differ.
    compare: ({ root, o }) => {
      const v = JSON.parse(JSON.stringify(o.view ?? null).split(root).join("<root>"));
      return v && { ...v, properties: { ...v.properties, ran_by: { ...v.properties.ran_by, process: "", python: "" } } };
    },
    expect({ root, o }) {
      equal(o.code, 0, o.details);
      equal(o.view.properties.ran_by.module_file, path.join(root, "gadgets.py"));
    },
  }),
];
