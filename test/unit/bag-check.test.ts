// How deep a bag nests (src/host/wire/bag-check.ts), read from its bytes: counted
// as documented, reported with the property and its whole depth, in one pass
// that never recurses, whatever the depth. Wire types: test/unit/struct-bytes.test.ts.
import { expect } from "chai";
import { createRequire } from "node:module";
import { checkBag, MAX_VALUE_DEPTH, quoteKey } from "../../src/host/wire/bag-check.js";
import { jsToStruct, ValueTooDeepError } from "../../src/host/wire/wire.js";
import { entry, len, nestedValue, numberValue, tag } from "../helpers/wire-bytes.js";

const require = createRequire(import.meta.url);
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
const theirs = (o: object): Buffer => Buffer.from(Struct.fromJavaScript(o).serializeBinary());

/** An entry "b" holding two values side by side in a list: `objects` levels of objects and `lists` - 1 more of lists. */
function theirsDeep(objects: number, lists: number): Buffer {
  return entry("b", Buffer.concat([len(6, Buffer.concat([len(1, nestedValue(objects - 1, "objects")), len(1, nestedValue(lists - 1, "lists"))]))]));
}

describe("bag-check: how deep a bag nests", function () {
  const depths: [string, object, number][] = [
    ["scalars", { a: 1, s: "x", n: null, b: true }, 0],
    ["an empty object", { a: {} }, 1],
    ["an empty list", { a: [] }, 1],
    ["an object of scalars", { a: { b: 1 } }, 1],
    ["a list in an object in an object", { a: { b: { c: [1] } } }, 3],
    ["the deepest of several properties", { a: [1], b: { c: { d: { e: 1 } } }, c: [[]] }, 3],
    ["a secret's signature object", { s: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: { x: [1] } } }, 3],
  ];
  for (const [name, bag, depth] of depths) {
    it(`${name}: ${depth} levels`, function () {
      const bytes = theirs(bag);
      expect(checkBag(bytes, depth)).to.equal(undefined);
      if (depth > 0) expect(checkBag(bytes, depth - 1)?.depth).to.equal(depth);
    });
  }

  it("reports the first property past the limit, with its whole depth", function () {
    const bytes = Buffer.concat([entry("shallow", nestedValue(3)), entry("deep", nestedValue(40, "objects")), entry("deeper", nestedValue(50, "lists"))]);
    expect(checkBag(bytes, 10)).to.deep.equal({ key: "deep", depth: 40, lists: 0 });
    expect(checkBag(bytes, 45)).to.deep.equal({ key: "deeper", depth: 50, lists: 50 });
    expect(checkBag(bytes, 50)).to.equal(undefined);
  });

  it("names an entry by its last key, wherever the key sits in the entry", function () {
    const keyAfterValue = len(1, Buffer.concat([len(2, nestedValue(5)), len(1, Buffer.from("first")), len(1, Buffer.from("last"))]));
    expect(checkBag(keyAfterValue, 2)).to.deep.equal({ key: "last", depth: 5, lists: 2 });
  });

  it("counts a value given twice in one entry by its deeper occurrence", function () {
    const twice = len(1, Buffer.concat([len(1, Buffer.from("k")), len(2, nestedValue(7)), len(2, nestedValue(2))]));
    expect(checkBag(twice, 3)).to.deep.equal({ key: "k", depth: 7, lists: 3 });
  });

  it("counts groups as levels, in values and at the top", function () {
    const groups = (n: number, field = 9) => Buffer.concat([...Array.from({ length: n }, () => tag(field, 3)), ...Array.from({ length: n }, () => tag(field, 4))]);
    expect(checkBag(entry("g", Buffer.concat([groups(6), numberValue(1)])), 5)).to.deep.equal({ key: "g", depth: 6, lists: 0 });
    expect(checkBag(groups(6, 2), 5)).to.deep.equal({ key: undefined, depth: 6, lists: 0 });
    expect(checkBag(Buffer.concat([groups(6, 2), entry("a", numberValue(1))]), 6)).to.equal(undefined);
  });

  it("counts a level of lists as listCost levels where a mode asks (Python: 1.5), reporting the levels and lists of the costliest path", function () {
    // 326 levels of lists cost 489, 327 cost 490.5; objects cost 1 each; alternating levels 1.25 on average.
    expect(checkBag(entry("l", nestedValue(326, "lists")), 490, 1.5)).to.equal(undefined);
    expect(checkBag(entry("l", nestedValue(327, "lists")), 490, 1.5)).to.deep.equal({ key: "l", depth: 327, lists: 327 });
    expect(checkBag(entry("o", nestedValue(490, "objects")), 490, 1.5)).to.equal(undefined);
    expect(checkBag(entry("o", nestedValue(491, "objects")), 490, 1.5)).to.deep.equal({ key: "o", depth: 491, lists: 0 });
    expect(checkBag(entry("m", nestedValue(392, "mixed")), 490, 1.5)).to.equal(undefined);
    expect(checkBag(entry("m", nestedValue(393, "mixed")), 490, 1.5)).to.deep.equal({ key: "m", depth: 393, lists: 196 });
    // The costliest path, not the longest: 400 objects (400) beside 300 lists (450).
    const both = theirsDeep(400, 300);
    expect(checkBag(both, 420, 1.5)).to.deep.equal({ key: "b", depth: 300, lists: 300 });
    expect(checkBag(both, 420)).to.equal(undefined);
  });

  it("walks a million levels without recursing, in time linear in the bytes", function () {
    const bytes = entry("o", nestedValue(1_000_000, "lists"));
    expect(checkBag(bytes, MAX_VALUE_DEPTH.nodejs)).to.deep.equal({ key: "o", depth: 1_000_000, lists: 1_000_000 });
  });

  it("cuts a long key short when quoting it", function () {
    expect(quoteKey("k".repeat(101))).to.equal(`"${"k".repeat(100)}…"`);
    expect(quoteKey('a"b')).to.equal('"a\\"b"');
  });
});

describe("wire: values returned nested past the limit", function () {
  it("converts a value nested exactly the limit and refuses one level more, saying where", function () {
    let value: unknown = 1;
    for (let i = 0; i < 5; i++) value = i % 2 ? [value] : { d: value };
    expect(() => jsToStruct({ o: value }, 5)).not.to.throw();
    try {
      jsToStruct({ o: [value], "odd key": 1 }, 5);
      expect.fail("no error");
    } catch (e) {
      expect(e).to.be.instanceOf(ValueTooDeepError);
      expect((e as ValueTooDeepError).path).to.equal(".o[0].d[0].d[0]");
      expect((e as ValueTooDeepError).limit).to.equal(5);
    }
  });

  it("refuses a circular value instead of overflowing the stack", function () {
    const o: Record<string, unknown> = { a: 1 };
    o.self = o;
    expect(() => jsToStruct({ o })).to.throw(ValueTooDeepError, `nested more than ${MAX_VALUE_DEPTH.nodejs} levels deep`);
  });
});
