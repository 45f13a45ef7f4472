// Spec §9 rows 38–60 and 75–78 (Node side): value encoding through Create,
// and the Read, Update and Delete RPCs. Every request goes to the Node
// reference plugin and to our pulumi-resource-pulumi-nodejs; the answers (and,
// where the reference writes to stderr/stdout, the first line of that output)
// are compared, and the expected concrete value is asserted too. Tests named
// "[difference]" pin a deliberate difference: the reference's exact behaviour
// and ours' exact (different) behaviour.
import { expect } from "chai";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { launchPair, type Plugin } from "../helpers/plugin.js";
import { onBoth } from "../helpers/pair.js";
import { ASSET_SIG, RESOURCE_SIG, SECRET_SIG, SIG, nodeProvider } from "../helpers/payloads.js";
import { nodeUrn, pb, type Outcome, type Props } from "../helpers/client.js";

const ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7";
const RUD_FIXTURE = "node-providers-rud.cjs";

const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
const firstLine = (s: string) => s.split("\n")[0];

interface Observed {
  outcome: Outcome;
  /** Everything the plugin wrote to stderr while answering, up to the marker that follows it. */
  stderr: string;
}

let markers = 0;

/**
 * Runs `action` on the plugin, then a Delete whose provider throws a unique
 * marker error (which both plugins echo to stderr), and waits for that echo.
 * stderr is one ordered stream, so whatever precedes the marker is exactly
 * what `action` printed: absence of output is proven without sleeping.
 */
async function observe(p: Plugin, scripted: string, action: (p: Plugin) => Promise<Outcome>): Promise<Observed> {
  const mark = p.stderr.length;
  const outcome = await action(p);
  const tag = `marker-${++markers}`;
  const echo = `Error: ${tag}: Error: ${tag}`;
  const m = await p.client.delete({ urn: nodeUrn("marker"), id: tag, properties: { __provider: scripted, act: "throw", msg: tag } });
  expect(m, "marker delete").to.deep.equal({ code: 2, details: tag });
  await p.until(() => p.stderr.slice(mark).includes(echo), `the stderr marker ${tag}`);
  const out = p.stderr.slice(mark);
  return { outcome, stderr: out.slice(0, out.indexOf(echo)) };
}

