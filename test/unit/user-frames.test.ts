// Where a Node provider failed (src/node-dynamic/user-frames.ts): providers
// serialized by @pulumi/pulumi's own closure serializer, run by the Node
// adapter, their errors' blocks read. And values returned before they were
// ready (a Promise) are refused, saying to await them.
import { expect } from "chai";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { ProviderResultError, UserOperationError } from "../../src/host/errors.js";
import type { CallInfo } from "../../src/host/runtime.js";
import { jsToStruct, UnexpectedStructTypeError } from "../../src/host/wire/wire.js";
import { NodeRuntime } from "../../src/node-dynamic/runtime.js";
import { REPO } from "../helpers/paths.js";

const require = createRequire(import.meta.url);
const { serializeProvider } = require(`${REPO}test/fixtures/serialize.cjs`);
const PROGRAM = `${REPO}test/e2e/node-program`;
const printing = require(`${PROGRAM}/printing.cjs`);
const URN = "urn:pulumi:s::p::pulumi-nodejs:dynamic:Resource::r";

const call = (): CallInfo => ({ operation: "Create", urn: URN, signal: new CallSignal(), secrets: () => [] });

async function createFails(cwd: string, provider: unknown): Promise<unknown> {
  const text = await serializeProvider(provider);
  try {
    await new NodeRuntime(cwd).create(call(), { text }, { fields: {} });
  } catch (e) {
    return e;
  }
  throw new Error("create should have failed");
}

describe("where a Node provider failed, and hints", function () {
  it("frames of the serialized code are named by their functions and placed in the program file that holds them", async function () {
    const e = (await createFails(PROGRAM, printing.throws)) as UserOperationError;
    expect(e).to.be.instanceOf(UserOperationError);
    const source = fs.readFileSync(`${PROGRAM}/printing.cjs`, "utf8").split("\n");
    const thrownAt = source.findIndex((l) => l.includes("return inputs.settings.retries;")) + 1;
    const calledAt = source.findIndex((l) => l.includes("String(helperThatThrows(inputs))")) + 1;
    expect(e.details).to.equal(
      "Cannot read properties of undefined (reading 'retries')" +
        `\n\n  where: Create ${URN}, in the provider's code:` +
        `\n    at helperThatThrows (printing.cjs:${thrownAt}:26)` +
        `\n    at create (printing.cjs:${calledAt}:25)` +
        "\n\n  hint: create read 'retries' of a value that is undefined: often an input the resource was not given " +
        "(a missing key of the inputs, or a misspelt one), or a value that was not awaited",
    );
  });

  it("a TypeScript program: a helper written on one line, with typed parameters, is placed on its line of the .ts file too", async function () {
    // As a TypeScript program runs (ts-node): the serializer sees the compiled code, kept out of the program
    // folder, and the program folder holds the .ts source, whose helper's header carries types.
    const program = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ts-program-")));
    const compiled = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ts-compiled-")));
    try {
      const source = [
        `import * as pulumi from "@pulumi/pulumi";`,
        ``,
        `function retriesOf(cfg: { opts: { retries: number } }): number { return cfg.opts.retries; }`,
        ``,
        `export const provider: pulumi.dynamic.ResourceProvider = {`,
        `    async create(inputs: any) {`,
        `        const n = retriesOf(inputs);`,
        `        return { id: "x", outs: { n } };`,
        `    },`,
        `};`,
        ``,
      ].join("\n");
      fs.writeFileSync(path.join(program, "index.ts"), source);
      const ts = require("typescript");
      const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 } }).outputText;
      fs.symlinkSync(path.join(REPO, "node_modules"), path.join(compiled, "node_modules"));
      fs.writeFileSync(path.join(compiled, "index.js"), js);
      const e = (await createFails(program, require(path.join(compiled, "index.js")).provider)) as UserOperationError;
      const helper = source.split("\n")[2];
      expect(e.details.split("\n").slice(3, 5)).to.deep.equal([
        `    at retriesOf (index.ts:3:${helper.indexOf("cfg.opts.retries") + "cfg.opts.".length + 1})`,
        `    at create (index.ts:7:19)`,
      ]);
    } finally {
      fs.rmSync(program, { recursive: true, force: true });
      fs.rmSync(compiled, { recursive: true, force: true });
    }
  });

  it("without the program's file, a frame says the line within the function", async function () {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "no-program-"));
    try {
      const e = (await createFails(elsewhere, printing.throws)) as UserOperationError;
      expect(e.details.split("\n").slice(3, 5)).to.deep.equal([
        "    at helperThatThrows (line 2 of helperThatThrows in the serialized provider, column 26)",
        "    at create (line 2 of create in the serialized provider, column 25)",
      ]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("an error with no frame of the user's code names the operation and the resource only", async function () {
    const e = (await createFails(PROGRAM, {
      async create() {
        throw "a string";
      },
    })) as UserOperationError;
    expect(e.details).to.equal(`a string\n\n  where: Create ${URN}`);
  });

  it("a Promise returned as create's id, as its outs, or inside them is refused, saying to await it", async function () {
    const pending = (await createFails(PROGRAM, {
      async create() {
        return { id: Promise.resolve("x"), outs: {} };
      },
    })) as ProviderResultError;
    expect(pending).to.be.instanceOf(ProviderResultError);
    expect(pending.message).to.equal(
      `Create ${URN}: the dynamic provider's create returned a Promise as its id; await it: create must return { id: string, outs? } with a non-empty string id`,
    );
    const outs = (await createFails(PROGRAM, {
      async create() {
        return { id: "x", outs: Promise.resolve({ a: 1 }) };
      },
    })) as ProviderResultError;
    expect(outs.message).to.equal(`Create ${URN}: the dynamic provider's create returned outs as a Promise, whose value would be lost; await it`);
    const nested = (await createFails(PROGRAM, {
      async create() {
        return { id: "x", outs: { a: { b: Promise.resolve(1) } } };
      },
    })) as ProviderResultError;
    expect(nested.message).to.equal(
      `Create ${URN}: the dynamic provider's create returned outs.a.b = a Promise, which cannot be sent to the engine (Unexpected struct type.); await it`,
    );
  });

  it("the wire refuses a Promise where the reference would send {}", function () {
    expect(() => jsToStruct({ a: [Promise.resolve(1)] }))
      .to.throw(UnexpectedStructTypeError)
      .with.property("got", "a Promise");
  });
});
