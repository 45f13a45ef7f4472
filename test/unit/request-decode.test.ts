// A request's own fields are read by their wire types (src/host/request-decode.ts),
// beside google-protobuf's decoding of the same bytes (the generated classes
// of @pulumi/pulumi, as the Node reference decodes): where it decodes them, we
// read the same fields; where it refuses a field of the wrong wire type, we
// refuse it too, naming it, instead of protobufjs' misreading.
import { expect } from "chai";
import { createRequire } from "node:module";
import { messageType } from "../../src/host/wire/proto.js";
import { requestDecoder, UndecodableRequest } from "../../src/host/request-decode.js";
import { encodedTwin } from "../../src/host/wire/struct-bytes.js";
import { entry, len, numberValue, stringValue, tag, text, varint } from "../helpers/wire-bytes.js";

const require = createRequire(import.meta.url);
const provider = require("@pulumi/pulumi/proto/provider_pb");

const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::r";
const bag = len(2, Buffer.concat([entry("__provider", stringValue("p")), entry("a", numberValue(1))]));

interface Case {
  name: string;
  type: string;
  bytes: Buffer;
  /** Our refusal; undefined when the request decodes. */
  ours?: string;
  /** The URN our refusal names. */
  urn?: string;
  /**
   * Where google-protobuf (JS) differs: it refuses what we decode (a field it
   * knows and we do not), or decodes what we refuse (a field number no
   * message can have, which upb, the Python reference's decoder, refuses).
   */
  google?: "refuses" | "decodes";
}

const cases: Case[] = [
  { name: "a well-formed request", type: "CreateRequest", bytes: Buffer.concat([text(1, URN), bag]) },
  {
    name: "unknown fields of every wire type, a group among them",
    type: "CreateRequest",
    bytes: Buffer.concat([tag(99, 0), varint(7), text(1, URN), tag(98, 1), Buffer.alloc(8), tag(97, 3), tag(1, 0), varint(1), tag(97, 4), tag(96, 5), Buffer.alloc(4), bag, len(95, Buffer.from("x"))]),
  },
  {
    name: "an unknown field of protobuf's largest number, 2^29 - 1",
    type: "CreateRequest",
    bytes: Buffer.concat([text(1, URN), tag(2 ** 29 - 1, 0), varint(1), bag]),
  },
  {
    name: "an unknown field numbered 2^29, past the largest (upb refuses it; google-protobuf reads it)",
    type: "CreateRequest",
    bytes: Buffer.concat([text(1, URN), tag(2 ** 29, 0), varint(1), bag]),
    ours: "field number 536870912, past protobuf's largest (536870911): no message has such a field at byte 57",
    urn: URN,
    google: "decodes",
  },
  {
    name: "a urn sent as a varint",
    type: "CreateRequest",
    bytes: Buffer.concat([tag(1, 0), varint(5), bag]),
    ours: "CreateRequest.urn (field 1) has wire type 0 (varint) instead of wire type 2 (length-delimited) at byte 0",
  },
  {
    name: "a urn sent as a fixed32 (protobufjs reads the 4 bytes as a string)",
    type: "CreateRequest",
    bytes: Buffer.concat([tag(1, 5), Buffer.from([3, 0x41, 0x42, 0x43]), bag]),
    ours: "CreateRequest.urn (field 1) has wire type 5 (32-bit) instead of wire type 2 (length-delimited) at byte 0",
  },
  {
    name: "the properties sent as a varint, after a readable urn",
    type: "CreateRequest",
    bytes: Buffer.concat([text(1, URN), tag(2, 0), varint(3)]),
    ours: "CreateRequest.properties (field 2) has wire type 0 (varint) instead of wire type 2 (length-delimited) at byte 57",
    urn: URN,
  },
  {
    name: "a timeout (double) sent length-delimited",
    type: "CreateRequest",
    bytes: Buffer.concat([text(1, URN), len(3, Buffer.from("12345678"))]),
    ours: "CreateRequest.timeout (field 3) has wire type 2 (length-delimited) instead of wire type 1 (64-bit) at byte 57",
    urn: URN,
  },
  {
    name: "a preview flag (bool) sent as a fixed64",
    type: "CreateRequest",
    bytes: Buffer.concat([text(1, URN), tag(4, 1), Buffer.alloc(8)]),
    ours: "CreateRequest.preview (field 4) has wire type 1 (64-bit) instead of wire type 0 (varint) at byte 57",
    urn: URN,
  },
  {
    name: "a repeated string (ignoreChanges) sent as a varint",
    type: "DiffRequest",
    bytes: Buffer.concat([text(2, URN), tag(5, 0), varint(1)]),
    ours: "DiffRequest.ignoreChanges (field 5) has wire type 0 (varint) instead of wire type 2 (length-delimited) at byte 57",
    urn: URN,
  },
  {
    name: "a field our schema leaves out (ReadRequest.old_views), malformed inside: skipped as unknown, never read",
    type: "ReadRequest",
    bytes: Buffer.concat([text(2, URN), len(9, Buffer.concat([tag(1, 0), varint(1)]))]),
    google: "refuses",
  },
  {
    name: "a map entry's value (ConfigureRequest.variables) of the wrong wire type",
    type: "ConfigureRequest",
    bytes: Buffer.concat([len(1, Buffer.concat([text(1, "k"), tag(2, 0), varint(1)]))]),
    ours:
      "in ConfigureRequest.variables (field 1): the value of an entry of ConfigureRequest.variables (field 1) has " +
      "wire type 0 (varint) instead of wire type 2 (length-delimited) at byte 5",
  },
  {
    name: "a request cut short inside its properties",
    type: "CreateRequest",
    bytes: Buffer.concat([text(1, URN), tag(2, 2), varint(100), Buffer.from([1, 2, 3])]),
    ours: "in CreateRequest.properties (field 2): a field of 100 bytes runs past the end at byte 58",
    urn: URN,
  },
  {
    name: "a urn that is not valid UTF-8 (google-protobuf replaces the bad bytes; upb and Go refuse it), naming no resource",
    type: "CreateRequest",
    bytes: Buffer.concat([len(1, Buffer.from([0x75, 0xff, 0x72])), bag]),
    ours: "CreateRequest.urn (field 1) is not valid UTF-8, as every protobuf string must be at byte 0",
    google: "decodes",
  },
  {
    name: "an id cut inside a character, after a good urn",
    type: "DeleteRequest",
    bytes: Buffer.concat([len(1, Buffer.from([0x69, 0xe2, 0x82])), text(2, URN)]),
    ours: "DeleteRequest.id (field 1) is not valid UTF-8, as every protobuf string must be at byte 0",
    urn: URN,
    google: "decodes",
  },
  {
    name: "a repeated string (ignoreChanges) with a lone surrogate",
    type: "DiffRequest",
    bytes: Buffer.concat([text(2, URN), len(5, Buffer.from([0xed, 0xb0, 0x80]))]),
    ours: "DiffRequest.ignoreChanges (field 5) is not valid UTF-8, as every protobuf string must be at byte 57",
    urn: URN,
    google: "decodes",
  },
  {
    name: "a map entry's value (ConfigureRequest.variables) that is not valid UTF-8",
    type: "ConfigureRequest",
    bytes: Buffer.concat([len(1, Buffer.concat([text(1, "proj:k"), len(2, Buffer.from([0xc0, 0x80]))]))]),
    ours:
      "in ConfigureRequest.variables (field 1): the value of an entry of ConfigureRequest.variables (field 1) is not valid UTF-8, " +
      "as every protobuf string must be at byte 10",
    google: "decodes",
  },
  { name: "a tag cut short", type: "CreateRequest", bytes: Buffer.concat([text(1, URN), Buffer.from([0x80])]), ours: "a varint runs past the end at byte 57", urn: URN },
  { name: "wire type 6", type: "CreateRequest", bytes: Buffer.concat([text(1, URN), Buffer.from([0x3e])]), ours: "wire type 6 at byte 57", urn: URN },
  {
    name: "a group that never ends",
    type: "CreateRequest",
    bytes: Buffer.concat([text(1, URN), tag(97, 3), tag(1, 0), varint(1)]),
    ours: "a group (field 97) runs past the end at byte 59",
    urn: URN,
  },
];