describe("differential (Node): values through create; read, update, delete", function () {
  let ours: Plugin;
  let ref: Plugin;
  let scripted: string;
  let createOnly: string;
  let empty: string;

  before(async function () {
    [scripted, createOnly, empty] = await Promise.all([nodeProvider("scripted"), nodeProvider("createOnly"), nodeProvider("empty")]);
    ({ ours, ref } = await launchPair());
  });
  after(async function () {
    await Promise.all([ours?.stop(), ref?.stop()]);
  });

  const create = (properties: Props, extra: { preview?: boolean } = {}) => (p: Plugin) =>
    p.client.create({ urn: nodeUrn("c"), properties, ...extra });

  // ---------------------------------------------------------------- Create values

  describe("create values", function () {
    it("38 create_outs_undefined_value [difference]: the reference fails with `Unexpected struct type.`; ours names the path", async function () {
      const cases: [string, string][] = [
        ["undefinedValue", "outs.a = undefined"],
        ["nestedUndefined", "outs.o.l[1] = undefined"],
        ["functionValue", "outs.f = a function"],
      ];
      for (const [act, where] of cases) {
        const urn = nodeUrn("c");
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, scripted, create({ __provider: scripted, act })));
        expect(r.outcome, act).to.deep.equal({ code: 2, details: "Unexpected struct type." });
        expect(o.outcome, act).to.deep.equal({
          code: 2,
          details:
            `Create ${urn}: the dynamic provider's create returned ${where}, which cannot be sent to the engine ` +
            `(Unexpected struct type.); use null or leave the key out`,
        });
        // Create errors are never echoed to stderr, by either.
        expect(r.stderr, act).to.equal("");
        expect(o.stderr, act).to.equal("");
      }
    });

    it("39 create_number_types: numbers arrive as JS numbers and go back as equal doubles", async function () {
      const nums = { n: 1, f: 1.5, neg: -2, zero: 0, nz: -0, big: 2 ** 53 + 2, tiny: 5e-324, inf: Infinity, nan: NaN };
      const props = { __provider: scripted, act: "echo", ...nums };
      const [o, r] = await onBoth(ours, ref, create(props));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      const outs = o.view.properties;
      for (const [k, v] of Object.entries(nums)) {
        expect(outs[k], k).to.deep.equal(v);
        expect(outs.types[k], k).to.equal("number");
      }
      expect(Object.is(outs.nz, -0)).to.equal(true);
    });

    it("40 create_nested_nulls: nulls in objects and lists are kept both ways", async function () {
      const o0 = { x: null, y: { z: null } };
      const l0 = [null, { w: null }, [null]];
      const [o, r] = await onBoth(ours, ref, create({ __provider: scripted, act: "nested", o: o0, l: l0, top: null }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view.properties).to.deep.equal({
        __provider: scripted,
        o: o0,
        l: l0,
        types: { __provider: "string", act: "string", l: "array", o: "object", top: "null" },
      });
    });

    it("41 create_empty_or_numeric_id [difference]: the reference answers id \"\"; ours refuses with a clear message", async function () {
      const cases: [string, string, Props][] = [
        ["idEmpty", 'an empty id ("")', { __provider: scripted }],
        ["idMissing", "no id", { __provider: scripted, a: 1 }],
        ["idNumber", "id 5 (a number)", { __provider: scripted }],
      ];
      for (const [act, got, refOuts] of cases) {
        const urn = nodeUrn("c");
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, scripted, create({ __provider: scripted, act })));
        expect(r.outcome.code, act).to.equal(0);
        expect(r.outcome.view, act).to.deep.equal({ id: "", properties: refOuts });
        expect(o.outcome, act).to.deep.equal({
          code: 2,
          details:
            `Create ${urn}: the dynamic provider's create returned ${got}; ` +
            `create must return { id: string, outs? } with a non-empty string id`,
        });
        expect(r.stderr, act).to.equal("");
        expect(o.stderr, act).to.equal("");
      }
    });

    it("42 create_preview_flag_ignored: preview=true still runs the user's create", async function () {
      const counter = await nodeProvider("counter", RUD_FIXTURE);
      const seen: Outcome[][] = [];
      for (const preview of [true, false, true]) {
        const [o, r] = await onBoth(ours, ref, create({ __provider: counter }, { preview }));
        expect(o).to.deep.equal(r);
        seen.push([o, r]);
      }
      expect(seen.map(([o]) => o.view)).to.deep.equal([1, 2, 3].map((n) => ({ id: `call-${n}`, properties: { __provider: counter, calls: n } })));
    });

    it("44 create_secret_sig_returned: an explicit secret sig goes back unchanged", async function () {
      const [o, r] = await onBoth(ours, ref, create({ __provider: scripted, act: "secretSig" }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({ id: "s", properties: { __provider: scripted, s: secret("shh") } });
      // A secret sig in the inputs is a raw object to the user and is echoed as such.
      const [oe, re] = await onBoth(ours, ref, create({ __provider: scripted, act: "echo", s: secret({ deep: [1, null] }) }));
      expect(oe).to.deep.equal(re);
      expect(oe.view.properties.s).to.deep.equal(secret({ deep: [1, null] }));
      expect(oe.view.properties.types.s).to.equal("object");
    });

    it("45 create_asset_inputs: assets and archives with contents are raw sig objects", async function () {
      const asset = { [SIG]: ASSET_SIG, hash: "aa11", text: "hello" };
      const file = { [SIG]: ASSET_SIG, path: "./x.txt" };
      const archive = { [SIG]: ARCHIVE_SIG, assets: { "a.txt": { [SIG]: ASSET_SIG, text: "a" } } };
      const [o, r] = await onBoth(ours, ref, create({ __provider: scripted, act: "echo", asset, file, archive }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      const outs = o.view.properties;
      expect(outs.asset).to.deep.equal(asset);
      expect(outs.file).to.deep.equal(file);
      expect(outs.archive).to.deep.equal(archive);
      expect(outs.types).to.include({ asset: "object", file: "object", archive: "object" });
    });
  });

  // ---------------------------------------------------------------- Read

  describe("read", function () {
    const read = (a: { id?: string; properties?: Props; inputs?: Props }) => (p: Plugin) =>
      p.client.read({ urn: nodeUrn("r"), ...a });

    it("46 read_missing_method_passthrough: id and properties come back exactly; no inputs", async function () {
      const properties = { __provider: createOnly, a: null, b: { c: null, d: [null, 1] }, n: 1.5, s: "x", t: true };
      // ReadRequest.inputs is ignored when properties are present.
      const [o, r] = await onBoth(ours, ref, read({ id: "r1", properties, inputs: { __provider: createOnly, other: 1 } }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({ id: "r1", properties, inputs: undefined });
    });

    it("46 read_missing_method_passthrough: a get (properties unset or empty, inputs set) passes the inputs back (3.270)", async function () {
      const inputs = { __provider: createOnly, a: null, x: 1 };
      for (const properties of [undefined, {}]) {
        const [o, r] = await onBoth(ours, ref, read({ id: "g1", properties, inputs }));
        expect(o, JSON.stringify(properties)).to.deep.equal(r);
        expect(o.view).to.deep.equal({ id: "g1", properties: inputs, inputs: undefined });
      }
    });

    it("48 read_with_inputs: inputs returned by read get the request's __provider", async function () {
      const properties = { __provider: scripted, act: "readInputs", a: 7 };
      const [o, r] = await onBoth(ours, ref, read({ id: "r1", properties }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({
        id: "r1",
        properties: { ...properties, refreshed: true },
        inputs: { __provider: scripted, a: 7, fromRead: true },
      });
      // The same through a get: the bag is the request's inputs.
      const [og, rg] = await onBoth(ours, ref, read({ id: "r2", inputs: properties }));
      expect(og).to.deep.equal(rg);
      expect(og.view).to.deep.equal({
        id: "r2",
        properties: { ...properties, refreshed: true },
        inputs: { __provider: scripted, a: 7, fromRead: true },
      });
    });

    it("49 read_inputs_empty_object: `inputs: {}` becomes {__provider}", async function () {
      const [o, r] = await onBoth(ours, ref, read({ id: "r1", properties: { __provider: scripted, act: "readEmptyInputs" } }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ id: "r1", properties: { __provider: scripted, a: 1 }, inputs: { __provider: scripted } });
    });

    it("50 read_no_id: a read without id answers id \"\"", async function () {
      const [o, r] = await onBoth(ours, ref, read({ id: "r1", properties: { __provider: scripted, act: "readNoId" } }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({ id: "", properties: { __provider: scripted, a: 1 }, inputs: undefined });
    });

    it("51 read_props_missing: `{id}` only gives properties {__provider}", async function () {
      const [o, r] = await onBoth(ours, ref, read({ id: "r1", properties: { __provider: scripted, act: "readNoProps", keep: "dropped" } }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({ id: "r1", properties: { __provider: scripted }, inputs: undefined });
    });

    it("51 read_props_missing: read returning undefined [difference]: reference TypeError + stderr; ours a clear message, no stderr", async function () {
      const urn = nodeUrn("r");
      const [o, r] = await onBoth(ours, ref, (p) => observe(p, scripted, read({ id: "r1", properties: { __provider: scripted, act: "readUndefined" } })));
      const typeError = "Cannot read properties of undefined (reading 'id')";
      expect(r.outcome).to.deep.equal({ code: 2, details: typeError });
      expect(firstLine(r.stderr)).to.equal(`TypeError: ${typeError}: TypeError: ${typeError}`);
      expect(o.outcome).to.deep.equal({
        code: 2,
        details: `Read ${urn}: the dynamic provider's read returned undefined; it must return an object ({ id?, props?, inputs? })`,
      });
      expect(o.stderr).to.equal("");
    });

    it("52 read_import_no_properties [difference]: no provider anywhere: reference `code must be a string` + stderr; ours names the bag and says what to declare", async function () {
      const urn = nodeUrn("r");
      for (const properties of [undefined, {}]) {
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, scripted, read({ id: "imp", properties })));
        const msg = "code must be a string, not undefined";
        expect(r.outcome, JSON.stringify(properties)).to.deep.equal({ code: 2, details: msg });
        expect(firstLine(r.stderr)).to.equal(`Error: ${msg}: Error: ${msg}`);
        expect(o.outcome).to.deep.equal({
          code: 2,
          details:
            `Read ${urn}: the request's properties has no "__provider" property, so the dynamic provider cannot be loaded; ` +
            `__provider must be the serialized provider the SDK writes into every dynamic resource. The resource is being imported: ` +
            `the engine sends only its id, no inputs and no state, so no serialized provider exists yet. To import a ` +
            `pulumi-nodejs:dynamic:Resource, declare where its provider lives in the project's Pulumi.yaml:\n` +
            `  pulumi-dynamic-host:\n    providers:\n      pulumi-nodejs:dynamic:Resource: ./providers#textFileProvider\n` +
            `(a "<module>#<export>" reference to the provider in the project's code; docs/import-and-repair.md)`,
        });
        expect(o.stderr).to.equal("");
      }
    });

    it("52 read_import_no_properties: properties unset but inputs carry the provider: the user's read runs on the inputs", async function () {
      const inputs = { __provider: scripted, k: "v" };
      const [o, r] = await onBoth(ours, ref, read({ id: "imp", inputs }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({
        id: "read-imp",
        properties: { ...inputs, readKeys: ["__provider", "k"] },
        inputs: undefined,
      });
    });

    it("53 read_elided_asset: elided {sig, hash} assets and archives are fine (user read and pass-through)", async function () {
      const asset = { [SIG]: ASSET_SIG, hash: "0123abcd" };
      const archive = { [SIG]: ARCHIVE_SIG, hash: "4567ef" };
      const withRead = { __provider: scripted, asset, archive };
      const [o, r] = await onBoth(ours, ref, read({ id: "e1", properties: withRead }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({
        id: "read-e1",
        properties: { ...withRead, readKeys: ["__provider", "archive", "asset"] },
        inputs: undefined,
      });
      const passThrough = { __provider: createOnly, asset, archive };
      const [op, rp] = await onBoth(ours, ref, read({ id: "e2", properties: passThrough }));
      expect(op).to.deep.equal(rp);
      expect(op.view).to.deep.equal({ id: "e2", properties: passThrough, inputs: undefined });
    });
  });

  // ---------------------------------------------------------------- Update

  describe("update", function () {
    const update = (a: { id?: string; olds?: Props; news?: Props; oldInputs?: Props }) => (p: Plugin) =>
      p.client.update({ urn: nodeUrn("u"), id: "u1", ...a });

    it("54 update_missing_method [difference]: the reference keeps only {__provider: news.__provider}; ours keeps the old outputs with it", async function () {
      // Unknowns and secrets in the old outputs are kept as the engine sent them.
      const olds = { __provider: scripted, a: 1, state: "kept", later: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", pw: secret("hunter22"), n: { l: [1, null] } };
      const news = { __provider: createOnly, a: 2 };
      for (const [provider, newInputs] of [[createOnly, news], [empty, { __provider: empty, b: 1 }]] as const) {
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, scripted, update({ olds, news: newInputs, oldInputs: { __provider: scripted, a: 1 } })));
        expect(r.outcome.code).to.equal(0);
        expect(r.outcome.view).to.deep.equal({ properties: { __provider: provider } });
        expect(o.outcome.code).to.equal(0);
        expect(o.outcome.view).to.deep.equal({ properties: { ...olds, __provider: provider } });
        for (const x of [o, r]) expect(x.stderr).to.equal("");
      }
    });

    it("55 update_returns_undefined: undefined (or no outs) gives {__provider}", async function () {
      for (const act of ["updateUndefined", "updateNoOuts"]) {
        const news = { __provider: scripted, act, x: 1 };
        const [o, r] = await onBoth(ours, ref, update({ olds: { __provider: scripted, y: 2 }, news }));
        expect(o, act).to.deep.equal(r);
        expect(o.code, act).to.equal(0);
        expect(o.view, act).to.deep.equal({ properties: { __provider: scripted } });
      }
    });

    it("56 update_uses_news_provider: the new code runs and its __provider is in the outputs", async function () {
      const [a, b] = await Promise.all([nodeProvider("versionA", RUD_FIXTURE), nodeProvider("versionB", RUD_FIXTURE)]);
      expect(a).to.not.equal(b);
      const olds = { __provider: a, version: "A" };
      const news = { __provider: b, x: 1 };
      const [o, r] = await onBoth(ours, ref, update({ olds, news, oldInputs: { __provider: a } }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({ properties: { __provider: b, version: "B", id: "u1", oldsVersion: "A" } });
    });

    it("57 update_init_failed_node: a thrown `id` becomes the ErrorResourceInitFailed detail; no stderr", async function () {
      const typeUrl = "type.googleapis.com/pulumirpc.ErrorResourceInitFailed";
      const cases: [Props, Outcome][] = [
        [
          { act: "throwInit", msg: "upd failed", failId: "u9", failProps: { a: 1, nested: { b: null } }, reasons: ["r1"] },
          {
            code: 2,
            details: "upd failed",
            initFailed: { statusCode: 2, statusMessage: "upd failed", typeUrl, id: "u9", properties: { a: 1, nested: { b: null } }, reasons: ["r1"] },
          },
        ],
        [
          { act: "throwInit", msg: "no reasons" },
          { code: 2, details: "no reasons", initFailed: { statusCode: 2, statusMessage: "no reasons", typeUrl, id: "i1", properties: {}, reasons: [] } },
        ],
        [
          { act: "throwInitError" },
          {
            code: 2,
            details: "init failed",
            initFailed: { statusCode: 2, statusMessage: "init failed", typeUrl, id: "i2", properties: { a: 1 }, reasons: ["r1", "r2"] },
          },
        ],
        // Without an id: a plain UNKNOWN, and a code on the error is not used (unlike Read/Delete).
        [{ act: "throwCode", msg: "plain", code: 5 }, { code: 2, details: "plain" }],
      ];
      for (const [bag, expected] of cases) {
        const news = { __provider: scripted, ...bag };
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, scripted, update({ olds: { __provider: scripted }, news })));
        expect(o.outcome, String(bag.act)).to.deep.equal(r.outcome);
        expect(o.outcome, String(bag.act)).to.deep.equal(expected);
        expect(r.stderr).to.equal("");
        expect(o.stderr).to.equal("");
      }
    });
  });

  // ---------------------------------------------------------------- Delete

  describe("delete", function () {
    it("58 delete_missing_method: Empty", async function () {
      for (const provider of [createOnly, empty]) {
        const [o, r] = await onBoth(ours, ref, (p) =>
          p.client.delete({ urn: nodeUrn("d"), id: "d1", properties: { __provider: provider, a: null }, oldInputs: { __provider: provider } }),
        );
        expect(o).to.deep.equal(r);
        expect(o).to.deep.equal({ code: 0, details: "", view: {}, bytes: "" });
      }
    });

    it("59 delete_uses_outputs_provider: the provider stored in the outputs (old code) runs, not old_inputs'", async function () {
      const [a, b] = await Promise.all([nodeProvider("versionA", RUD_FIXTURE), nodeProvider("versionB", RUD_FIXTURE)]);
      const [o, r] = await onBoth(ours, ref, async (p) => {
        const mark = p.stdout.length;
        const outcome = await p.client.delete({ urn: nodeUrn("d"), id: "d59", properties: { __provider: a, version: "A" }, oldInputs: { __provider: b } });
        await p.until(() => p.stdout.slice(mark).length > 0, "the delete's stdout line");
        return { outcome, stdout: p.stdout.slice(mark) };
      });
      expect(o).to.deep.equal(r);
      expect(o).to.deep.equal({ outcome: { code: 0, details: "", view: {}, bytes: "" }, stdout: ["delete by version A: d59"] });
    });

    it("60 delete_throws: the error's code/message, and `${e}: ${e.stack}` on stderr", async function () {
      const cases: [Props, Outcome, string][] = [
        [{ act: "throw", msg: "del boom" }, { code: 2, details: "del boom" }, "Error: del boom: Error: del boom"],
        [{ act: "throwCode", msg: "not here", code: 5 }, { code: 5, details: "not here" }, "Error: not here: Error: not here"],
        [{ act: "throwCodeDetails", code: 9, details: "pre" }, { code: 9, details: "pre" }, "Error: m: Error: m"],
      ];
      for (const [bag, expected, line] of cases) {
        const properties = { __provider: scripted, ...bag };
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, scripted, (q) => q.client.delete({ urn: nodeUrn("d"), id: "d60", properties })));
        expect(o.outcome, String(bag.act)).to.deep.equal(r.outcome);
        expect(o.outcome, String(bag.act)).to.deep.equal(expected);
        expect(firstLine(r.stderr), String(bag.act)).to.equal(line);
        expect(firstLine(o.stderr), String(bag.act)).to.equal(firstLine(r.stderr));
      }
    });
  });

  // ---------------------------------------------------------------- Harness-only values

  describe("harness-only values and key order", function () {
    it("75 secret_sig_in_news_harness: a nested secret sig passes the default check unchanged", async function () {
      const news = { __provider: createOnly, a: { b: secret("s3cr3t") }, top: secret([1, { c: null }]) };
      const [o, r] = await onBoth(ours, ref, (p) => p.client.check({ urn: nodeUrn("k"), olds: {}, news }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({ inputs: news, failures: [] });
    });

    it("76 resource_ref_sig_harness: a resource sig in create props is a raw object to the user", async function () {
      const res = { [SIG]: RESOURCE_SIG, urn: nodeUrn("other"), id: "other-id", packageVersion: "1.2.3" };
      const [o, r] = await onBoth(ours, ref, create({ __provider: scripted, act: "echo", res }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view.properties.res).to.deep.equal(res);
      expect(o.view.properties.types.res).to.equal("object");
    });

    it("78 key_order_node: keys sent out of order on the wire reach the user sorted", async function () {
      // google-protobuf always writes map entries sorted, so the out-of-order bag is
      // spliced by hand: a Struct is a sequence of map entries (field 1), so
      // concatenated Structs are one Struct holding the entries in that order, and
      // it is appended to the rest of the request as the bag's field
      // (CheckRequest.news = 3, CreateRequest.properties = 2 in provider.proto).
      const unsortedStruct = (...parts: Props[]) =>
        Buffer.concat(parts.map((o) => Buffer.from(pb.structPb.Struct.fromJavaScript(o).serializeBinary())));
      const field = (num: number, body: Buffer) => Buffer.concat([varint((num << 3) | 2), varint(body.length), body]);
      const news = unsortedStruct({ b: 1 }, { a: 2 }, { __provider: scripted });
      expect(news.indexOf("\x01b")).to.be.within(0, news.indexOf("\x01a"));
      const check = new pb.provider.CheckRequest();
      check.setUrn(nodeUrn("k"));
      check.setOlds(pb.structPb.Struct.fromJavaScript({}));
      const checkBytes = Buffer.concat([Buffer.from(check.serializeBinary()), field(3, news)]);
      const create = new pb.provider.CreateRequest();
      create.setUrn(nodeUrn("k"));
      const props = unsortedStruct({ b: 1 }, { act: "echo" }, { a: 2 }, { __provider: scripted });
      const createBytes = Buffer.concat([Buffer.from(create.serializeBinary()), field(2, props)]);
      const rawCall = (p: Plugin, method: string, bytes: Buffer, type: any, bag: string) =>
        new Promise<Outcome>((resolve) =>
          p.client.raw.makeUnaryRequest(
            `/pulumirpc.ResourceProvider/${method}`,
            (x: Buffer) => x,
            (x: Buffer) => type.deserializeBinary(new Uint8Array(x)),
            bytes,
            (err: any, resp: any) =>
              resolve(
                err
                  ? { code: err.code, details: err.details }
                  : { code: 0, details: "", view: resp[bag]().toJavaScript(), bytes: Buffer.from(resp.serializeBinary()).toString("base64") },
              ),
          ),
        );
      const [oc, rc] = await onBoth(ours, ref, (p) => rawCall(p, "Check", checkBytes, pb.provider.CheckResponse, "getInputs"));
      expect(oc).to.deep.equal(rc);
      expect(oc.code).to.equal(0);
      // What the user's code saw: Object.keys(news) in check, Object.keys(props) in create.
      expect(oc.view.newsKeys).to.deep.equal(["__provider", "a", "b"]);
      expect(oc.view.oldsKeys).to.deep.equal([]);
      const [ocr, rcr] = await onBoth(ours, ref, (p) => rawCall(p, "Create", createBytes, pb.provider.CreateResponse, "getProperties"));
      expect(ocr).to.deep.equal(rcr);
      expect(ocr.code).to.equal(0);
      expect(ocr.view.keys).to.deep.equal(["__provider", "a", "act", "b"]);
    });
  });
});

// ---------------------------------------------------------------- Large payload

/** A protobuf base-128 varint. */
function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

/** Peak resident set size of a live process in bytes (Linux), or undefined. */
function peakRss(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

describe("differential (Node): 77 large_payload", function () {
  let ours: Plugin;
  let ref: Plugin;
  let scripted: string;

  before(async function () {
    scripted = await nodeProvider("scripted");
    ({ ours, ref } = await launchPair());
  });
  after(async function () {
    await Promise.all([ours?.stop(), ref?.stop()]);
  });

  it("77 large_payload: a 100 MiB string round-trips through create; time and memory are in line with the reference", async function () {
    this.timeout(120_000);
    const size = 100 * 1024 * 1024;
    const big = "0123456789abcdef".repeat(size / 16);
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    const want = sha(big);
    const req = new pb.provider.CreateRequest();
    req.setUrn(nodeUrn("large"));
    req.setProperties(pb.structPb.Struct.fromJavaScript({ __provider: scripted, act: "large", big }));
    // Sequential, so each plugin has the machine to itself while it is timed.
    const run = (p: Plugin) =>
      new Promise<{ outcome: any; ms: number; peak?: number }>((resolve) => {
        const started = Date.now();
        p.client.raw.create(req, (err: any, resp: any) => {
          const ms = Date.now() - started;
          const peak = peakRss(p.child.pid!);
          if (err) return resolve({ outcome: { code: err.code, details: err.details }, ms, peak });
          const props = resp.getProperties().toJavaScript();
          resolve({
            outcome: { code: 0, id: resp.getId(), len: props.len, bigSha: sha(props.big), bigLength: props.big.length, keys: Object.keys(props) },
            ms,
            peak,
          });
        });
      });
    const r = await run(ref);
    const o = await run(ours);
    expect(o.outcome).to.deep.equal(r.outcome);
    expect(o.outcome).to.deep.equal({ code: 0, id: "large", len: size, bigSha: want, bigLength: size, keys: ["__provider", "big", "len"] });
    // Sane: not much slower, nor much hungrier, than the reference.
    expect(o.ms, `ours ${o.ms} ms vs reference ${r.ms} ms`).to.be.at.most(Math.max(3 * r.ms, r.ms + 5_000));
    if (o.peak !== undefined && r.peak !== undefined) {
      expect(o.peak, `peak RSS ours ${o.peak} vs reference ${r.peak}`).to.be.at.most(2 * r.peak + 200 * 1024 * 1024);
    }
    console.log(`      large_payload: reference ${r.ms} ms, peak ${r.peak} B; ours ${o.ms} ms, peak ${o.peak} B`);
    await Promise.all([ours.stop(), ref.stop()]);
  });
});
