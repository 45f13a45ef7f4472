// `inspect` over stack exports built as the engine writes them, with payloads
// made by the real serializers (@pulumi/pulumi's closure serializer, the pulumi
// Python SDK's serialize_provider) and broken ones: nothing is executed, every
// payload is listed, secrets are never printed.
import { expect } from "chai";
import fs from "node:fs";
import { createRequire } from "node:module";
import { runInspect, type InspectedResource } from "../../src/cli/inspect/inspect.js";
import { nodeProvider, pickleFromPython310, pythonProvider } from "../helpers/payloads.js";
import { encryptedSecret, NODE_TYPE, plaintextSecret, PYTHON_TYPE, removeTemps, stackExport, urnOf, writeTemp, type Entry } from "../helpers/stack-exports.js";

import { FIXTURES, REPO } from "../helpers/paths.js";

const require = createRequire(import.meta.url);
const { serializeProvider } = require(`${FIXTURES}serialize.cjs`);
const { providerReference } = require(`${REPO}reference/index.cjs`);
const CIPHERTEXT = "v1:c2VjcmV0:CIPHERTEXT-MUST-NOT-BE-PRINTED";

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runInspect(args, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err };
}

describe("inspect: the dynamic resources of a stack export, read without running them", function () {
  let entries: Entry[];
  let file: string;
  let byUrn: Record<string, InspectedResource>;
  let text: string;
  let secretNodeText: string;

  before(async function () {
    const scripted = pythonProvider("scripted");
    secretNodeText = await nodeProvider("createOnly");
    entries = [
      { type: NODE_TYPE, name: "configured", provider: await nodeProvider("configured") },
      { type: NODE_TYPE, name: "scripted", provider: await nodeProvider("scripted") },
      { type: NODE_TYPE, name: "scripted-too", provider: await nodeProvider("scripted") },
      { type: "pulumi-nodejs:dynamic/custom-provider:CustomResource", name: "custom", provider: await nodeProvider("createOnly") },
      { type: NODE_TYPE, name: "shown-secret", provider: plaintextSecret(secretNodeText) },
      { type: NODE_TYPE, name: "encrypted", provider: encryptedSecret(CIPHERTEXT) },
      { type: NODE_TYPE, name: "not-js", provider: "exports.handler = __f0;\nfunction __f0() { return (" },
      { type: NODE_TYPE, name: "no-handler", provider: "module.exports = 1;" },
      { type: PYTHON_TYPE, name: "minimal", provider: pythonProvider("minimal") },
      { type: PYTHON_TYPE, name: "scripted", provider: plaintextSecret(scripted) },
      { type: PYTHON_TYPE, name: "local", provider: pythonProvider("local") },
      { type: PYTHON_TYPE, name: "py310", provider: pickleFromPython310() },
      { type: PYTHON_TYPE, name: "truncated-base64", provider: scripted.slice(0, scripted.length - 5) },
      { type: PYTHON_TYPE, name: "truncated-pickle", provider: scripted.slice(0, 400) },
      { type: PYTHON_TYPE, name: "python-encrypted", provider: encryptedSecret(CIPHERTEXT) },
      { type: PYTHON_TYPE, name: "not-text", provider: 42 },
      { type: NODE_TYPE, name: "node-reference", provider: await serializeProvider(providerReference("./legacy#legacyProvider")) },
      { type: PYTHON_TYPE, name: "python-reference", provider: pythonProvider("counter", "python_reference_payloads.py") },
    ];
    file = writeTemp(stackExport(entries));
    const json = await run([file, "--json"]);
    expect(json.code).to.equal(0);
    expect(json.out).to.have.length(1);
    const doc = JSON.parse(json.out[0]) as InspectedResource[];
    byUrn = Object.fromEntries(doc.map((r) => [r.urn, r]));
    const plain = await run([file]);
    expect(plain.code).to.equal(0);
    text = plain.out.join("\n");
  });

  after(removeTemps);

  const node = (name: string, type = NODE_TYPE) => byUrn[urnOf(type, name)];
  const py = (name: string) => byUrn[urnOf(PYTHON_TYPE, name)];

  it("--json: one entry per dynamic resource, in export order, every field present; the stack and provider resources left out", function () {
    expect(Object.keys(byUrn)).to.deep.equal(entries.map((e) => urnOf(e.type, e.name)));
    for (const r of Object.values(byUrn)) {
      expect(Object.keys(r).sort()).to.deep.equal(
        ["classes", "dynamicRequires", "language", "modules", "payloadBytes", "pickleProtocol", "problem", "providerClass", "pythonVersion", "reference", "secret", "sharedWith", "status", "type", "urn"].sort(),
      );
    }
    expect(node("custom", "pulumi-nodejs:dynamic/custom-provider:CustomResource")).to.include({ type: "pulumi-nodejs:dynamic/custom-provider:CustomResource", language: "nodejs", status: "ok" });
  });

  it("Node: the string literals passed to require(), the payload's size, and which resources share one payload", async function () {
    expect(node("configured")).to.deep.include({ language: "nodejs", status: "ok", modules: ["sleep-promise/build/cjs.js"], dynamicRequires: 0, secret: false, sharedWith: [] });
    expect(node("configured").payloadBytes).to.equal(Buffer.byteLength(await nodeProvider("configured")));
    expect(node("scripted").modules).to.deep.equal(["sleep-promise/build/cjs.js", "@pulumi/pulumi", "./local-helper.js", "definitely-not-installed-module-xyz"]);
    expect(node("scripted").sharedWith).to.deep.equal([urnOf(NODE_TYPE, "scripted-too")]);
    expect(node("scripted-too").sharedWith).to.deep.equal([urnOf(NODE_TYPE, "scripted")]);
    // Same text as createOnly, but one is a secret: sharing is about the text.
    expect(node("custom", "pulumi-nodejs:dynamic/custom-provider:CustomResource").sharedWith).to.deep.equal([urnOf(NODE_TYPE, "shown-secret")]);
    expect(node("custom", "pulumi-nodejs:dynamic/custom-provider:CustomResource")).to.deep.include({ modules: [], classes: [], providerClass: null, pythonVersion: null });
  });

  it("Python by value: the provider class, the modules and classes it names, the Python that wrote its code", function () {
    expect(py("minimal")).to.deep.include({
      language: "python",
      status: "ok",
      providerClass: { module: "__main__", name: "Minimal", byValue: true },
      modules: ["pulumi.dynamic.dynamic"],
      classes: ["pulumi.dynamic.dynamic.ResourceProvider", "pulumi.dynamic.dynamic.CreateResult"],
      pythonVersion: "Python 3.11",
      pickleProtocol: 4,
      dynamicRequires: null,
    });
    expect(py("scripted")).to.deep.include({ status: "ok", secret: true, providerClass: { module: "__main__", name: "Scripted", byValue: true } });
    expect(py("scripted").modules).to.include.members(["os", "sys", "time", "contextvars", "pulumi.dynamic.dynamic"]);
    expect(py("scripted").classes).to.include("pulumi.dynamic.dynamic.CheckResult");
  });

  it("Python by reference: the class and its module, no Python version; code from another Python says which", function () {
    expect(py("local")).to.deep.include({
      status: "ok",
      providerClass: { module: "provider", name: "SimpleProvider", byValue: false },
      modules: ["provider"],
      classes: ["provider.SimpleProvider"],
      pythonVersion: null,
    });
    expect(py("py310")).to.deep.include({ status: "ok", pythonVersion: "Python 3.10" });
  });

  it("broken payloads are listed as unreadable with the reason, not a crash", function () {
    expect(node("not-js")).to.include({ status: "unreadable" });
    expect(node("not-js").problem).to.match(/^its __provider is not valid JavaScript: Unexpected token \(2:26\)$/);
    expect(node("no-handler").problem).to.equal("its __provider does not assign exports.handler: it is not the text @pulumi/pulumi's dynamic.Resource writes");
    expect(py("truncated-base64").problem).to.match(/^its __provider is not the base64 text the pulumi Python SDK writes: its length \d+ is not a multiple of 4, so it looks truncated$/);
    expect(py("truncated-pickle").problem).to.match(/^its __provider is base64 but not a pickle that can be read \(.+\): it looks truncated or corrupt$/);
    expect(py("not-text")).to.include({ status: "unreadable", problem: "its __provider is a number, not text", payloadBytes: null });
  });

  it("secrets: a shown secret is inspected and marked; an encrypted one is reported as such; neither value is printed", function () {
    expect(node("shown-secret")).to.deep.include({ status: "ok", secret: true, payloadBytes: Buffer.byteLength(secretNodeText) });
    const encrypted = "secret (encrypted in the export; run `pulumi stack export --show-secrets` to inspect it)";
    expect(node("encrypted")).to.deep.include({ status: "encrypted", secret: true, problem: encrypted, payloadBytes: null, modules: [] });
    expect(py("python-encrypted")).to.deep.include({ status: "encrypted", problem: encrypted });
    for (const output of [JSON.stringify(byUrn), text]) {
      expect(output).not.to.include("CIPHERTEXT-MUST-NOT-BE-PRINTED");
      expect(output).not.to.include(secretNodeText.slice(0, 60));
      expect(output).not.to.include(pythonProvider("scripted").slice(0, 60));
    }
  });

  it("text: a block per resource and a summary line", function () {
    const lines = text.split("\n");
    const at = lines.indexOf(urnOf(PYTHON_TYPE, "local"));
    expect(lines.slice(at, at + 8)).to.deep.equal([
      urnOf(PYTHON_TYPE, "local"),
      `  type: ${PYTHON_TYPE}`,
      "  language: python",
      `  payload: ${pythonProvider("local").length} bytes`,
      "  provider class: provider.SimpleProvider (by reference: imported from its module when loaded)",
      "  python: any (no code pickled by value); pickle protocol 4",
      "  modules: provider",
      "  classes: provider.SimpleProvider",
    ]);
    expect(text).to.include(`${urnOf(NODE_TYPE, "encrypted")}\n  type: ${NODE_TYPE}\n  language: nodejs\n  payload: secret (encrypted in the export; run \`pulumi stack export --show-secrets\` to inspect it)\n`);
    expect(text).to.include("  requires: sleep-promise/build/cjs.js, @pulumi/pulumi, ./local-helper.js, definitely-not-installed-module-xyz\n");
    expect(text).to.include("  problem: its __provider is not valid JavaScript");
    expect(lines[lines.length - 1]).to.equal("18 dynamic resources (9 nodejs, 9 python); 2 encrypted, 5 unreadable");
  });

  it("encrypted payloads: a line before the summary says they could not be read and how to export them readable", function () {
    const lines = text.split("\n");
    expect(lines[lines.length - 2]).to.equal(
      "note: 2 of 18 dynamic resources hold __provider as ciphertext: the export was made without --show-secrets, so they could not be read; " +
        "export with `pulumi stack export --show-secrets >FILE` (or `pulumi stack export --show-secrets | pulumi-dynamic-host inspect -`)",
    );
  });

  it("the reference helper's object: the provider it names (module#export, module:attribute), not the helper's class", function () {
    expect(node("node-reference")).to.deep.include({ status: "ok", reference: "./legacy#legacyProvider", dynamicRequires: 0 });
    expect(py("python-reference")).to.deep.include({ status: "ok", reference: "refs_providers:CounterProvider" });
    expect(node("configured").reference).to.equal(null);
    const lines = text.split("\n");
    const nodeAt = lines.indexOf(urnOf(NODE_TYPE, "node-reference"));
    expect(lines[nodeAt + 4]).to.equal("  provider: ./legacy#legacyProvider (by reference, passed with providerReference(): loaded from the project when used)");
    expect(lines.slice(nodeAt, nodeAt + 8).join("\n")).not.to.include("computed name");
    const pyAt = lines.indexOf(urnOf(PYTHON_TYPE, "python-reference"));
    expect(lines[pyAt + 4]).to.equal("  provider: refs_providers:CounterProvider (by reference, passed with provider_reference(): loaded from the project when used)");
    expect(text).not.to.include("provider class: pulumi_dynamic_host.reference.ProviderReference");
  });

  it("reads the export from stdin with -", async function () {
    const fd = fs.openSync(file, "r");
    // "-" reads stdin; the reader is injectable, so the file stands in for it here.
    const { readStackExport } = await import("../../src/cli/inspect/stack-export.js");
    const resources = readStackExport("-", () => fs.readFileSync(fd, "utf8"));
    fs.closeSync(fd);
    expect(resources.map((r) => r.urn)).to.deep.equal(Object.keys(byUrn));
  });

  describe("bad input: one line naming the file and what is wrong, exit 2", function () {
    const cases: [string, () => string, RegExp][] = [
      ["a missing file", () => "/nonexistent/export.json", /^pulumi-dynamic-host inspect: cannot read the stack export \/nonexistent\/export\.json: no such file$/],
      ["a directory", () => writeTemp("{}").replace(/export\.json$/, ""), /^pulumi-dynamic-host inspect: cannot read the stack export \/.+: it is a directory$/],
      ["not JSON (the text is not echoed)", () => writeTemp("hello secret world"), /^pulumi-dynamic-host inspect: \/.+export\.json is not JSON \(Unexpected token 'h'\); give the file `pulumi stack export` writes$/],
      ["JSON, not a stack export", () => writeTemp({ resources: [] }), /^pulumi-dynamic-host inspect: \/.+export\.json is not a stack export: at version: .+; `pulumi stack export` writes \{"version": 3, "deployment": \{"resources": \[\.\.\.\]\}\}$/],
      ["resources without urns", () => writeTemp({ version: 3, deployment: { resources: [{ type: "x" }] } }), /is not a stack export: at deployment\.resources\.0\.urn: /],
    ];
    for (const [what, file, message] of cases) {
      it(what, async function () {
        const r = await run([file()]);
        expect(r.code).to.equal(2);
        expect(r.out).to.deep.equal([]);
        expect(r.err).to.have.length(1);
        expect(r.err[0]).to.match(message);
        expect(r.err[0]).not.to.include("hello");
      });
    }

    it("usage errors print the usage", async function () {
      for (const args of [[], ["a.json", "b.json"], ["--yaml", "a.json"]]) {
        const r = await run(args);
        expect(r.code, args.join(" ")).to.equal(2);
        expect(r.err.join("\n")).to.include("usage: pulumi-dynamic-host inspect <stack-export.json | -> [--json]");
      }
    });

    it("an empty stack lists nothing", async function () {
      const r = await run([writeTemp({ version: 3, deployment: { manifest: {} } })]);
      expect(r).to.deep.equal({ code: 0, out: ["0 dynamic resources (0 nodejs, 0 python); 0 encrypted, 0 unreadable"], err: [] });
    });
  });
});
