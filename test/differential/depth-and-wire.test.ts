// Values nested deep and requests with fields of the wrong wire type, sent to
// each reference and to ours. Calls go through grpcio (helpers/wire-bytes.ts
// callFromPython): the Python reference answers a RecursionError with a
// traceback of 170 to 260 KB, which a grpc-js client never receives.
//
// What the references do (pulumi 3.270.0, Node 20, Python 3.11), and ours:
// - Node reference: google-protobuf decodes on the stack, so how deep it goes
//   depends on how much of it V8 has optimized yet. Objects nested past about
//   1090 levels in a fresh process (1124 once warm; alternating objects and
//   lists 1436 warm; lists alone 1800 fresh, 2217 warm) fail as INTERNAL
//   "Error deserializing request" (or "Error serializing response" on the way
//   back), naming nothing. Ours carries 1500 levels of any shape and refuses deeper values
//   as INVALID_ARGUMENT naming method, resource, bag, property and depth.
// - Python reference: the SDK's recursion carries objects to 490 levels
//   (lists to 326) and answers UNKNOWN with a RecursionError traceback
//   beyond; past 4500 its protobuf overflows the C stack and the plugin dies.
//   Ours refuses past 490, a level of lists counting as 1.5 (so lists past
//   326), before the worker sees the value.
// - A field of the wrong wire type: the Node reference's google-protobuf
//   refuses it (INTERNAL, naming nothing), the Python reference's upb drops it
//   and goes on without it. Ours refuses it naming the field.
import { expect } from "chai";
import { EncodedStruct } from "../../src/host/struct-bytes.js";
import { WireCursor } from "../../src/host/wire-cursor.js";
import { pb } from "../helpers/client.js";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { launchPair, Plugin } from "../helpers/plugin.js";
import { callFromPython, entry, len, nestedValue, numberValue, stringValue, tag, text, varint } from "../helpers/wire-bytes.js";

const OK = 0;
const UNKNOWN = 2;
const INVALID_ARGUMENT = 3;
const INTERNAL = 13;
const UNAVAILABLE = 14;

type Shape = "objects" | "lists" | "mixed";