describe("request-decode: a request's fields by their wire types, beside google-protobuf", function () {
  for (const c of cases) {
    it(`${c.ours ? "refuses" : "decodes"} ${c.name}`, function () {
      const type = messageType(`pulumirpc.${c.type}`);
      const decoded = requestDecoder(type, encodedTwin(type)?.twin)(c.bytes);
      let google: any;
      try {
        google = provider[c.type].deserializeBinary(new Uint8Array(c.bytes)).toObject();
      } catch (e) {
        google = e;
      }
      if (!c.ours) {
        expect(decoded).not.to.be.instanceOf(UndecodableRequest);
        expect((decoded as { urn: string }).urn).to.equal(URN);
        if (c.google === "refuses") {
          expect(google).to.be.instanceOf(Error);
          return;
        }
        expect(google).not.to.be.instanceOf(Error);
        expect(google.urn).to.equal(URN);
        expect(Buffer.isBuffer((decoded as { properties: Buffer }).properties)).to.equal(true);
        return;
      }
      if (c.google !== "decodes") expect(google, "google-protobuf refuses it too").to.be.instanceOf(Error);
      expect(decoded).to.be.instanceOf(UndecodableRequest);
      const refused = decoded as UndecodableRequest;
      expect(refused.problem).to.equal(c.ours);
      expect(refused.urn).to.equal(c.urn ?? "");
      const err = refused.error(c.type.replace(/Request$/, ""));
      expect(err.message).to.equal(`${c.type.replace(/Request$/, "")} ${c.urn ?? "(no urn)"}: the request is not a valid ${c.type}: ${c.ours}`);
    });
  }
});
