// Python mode keeps property bags encoded between the engine and its worker
// (src/host/wire/struct-bytes.ts). Reading them at the wire level must agree with a
// full decode on bytes another implementation wrote (google-protobuf, as the
// engine's Go protobuf would write them), including what protobuf allows and
// encoders rarely emit: repeated keys, unknown fields, empty bags.
import { expect } from "chai";
import { isUtf8 } from "node:buffer";
import { createRequire } from "node:module";
import { messageType } from "../../src/host/wire/proto.js";
import { serviceDefinition } from "../../src/host/server.js";
import { checkBag } from "../../src/host/wire/bag-check.js";
import { EncodedStruct, StructBytesError } from "../../src/host/wire/struct-bytes.js";
import { isUtf8Text, WireFormatError } from "../../src/host/wire/wire-cursor.js";
import {
  carryField,
  decodeStruct,
  encodeStruct,
  isEmptyStruct,
  jsToStruct,
  rawField,
  stringField,
  structToJs,
  withField,
  type WireStruct,
} from "../../src/host/wire/wire.js";

const require = createRequire(import.meta.url);
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
const StructType = messageType("google.protobuf.Struct");

/** google-protobuf's encoding of a JavaScript object. */
const theirs = (o: object): Buffer => Buffer.from(Struct.fromJavaScript(o).serializeBinary());
const encoded = (o: object) => new EncodedStruct(theirs(o));
const decoded = (b: Buffer) => StructType.decode(b) as unknown as WireStruct;

const bags: [string, object][] = [
  ["empty", {}],
  ["flat", { __provider: "p".repeat(3000), a: 1, b: "two", c: true, d: null }],
  ["nested", { o: { __provider: "inner" }, l: [1, { x: "y" }], __provider: "outer" }],
  ["unicode keys", { "ключ": "значение", "🚀": 1, "": "empty key" }],
  ["non-string provider", { __provider: 5 }],
];

