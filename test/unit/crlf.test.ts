// Every file the host reads, saved with Windows' line breaks (\r\n): each is
// read into the same answer as the same file with \n (docs/platform-code.md).
// Pulumi.yaml as the plugins, doctor and install read it (declarations with
// their types and descriptions, the runtime's options, python:, plugins); a
// provider module's exports (doctor); a package.json (moved modules); a
// virtualenv's pyvenv.cfg (the search for another minor); a provider defined
// in a CRLF program file, placed in it when it fails; and Pulumi.yaml as
// `install --project` edits it, keeping its \r\n.
import { expect } from "chai";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { staticExports } from "../../src/cli/doctor/module-exports.js";
import { pluginLaunch } from "../../src/cli/doctor/plugin-launch.js";
import { readProjectPlugins, registerProjectPlugins, unregisterProjectPlugins } from "../../src/cli/install/project-file.js";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { UserOperationError } from "../../src/host/errors.js";
import { ProviderReferences } from "../../src/host/references/provider-references.js";
import { packageVersion } from "../../src/node-dynamic/moved-modules.js";
import { NodeRuntime } from "../../src/node-dynamic/runtime.js";
import { InterpreterSearch, type SearchDeps } from "../../src/python-bridge/interpreter/interpreter-search.js";
import { readProjectPython } from "../../src/python-bridge/interpreter/project-python.js";
import { REPO } from "../helpers/paths.js";

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");

const PROJECT = `name: crlf-project
runtime:
  name: nodejs
  options:
    virtualenv: venv
    typescript: false
main: app/
description: |
  A project
  saved on Windows
pulumi-dynamic-host:
  python: .venv
  providers:
    pulumi-nodejs:dynamic/files:TextFile:
      provider: ./providers#textFile
      description: |
        A text file.
        Two lines.
      inputs:
        path: string
        content: { type: string, description: "what it holds" }
      outputs:
        size: number
    pulumi-python:dynamic:Counter: counters:Counter
plugins:
  providers:
    - name: pulumi-nodejs
      path: tools/pdh # the host
`;

/** Two copies of a project, one saved with \n and one with \r\n; `read` runs on each. */
async function both<T>(files: Record<string, string>, read: (dir: string) => T | Promise<T>): Promise<{ lf: T; crlf: T; dirs: string[] }> {
  const dirs: string[] = [];
  const answers: T[] = [];
  for (const convert of [(t: string) => t, crlf]) {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crlf-")));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), convert(text));
    }
    answers.push(await read(dir));
  }
  return { lf: answers[0], crlf: answers[1], dirs };
}

/** `value` with the project directory written as <dir>, to compare the two copies' answers. */
function relative<T>(value: T, dir: string): unknown {
  return JSON.parse(JSON.stringify(value ?? null).split(dir).join("<dir>"));
}

