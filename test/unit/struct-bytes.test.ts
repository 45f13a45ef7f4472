// Python mode keeps property bags encoded between the engine and its worker
// (src/host/struct-bytes.ts). Reading them at the wire level must agree with a
// full decode on bytes another implementation wrote (google-protobuf, as the
// engine's Go protobuf would write them), including what protobuf allows and
// encoders rarely emit: repeated keys, unknown fields, empty bags.
import { expect } from "chai";
import { createRequire } from "node:module";
import { messageType } from "../../src/host/proto.js";
import { serviceDefinition } from "../../src/host/server.js";
import { EncodedStruct, StructBytesError } from "../../src/host/struct-bytes.js";
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
} from "../../src/host/wire.js";

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
    expect(() => entry(key, [0x12, 0x02, 0x18, 0x01]).stringValue("k")).to.throw(StructBytesError, /a string_value of wire type 0 at byte 7/);
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
    ["a group (wire type 3)", [0x13], /wire type 3 at byte 1/],
    ["field number 0", [0x02, 0x00], /field tag 2 at byte 1/],
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
  const create = serviceDefinition("encoded").Create;
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
    const read = serviceDefinition("encoded").Read;
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