describe("struct-bytes: reading an encoded Struct at the wire level", function () {
  for (const [name, bag] of bags) {
    it(`agrees with a full decode of google-protobuf's bytes: ${name}`, function () {
      const bytes = theirs(bag);
      const enc = new EncodedStruct(bytes);
      const dec = decoded(bytes);
      expect(isEmptyStruct(enc)).to.equal(isEmptyStruct(dec));
      for (const key of [...Object.keys(bag), "__provider", "absent"]) {
        expect(rawField(enc, key), key).to.deep.equal(rawField(dec, key));
        expect(stringField(enc, key), key).to.equal(stringField(dec, key));
      }
      expect(structToJs(enc)).to.deep.equal(structToJs(dec));
      expect(encodeStruct(enc)).to.equal(bytes); // passed on as it came: the same buffer
    });
  }

  it("takes the last entry of a repeated key, as protobuf maps do", function () {
    const bytes = Buffer.concat([theirs({ __provider: "first", a: 1 }), theirs({ __provider: "second" })]);
    expect(stringField(new EncodedStruct(bytes), "__provider")).to.equal("second");
    expect(stringField(decoded(bytes), "__provider")).to.equal("second");
  });

  it("reads a string in place by protobuf's rules: a Value given twice merges, the last member of the oneof wins", function () {
    const key = [0x0a, 0x01, 0x6b]; // key "k"
    const str = [0x12, 0x05, 0x1a, 0x03, 0x61, 0x62, 0x63]; // value { string_value: "abc" }
    const num = [0x12, 0x09, 0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f]; // value { number_value: 1 }
    const entry = (...parts: number[][]) => {
      const body = parts.flat();
      return new EncodedStruct(Buffer.from([0x0a, body.length, ...body]));
    };
    expect(entry(key, str).stringValue("k")).to.equal("abc");
    expect(entry(key, num, str).stringValue("k")).to.equal("abc");
    expect(entry(key, str, num).stringValue("k")).to.equal(undefined);
    expect(entry(key, str).stringValue("other")).to.equal(undefined);
    expect(() => entry(key, [0x12, 0x02, 0x18, 0x01]).stringValue("k")).to.throw(
      StructBytesError,
      /the string_value of a Value \(field 3\) has wire type 0 \(varint\) instead of wire type 2 \(length-delimited\) at byte 7/,
    );
  });

  it("reads each long string right when bags alternate between texts of one length", function () {
    const [a, b] = ["a", "b"].map((c) => c.repeat(5000) + "ü");
    for (const text of [a, a, b, a, b, b]) {
      expect(stringField(encoded({ __provider: text, x: 1 }), "__provider")).to.equal(text);
    }
  });

  it("skips fields other than the map's, of every wire type", function () {
    const unknown = Buffer.from([
      0x10, 0x96, 0x01, // field 2, varint 150
      0x19, 1, 2, 3, 4, 5, 6, 7, 8, // field 3, fixed64
      0x22, 2, 0xff, 0xfe, // field 4, 2 bytes
      0x2d, 1, 2, 3, 4, // field 5, fixed32
      0x33, 0x08, 0x01, 0x3b, 0x3c, 0x34, // field 6, a group holding a varint and an empty group of field 7
    ]);
    const bytes = Buffer.concat([unknown, theirs({ __provider: "p" }), unknown]);
    const enc = new EncodedStruct(bytes);
    expect(stringField(enc, "__provider")).to.equal("p");
    expect(isEmptyStruct(enc)).to.equal(false);
    expect(isEmptyStruct(new EncodedStruct(unknown))).to.equal(true);
  });

  const malformed: [string, number[], RegExp][] = [
    ["a truncated tag", [0x8a], /a varint runs past the end at byte 0/],
    ["an entry longer than the bag", [0x0a, 0x05, 0x0a], /a field of 5 bytes runs past the end at byte 1/],
    ["a key longer than its entry", [0x0a, 0x02, 0x0a, 0x09], /a field of 9 bytes runs past the end at byte 3/],
    ["a group that never ends", [0x13, 0x08, 0x01], /a group \(field 2\) runs past the end at byte 1/],
    ["an end group with no group open", [0x14], /an end group \(field 2\) with no group open at byte 1/],
    ["a group closed by another field's end", [0x13, 0x1c], /an end group of field 3 closes the group of field 2 at byte 1/],
    ["wire type 6", [0x16], /wire type 6 at byte 0/],
    ["field number 0", [0x02, 0x00], /field number 0 \(field numbers start at 1\) at byte 0/],
    // 2^29 as a varint field: tag 2^32, five bytes.
    ["a field number past the largest", [0x80, 0x80, 0x80, 0x80, 0x10, 0x00], /field number 536870912, past protobuf's largest \(536870911\): no message has such a field at byte 0/],
    ["a ten-byte tag", [...new Array(9).fill(0xff), 0x01, 0x00], /field number 2305843009213693951, past protobuf's largest/],
    ["a truncated fixed64", [0x19, 1, 2], /a fixed-size field runs past the end at byte 1/],
    ["an 11-byte varint", [0x10, ...new Array(10).fill(0xff), 0x01], /a varint is longer than 10 bytes at byte 1/],
  ];
  for (const [name, bytes, message] of malformed) {
    it(`refuses ${name}, saying where`, function () {
      const enc = new EncodedStruct(Buffer.from(bytes));
      expect(() => stringField(enc, "__provider")).to.throw(StructBytesError, message);
      expect(() => enc.validated()).to.throw(StructBytesError, /^not a valid encoded protobuf Struct: /);
    });
  }

  it("refuses a malformed value when it decodes it", function () {
    // An entry for "k" whose Value claims 9 bytes but holds 1.
    const bytes = Buffer.from([0x0a, 0x06, 0x0a, 0x01, 0x6b, 0x12, 0x09, 0x08]);
    expect(() => rawField(new EncodedStruct(bytes), "k")).to.throw(StructBytesError);
    expect(() => decodeStruct(new EncodedStruct(bytes))).to.throw(StructBytesError);
  });
});

// Wire bytes by hand, for what no encoder writes.
const varint = (n: number): number[] => {
  const out: number[] = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n & 127) | 128);
  out.push(n);
  return out;
};
const tag = (field: number, wireType: number) => varint((field << 3) | wireType);
const len = (field: number, body: number[]) => [...tag(field, 2), ...varint(body.length), ...body];
const text = (field: number, s: string) => len(field, [...Buffer.from(s)]);
/** A Struct entry: key = 1, value = 2. */
const entryOf = (key: string, value: number[]) => len(1, [...text(1, key), ...len(2, value)]);
const NUMBER_ONE = [...tag(2, 1), 0, 0, 0, 0, 0, 0, 0xf0, 0x3f];

/**
 * Each case is a bag's bytes and what google-protobuf (the Node reference's
 * decoder, strict about wire types) makes of them: either it decodes them, and
 * ours must read the same values, or it refuses them, and ours must too, with
 * a message naming the field. Ours refuses two things google-protobuf lets
 * through: an end group with no group open, and a string that is not valid
 * UTF-8 (google-protobuf puts U+FFFD in place of its bad bytes; upb, the Python
 * reference's decoder, and Go's protobuf refuse it). upb drops a known field
 * of the wrong wire type instead of refusing it.
 */
