// The types a declaration gives its properties (docs/schema.md): reading them
// from Pulumi.yaml, with an error naming where a type is wrong; the package
// schema made of them (what GetSchema answers); the check of a request's
// inputs against them, made by the core before any provider code runs; and
// the `schema` command. That the schema binds in Pulumi's own binder, and
// what YAML's type checker makes of it, is proven under the real engine
// (test/e2e/yaml-declared.test.ts).
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { DynamicCore } from "../../src/host/core.js";
import { readProperties, type PropertyMap } from "../../src/host/references/declared-types.js";
import { checkInputs } from "../../src/host/references/input-types.js";
import { NODEJS, PYTHON } from "../../src/host/plugin/modes.js";
import { packageSchema } from "../../src/host/references/package-schema.js";
import { ProviderReferences } from "../../src/host/references/provider-references.js";
import type { Bag, CallInfo, DynamicRuntime, ProviderSource } from "../../src/host/runtime.js";
import { jsToStruct, UNKNOWN_STRING_SENTINEL } from "../../src/host/wire/wire.js";
import { runDoctor } from "../../src/cli/doctor/doctor.js";
import { runSchema } from "../../src/cli/schema.js";

const TEXT_FILE = "pulumi-nodejs:dynamic/files:TextFile";
const COUNTER = "pulumi-python:dynamic:Counter";

const TYPED = `name: proj
runtime: yaml
pulumi-dynamic-host:
  providers:
    ${TEXT_FILE}:
      provider: ./text-file#textFileProvider
      description: A text file on the local disk.
      inputs:
        path: { type: string, description: Where the file is. }
        content: string
        mode: integer?
        lines: string[]?
        tags: map<string>?
        token: { type: string, secret: true, optional: true }
        owner:
          optional: true
          properties:
            name: string
            uid: integer?
      outputs:
        size: integer
        checksum: { type: string, optional: true }
    ${COUNTER}:
      provider: counters:CounterProvider
      inputs:
        start: number
      outputs:
        value: number
    pulumi-python:dynamic:Untyped: counters:Other
`;

function project(yaml: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "schema-")));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yaml);
  return dir;
}

function props(raw: unknown): PropertyMap {
  const read = readProperties(raw, "inputs");
  if (!(read instanceof Map)) throw new Error(`${read.at}: ${read.message}`);
  return read;
}

