// Property values nested deep, against our plugins started like the engine
// starts them, in both modes. At each mode's limit (src/host/wire/bag-check.ts:
// 1500 levels in Node mode, 490 in Python mode, where a level of lists counts
// as 1.5 because the SDK carries lists less deep) a value goes through Create and comes back in its
// outputs byte for byte; one level deeper, and far
// deeper, every RPC answers INVALID_ARGUMENT naming the method, the resource,
// the bag, the property and the depth, before anything recurses through it.
// The plugin keeps serving, the Python worker is never lost, nothing is
// printed. Requests are written by hand (test/helpers/wire-bytes.ts):
// google-protobuf's own encoder overflows its stack near 1500 levels.
import { expect } from "chai";
import { MAX_VALUE_DEPTH } from "../../src/host/wire/bag-check.js";
import { EncodedStruct } from "../../src/host/wire/struct-bytes.js";
import { WIRE_LEN, WireCursor } from "../../src/host/wire/wire-cursor.js";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";
import { call, entry, len, nestedValue, numberValue, stringValue, tag, text, varint, type RawOutcome } from "../helpers/wire-bytes.js";

const INVALID_ARGUMENT = 3;
const UNKNOWN = 2;

/** The properties (field 2) of a CreateResponse's bytes. */
function createdProperties(response: Buffer): EncodedStruct {
  const cursor = new WireCursor(response, 0, response.length);
  let props: Buffer = Buffer.alloc(0);
  while (!cursor.done) {
    const t = cursor.tag();
    if (t === ((2 << 3) | WIRE_LEN)) {
      const [start, end] = cursor.delimited();
      props = response.subarray(start, end);
    } else cursor.skip(t);
  }
  return new EncodedStruct(props);
}

/** Each resource RPC with its request's layout: where the URN and which bags go, by field number. */
const RPCS: { rpc: string; urnField: number; bags: [name: string, field: number][] }[] = [
  { rpc: "Check", urnField: 1, bags: [["olds", 2], ["news", 3]] },
  { rpc: "Diff", urnField: 2, bags: [["olds", 3], ["news", 4]] },
  { rpc: "Create", urnField: 1, bags: [["properties", 2]] },
  { rpc: "Read", urnField: 2, bags: [["properties", 3], ["inputs", 4]] },
  { rpc: "Update", urnField: 2, bags: [["olds", 3], ["news", 4]] },
  { rpc: "Delete", urnField: 2, bags: [["properties", 3]] },
];