const wireCases: { name: string; bytes: number[]; ours?: RegExp; google?: "accepts" }[] = [
  {
    name: "unknown fields of every wire type, groups nested in groups, around and inside entries and values",
    bytes: [
      ...tag(2, 0), ...varint(150), ...tag(3, 1), 1, 2, 3, 4, 5, 6, 7, 8, ...len(4, [0xff]), ...tag(5, 5), 1, 2, 3, 4,
      ...tag(6, 3), ...tag(1, 0), 1, ...tag(7, 3), ...tag(7, 4), ...tag(6, 4),
      ...len(1, [...text(1, "k"), ...tag(9, 0), 1, ...len(2, [...tag(8, 3), ...tag(8, 4), ...text(3, "v")])]),
      ...entryOf("__provider", text(3, "p")),
    ],
  },
  { name: "a repeated key and a Value given twice (merged)", bytes: [...entryOf("a", NUMBER_ONE), ...entryOf("a", text(3, "x")), ...len(1, [...text(1, "b"), ...len(2, text(3, "y")), ...len(2, NUMBER_ONE)])] },
  { name: "Struct.fields as a varint", bytes: [...tag(1, 0), 1], ours: /an entry \(Struct\.fields, field 1\) has wire type 0 \(varint\) instead of wire type 2 \(length-delimited\) at byte 0/ },
  { name: "Struct.fields as a group", bytes: [...tag(1, 3), ...tag(1, 4)], ours: /an entry \(Struct\.fields, field 1\) has wire type 3 \(start group\)/ },
  { name: "an entry's key as a varint", bytes: len(1, [...tag(1, 0), 5, ...len(2, NUMBER_ONE)]), ours: /the key of an entry \(field 1\) has wire type 0/ },
  { name: "an entry's value as a fixed32", bytes: len(1, [...text(1, "k"), ...tag(2, 5), 1, 2, 3, 4]), ours: /in property "k": the value of an entry \(field 2\) has wire type 5 \(32-bit\)/ },
  { name: "a null_value as length-delimited", bytes: entryOf("k", len(1, [])), ours: /in property "k": the null_value of a Value \(field 1\) has wire type 2/ },
  { name: "a number_value as a varint", bytes: entryOf("k", [...tag(2, 0), 1]), ours: /in property "k": the number_value of a Value \(field 2\) has wire type 0 \(varint\) instead of wire type 1 \(64-bit\)/ },
  { name: "a string_value as a varint", bytes: entryOf("k", [...tag(3, 0), 3]), ours: /in property "k": the string_value of a Value \(field 3\) has wire type 0/ },
  { name: "a bool_value as a fixed64", bytes: entryOf("k", [...tag(4, 1), 1, 0, 0, 0, 0, 0, 0, 0]), ours: /in property "k": the bool_value of a Value \(field 4\) has wire type 1/ },
  { name: "a struct_value as a varint", bytes: entryOf("k", [...tag(5, 0), 3]), ours: /in property "k": the struct_value of a Value \(field 5\) has wire type 0/ },
  { name: "a list_value as a fixed32", bytes: entryOf("k", [...tag(6, 5), 1, 2, 3, 4]), ours: /in property "k": the list_value of a Value \(field 6\) has wire type 5/ },
  {
    name: "a string_value as a varint three levels down",
    bytes: entryOf("outer", len(5, entryOf("l", len(6, len(1, [...tag(3, 0), 3]))))),
    ours: /in property "outer": the string_value of a Value \(field 3\) has wire type 0/,
  },
  { name: "a list's value as a varint", bytes: entryOf("l", len(6, [...tag(1, 0), 1])), ours: /in property "l": a value of a ListValue \(field 1\) has wire type 0/ },
  { name: "wire type 7", bytes: [...entryOf("a", NUMBER_ONE), 0x0f], ours: /wire type 7 at byte 16/ },
  { name: "a group that never ends, inside a value", bytes: entryOf("k", [...tag(9, 3), ...tag(1, 0), 1]), ours: /in property "k": a group \(field 9\) runs past the end of the field holding it/ },
  { name: "a group closed by another field's end", bytes: entryOf("k", [...tag(9, 3), ...tag(8, 4)]), ours: /in property "k": an end group of field 8 with no such group open/ },
  { name: "an end group with no group open", bytes: [...entryOf("a", NUMBER_ONE), ...tag(9, 4)], ours: /an end group of field 9 with no such group open at byte 16/, google: "accepts" },
  { name: "strings of any valid UTF-8, NUL and four-byte characters included", bytes: [...entryOf("ключ\u0000", text(3, "é\u0000🙂 你好"))] },
  { name: "a string_value that is not UTF-8", bytes: entryOf("k", len(3, [0x78, 0xff, 0xfe, 0x79])), ours: /in property "k": the string_value of a Value \(field 3\) is not valid UTF-8, as every protobuf string must be at byte 7/, google: "accepts" },
  { name: "a key that is a lone surrogate in UTF-8", bytes: len(1, [...len(1, [0xed, 0xa0, 0x80]), ...len(2, NUMBER_ONE)]), ours: /the key of an entry \(field 1\) is not valid UTF-8/, google: "accepts" },
  { name: "a string cut inside a character, in a list", bytes: entryOf("l", len(6, len(1, len(3, [0x61, 0xc3])))), ours: /in property "l": the string_value of a Value \(field 3\) is not valid UTF-8/ },
  { name: "an overlong encoding of \"/\"", bytes: entryOf("k", len(3, [0xc0, 0xaf])), ours: /in property "k": the string_value of a Value \(field 3\) is not valid UTF-8/, google: "accepts" },
  { name: "a value cut short", bytes: [...entryOf("k", text(3, "abc"))].slice(0, -1), ours: /a field of 10 bytes runs past the end at byte 1/ },
  { name: "a fixed64 cut short inside a value", bytes: len(1, [...text(1, "k"), ...len(2, [...tag(2, 1), 1, 2])]), ours: /in property "k": a fixed-size field runs past the end/ },
];

