// A google.protobuf.Value with none of its kinds set (or a Struct entry with no
// value at all) in a request bag: what the wire module reports, and where.
import { expect } from "chai";
import { messageType } from "../../src/host/wire/proto.js";
import { EncodedStruct } from "../../src/host/wire/struct-bytes.js";
import { describeValue, propertyPath, stringField, structToJs, UnsetValueError, unsetValuePath, unsetValueProblem, valueKind, type WireStruct } from "../../src/host/wire/wire.js";

const StructType = messageType("google.protobuf.Struct");

/** A Struct entry (field 1) with key `key` and, when given, the encoded Value `value`. */
function entry(key: string, value?: Buffer): Buffer {
  const k = Buffer.from(key);
  const body = Buffer.concat([Buffer.from([0x0a, k.length]), k, value ? Buffer.concat([Buffer.from([0x12, value.length]), value]) : Buffer.alloc(0)]);
  return Buffer.concat([Buffer.from([0x0a, body.length]), body]);
}
const decode = (b: Buffer) => StructType.decode(b) as unknown as WireStruct;

describe("unset Values in request bags", function () {
  it("an entry without a value decodes to null, and an empty Value to one with no member: both are 'unset', not a crash", function () {
    const noValue = decode(entry("a"));
    const empty = decode(entry("a", Buffer.alloc(0)));
    expect(noValue.fields.a).to.equal(null);
    for (const s of [noValue, empty]) {
      expect(valueKind(s.fields.a)).to.equal("unset");
      expect(describeValue(s.fields.a)).to.equal("an empty protobuf Value");
      expect(() => structToJs(s)).to.throw(UnsetValueError);
      expect(stringField(s, "a")).to.equal(undefined);
      expect(stringField(new EncodedStruct(entry("a")), "a")).to.equal(undefined);
    }
  });

  const cases: [string, Buffer, string | undefined][] = [
    ["an entry with no value, at the top", entry("bad"), ".bad"],
    ["an empty Value, at the top", entry("bad", Buffer.alloc(0)), ".bad"],
    ["an empty Value under a key that is not an identifier", entry("a b", Buffer.alloc(0)), '["a b"]'],
    ["none, in a bag of set Values", entry("ok", Buffer.from([0x1a, 0x01, 0x78])), undefined],
  ];
  for (const [what, bytes, path] of cases) {
    it(`finds ${what}: ${path ?? "no path"}`, function () {
      expect(unsetValuePath(decode(bytes))).to.equal(path);
      expect(unsetValuePath(new EncodedStruct(bytes))).to.equal(path);
    });
  }

  it("is found in a list in a struct, by key order then index", function () {
    const s: WireStruct = {
      fields: {
        z: {},
        o: { structValue: { fields: { l: { listValue: { values: [{ numberValue: 1 }, { structValue: { fields: {} } }, {}] } } } } },
      },
    };
    expect(unsetValuePath(s)).to.equal(".o.l[2]");
  });

  it("is found 100 000 levels down without overflowing the stack", function () {
    let v: any = {};
    for (let i = 0; i < 100_000; i++) v = { listValue: { values: [v] } };
    expect(unsetValuePath({ fields: { deep: v } })).to.equal(".deep" + "[0]".repeat(100_000));
  });

  it("paths and the problem are worded one way for both languages", function () {
    expect(propertyPath(["o", "l", 1, "a b", "$ok", "0x"])).to.equal('.o.l[1]["a b"].$ok["0x"]');
    expect(unsetValueProblem("news", ".o.l[1]")).to.equal(
      "the request's news holds a google.protobuf.Value with no kind set at news.o.l[1]; every Value must be one of null, number, string, bool, struct or list",
    );
  });
});
