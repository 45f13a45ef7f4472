// The layout of src/ as its imports show it (docs/layout.md): which folder may
// import which (the table below), and no import circle anywhere. Every
// TypeScript file under src/ is read and its import statements parsed with the
// TypeScript compiler's own scanner (static and dynamic imports, `export … from`,
// and type-only imports, which the compiled JavaScript no longer shows but
// which tie two modules together just the same).
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { REPO } from "../helpers/paths.js";

const SRC = path.join(REPO, "src");

/** Folders of src/host, lowest first: each may import only the folders its row names (and itself). */
const HOST_WINGS = [
  "host/diagnostics",
  "host/limits",
  "host/files",
  "host/plugin",
  "host/components",
  "host/wire",
  "host/secrets",
  "host/engine",
  "host/references",
  "host/packages",
  "host/tuning",
] as const;

/** Folders of src/python-bridge: the adapter at its top, what it runs on in folders beside it. */
const BRIDGE_FOLDERS = ["python-bridge/channel", "python-bridge/interpreter", "python-bridge/pickle", "python-bridge/worker"] as const;
const BRIDGE = ["python-bridge", ...BRIDGE_FOLDERS] as const;

/** Folders of src/cli: one per command with helpers, and what runs as a plugin. */
const CLI_FOLDERS = ["cli/compose", "cli/install", "cli/inspect", "cli/doctor"] as const;

/**
 * Which folder may import which. A file's folder is its folder under src/, or
 * for src/host, src/python-bridge and src/cli, that folder ("host": the serving
 * path at the top of src/host, serve, server, core, the runtime contract) or
 * its sub-folder ("host/<wing>", "python-bridge/worker", "cli/doctor"). A file
 * may always import its own folder's files. An entry naming a file
 * ("cli/usage.ts") allows that file alone.
 */
export const ALLOWED: Record<string, readonly string[]> = {
  "host/diagnostics": [],
  "host/limits": [],
  "host/files": ["host/diagnostics"],
  "host/plugin": ["host/diagnostics", "host/files"],
  "host/components": ["host/files", "host/plugin"],
  "host/wire": ["host/diagnostics", "host/files"],
  "host/secrets": ["host/wire"],
  "host/engine": ["host/diagnostics", "host/wire", "host/secrets"],
  "host/references": ["host/diagnostics", "host/files", "host/plugin", "host/wire"],
  "host/packages": ["host/diagnostics", "host/files", "host/plugin", "host/references"],
  "host/tuning": ["host/diagnostics"],
  // The serving path uses every wing; no wing imports it, and nothing in src/host imports an adapter.
  host: [...HOST_WINGS],
  // The language adapters implement the serving path's runtime contract; neither imports the other.
  "node-dynamic": ["host", ...HOST_WINGS],
  // The Python adapter: the channel, which Python and the pickle reader know nothing else of the bridge;
  // the workers run on the first two; the adapter at the top (runtime, other-pythons) uses them all.
  "python-bridge/channel": ["host", ...HOST_WINGS],
  "python-bridge/interpreter": ["host", ...HOST_WINGS],
  "python-bridge/pickle": [],
  "python-bridge/worker": ["host", ...HOST_WINGS, "python-bridge/channel", "python-bridge/interpreter"],
  "python-bridge": ["host", ...HOST_WINGS, ...BRIDGE_FOLDERS],
  // What runs before the host: only what it needs to find and load the host's bundle.
  boot: ["host/diagnostics", "host/files", "host/plugin"],
  // The conformance kit drives plugins from outside; src/host does not import it.
  conformance: ["host", ...HOST_WINGS, ...BRIDGE],
  // What runs as a plugin: the composition root and each plugin's entry, which know both adapters.
  "cli/compose": ["host", ...HOST_WINGS, "node-dynamic", ...BRIDGE],
  // The commands with helpers; of the command table at the top, only its usage texts.
  "cli/install": [...HOST_WINGS],
  "cli/inspect": [...HOST_WINGS, "python-bridge/pickle", "cli/usage.ts"],
  "cli/doctor": ["host", ...HOST_WINGS, "node-dynamic", ...BRIDGE, "cli/install", "cli/inspect", "cli/usage.ts"],
  // main.ts, the command table and the commands without helpers.
  cli: ["host", ...HOST_WINGS, "node-dynamic", ...BRIDGE, "conformance", "boot", ...CLI_FOLDERS],
};

export interface Import {
  /** Importing file, relative to the repository ("src/host/core.ts"). */
  from: string;
  /** The specifier as written ("./wire/wire.js"). */
  specifier: string;
  /** The imported file, relative to the repository; undefined for a package. */
  to?: string;
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : /\.m?ts$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path.join(dir, e.name)] : []));
}