describe("struct-bytes: wire types, beside google-protobuf's decoding of the same bytes", function () {
  for (const c of wireCases) {
    it(`${c.ours ? "refuses" : "reads"} ${c.name}${c.google === "accepts" ? " (google-protobuf lets it through)" : ""}`, function () {
      const bytes = Buffer.from(c.bytes);
      let google: Record<string, unknown> | Error;
      try {
        google = Struct.deserializeBinary(new Uint8Array(bytes)).toJavaScript();
      } catch (e) {
        google = e as Error;
      }
      if (!c.ours) {
        expect(google).not.to.be.instanceOf(Error);
        expect(checkBag(bytes, 10)).to.equal(undefined);
        const enc = new EncodedStruct(bytes);
        expect(structToJs(enc)).to.deep.equal(google);
        for (const key of Object.keys(google as object)) expect(rawField(enc, key), key).to.deep.equal(rawField(decoded(bytes), key));
        return;
      }
      if (c.google === "accepts") expect(google).not.to.be.instanceOf(Error);
      else expect(google, "google-protobuf refuses it too").to.be.instanceOf(Error);
      expect(() => checkBag(bytes, 10)).to.throw(WireFormatError, c.ours);
      // What struct-bytes reads itself (the top level, __provider's value) it refuses alike.
      expect(() => stringField(new EncodedStruct(bytes), "k")).to.satisfy((read: () => unknown) => {
        try {
          read();
          return true; // the problem lies below what it reads
        } catch (e) {
          return e instanceof StructBytesError;
        }
      });
    });
  }
});

describe("struct-bytes: carrying __provider into an encoded answer", function () {
  const request = encoded({ __provider: "the provider", a: 1 });

  it("returns the answer itself when it already holds the same entry", function () {
    const outs = encoded({ x: 1, __provider: "the provider" });
    expect(carryField(outs, request, "__provider")).to.equal(outs);
  });

  for (const [name, outs] of [
    ["absent", { x: 1 }],
    ["different", { x: 1, __provider: "the user's own" }],
    ["a different kind", { __provider: { nested: true }, x: 1 }],
  ] as [string, object][]) {
    it(`sets it, once, when the answer's is ${name}; the rest is kept`, function () {
      const out = carryField(encoded(outs), request, "__provider") as EncodedStruct;
      expect(out).to.be.instanceOf(EncodedStruct);
      // Exactly one entry for the key on the wire, and the same values a decoded carry gives.
      const google = Struct.deserializeBinary(out.bytes);
      expect(google.getFieldsMap().getEntryList().filter(([k]: [string]) => k === "__provider")).to.have.length(1);
      expect(structToJs(out)).to.deep.equal(structToJs(withField(jsToStruct(outs), "__provider", rawField(request, "__provider"))));
    });
  }

  it("drops every repeated entry of the key", function () {
    const outs = new EncodedStruct(Buffer.concat([theirs({ __provider: "a", x: 1 }), theirs({ __provider: "b" })]));
    const out = carryField(outs, request, "__provider") as EncodedStruct;
    expect(Struct.deserializeBinary(out.bytes).toJavaScript()).to.deep.equal({ __provider: "the provider", x: 1 });
    expect(out.bytes.length).to.equal(theirs({ x: 1, __provider: "the provider" }).length);
  });

  it("carries from a decoded bag into an encoded one and back", function () {
    const fromDecoded = carryField(encoded({ x: 1 }), jsToStruct({ __provider: "d" }), "__provider");
    expect(structToJs(fromDecoded)).to.deep.equal({ __provider: "d", x: 1 });
    const intoDecoded = carryField(jsToStruct({ x: 1 }), request, "__provider");
    expect(structToJs(intoDecoded)).to.deep.equal({ __provider: "the provider", x: 1 });
  });
});