describe("declared types: reading a property's type", function () {
  it("reads the short forms and the object form", function () {
    const p = props({ a: "string", b: "integer?", c: "number[]", d: "map<boolean>", e: "map<string[]>", f: { type: "any", secret: true, description: "x" } });
    expect(p.get("a")).to.deep.equal({ shape: { kind: "string" }, optional: false, secret: false });
    expect(p.get("b")!.optional).to.equal(true);
    expect(p.get("c")!.shape).to.deep.equal({ kind: "array", items: { kind: "number" } });
    expect(p.get("e")!.shape).to.deep.equal({ kind: "map", values: { kind: "array", items: { kind: "string" } } });
    expect(p.get("f")).to.deep.equal({ shape: { kind: "any" }, optional: false, secret: true, description: "x" });
  });

  const bad: [string, unknown, string, RegExp][] = [
    ["an unknown type name", { a: "strnig" }, "inputs.a", /"strnig" is not a type; a type is one of string, number/],
    ["an unknown key", { a: { type: "string", requird: true } }, "inputs.a.requird", /is not a key of a property's type/],
    ["an array without items", { a: { type: "array" } }, "inputs.a.items", /is missing: an array says the type of its items/],
    ["items on a string", { a: { type: "string", items: "string" } }, "inputs.a.items", /belongs to a property of type array/],
    ["a nested problem", { o: { properties: { u: "int" } } }, "inputs.o.properties.u", /"int" is not a type/],
    ["a reserved name", { __provider: "string" }, "inputs.__provider", /reserved/],
    ["a name that is not an identifier", { "a b": "string" }, 'inputs.a b', /is not a property name/],
    ["optional items", { a: { type: "array", items: "string?" } }, "inputs.a.items", /cannot be optional/],
    ["a list for the map", ["a"], "inputs", /must be a map from property names to types/],
  ];
  for (const [what, raw, at, message] of bad) {
    it(`says where and what for ${what}`, function () {
      const read = readProperties(raw, "inputs");
      expect(read).to.not.be.instanceOf(Map);
      expect((read as { at: string }).at).to.equal(at);
      expect((read as { message: string }).message).to.match(message);
    });
  }

  it("a malformed type in Pulumi.yaml fails every lookup with the file and the property's place", async function () {
    const dir = project(TYPED.replace("mode: integer?", "mode: int"));
    const refs = await ProviderReferences.load(dir, "nodejs");
    expect(() => refs.lookup(TEXT_FILE)).to.throw(
      `${dir}/Pulumi.yaml: pulumi-dynamic-host.providers["${TEXT_FILE}"].inputs.mode: "int" is not a type`,
    );
  });
});

describe("declared types: doctor", function () {
  it("reports a malformed type with the file and the property's place, and a good one's schema", async function () {
    for (const [yaml, expected, code] of [
      [TYPED.replace("mode: integer?", "mode: int"), `inputs.mode: "int" is not a type`, 1],
      [TYPED, "ok: schema of pulumi-nodejs: 1 resource type (pulumi-dynamic-host schema --package pulumi-nodejs)", 0],
    ] as const) {
      const dir = project(yaml);
      const lines: string[] = [];
      try {
        const exit = await runDoctor([dir], (l) => lines.push(l), () => {});
        const said = lines.join("\n");
        expect(said).to.contain(expected);
        if (code === 1) expect(exit, said).to.equal(1);
        if (code === 0) expect(said).to.contain("note: schema: 1 declared type declares no inputs or outputs (pulumi-python:dynamic:Untyped)");
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe("declared types: the package schema", function () {
  let dir: string;
  before(() => (dir = project(TYPED)));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("makes a resource per declared type of the package, inputs required unless optional, outputs added", async function () {
    const refs = (await ProviderReferences.load(dir, "nodejs")).all();
    const schema = packageSchema(refs, { name: "pulumi-nodejs" }) as any;
    expect(schema.name).to.equal("pulumi-nodejs");
    expect(Object.keys(schema.resources)).to.deep.equal([TEXT_FILE]);
    const r = schema.resources[TEXT_FILE];
    expect(r.description).to.equal("A text file on the local disk.");
    expect(r.requiredInputs).to.deep.equal(["path", "content"]);
    expect(r.required).to.deep.equal(["size"]);
    expect(r.inputProperties.path).to.deep.equal({ type: "string", description: "Where the file is." });
    expect(r.inputProperties.lines).to.deep.equal({ type: "array", items: { type: "string" } });
    expect(r.inputProperties.tags).to.deep.equal({ type: "object", additionalProperties: { type: "string" } });
    expect(r.inputProperties.token).to.deep.equal({ type: "string", secret: true });
    expect(r.inputProperties.owner).to.deep.equal({ $ref: "#/types/pulumi-nodejs:dynamic/files:TextFileOwner" });
    expect(Object.keys(r.properties)).to.deep.equal(["path", "content", "mode", "lines", "tags", "token", "owner", "size", "checksum"]);
    expect(schema.types["pulumi-nodejs:dynamic/files:TextFileOwner"]).to.deep.equal({
      type: "object",
      properties: { name: { type: "string" }, uid: { type: "integer" } },
      required: ["name"],
    });
  });

  it("an untyped declaration is a resource with no properties", async function () {
    const refs = (await ProviderReferences.load(dir, "python")).all();
    const schema = packageSchema(refs, { name: "pulumi-python" }) as any;
    expect(Object.keys(schema.resources)).to.deep.equal([COUNTER, "pulumi-python:dynamic:Untyped"]);
    expect(schema.resources["pulumi-python:dynamic:Untyped"].properties).to.deep.equal({});
  });

  it("a description it makes names the project file as the project names it, never this machine's path", async function () {
    const refs = (await ProviderReferences.load(dir, "python")).all();
    const untyped = (packageSchema(refs, { name: "pulumi-python" }) as any).resources["pulumi-python:dynamic:Untyped"];
    expect(untyped.description).to.match(/ \(declared in Pulumi\.yaml\)\.$/);
    const printed: string[] = [];
    expect(await runSchema(["--package", "pulumi-python", dir], (l) => printed.push(l))).to.equal(0);
    expect(printed.join("\n")).not.to.include(dir);
  });

  it("GetSchema's answer comes from the core, and none for a project that declares nothing of the package", async function () {
    const core = new DynamicCore(PYTHON, {} as DynamicRuntime, { cwd: dir });
    expect(JSON.parse((await core.schema())!).resources[COUNTER].requiredInputs).to.deep.equal(["start"]);
    const empty = project("name: p\nruntime: yaml\n");
    try {
      expect(await new DynamicCore(NODEJS, {} as DynamicRuntime, { cwd: empty }).schema()).to.equal(undefined);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it("the schema command prints the package asked for, and says which to ask for when there are two", async function () {
    const lines: string[] = [];
    expect(await runSchema(["--package", "pulumi-nodejs", dir], (l) => lines.push(l))).to.equal(0);
    expect(JSON.parse(lines.join("\n")).resources[TEXT_FILE].required).to.deep.equal(["size"]);
    const stderr = captureStderr();
    try {
      expect(await runSchema([dir], () => {})).to.equal(1);
    } finally {
      stderr.restore();
    }
    expect(stderr.text()).to.contain("declares types of pulumi-nodejs and pulumi-python: say which package's schema to print with --package");
  });

  it("the schema command states a version (0.0.0, or --version's) that the Node SDK generator respects, so its SDK works as generated", async function () {
    const printed = async (...args: string[]) => {
      const lines: string[] = [];
      expect(await runSchema([...args, "--package", "pulumi-nodejs", dir], (l) => lines.push(l))).to.equal(0);
      return JSON.parse(lines.join("\n"));
    };
    expect(await printed()).to.deep.include({ version: "0.0.0", language: { nodejs: { respectSchemaVersion: true } } });
    expect((await printed("--version", "1.4.0")).version).to.equal("1.4.0");
    const stderr = captureStderr();
    try {
      expect(await runSchema(["--version", "v1", dir], () => {})).to.equal(2);
    } finally {
      stderr.restore();
    }
    expect(stderr.text()).to.contain('--version needs a semantic version (major.minor.patch, e.g. 1.2.0), got "v1"');
  });
});

describe("declared types: the inputs of a request, checked before the provider runs", function () {
  let declared: PropertyMap;
  before(async function () {
    const dir = project(TYPED);
    declared = (await ProviderReferences.load(dir, "nodejs")).lookup(TEXT_FILE)!.types!.inputs;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("passes matching inputs, unknowns, nulls for optional ones, and __provider", function () {
    expect(
      checkInputs(declared, {
        path: "/tmp/x",
        content: UNKNOWN_STRING_SENTINEL,
        mode: null,
        lines: ["a", UNKNOWN_STRING_SENTINEL],
        tags: { k: "v" },
        owner: { name: "n", uid: 3 },
        size: null,
        __provider: "exports.handler = …",
      }),
    ).to.deep.equal([]);
  });

  it("names each property, the type expected and the value's type, never the value", function () {
    const failures = checkInputs(declared, {
      path: 5,
      mode: 1.5,
      lines: ["a", 2],
      tags: { "a b": true },
      owner: { uid: "root", groupName: 0 },
      token: 42,
      contnet: "hello",
    });
    expect(failures).to.deep.equal([
      { property: "path", reason: "expected string, got a number (an integer)" },
      { property: "content", reason: "is required (string) and was not given" },
      { property: "mode", reason: "expected integer, got a number (not an integer)" },
      { property: "lines[1]", reason: "expected string, got a number (an integer)" },
      { property: 'tags["a b"]', reason: "expected string, got a boolean" },
      { property: "token", reason: "expected string, got a number (an integer)" },
      { property: "owner.name", reason: "is required (string) and was not given" },
      { property: "owner.uid", reason: "expected integer, got a string" },
      { property: "owner.groupName", reason: "is not a property of this object; its properties are name, uid" },
      { property: "contnet", reason: "is not an input of this type; did you mean content?" },
    ]);
    expect(JSON.stringify(failures)).to.not.contain("root");
  });

  it("the core answers Check with the failures and runs no provider code", async function () {
    const dir = project(TYPED);
    const calls: string[] = [];
    const runtime = {
      language: "nodejs",
      bags: "decoded",
      async check(_c: CallInfo, s: ProviderSource, _o: Bag, news: Bag) {
        calls.push(s.reference?.reference ?? "text");
        return { inputs: news!, failures: [] };
      },
    } as unknown as DynamicRuntime;
    try {
      const core = new DynamicCore(NODEJS, runtime, { cwd: dir });
      const urn = `urn:pulumi:dev::proj::${TEXT_FILE}::motd`;
      const bad = await core.check({ urn, type: TEXT_FILE, news: jsToStruct({ path: "/tmp/a", content: 3 }) }, new CallSignal());
      expect(bad.failures).to.deep.equal([{ property: "content", reason: "expected string, got a number (an integer)" }]);
      expect(calls).to.deep.equal([]);
      const good = await core.check({ urn, type: TEXT_FILE, news: jsToStruct({ path: "/tmp/a", content: "x" }) }, new CallSignal());
      expect(good.failures).to.deep.equal([]);
      expect(calls).to.deep.equal(["./text-file#textFileProvider"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

function captureStderr(): { text(): string; restore(): void } {
  const write = process.stderr.write.bind(process.stderr);
  let text = "";
  process.stderr.write = ((chunk: string) => {
    text += chunk;
    return true;
  }) as typeof process.stderr.write;
  return { text: () => text, restore: () => void (process.stderr.write = write) };
}
