// The fuzz suite's own machinery, checked without any plugin: the hand-written
// request bytes are what @pulumi/pulumi's generated stubs read, Struct bytes
// and their canonical text agree with google-protobuf, a seed always makes the
// same case, a run visits every shape, and the judge does fail what it must.
import { expect } from "chai";
import { pb } from "../helpers/client.js";
import { randomStruct } from "./adversarial.js";
import { Schedule, modeInfo, type Case } from "./cases.js";
import { judge, type Observation } from "./judge.js";
import { canonStruct } from "./proto-bytes.js";
import { Rng, caseSeeds, fuzzSettings } from "./random.js";
import { encodeRequest, type RequestSpec } from "./requests.js";
import { SCHEDULE } from "./suite.js";
import { depthOf, encodeStruct, encodeValue, num, obj, str, weightedDepth, type FStruct } from "./values.js";

const payloads = { good: "exports.handler = __f0;", other: "gAJLBS4=" };

describe("fuzz machinery", function () {
  it("request bytes carry every field under the number @pulumi/pulumi's stubs read", function () {
    const bag: FStruct = [["__provider", str("p")], ["a", num(1)]];
    const spec = (method: RequestSpec["method"], extra: Partial<RequestSpec>): Buffer => encodeRequest({ method, urn: "u", type: "t", name: "n", ...extra });
    const create = pb.provider.CreateRequest.deserializeBinary(spec("Create", { timeout: 2.5, preview: true, bags: { properties: bag } }));
    expect([create.getUrn(), create.getType(), create.getName(), create.getTimeout(), create.getPreview(), create.getProperties().toJavaScript()]).to.deep.equal(["u", "t", "n", 2.5, true, { __provider: "p", a: 1 }]);
    const update = pb.provider.UpdateRequest.deserializeBinary(spec("Update", { id: "i", timeout: 3, bags: { olds: bag, news: [["b", str("x")]], oldInputs: [] } }));
    expect([update.getId(), update.getUrn(), update.getTimeout(), update.getOlds().toJavaScript().a, update.getNews().toJavaScript(), update.getName(), update.getType()]).to.deep.equal(["i", "u", 3, 1, { b: "x" }, "n", "t"]);
    const read = pb.provider.ReadRequest.deserializeBinary(spec("Read", { id: "i", bags: { properties: bag, inputs: [["c", str("y")]] } }));
    expect([read.getId(), read.getUrn(), read.getInputs().toJavaScript(), read.getName(), read.getType()]).to.deep.equal(["i", "u", { c: "y" }, "n", "t"]);
    const del = pb.provider.DeleteRequest.deserializeBinary(spec("Delete", { id: "i", timeout: 4, bags: { properties: bag, oldInputs: [["d", num(2)]] } }));
    expect([del.getId(), del.getUrn(), del.getTimeout(), del.getOldInputs().toJavaScript(), del.getName(), del.getType()]).to.deep.equal(["i", "u", 4, { d: 2 }, "n", "t"]);
    const diff = pb.provider.DiffRequest.deserializeBinary(spec("Diff", { id: "i", bags: { olds: bag, news: bag, oldInputs: [["e", num(3)]] } }));
    expect([diff.getId(), diff.getUrn(), diff.getNews().toJavaScript().a, diff.getOldInputs().toJavaScript(), diff.getName(), diff.getType()]).to.deep.equal(["i", "u", 1, { e: 3 }, "n", "t"]);
    const check = pb.provider.CheckRequest.deserializeBinary(spec("Check", { bags: { olds: [], news: bag } }));
    expect([check.getUrn(), check.getNews().toJavaScript(), check.getName(), check.getType()]).to.deep.equal(["u", { __provider: "p", a: 1 }, "n", "t"]);
    const invoke = pb.provider.InvokeRequest.deserializeBinary(encodeRequest({ method: "Invoke", tok: "x:y:z", bags: { args: bag } }));
    expect([invoke.getTok(), invoke.getArgs().toJavaScript().a]).to.deep.equal(["x:y:z", 1]);
  });

  it("Struct bytes and their canonical text agree with google-protobuf's, for random plain values", function () {
    for (let seed = 1; seed <= 200; seed++) {
      const fields = randomStruct(new Rng(seed), 5, 5, 0);
      const ours = encodeStruct(fields);
      const theirs = Buffer.from(pb.structPb.Struct.deserializeBinary(ours).serializeBinary());
      expect(canonStruct(theirs), `seed ${seed}`).to.equal(canonStruct(ours));
    }
  });

  it("the canonical text tells -0, NaN, null-dropping and duplicate keys apart, and reads 4000 levels", function () {
    const a = encodeStruct([["x", num(-0)], ["y", num(NaN)], ["z", { k: "null" }], ["x", num(1)]]);
    expect(canonStruct(a)).to.equal('{"x":1,"y":NaN,"z":null}');
    expect(canonStruct(a, true)).to.equal('{"x":1,"y":NaN}');
    expect(canonStruct(encodeStruct([["m", num(-0)]]))).to.equal('{"m":-0}');
    const deep = encodeStruct([["d", { k: "deep", depth: 4000, via: "mixed", leaf: str("leaf") }]]);
    const text = canonStruct(deep);
    // 4000 levels, alternating from the innermost (a Struct) outwards: 2000 lists, 2000 Structs and the bag.
    expect(text).to.match(/^\{"d":\[\{"d":\[\{"d":/).and.match(/\{"d":"leaf"\}(\]\})+$/);
    expect([text.split("[").length - 1, text.split('"d":').length - 1]).to.deep.equal([2000, 2001]);
    // The iterative deep encoding equals the nested one it stands for.
    const nested = obj([["d", { k: "list", v: [obj([["d", str("leaf")]])] }]]);
    expect(encodeValue({ k: "deep", depth: 3, via: "mixed", leaf: str("leaf") })).to.deep.equal(encodeValue(nested));
  });

  it("weighs a level of lists as asked, along the costliest path", function () {
    const deep = (depth: number, via: "struct" | "list" | "mixed", leaf = num(1)) => ({ k: "deep", depth, via, leaf }) as const;
    expect([weightedDepth(deep(327, "list"), 1.5), weightedDepth(deep(392, "mixed"), 1.5), weightedDepth(deep(393, "mixed"), 1.5)]).to.deep.equal([490.5, 490, 491]);
    expect(weightedDepth(deep(10, "struct", obj([["a", num(1)]])), 1.5)).to.equal(11);
    // Two paths: 4 objects, or 3 lists (4.5 at 1.5, 3 at 1).
    const two = obj([["a", obj([["b", obj([["c", obj([])]])]])], ["l", { k: "list", v: [{ k: "list", v: [] }] }]]);
    expect([weightedDepth(two, 1.5), weightedDepth(two, 1), depthOf(two)]).to.deep.equal([4, 4, 4]);
    const lists = obj([["l", { k: "list", v: [{ k: "list", v: [{ k: "list", v: [] }] }] }]]);
    expect([weightedDepth(lists, 1.5), depthOf(lists)]).to.deep.equal([5.5, 4]);
  });

  it("a seed makes the same case, bytes for bytes, every time", function () {
    for (const seed of caseSeeds({ base: 7, cases: 3 * SCHEDULE.slots.length }, SCHEDULE.slots.length)) {
      for (const language of ["nodejs", "python"] as const) {
        const one = SCHEDULE.caseFor(seed, modeInfo(language));
        const two = SCHEDULE.caseFor(seed, modeInfo(language));
        expect(encodeRequest(one.request(payloads)).equals(encodeRequest(two.request(payloads))), `${one.shape} ${seed}`).to.equal(true);
        expect([one.shape, one.method, one.note]).to.deep.equal([two.shape, two.method, two.note]);
      }
    }
  });

  it("a run as long as the schedule visits every shape; a replayed seed is the only case", function () {
    const seeds = caseSeeds({ base: 99, cases: SCHEDULE.slots.length }, SCHEDULE.slots.length);
    const shapes = new Set(seeds.map((s) => SCHEDULE.caseFor(s, modeInfo("nodejs")).shape));
    expect([...shapes].sort()).to.deep.equal([...new Set(SCHEDULE.shapes.map((s) => s.name))].sort());
    expect(fuzzSettings({ PULUMI_DYNAMIC_HOST_FUZZ_SEED: "0x1234abcd" })).to.deep.include({ only: 0x1234abcd, cases: 1 });
    expect(caseSeeds(fuzzSettings({ PULUMI_DYNAMIC_HOST_FUZZ_SEED: "0x1234abcd" }), 7)).to.deep.equal([0x1234abcd]);
    expect(fuzzSettings({ PULUMI_DYNAMIC_HOST_FUZZ_CASES: "12" }).cases).to.equal(12);
    expect(() => fuzzSettings({ PULUMI_DYNAMIC_HOST_FUZZ_SEED: "banana" })).to.throw(/32-bit number/);
    expect(new Schedule(SCHEDULE.shapes).slots.length).to.equal(SCHEDULE.shapes.reduce((n, s) => n + s.weight, 0));
  });

  describe("the judge fails what it must", function () {
    const urn = "urn:pulumi:fuzz::proj::pulumi-nodejs:dynamic:Resource::r";
    const c: Case = { seed: 1, shape: "t", method: "Create", expect: "error", request: () => ({ method: "Create" }), secrets: ["s3cret-x"], urn, note: "" };
    const spec: RequestSpec = { method: "Create" };
    const seen = (o: Partial<Observation>): Observation => ({ hung: false, code: 2, details: `Create ${urn}: bad`, ms: 1, stdout: [], stderr: "", ...o });
    const kinds = (o: Partial<Observation>, k: Partial<Case> = {}) => judge({ ...c, ...k }, spec, seen(o), "nodejs").map((v) => v.kind);

    for (const [what, o, k, want] of [
      ["a clear error", {}, {}, []],
      ["a hang", { hung: true }, {}, ["hang"]],
      ["a crash", { exited: "signal SIGSEGV" }, {}, ["crash"]],
      ["stdout noise", { stdout: ["x"] }, {}, ["stdout"]],
      ["stderr noise", { stderr: "x\n" }, {}, ["stderr"]],
      ["OK to bad input", { code: 0 }, {}, ["expectation"]],
      ["an internal error", { code: 13, details: `Create ${urn}: pulumi-dynamic-host internal error` }, {}, ["internal"]],
      ["no method or resource", { details: "boom" }, {}, ["unclear", "unclear"]],
      ["a bare traceback", { details: `Traceback (most recent call last):\n  File "x", line 1, in create ${urn}` }, {}, ["unclear", "unclear"]],
      ["a JavaScript stack", { details: `Create ${urn}: x\n    at f (/a/b.js:1:2)` }, {}, ["unclear"]],
      ["the user's frames in our where block", { details: `Create ${urn}: x\n\n  where: Create ${urn}, in the provider's code:\n    at f (b.py:1)` }, {}, []],
      ["a secret", { details: `Create ${urn}: s3cret-x` }, {}, ["secret"]],
      ["a text over the cap", { details: `Create ${urn}: ${"x".repeat(70_000)}` }, {}, ["too-long"]],
      ["the wrong code", { code: 2 }, { onlyCodes: [3] }, ["expectation"]],
      ["a missing mention", {}, { mentions: [/depth/] }, ["unclear"]],
      ["a worker death", { code: 14 }, {}, ["worker-died"]],
    ] as [string, Partial<Observation>, Partial<Case>, string[]][]) {
      it(what, function () {
        expect(kinds(o, k)).to.deep.equal(want);
      });
    }

    it("stderr of a bit-flipped pickle: the interpreter's own exception lines pass in Python mode, nothing else does", function () {
      const flipped = { ...c, shape: "provider.bit-flipped", expect: "either" as const, userError: true };
      const py = (o: Partial<Observation>, k: Partial<Case> = flipped) => judge({ ...c, ...k }, spec, seen(o), "python").map((v) => v.kind);
      const systemError = "SystemError: deallocated bytearray object has exported buffers\n";
      expect(py({ stderr: systemError })).to.deep.equal([]);
      expect(py({ stderr: `${systemError}and something else\n` })).to.deep.equal(["stderr"]);
      expect(py({ stderr: "Traceback (most recent call last):\n" })).to.deep.equal(["stderr"]);
      expect(py({ stderr: systemError }, { shape: "provider.truncated" })).to.deep.equal(["stderr"]);
      expect(kinds({ stderr: systemError }, flipped)).to.deep.equal(["stderr"]);
    });

    it("data lost in an echo", function () {
      const sent: FStruct = [["a", num(1)], ["b", str("x")]];
      const body = (fields: FStruct) => Buffer.concat([Buffer.from([0x12]), Buffer.from([encodeStruct(fields).length]), encodeStruct(fields)]);
      const echo = { ...c, expect: "ok" as const, echoes: true };
      const req: RequestSpec = { method: "Create", bags: { properties: sent } };
      expect(judge(echo, req, seen({ code: 0, body: body(sent) }), "nodejs")).to.deep.equal([]);
      expect(judge(echo, req, seen({ code: 0, body: body([["a", num(1)]]) }), "nodejs").map((v) => v.kind)).to.deep.equal(["data-loss"]);
    });
  });
});