/** Every import of `file` (absolute), as the TypeScript scanner reads them. */
export function importsOf(file: string, text = fs.readFileSync(file, "utf8")): Import[] {
  const from = path.relative(REPO, file).split(path.sep).join("/");
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName: specifier }) => {
    if (!specifier.startsWith(".")) return { from, specifier };
    const target = path.resolve(path.dirname(file), specifier).replace(/\.(m?)js$/, ".$1ts");
    return { from, specifier, to: path.relative(REPO, target).split(path.sep).join("/") };
  });
}

/** The folders under src/ whose own sub-folders are rows of the table. */
const FOLDED = ["host", "python-bridge", "cli"];

/** The folder a file under src/ belongs to in the table; undefined outside src/. */
export function folderOf(file: string): string | undefined {
  const parts = file.split("/");
  if (parts[0] !== "src" || parts.length < 3) return undefined;
  if (!FOLDED.includes(parts[1]!)) return parts[1];
  return parts.length > 3 ? `${parts[1]}/${parts[2]}` : parts[1];
}

/** Every import that breaks the table, each said with the file, the import and the rule broken. */
export function ruleBreaks(imports: readonly Import[], allowed: Record<string, readonly string[]> = ALLOWED): string[] {
  const breaks: string[] = [];
  for (const i of imports) {
    const from = folderOf(i.from);
    if (from === undefined) continue;
    if (!(from in allowed)) {
      breaks.push(`${i.from}: its folder ${from} has no row in the import table (test/unit/import-rules.test.ts, ALLOWED); add one`);
      continue;
    }
    if (i.to === undefined) continue;
    const to = folderOf(i.to);
    if (to === undefined) {
      breaks.push(`${i.from} imports "${i.specifier}" (${i.to}), outside src/: files under src/ import only src/ and packages`);
    } else if (to !== from && !allowed[from]!.includes(to) && !allowed[from]!.includes(i.to.slice("src/".length))) {
      const may = allowed[from]!.length > 0 ? allowed[from]!.join(", ") : "no other folder";
      breaks.push(`${i.from} imports "${i.specifier}" (${i.to}): ${from} may not import ${to} (it may import ${may})`);
    }
  }
  return breaks;
}

/** Every import circle among `imports` (file → file), each as its path "a.ts → b.ts → a.ts"; one per circle found by the walk. */
export function circles(imports: readonly Import[]): string[] {
  const next = new Map<string, string[]>();
  for (const i of imports) {
    if (i.to === undefined) continue;
    const list = next.get(i.from) ?? [];
    if (!list.includes(i.to)) list.push(i.to);
    next.set(i.from, list);
  }
  const found: string[] = [];
  const done = new Set<string>();
  const onPath = new Map<string, number>();
  const trail: string[] = [];
  // Iterative depth-first walk: a back edge to a file still on the path closes a circle.
  for (const start of [...next.keys()].sort()) {
    if (done.has(start)) continue;
    const stack: { file: string; i: number }[] = [{ file: start, i: 0 }];
    onPath.set(start, 0);
    trail.push(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = next.get(top.file) ?? [];
      if (top.i < targets.length) {
        const to = targets[top.i++]!;
        if (onPath.has(to)) found.push([...trail.slice(onPath.get(to)), to].join(" → "));
        else if (!done.has(to)) {
          onPath.set(to, trail.length);
          trail.push(to);
          stack.push({ file: to, i: 0 });
        }
      } else {
        stack.pop();
        trail.pop();
        onPath.delete(top.file);
        done.add(top.file);
      }
    }
  }
  return found;
}