describe("struct-bytes: requests and responses with bags left encoded", function () {
  const create = serviceDefinition("checked").Create;
  const CreateRequest = messageType("pulumirpc.CreateRequest");
  const ReadRequest = messageType("pulumirpc.ReadRequest");
  const CreateResponse = messageType("pulumirpc.CreateResponse");

  it("decodes a request's bags as views into the message, not copies", function () {
    const props = theirs({ __provider: "p", a: 1 });
    const wire = Buffer.from(CreateRequest.encode({ urn: "u", properties: decoded(props) }).finish());
    const req = create.requestDeserialize(wire) as Record<string, unknown>;
    expect(req.urn).to.equal("u");
    const got = req.properties as Buffer;
    expect(Buffer.isBuffer(got)).to.equal(true);
    expect(got.equals(props)).to.equal(true);
    expect(got.buffer).to.equal(wire.buffer);
  });

  it("keeps a bag's presence: unset, set but empty, and set", function () {
    const read = serviceDefinition("checked").Read;
    const req = read.requestDeserialize(
      Buffer.from(ReadRequest.encode({ id: "i", properties: { fields: {} } }).finish()),
    ) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(req, "properties")).to.equal(true);
    expect((req.properties as Buffer).length).to.equal(0);
    expect(Object.prototype.hasOwnProperty.call(req, "inputs")).to.equal(false);
  });

  it("writes an encoded answer's bytes as they are, decoded answers as before", function () {
    const props = theirs({ __provider: "p", out: [1, "x"] });
    const viaBytes = create.responseSerialize({ id: "id1", properties: new EncodedStruct(props) });
    const viaObjects = create.responseSerialize({ id: "id1", properties: decoded(props) });
    expect(viaBytes.includes(props)).to.equal(true);
    const a = CreateResponse.toObject(CreateResponse.decode(viaBytes));
    const b = CreateResponse.toObject(CreateResponse.decode(viaObjects));
    expect(a).to.deep.equal(b);
    expect(structToJs((CreateResponse.decode(viaBytes) as any).properties)).to.deep.equal({ __provider: "p", out: [1, "x"] });
  });
});

describe("wire-cursor: isUtf8Text, the UTF-8 check of short strings, agrees with Node's isUtf8", function () {
  it("on every first and second byte of 3- and 4-byte sequences, and on 200 000 short random strings", function () {
    const differ: string[] = [];
    const same = (b: Buffer) => {
      if (isUtf8Text(b, 0, b.length) !== isUtf8(b) && differ.length < 5) differ.push(b.toString("hex"));
    };
    for (let a = 0; a < 256; a++) for (let c = 0; c < 256; c++) [Buffer.from([a, c]), Buffer.from([a, c, 0x80]), Buffer.from([a, c, 0x80, 0xbf])].forEach(same);
    // Bytes near every boundary of RFC 3629's table, mostly.
    const edges = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf3, 0xf4, 0xf5, 0xff];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8;
    for (let t = 0; t < 200_000; t++) {
      const b = Buffer.alloc(next() % 9);
      for (let i = 0; i < b.length; i++) b[i] = next() % 3 === 0 ? next() % 256 : edges[next() % edges.length];
      same(b);
    }
    expect(differ).to.deep.equal([]);
    // Within a range of a larger buffer, and past 64 bytes (Node's isUtf8 itself).
    const long = Buffer.concat([Buffer.from("é".repeat(40)), Buffer.from([0xff])]);
    expect([isUtf8Text(long, 0, long.length - 1), isUtf8Text(long, 0, long.length), isUtf8Text(long, 1, 3)]).to.deep.equal([true, false, false]);
  });
});