for (const language of ["nodejs", "python"] as const) {
  const limit = MAX_VALUE_DEPTH[language];
  const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::${name}`;
  const refusal = (rpc: string, name: string, bag: string, key: string, depth: number) =>
    `${rpc} ${urn(name)}: the request's ${bag} has property "${key}" nested ${depth} levels deep; values nested more than ` +
    `${limit} levels (objects and lists within one another) are refused before any provider code sees them`;

  describe(`values nested deep, ${language} mode: accepted to ${limit} levels, refused beyond, naming where`, function () {
    let p: Plugin;
    let provider: string;
    let workers: number[] = [];

    before(async function () {
      provider = language === "nodejs" ? await nodeProvider("scripted") : pythonProvider("scripted");
      p = await Plugin.launch("ours", { language });
    });
    after(async function () {
      await p?.stop();
    });

    const providerEntry = () => entry("__provider", stringValue(provider));
    const create = (name: string, ...entries: Buffer[]) => call(p.port, "Create", Buffer.concat([text(1, urn(name)), len(2, Buffer.concat([providerEntry(), ...entries]))]));

    /** Serving, silent, and (Python) on the same worker processes as before the test. */
    afterEach(async function () {
      if (this.currentTest?.state !== "passed") return;
      const good = await create("after", entry("a", numberValue(1)));
      expect(good.code, good.details).to.equal(0);
      expect(p.stdout).to.have.length(1);
      expect(p.stderr).to.equal("");
      const now = p.groupPids().filter((pid) => pid !== p.child.pid);
      if (workers.length > 0) expect(now).to.deep.equal(workers);
      workers = now;
    });

    // The Python SDK converts lists with a frame more per level: a level of lists counts as 1.5 (bag-check.ts).
    const deepest: [shape: "mixed" | "objects" | "lists", depth: number][] =
      language === "nodejs" ? [["mixed", limit], ["objects", limit], ["lists", limit]] : [["objects", limit], ["lists", 326], ["mixed", 392]];
    for (const [shape, depth] of deepest) {
      it(`carries a value of ${shape} nested ${depth} levels through Create, byte for byte`, async function () {
        const value = nestedValue(depth, shape);
        const answer = await create("at-limit", entry("o", value));
        expect(answer.code, answer.details).to.equal(0);
        expect(createdProperties(answer.response!).entry("o")?.equals(entry("o", value))).to.equal(true);
      });
    }

    if (language === "python") {
      for (const [shape, depth, lists] of [["lists", 327, 327], ["mixed", 393, 196]] as const) {
        it(`refuses ${shape} nested ${depth} levels, saying a level of lists counts as 1.5`, async function () {
          const answer = await create(`deep-${shape}`, entry("o", nestedValue(depth, shape)));
          expect(answer).to.deep.equal({
            code: INVALID_ARGUMENT,
            details:
              `Create ${urn(`deep-${shape}`)}: the request's properties has property "o" nested ${depth} levels deep, ${lists} of them lists; ` +
              `values nested more than 490 levels (objects and lists within one another, a level of lists counting as 1.5: the Python SDK ` +
              `recurses deeper through lists) are refused before any provider code sees them`,
          });
        });
      }
    }

    // Objects: what a level of lists counts for in Python mode is tested above.
    for (const depth of [limit + 1, 10_000, 100_000]) {
      it(`refuses a property nested ${depth} levels: INVALID_ARGUMENT naming Create, the resource, the bag, the property and the depth`, async function () {
        const answer = await create(`deep${depth}`, entry("a", numberValue(1)), entry("o", nestedValue(depth, "objects")));
        expect(answer).to.deep.equal({ code: INVALID_ARGUMENT, details: refusal("Create", `deep${depth}`, "properties", "o", depth) });
      });
    }

    for (const { rpc, urnField, bags } of RPCS) {
      for (const [bag, field] of bags) {
        it(`${rpc}: refuses its ${bag} nested ${limit + 1} levels, naming it`, async function () {
          const parts = [text(urnField, urn(rpc)), ...(urnField === 2 ? [text(1, "id1")] : [])];
          for (const [other, otherField] of bags) {
            const deep = other === bag ? [entry("deep", nestedValue(limit + 1, "objects"))] : [];
            parts.push(len(otherField, Buffer.concat([providerEntry(), ...deep])));
          }
          const answer: RawOutcome = await call(p.port, rpc, Buffer.concat(parts));
          expect(answer).to.deep.equal({ code: INVALID_ARGUMENT, details: refusal(rpc, rpc, bag, "deep", limit + 1) });
        });
      }
    }

    it(`Configure: refuses args nested ${limit + 1} levels, naming it`, async function () {
      const answer = await call(p.port, "Configure", len(2, entry("cfg", nestedValue(limit + 1, "objects"))));
      expect(answer).to.deep.equal({
        code: INVALID_ARGUMENT,
        details:
          `Configure (no urn): the request's args has property "cfg" nested ${limit + 1} levels deep; values nested more than ` +
          `${limit} levels (objects and lists within one another) are refused before any provider code sees them`,
      });
    });

    it("counts groups (an unknown field's obsolete wire form) as levels, where a decoder would recurse through them", async function () {
      const groups = (n: number) => Buffer.concat([...Array.from({ length: n }, () => tag(9, 3)), ...Array.from({ length: n }, () => tag(9, 4))]);
      const inside = await create("groups", entry("g", Buffer.concat([groups(limit + 1), numberValue(1)])));
      expect(inside).to.deep.equal({ code: INVALID_ARGUMENT, details: refusal("Create", "groups", "properties", "g", limit + 1) });
      const atTop = await call(p.port, "Create", Buffer.concat([text(1, urn("top-groups")), len(2, Buffer.concat([providerEntry(), groups(limit + 1)]))]));
      expect(atTop.code, atTop.details).to.equal(INVALID_ARGUMENT);
      expect(atTop.details).to.equal(
        `Create ${urn("top-groups")}: the request's properties has an unknown field nested ${limit + 1} levels deep; values nested more ` +
          `than ${limit} levels (objects and lists within one another) are refused before any provider code sees them`,
      );
      const within = await create("groups-ok", entry("g", Buffer.concat([groups(limit), numberValue(1)])));
      expect(within.code, within.details).to.equal(0);
    });

    it("names a property with a long key by its first 100 characters", async function () {
      const key = "k".repeat(5000);
      const answer = await create("long-key", entry(key, nestedValue(limit + 1)));
      expect(answer.code).to.equal(INVALID_ARGUMENT);
      expect(answer.details).to.contain(`has property "${"k".repeat(100)}…" nested ${limit + 1} levels deep`);
    });

    if (language === "nodejs") {
      it("a provider returning a value nested past the limit: UNKNOWN naming the method and the path, not a stack overflow", async function () {
        const answer = await create("deep-outs", entry("act", stringValue("deepOuts")), entry("levels", numberValue(limit + 1)));
        expect(answer.code).to.equal(UNKNOWN);
        expect(answer.details).to.equal(
          `Create ${urn("deep-outs")}: the dynamic provider's create returned outs.o${".d".repeat(59)}…, a value nested more than ` +
            `${limit} levels deep (objects and lists within one another; a circular reference never ends), which cannot be sent to the engine`,
        );
        const atLimit = await create("deep-outs-ok", entry("act", stringValue("deepOuts")), entry("levels", numberValue(limit)));
        expect(atLimit.code, atLimit.details).to.equal(0);
      });

      it("a provider returning a circular value: the same clear answer", async function () {
        const answer = await create("circular", entry("act", stringValue("circularOuts")));
        expect(answer.code).to.equal(UNKNOWN);
        expect(answer.details).to.match(
          new RegExp(`^Create ${urn("circular")}: the dynamic provider's create returned outs\\.o(\\.self)+\\.?[elfs]*…, a value nested more than ${limit} levels deep`),
        );
      });
    }
  });
}