describe("import rules (src/)", () => {
  const files = sourceFiles(SRC);
  const imports = files.flatMap((f) => importsOf(f));

  it("reads the imports of every source file, type-only ones included", () => {
    expect(files.length).to.be.greaterThan(100);
    const edge = (from: string, to: string) => imports.some((i) => i.from === from && i.to === to);
    // A type-only import, and a dynamic one.
    expect(edge("src/host/runtime.ts", "src/host/references/provider-references.ts"), "import type").to.equal(true);
    expect(edge("src/host/serve.ts", "src/host/server.ts"), "import()").to.equal(true);
    // Every relative import names a file that exists (else the checks below would judge nothing).
    const missing = imports.filter((i) => i.to !== undefined && !fs.existsSync(path.join(REPO, i.to)));
    expect(missing.map((i) => `${i.from}: "${i.specifier}"`)).to.deep.equal([]);
  });

  it("every folder under src/ has a row in the table, and only folders that exist do", () => {
    const folders = new Set(files.map((f) => folderOf(path.relative(REPO, f).split(path.sep).join("/"))!));
    expect([...folders].filter((f) => !(f in ALLOWED)), "folders with no row").to.deep.equal([]);
    expect(Object.keys(ALLOWED).filter((f) => !folders.has(f)), "rows with no folder").to.deep.equal([]);
  });

  it("each folder imports only what its row allows (src/host: no language adapter)", () => {
    const breaks = ruleBreaks(imports);
    expect(breaks.length, `import rules broken:\n  ${breaks.join("\n  ")}`).to.equal(0);
  });

  it("no import circle anywhere under src/", () => {
    const found = circles(imports);
    expect(found.length, `import circles:\n  ${found.join("\n  ")}`).to.equal(0);
  });

  describe("the checks fail on what they are for", () => {
    const at = (rel: string, text: string) => importsOf(path.join(REPO, rel), text);

    it("an adapter imported by src/host: the file, the import and the rule are named", () => {
      const breaks = ruleBreaks(at("src/host/core.ts", 'import type { NodeProvider } from "../node-dynamic/node-provider.js";'));
      expect(breaks).to.deep.equal([
        'src/host/core.ts imports "../node-dynamic/node-provider.js" (src/node-dynamic/node-provider.ts): host may not import node-dynamic ' +
          `(it may import ${HOST_WINGS.join(", ")})`,
      ]);
    });

    it("a wing importing the serving path, a lower wing importing a higher one, a dynamic import", () => {
      expect(ruleBreaks(at("src/host/wire/wire.ts", 'import type { Bag } from "../runtime.js";'))).to.have.length(1);
      expect(ruleBreaks(at("src/host/limits/deadline.ts", 'export { log } from "../diagnostics/log.js";'))[0]).to.match(
        /^src\/host\/limits\/deadline\.ts imports "\.\.\/diagnostics\/log\.js" .*: host\/limits may not import host\/diagnostics \(it may import no other folder\)$/,
      );
      expect(ruleBreaks(at("src/python-bridge/worker/pool.ts", 'const m = await import("../../node-dynamic/loader.js");'))).to.have.length(1);
      expect(ruleBreaks(at("src/host/files/assets.ts", 'import { x } from "../../../test/helpers/paths.js";'))[0]).to.contain("outside src/");
      expect(ruleBreaks(at("src/host/new-wing/x.ts", 'import { log } from "../diagnostics/log.js";'))[0]).to.contain("has no row in the import table");
      expect(ruleBreaks(at("src/host/core.ts", 'import { log } from "./diagnostics/log.js";'))).to.deep.equal([]);
    });

    it("a folder of src/python-bridge or src/cli importing one above it or beside it", () => {
      // The channel and which Python know nothing of the workers; the workers nothing of the adapter on top.
      expect(ruleBreaks(at("src/python-bridge/channel/connection.ts", 'import type { WorkerHandle } from "../worker/worker-handle.js";'))[0]).to.equal(
        'src/python-bridge/channel/connection.ts imports "../worker/worker-handle.js" (src/python-bridge/worker/worker-handle.ts): ' +
          `python-bridge/channel may not import python-bridge/worker (it may import host, ${HOST_WINGS.join(", ")})`,
      );
      expect(ruleBreaks(at("src/python-bridge/interpreter/interpreter.ts", 'import { WorkerPool } from "../worker/pool.js";'))).to.have.length(1);
      expect(ruleBreaks(at("src/python-bridge/worker/pool.ts", 'import type { PythonRuntime } from "../runtime.js";'))).to.have.length(1);
      expect(ruleBreaks(at("src/python-bridge/pickle/pickle-inspect.ts", 'import { log } from "../../host/diagnostics/log.js";'))).to.have.length(1);
      // A command's folder takes the usage texts from the top, and nothing else there.
      expect(ruleBreaks(at("src/cli/doctor/doctor.ts", 'import { COMMAND_USAGE } from "../usage.js";'))).to.deep.equal([]);
      expect(ruleBreaks(at("src/cli/doctor/doctor.ts", 'const c = await import("../commands.js");'))[0]).to.contain("cli/doctor may not import cli (");
      expect(ruleBreaks(at("src/cli/install/install.ts", 'import { runDoctor } from "../doctor/doctor.js";'))).to.have.length(1);
      expect(ruleBreaks(at("src/cli/compose/compose.ts", 'import { COMMAND_USAGE } from "../usage.js";'))).to.have.length(1);
      expect(ruleBreaks(at("src/cli/doctor/doctor.ts", 'import { resolvePlugin } from "../install/engine-lookup.js";'))).to.deep.equal([]);
    });

    it("a circle is reported with its path, through type-only imports too", () => {
      const graph = [
        ...at("src/a/one.ts", 'import type { T } from "./two.js";'),
        ...at("src/a/two.ts", 'import { three } from "./three.js";'),
        ...at("src/a/three.ts", 'export type { T } from "./one.js";'),
        ...at("src/a/four.ts", 'import "./one.js";'),
      ];
      expect(circles(graph)).to.deep.equal(["src/a/one.ts → src/a/two.ts → src/a/three.ts → src/a/one.ts"]);
      expect(circles(graph.slice(0, 2))).to.deep.equal([]);
    });
  });
});