for (const language of ["nodejs", "python"] as const) {
  const limit = language === "nodejs" ? 1500 : 490;
  const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::${name}`;
  const tooDeep = (name: string, depth: number) =>
    `Create ${urn(name)}: the request's properties has property "o" nested ${depth} levels deep; values nested more than ` +
    `${limit} levels (objects and lists within one another) are refused before any provider code sees them`;

  describe(`differential (${language}): values nested deep, and fields of the wrong wire type`, function () {
    let ours: Plugin;
    let ref: Plugin;
    let provider: string;

    before(async function () {
      provider = language === "nodejs" ? await nodeProvider("scripted") : pythonProvider("scripted");
      ({ ours, ref } = await launchPair({ language }));
    });
    after(async function () {
      await Promise.all([ours?.stop(), ref?.stop()]);
    });

    const createBody = (name: string, ...entries: Buffer[]) =>
      Buffer.concat([text(1, urn(name)), len(2, Buffer.concat([entry("__provider", stringValue(provider)), ...entries]))]);
    const both = (body: Buffer) => Promise.all([callFromPython(ours.port, "Create", body), callFromPython(ref.port, "Create", body)]);
    /** The entry of property "o" in a CreateResponse's properties, as it came back (entries may come in any order). */
    const outputO = (response: Buffer | undefined): Buffer | undefined => {
      expect(response).to.not.equal(undefined);
      const cursor = new WireCursor(response!, 0, response!.length);
      while (!cursor.done) {
        const t = cursor.tag();
        if (t !== ((2 << 3) | 2)) {
          cursor.skip(t);
          continue;
        }
        const [start, end] = cursor.delimited();
        return new EncodedStruct(response!.subarray(start, end)).entry("o");
      }
      return undefined;
    };

    const carried: [number, Shape][] = language === "nodejs" ? [[100, "mixed"], [1000, "objects"], [1000, "mixed"]] : [[100, "mixed"], [490, "objects"], [320, "lists"]];
    for (const [depth, shape] of carried) {
      it(`${depth} levels (${shape}): both carry the value through Create, and it comes back the same`, async function () {
        const [o, r] = await both(createBody(`d${depth}`, entry("o", nestedValue(depth, shape))));
        expect(o.code, o.details).to.equal(OK);
        expect(r.code, r.details).to.equal(OK);
        const [mine, theirs] = [outputO(o.response), outputO(r.response)];
        expect(mine?.equals(entry("o", nestedValue(depth, shape)))).to.equal(true);
        expect(theirs?.equals(mine!)).to.equal(true);
      });
    }

    if (language === "nodejs") {
      it(`[difference] ${limit} levels of objects: ours carries them; the reference answers INTERNAL naming nothing`, async function () {
        const [o, r] = await both(createBody("at-limit", entry("o", nestedValue(limit, "objects"))));
        expect(o.code, o.details).to.equal(OK);
        expect(r).to.deep.include({ code: INTERNAL, details: "Error deserializing request" });
      });

      for (const depth of [limit + 1, 10_000]) {
        it(`[difference] ${depth} levels: ours INVALID_ARGUMENT naming where; the reference INTERNAL naming nothing`, async function () {
          const [o, r] = await both(createBody(`deep${depth}`, entry("o", nestedValue(depth, "objects"))));
          expect(o).to.deep.include({ code: INVALID_ARGUMENT, details: tooDeep(`deep${depth}`, depth) });
          expect(r).to.deep.include({ code: INTERNAL, details: "Error deserializing request" });
        });
      }

      it("[difference] 1700 levels of lists alone: the reference carries them (google-protobuf spends less stack on lists); ours refuses past 1500 of any shape", async function () {
        const [o, r] = await both(createBody("lists1700", entry("o", nestedValue(1700, "lists"))));
        expect(o).to.deep.include({ code: INVALID_ARGUMENT, details: tooDeep("lists1700", 1700) });
        expect(r.code, r.details).to.equal(OK);
      });

      it("[difference] a provider returning a circular value: ours names the path; the reference sends V8's stack overflow", async function () {
        const [o, r] = await both(createBody("circular", entry("act", stringValue("circularOuts"))));
        expect(o.code).to.equal(UNKNOWN);
        expect(o.details).to.match(/^Create \S+: the dynamic provider's create returned outs\.o\.self\.self.*…, a value nested more than 1500 levels deep/);
        expect(r).to.deep.include({ code: UNKNOWN, details: "Maximum call stack size exceeded" });
      });

      it("[difference] a provider returning a value nested 5000 levels: ours names the path; the reference a stack overflow, naming nothing", async function () {
        const [o, r] = await both(createBody("outs5000", entry("act", stringValue("deepOuts")), entry("levels", numberValue(5000))));
        expect(o.code).to.equal(UNKNOWN);
        expect(o.details).to.match(/^Create \S+: the dynamic provider's create returned outs\.o\.d\.d.*…, a value nested more than 1500 levels deep/);
        // Where it overflows depends on how far V8 has optimized google-protobuf: converting, or serializing.
        expect([`${UNKNOWN} Maximum call stack size exceeded`, `${INTERNAL} Error serializing response`]).to.include(`${r.code} ${r.details}`);
      });
    } else {
      it(`[difference] ${limit + 1} levels: ours INVALID_ARGUMENT naming where; the reference a RecursionError traceback of hundreds of KB`, async function () {
        const [o, r] = await both(createBody("past-limit", entry("o", nestedValue(limit + 1, "objects"))));
        expect(o).to.deep.include({ code: INVALID_ARGUMENT, details: tooDeep("past-limit", limit + 1) });
        expect(r.code).to.equal(UNKNOWN);
        expect(r.detailsLength).to.be.greaterThan(100_000);
        expect(r.details).to.match(/RecursionError: maximum recursion depth exceeded[^\n]*\n$/);
      });

      it("[difference] 400 levels of lists (past what the SDK converts): ours INVALID_ARGUMENT naming where; the reference the SDK's RecursionError", async function () {
        const [o, r] = await both(createBody("lists400", entry("o", nestedValue(400, "lists"))));
        expect(o).to.deep.include({
          code: INVALID_ARGUMENT,
          details:
            `Create ${urn("lists400")}: the request's properties has property "o" nested 400 levels deep, 400 of them lists; values nested ` +
            `more than 490 levels (objects and lists within one another, a level of lists counting as 1.5: the Python SDK recurses deeper ` +
            `through lists) are refused before any provider code sees them`,
        });
        expect(r.code).to.equal(UNKNOWN);
        expect(r.details).to.match(/RecursionError: maximum recursion depth exceeded[^\n]*\n$/);
      });

      it("[difference] 10 000 levels: ours INVALID_ARGUMENT, its worker untouched; the reference's protobuf overflows the C stack and the plugin dies", async function () {
        const reference = await Plugin.launch("reference", { language });
        try {
          const body = createBody("deep10000", entry("o", nestedValue(10_000, "objects")));
          const workers = ours.groupPids();
          const [o, r] = await Promise.all([callFromPython(ours.port, "Create", body), callFromPython(reference.port, "Create", body)]);
          expect(o).to.deep.include({ code: INVALID_ARGUMENT, details: tooDeep("deep10000", 10_000) });
          expect(ours.groupPids()).to.deep.equal(workers);
          expect(r.code).to.equal(UNAVAILABLE);
          expect(await reference.exited).to.deep.equal({ code: null, signal: "SIGSEGV" });
        } finally {
          await reference.stop();
        }
      });
    }

    it("[difference] a urn sent as a varint: ours INVALID_ARGUMENT naming the field; the references refuse it naming nothing (Node) or drop it (Python)", async function () {
      const body = Buffer.concat([tag(1, 0), varint(7), len(2, Buffer.concat([entry("__provider", stringValue(provider)), entry("a", numberValue(1))]))]);
      const [o, r] = await both(body);
      expect(o).to.deep.include({
        code: INVALID_ARGUMENT,
        details:
          "Create (no urn): the request is not a valid CreateRequest: CreateRequest.urn (field 1) has wire type 0 (varint) " +
          "instead of wire type 2 (length-delimited) at byte 0",
      });
      if (language === "nodejs") expect(r).to.deep.include({ code: INTERNAL, details: "Error deserializing request" });
      else expect(r.code, r.details).to.equal(OK);
    });

    it("[difference] a property's key sent as a varint: ours INVALID_ARGUMENT naming it; the Python reference loses the property without a word", async function () {
      const badEntry = len(1, Buffer.concat([tag(1, 0), varint(7), len(2, numberValue(1))]));
      const [o, r] = await both(createBody("bad-key", badEntry));
      expect(o).to.deep.include({
        code: INVALID_ARGUMENT,
        details:
          `Create ${urn("bad-key")}: the request's properties is not a valid encoded protobuf Struct: in property "": the key of ` +
          `an entry (field 1) has wire type 0 (varint) instead of wire type 2 (length-delimited) at byte ${entry("__provider", stringValue(provider)).length + 2}`,
      });
      if (language === "nodejs") expect(r).to.deep.include({ code: INTERNAL, details: "Error deserializing request" });
      else {
        expect(r.code, r.details).to.equal(OK);
        const outs = pb.provider.CreateResponse.deserializeBinary(new Uint8Array(r.response!)).getProperties().toJavaScript();
        expect(Object.keys(outs)).to.deep.equal(["__provider"]);
      }
    });

    it("unknown fields of every wire type, groups among them: all skip them alike", async function () {
      const unknown = Buffer.concat([tag(99, 0), varint(1), tag(98, 3), tag(1, 5), Buffer.alloc(4), tag(98, 4), tag(97, 1), Buffer.alloc(8)]);
      const body = Buffer.concat([unknown, text(1, urn("unknown")), len(2, Buffer.concat([entry("__provider", stringValue(provider)), unknown, entry("a", numberValue(1))])), unknown]);
      const [o, r] = await both(body);
      expect(o.code, o.details).to.equal(OK);
      expect(r.code, r.details).to.equal(OK);
    });

    it("[difference] a request cut short: ours INVALID_ARGUMENT naming the field; the references INTERNAL naming nothing", async function () {
      const body = createBody("cut").subarray(0, 80);
      const [o, r] = await both(body);
      expect(o.code).to.equal(INVALID_ARGUMENT);
      expect(o.details).to.match(new RegExp(`^Create ${urn("cut")}: the request is not a valid CreateRequest: in CreateRequest.properties \\(field 2\\): a field of \\d+ bytes runs past the end at byte \\d+$`));
      expect(r.code).to.equal(INTERNAL);
    });

    it("each plugin is still serving, and ours printed nothing", async function () {
      const [o, r] = await both(createBody("after", entry("a", numberValue(1))));
      expect(o.code, o.details).to.equal(OK);
      expect(r.code, r.details).to.equal(OK);
      expect(ours.stdout).to.have.length(1);
      expect(ours.stderr).to.equal("");
    });
  });
}