describe("CRLF: every file the host reads, saved with \\r\\n, reads as with \\n", function () {
  const made: string[] = [];
  after(function () {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });

  const readers: [string, Record<string, string>, (dir: string) => unknown][] = [
    ["Pulumi.yaml declarations (references, types, descriptions)", { "Pulumi.yaml": PROJECT }, async (dir) => (await ProviderReferences.load(dir, "nodejs")).all()],
    [
      "Pulumi.yaml declarations of every package (schema, doctor)",
      { "Pulumi.yaml": PROJECT },
      async (dir) => [...(await ProviderReferences.loadAll(dir)).packages].map(([k, v]) => [k, v.all()]),
    ],
    ["Pulumi.yaml's section python: (a non-Python project's Python)", { "Pulumi.yaml": PROJECT }, (dir) => readProjectPython(dir, true)],
    ["Pulumi.yaml's runtime, options and main: (the plugin's launch, for doctor)", { "Pulumi.yaml": PROJECT, "app/index.js": "" }, (dir) => pluginLaunch(dir, {})],
    ["Pulumi.yaml's plugins.providers (the engine's lookup, install)", { "Pulumi.yaml": PROJECT }, (dir) => readProjectPlugins(dir)],
    [
      "a provider module's exports, JavaScript and TypeScript-free (doctor)",
      { "providers.js": "// providers\nexports.textFile = {\n  async create() {\n    return { id: 'x' };\n  },\n};\nmodule.exports.other = 1;\n" },
      (dir) => staticExports(path.join(dir, "providers.js")),
    ],
    [
      "an ES module's exports (doctor)",
      { "providers.mjs": "export const textFile = {};\nexport function other() {\n  return 1;\n}\nexport { textFile as alias };\n" },
      (dir) => staticExports(path.join(dir, "providers.mjs")),
    ],
    ["a package.json's version (moved modules' warning)", { "package.json": '{\n  "name": "ms",\n  "version": "2.1.2"\n}\n' }, (dir) => packageVersion(dir)],
  ];
  for (const [title, files, read] of readers) {
    it(title, async function () {
      const r = await both(files, read);
      made.push(...r.dirs);
      expect(relative(r.lf, r.dirs[0])).to.not.equal(null);
      expect(relative(r.crlf, r.dirs[1])).to.deep.equal(relative(r.lf, r.dirs[0]));
      expect(JSON.stringify(r.crlf)).not.to.include("\\r");
    });
  }

  it("a virtualenv's pyvenv.cfg: its home is found with \\r\\n as with \\n", async function () {
    const found: string[][] = [];
    for (const cfg of ["home = /usr/base\nversion = 3.11.7\n", "home = /usr/base\r\nversion = 3.11.7\r\n"]) {
      const runs: string[] = [];
      const deps: SearchDeps = {
        platform: "linux",
        run: async (file) => {
          runs.push(file);
          return { stdout: JSON.stringify({ version: "3.12.4", pulumi: "3.270.0", dill: "0.4.1" }) };
        },
        isFile: (p) => p === "/usr/base/python3.12",
        isDirectory: () => false,
        listDir: () => [],
        readText: (p) => (p === "/p/venv/pyvenv.cfg" ? cfg : undefined),
      };
      await new InterpreterSearch({ python: "/p/venv/bin/python", env: { PATH: "" }, virtualenv: "/p/venv" }, "/p", deps).find(["3.12"]);
      found.push(runs);
    }
    expect(found).to.deep.equal([["/usr/base/python3.12"], ["/usr/base/python3.12"]]);
  });

  it("a provider's failure is placed in the CRLF program file that defines it, at the line an editor shows", async function () {
    // The failing line is the fifth of create: the lines before it are looked for in the program's files.
    const source = [
      "exports.throws = {",
      "  async create(inputs) {",
      "    const first = 1;",
      "    const second = first + 1;",
      "    const settings = inputs.settings;",
      "    return { id: String(settings.retries + second) };",
      "  },",
      "};",
      "",
    ].join("\n");
    const failingLine = 6;
    const require = createRequire(import.meta.url);
    const { serializeProvider } = require(`${REPO}test/fixtures/serialize.cjs`);
    const [lfDir, crlfDir] = ["lf", "crlf"].map((k) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `crlf-program-${k}-`))));
    made.push(lfDir, crlfDir);
    fs.writeFileSync(path.join(lfDir, "providers.cjs"), source);
    fs.writeFileSync(path.join(crlfDir, "providers.cjs"), crlf(source));
    // The program runs from the CRLF checkout; the state's text was serialized from either copy
    // (a function's text keeps the line breaks of the file it was written in).
    for (const from of [lfDir, crlfDir]) {
      const text = await serializeProvider(require(path.join(from, "providers.cjs")).throws);
      let failed: unknown;
      try {
        await new NodeRuntime(crlfDir).create({ operation: "Create", urn: "urn:x", signal: new CallSignal(), secrets: () => [] }, { text }, { fields: {} });
      } catch (e) {
        failed = e;
      }
      expect(failed).to.be.instanceOf(UserOperationError);
      expect((failed as UserOperationError).details, from).to.include(`at create (providers.cjs:${failingLine}:`);
    }
  });

  it("install --project edits a CRLF Pulumi.yaml keeping its \\r\\n and its comments; an LF one stays LF", function () {
    for (const convert of [crlf, (t: string) => t]) {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crlf-install-")));
      made.push(dir);
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), convert("name: p # the project\nruntime: nodejs\n"));
      fs.mkdirSync(path.join(dir, "tools", "pdh"), { recursive: true });
      registerProjectPlugins(dir, ["pulumi-nodejs", "pulumi-python"], path.join(dir, "tools", "pdh"));
      let text = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
      expect(text).to.include(convert("name: p # the project\n"));
      expect(text).to.include(convert("path: tools/pdh\n"));
      if (convert === crlf) {
        expect(text.replace(/\r\n/g, "")).not.to.match(/[\r\n]/);
      } else {
        expect(text).not.to.include("\r");
      }
      unregisterProjectPlugins(dir, ["pulumi-nodejs", "pulumi-python"], path.join(dir, "tools", "pdh"));
      text = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
      expect(text).to.equal(convert("name: p # the project\nruntime: nodejs\n"));
    }
  });
});
