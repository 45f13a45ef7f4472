// Struct ⇄ JavaScript must behave exactly like google-protobuf's
// Struct.toJavaScript / fromJavaScript, which the Node reference uses. These
// tables compare our conversion with google-protobuf itself.
import { expect } from "chai";
import { createRequire } from "node:module";
import { messageType } from "../../src/host/wire/proto.js";
import { EncodedStruct } from "../../src/host/wire/struct-bytes.js";
import {
  decodeStruct,
  jsToStruct,
  structToJs,
  unwrapSecret,
  UnexpectedStructTypeError,
  UnsetValueError,
  valueKind,
  withField,
  stringField,
  type WireStruct,
} from "../../src/host/wire/wire.js";

import { entry, listValue, numberValue, stringValue, structValue, tag, varint } from "../helpers/wire-bytes.js";

const require = createRequire(import.meta.url);
const boolValue = (b: boolean) => Buffer.concat([tag(4, 0), varint(b ? 1 : 0)]);
const nullValue = () => Buffer.concat([tag(1, 0), varint(0)]);
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
const StructType = messageType("google.protobuf.Struct");

/** Our encoding, decoded by google-protobuf. */
const viaUs = (v: unknown) => Struct.deserializeBinary(StructType.encode(jsToStruct(v)).finish()).toJavaScript();
/** google-protobuf's encoding, decoded by us. */
const fromThem = (v: unknown) => structToJs(StructType.decode(Struct.fromJavaScript(v).serializeBinary()) as unknown as WireStruct);

class WithProto {
  own = 1;
}
(WithProto.prototype as any).inherited = "yes";

const cases: [string, unknown][] = [
  ["scalars", { s: "x", n: 1.5, i: 3, b: false, z: null }],
  ["nested", { o: { x: null, y: [1, "a", null, { q: true }] }, l: [[], {}] }],
  ["unsorted keys", { b: 1, a: 2, _c: 3, "10": 4, "9": 5, A: 6 }],
  ["empty", {}],
  ["unicode and big strings", { u: "ümlaut ✓ 🚀", big: "x".repeat(100_000) }],
  ["numbers", { neg: -0.5, max: Number.MAX_VALUE, tiny: 5e-324 }],
  ["sentinels stay strings/objects", { u: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", s: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "v" } }],
];

describe("wire: Struct ⇄ JavaScript", function () {
  for (const [name, value] of cases) {
    it(`round trips like google-protobuf: ${name}`, function () {
      expect(viaUs(value)).to.deep.equal(Struct.fromJavaScript(value).toJavaScript());
      expect(fromThem(value)).to.deep.equal(Struct.fromJavaScript(value).toJavaScript());
    });
  }

  it("[difference] keeps a key named __proto__ as an own property at any depth, and sends it back (google-protobuf loses it)", function () {
    const bytes = Buffer.concat([
      entry("__proto__", structValue(entry("polluted", boolValue(true)))),
      entry("inner", structValue(entry("__proto__", numberValue(5)), entry("k", stringValue("v")))),
      entry("list", listValue(structValue(entry("__proto__", listValue(nullValue()))))),
    ]);
    const js = structToJs(decodeStruct(new EncodedStruct(bytes))) as any;
    expect(Object.getPrototypeOf(js)).to.equal(Object.prototype);
    expect(Object.keys(js)).to.deep.equal(["__proto__", "inner", "list"]);
    expect(Object.getOwnPropertyDescriptor(js, "__proto__")?.value).to.deep.equal({ polluted: true });
    expect(js.polluted).to.equal(undefined);
    expect(Object.getOwnPropertyDescriptor(js.inner, "__proto__")?.value).to.equal(5);
    expect(Object.getOwnPropertyDescriptor(js.list[0], "__proto__")?.value).to.deep.equal([null]);
    expect(({} as any).polluted).to.equal(undefined);
    // Back to the wire: the same bytes (keys in sorted order, as they were sent).
    expect(Buffer.from(StructType.encode(jsToStruct(js)).finish())).to.deep.equal(bytes);
    // google-protobuf (the Node reference) loses it.
    expect(Object.keys(Struct.deserializeBinary(new Uint8Array(bytes)).toJavaScript())).to.deep.equal(["inner", "list"]);
  });

  it("sorts keys on decode as google-protobuf does", function () {
    const decoded = fromThem({ b: 1, a: 2, c: { z: 1, y: 2 } });
    expect(Object.keys(decoded)).to.deep.equal(["a", "b", "c"]);
    expect(Object.keys(decoded.c as object)).to.deep.equal(["y", "z"]);
  });

  it("walks inherited enumerable keys and leaves out methods' own non-enumerables, like for…in", function () {
    const v = { w: new WithProto() };
    expect(viaUs(v)).to.deep.equal(Struct.fromJavaScript(v).toJavaScript());
    expect((viaUs(v) as any).w).to.deep.equal({ own: 1, inherited: "yes" });
  });

  it("turns Date, Map and Set into empty objects, like upstream", function () {
    const v = { d: new Date(0), m: new Map([[1, 2]]), s: new Set([1]) };
    expect(viaUs(v)).to.deep.equal(Struct.fromJavaScript(v).toJavaScript());
  });

  for (const [name, bad] of [
    ["undefined", { a: undefined }],
    ["a function", { f() {} }],
    ["a symbol", { s: Symbol("x") }],
    ["a bigint", { n: 10n }],
    ["a hole in a list", { l: [1, , 3] }],
  ] as [string, unknown][]) {
    it(`rejects ${name} with google-protobuf's text`, function () {
      expect(() => Struct.fromJavaScript(bad)).to.throw("Unexpected struct type.");
      expect(() => jsToStruct(bad)).to.throw(UnexpectedStructTypeError, "Unexpected struct type.");
    });
  }

  it("says where the bad value sits", function () {
    try {
      jsToStruct({ o: { l: [1, { "odd key": undefined }] } });
      expect.fail("should throw");
    } catch (e) {
      expect(e).to.be.instanceOf(UnexpectedStructTypeError);
      expect((e as UnexpectedStructTypeError).path).to.equal('.o.l[1]["odd key"]');
      expect((e as UnexpectedStructTypeError).got).to.equal("undefined");
    }
  });

  it("reads presence from own properties of decoded messages, not prototype defaults", function () {
    const decoded = StructType.decode(Struct.fromJavaScript({ z: 0, e: "", f: false, n: null }).serializeBinary()) as unknown as WireStruct;
    expect(valueKind(decoded.fields.z)).to.equal("number");
    expect(valueKind(decoded.fields.e)).to.equal("string");
    expect(valueKind(decoded.fields.f)).to.equal("bool");
    expect(valueKind(decoded.fields.n)).to.equal("null");
    expect(valueKind({})).to.equal("unset");
    expect(() => structToJs({ fields: { k: {} } })).to.throw(UnsetValueError);
  });

  it("withField copies and never mutates the source bag", function () {
    const src = jsToStruct({ a: 1, __provider: "old" });
    const out = withField(src, "__provider", { stringValue: "new" });
    expect(stringField(out, "__provider")).to.equal("new");
    expect(stringField(src, "__provider")).to.equal("old");
    expect(Object.keys(withField(undefined, "k", undefined).fields)).to.deep.equal([]);
  });

  it("unwraps only a top-level secret signature", function () {
    const secret = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: { inner: 1 } };
    expect(unwrapSecret(secret)).to.deep.equal({ inner: 1 });
    expect(unwrapSecret({ a: secret })).to.deep.equal({ a: secret });
    expect(unwrapSecret("plain")).to.equal("plain");
    expect(unwrapSecret(null)).to.equal(null);
  });
});