// Not about depth, but about the same pass: the request's own fields are read by their wire types.
describe("request fields of the wrong wire type, both modes: refused naming the field, never misread", function () {
  for (const language of ["nodejs", "python"] as const) {
    it(`${language}: a urn sent as a fixed32 is not read as a garbage URN`, async function () {
      const p = await Plugin.launch("ours", { language });
      try {
        const provider = language === "nodejs" ? await nodeProvider("scripted") : pythonProvider("scripted");
        // protobufjs would read the 4 bytes as a length-prefixed string: "ABC".
        const body = Buffer.concat([tag(1, 5), Buffer.from([3, 0x41, 0x42, 0x43]), len(2, entry("__provider", stringValue(provider)))]);
        expect(await call(p.port, "Create", body)).to.deep.equal({
          code: INVALID_ARGUMENT,
          details:
            "Create (no urn): the request is not a valid CreateRequest: CreateRequest.urn (field 1) has wire type 5 (32-bit) " +
            "instead of wire type 2 (length-delimited) at byte 0",
        });
        const cut = Buffer.concat([text(1, "urn:pulumi:dev::proj::pulumi-x:dynamic:Resource::cut"), tag(2, 2), varint(1000), Buffer.from([1, 2])]);
        expect(await call(p.port, "Create", cut)).to.deep.equal({
          code: INVALID_ARGUMENT,
          details:
            "Create urn:pulumi:dev::proj::pulumi-x:dynamic:Resource::cut: the request is not a valid CreateRequest: " +
            "in CreateRequest.properties (field 2): a field of 1000 bytes runs past the end at byte 55",
        });
        expect(p.stderr).to.equal("");
      } finally {
        await p.stop();
      }
    });
  }
});
