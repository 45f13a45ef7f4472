// The error texts our two plugins send, started like the engine starts them:
// every text within the size bound (head and tail kept, the cut said, the
// method and resource named), secrets the request or the config marks
// replaced by [secret], and a Value with no kind set answered as a bad
// request naming where it is. Each case leaves stdout holding only the port
// line, and the host serving.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { pb, type Outcome } from "../helpers/client.js";
import { PYTHON_PROGRAM, SCENARIOS, VENV_PYTHON } from "../helpers/paths.js";
import { ASSET_SIG, nodeProvider, pythonProvider, SECRET_SIG, SIG } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";

const MAX = 8192;
const MiB = 1024 * 1024;
const INVALID_ARGUMENT = 3;
const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
const CUT = /… \[(\d+) bytes cut\] …/;

/** A length-delimited protobuf field: tag, varint length, bytes. */
function field(num: number, body: Buffer | string): Buffer {
  const b = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const len: number[] = [];
  let n = b.length;
  do {
    len.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.concat([Buffer.from([(num << 3) | 2, ...len]), b]);
}
/** A Struct entry (Struct.fields = 1: key = 1, value = 2), the value left out when not given. */
const entry = (key: string, value?: Buffer) => field(1, Buffer.concat([field(1, key), value === undefined ? Buffer.alloc(0) : field(2, value)]));
/** Value.string_value = 3, Value.struct_value = 5, Value.list_value = 6 (ListValue.values = 1). */
const stringValue = (s: string) => field(3, s);
const structValue = (...entries: Buffer[]) => field(5, Buffer.concat(entries));
const listValue = (...values: Buffer[]) => field(6, Buffer.concat(values.map((v) => field(1, v))));

/** Sends hand-made request bytes to `method`; resolves with the status. */
function rawCall(p: Plugin, method: string, request: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    p.client.raw.makeUnaryRequest(
      `/pulumirpc.ResourceProvider/${method}`,
      (x: Buffer) => x,
      (x: Buffer) => x,
      request,
      (err: any) => resolve(err ? { code: err.code, details: err.details } : { code: 0, details: "" }),
    );
  });
}

/** Checks a cut answer: within the bound, naming `op` and `urn` first, saying what was cut. */
function expectBounded(answer: Outcome, op: string, urn: string): void {
  expect(answer.code).to.not.equal(0);
  expect(bytes(answer.details)).to.be.at.most(MAX);
  expect(answer.details.startsWith(`${op} ${urn}: `), answer.details.slice(0, 200)).to.equal(true);
  expect(answer.details).to.match(CUT);
}

/** The ≈ 50 MiB Python payload whose unpickling raises a KeyError quoting a 38 MiB key. */
function unpicklablePayload(): string {
  const out = execFileSync(VENV_PYTHON, [`${SCENARIOS}python_providers_errors.py`, "unpicklable"], { cwd: SCENARIOS, encoding: "utf8", maxBuffer: 200 * MiB });
  return (JSON.parse(out) as Record<string, string>).unpicklable;
}

for (const language of ["nodejs", "python"] as const) {
  const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::${name}`;
  const throwAct = language === "nodejs" ? "throw" : "raise";

  describe(`error texts of our ${language} plugin`, function () {
    let p: Plugin;
    let scripted: string;
    let leaky: string;
    let stderrMark = 0;

    before(async function () {
      p = await Plugin.launch("ours", { language });
      scripted = language === "nodejs" ? await nodeProvider("scripted") : pythonProvider("scripted");
      leaky = language === "nodejs" ? await nodeProvider("leaky", "node-providers-errors.cjs") : pythonProvider("leaky", "python_providers_errors.py");
      // Secret config, as the engine sends it (KeepSecrets) to Configure.
      const configured = await p.client.configure({ "proj:password": secret("config-pa55word"), "proj:user": "plain-user" });
      expect(configured.code, configured.details).to.equal(0);
    });
    after(async function () {
      await p?.stop();
    });
    beforeEach(function () {
      stderrMark = p.stderr.length;
    });
    afterEach(async function () {
      if (this.currentTest?.state !== "passed") return;
      // Still serving, and stdout still holds only the port line.
      const good = await p.client.create({ urn: urn("good"), properties: { __provider: scripted, act: "echo" } });
      expect(good.code, good.details).to.equal(0);
      expect(p.userStdout).to.deep.equal([]);
    });

    it("a 50 MiB garbage __provider: a bounded answer naming Create and the resource, saying what was cut", async function () {
      this.timeout(180_000);
      const garbage = language === "nodejs" ? "x".repeat(50 * MiB) : unpicklablePayload();
      expect(garbage.length).to.be.at.least(50 * MiB);
      const answer = await p.client.create({ urn: urn("garbage"), properties: { __provider: garbage } });
      expectBounded(answer, "Create", urn("garbage"));
      // The tail is the end of the failure: V8's "is not defined", Python's KeyError line.
      expect(answer.details).to.match(language === "nodejs" ? /x is not defined$/ : /kkk'\n?$/);
      expect(Number(CUT.exec(answer.details)![1])).to.be.greaterThan(30 * MiB);
      expect(p.stderr.slice(stderrMark)).to.equal("");
    });

    it("a provider that throws a 1 MiB message: bounded, its head and tail kept", async function () {
      const msg = `START${"m".repeat(MiB)}END`;
      const answer = await p.client.create({ urn: urn("loud"), properties: { __provider: scripted, act: throwAct, msg } });
      expect(answer.code).to.equal(2);
      expectBounded(answer, "Create", urn("loud"));
      if (language === "nodejs") expect(answer.details).to.match(new RegExp(`^Create ${urn("loud")}: STARTm+… \\[\\d+ bytes cut\\] …m+END$`));
      else expect(answer.details).to.match(/^Create .*: Traceback \(most recent call last\):\n[^]*… \[\d+ bytes cut\] …m+END\n$/);
    });

    it("an ordinary error is sent exactly as the provider wrote it", async function () {
      const answer = await p.client.create({ urn: urn("plain"), properties: { __provider: scripted, act: throwAct, msg: "boom ✓" } });
      if (language === "nodejs") expect(answer).to.deep.equal({ code: 2, details: "boom ✓" });
      else expect(answer.details).to.match(/^Traceback \(most recent call last\):\n[^]*\nException: boom ✓\n$/);
    });

    if (language === "python") {
      it("an error opens with the user's frames, none of the worker's; the where block lists them most recent first, as Node mode's does", async function () {
        const answer = await p.client.create({ urn: urn("framed"), properties: { __provider: scripted, act: throwAct, msg: "framed" } });
        expect(answer.code).to.equal(2);
        expect(answer.details).to.not.match(/python-stub|worker\.py|op_create|call_context/);
        const frames = [...answer.details.matchAll(/^ {2}File "([^"]+)", line (\d+), in (\S+)$/gm)].map((m) => ({ file: m[1], line: m[2], name: m[3] }));
        expect(frames.map((f) => f.name)).to.deep.equal(["create", "act"]);
        expect(answer.details).to.match(/^Traceback \(most recent call last\):\n {2}File "[^"]+python_providers\.py", line \d+, in create\n/);
        expect(answer.details).to.match(/\nException: framed\n$/);
        // The block: the operation, the resource and the same frames, most recent first (the file relative to the program directory when it is in it).
        const at = frames.map((f) => `    at ${f.name} (${f.file.startsWith(`${PYTHON_PROGRAM}/`) ? f.file.slice(PYTHON_PROGRAM.length + 1) : f.file}:${f.line})`).reverse();
        expect(answer.where).to.equal(`\n\n  where: Create ${urn("framed")}, in the provider's code:\n${at.join("\n")}`);
        // Without -v, the whole traceback is not printed.
        expect(p.stderr.slice(stderrMark)).to.equal("");
      });
    }

    it("a secret input quoted in the error is [secret]; the same text not marked secret is shown", async function () {
      const marked = await p.client.create({ urn: urn("s1"), properties: { __provider: leaky, quote: secret("s3cr3t-input") } });
      expect(marked.code).to.equal(2);
      // The provider sees the secret unwrapped (the host accepts secrets and unwraps them) and quotes it.
      expect(marked.details).to.include("could not create with [secret]").and.not.include("s3cr3t-input");
      const plain = await p.client.create({ urn: urn("s2"), properties: { __provider: leaky, quote: "s3cr3t-input" } });
      expect(plain.details).to.include("could not create with s3cr3t-input");
      // Nested in a secret object, and in Check (which Node also echoes to stderr, as its reference does).
      const nested = await p.client.check({ urn: urn("s3"), news: { __provider: leaky, fail: true, quote: secret({ token: "nested-t0ken" }) } });
      expect(nested.code).to.equal(2);
      expect(nested.details).to.include("[secret]").and.not.include("nested-t0ken");
    });

    it("a secret config value quoted in the error is [secret]", async function () {
      const answer = await p.client.create({ urn: urn("cfg"), properties: { __provider: leaky, fail: "config" } });
      expect(answer.code).to.equal(2);
      expect(answer.details).to.include("could not log in with password [secret]").and.not.include("config-pa55word");
    });

    if (language === "nodejs") {
      it("the stderr echo of an error thrown in Check (as the Node reference echoes it) is redacted alike", async function () {
        const answer = await p.client.check({ urn: urn("echo"), news: { __provider: leaky, fail: true, quote: secret({ token: "echoed-t0ken" }) } });
        expect(answer.code).to.equal(2);
        const cfg = await p.client.delete({ urn: urn("echo-cfg"), id: "x", properties: { __provider: leaky, fail: "config" } });
        expect(cfg.code).to.equal(2);
        await p.until(() => p.stderr.slice(stderrMark).includes("could not log in"), "both echoes");
        const echoed = p.stderr.slice(stderrMark);
        expect(echoed).to.include("[secret]").and.include("could not log in with password [secret]");
        expect(echoed).not.to.include("echoed-t0ken");
        expect(echoed).not.to.include("config-pa55word");
      });

      it("an init failure's message and reasons are redacted too", async function () {
        const answer = await p.client.create({ urn: urn("partial"), properties: { __provider: leaky, fail: "partial", quote: secret("half-s3cret") } });
        expect(answer.code).to.equal(2);
        const shown = "[secret]";
        expect(answer.details).to.equal(`half made with ${shown}`);
        expect(answer.initFailed).to.include({ statusMessage: `half made with ${shown}`, id: "p1" });
        expect(answer.initFailed!.reasons).to.deep.equal([`reason quoting ${shown}`]);
      });
    }

    describe("a Value with no kind set (hand-made request bytes)", function () {
      const provider = () => entry("__provider", stringValue(scripted));
      const expected = (op: string, name: string, bag: string, path: string) =>
        `${op} ${urn(name)}: the request's ${bag} holds a google.protobuf.Value with no kind set at ${bag}${path}; ` +
        "every Value must be one of null, number, string, bool, struct or list";

      it("Create: a map entry with no value at all: INVALID_ARGUMENT naming the property", async function () {
        const req = Buffer.concat([field(1, urn("u1")), field(2, Buffer.concat([provider(), entry("bad")]))]);
        expect(await rawCall(p, "Create", req)).to.deep.equal({ code: INVALID_ARGUMENT, details: expected("Create", "u1", "properties", ".bad") });
      });

      it("Create: an empty Value deep in a list in an object, under an odd key", async function () {
        const inner = structValue(entry("a b", listValue(stringValue("ok"), Buffer.alloc(0))));
        const req = Buffer.concat([field(1, urn("u2")), field(2, Buffer.concat([provider(), entry("o", inner)]))]);
        expect(await rawCall(p, "Create", req)).to.deep.equal({ code: INVALID_ARGUMENT, details: expected("Create", "u2", "properties", '.o["a b"][1]') });
      });

      it("Check (news) and Read by id (inputs): the bag is named, nothing is echoed", async function () {
        const check = Buffer.concat([field(1, urn("u3")), field(2, Buffer.alloc(0)), field(3, Buffer.concat([provider(), entry("n", Buffer.alloc(0))]))]);
        expect(await rawCall(p, "Check", check)).to.deep.equal({ code: INVALID_ARGUMENT, details: expected("Check", "u3", "news", ".n") });
        // ReadRequest: id = 1, urn = 2, properties = 3 (unset: a read by id), inputs = 4.
        const read = Buffer.concat([field(1, "id1"), field(2, urn("u4")), field(4, Buffer.concat([provider(), entry("i")]))]);
        expect(await rawCall(p, "Read", read)).to.deep.equal({ code: INVALID_ARGUMENT, details: expected("Read", "u4", "inputs", ".i") });
        expect(p.stderr.slice(stderrMark)).to.equal("");
      });

      it("Configure: the args are named (a plugin of its own, as the bad config stays stored)", async function () {
        const q = await Plugin.launch("ours", { language });
        try {
          const req = field(2, Buffer.concat([entry("proj:a", stringValue("x")), entry("proj:bad")]));
          expect(await rawCall(q, "Configure", req)).to.deep.equal({
            code: INVALID_ARGUMENT,
            details:
              `Configure: the request's args holds a google.protobuf.Value with no kind set at args["proj:bad"]; ` +
              "every Value must be one of null, number, string, bool, struct or list",
          });
          expect(q.stderr).to.equal("");
        } finally {
          await q.stop();
        }
      });
    });
  });
}

// The Python SDK refuses to deserialize some values (an asset signature with nothing to load, a
// signature it does not know, an archive whose assets are no map): before, its exception's traceback
// was the whole answer, naming neither method nor resource (as under the Python reference).
describe("values the Python SDK cannot deserialize: INVALID_ARGUMENT naming method, resource, bag and path", function () {
  const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
  const UNKNOWN_SIG = "ffffffffffffffffffffffffffffffff";
  let p: Plugin;
  let scripted: string;

  before(async function () {
    p = await Plugin.launch("ours", { language: "python" });
    scripted = pythonProvider("scripted");
  });
  after(async function () {
    await p?.stop();
  });
  afterEach(async function () {
    if (this.currentTest?.state !== "passed") return;
    const good = await p.client.create({ urn: urn("good"), properties: { __provider: scripted, act: "echo" } });
    expect(good.code, good.details).to.equal(0);
    expect(p.userStdout).to.deep.equal([]);
    expect(p.stderr).to.equal("");
  });

  const refused = (subject: string, where: string, what: string) =>
    `${subject}: the request's ${where.replace(/[.[].*$/, "")} holds a value the pulumi Python SDK cannot deserialize, at ${where}: ${what}`;

  it("Create: an asset signature with no path, text or uri, in a list in an object", async function () {
    const answer = await p.client.create({ urn: urn("asset"), properties: { __provider: scripted, a: { k: [1, { [SIG]: ASSET_SIG }] } } });
    expect(answer).to.deep.equal({
      code: INVALID_ARGUMENT,
      details: refused(`Create ${urn("asset")}`, "properties.a.k[1]", "AssertionError: Invalid asset encountered when unmarshalling resource property"),
    });
  });

  it("Check: a signature the SDK does not know, under an odd key", async function () {
    const answer = await p.client.check({ urn: urn("sig"), olds: {}, news: { __provider: scripted, "odd key": { [SIG]: UNKNOWN_SIG, value: "?" } } });
    expect(answer.code, answer.details).to.equal(INVALID_ARGUMENT);
    expect(answer.details).to.match(new RegExp(`^${escape(refused(`Check ${urn("sig")}`, 'news["odd key"]', ""))}\\w+: .*signature`));
  });

  it("Update: a secret signature with no value (the SDK's ValueError, not taken for a Value with no kind set)", async function () {
    const news = { __provider: scripted, s: { b: { [SIG]: SECRET_SIG } } };
    const answer = await p.client.update({ urn: urn("secret"), id: "i", olds: { __provider: scripted }, news });
    expect(answer).to.deep.equal({ code: INVALID_ARGUMENT, details: refused(`Update ${urn("secret")}`, "news.s.b", "ValueError: Value not set") });
  });

  it("Configure: the config key is named", async function () {
    const q = await Plugin.launch("ours", { language: "python" });
    try {
      const answer = await q.client.configure({ "proj:a": "x", "proj:odd": { [SIG]: UNKNOWN_SIG } });
      expect(answer.code, answer.details).to.equal(INVALID_ARGUMENT);
      expect(answer.details).to.match(new RegExp(`^${escape(refused("Configure", 'args["proj:odd"]', ""))}\\w+: .*signature`));
      expect(answer.details).not.to.match(/internal error|\n\s+at /);
      expect(q.stderr).to.equal("");
    } finally {
      await q.stop();
    }
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Kept apart: the google-protobuf client here cannot send an unset Value itself, so the test above
// builds bytes by hand; this checks that the hand-made bytes are what google-protobuf reads as one.
describe("the hand-made bytes of the unset-Value tests", function () {
  it("decode, with google-protobuf, to a Struct whose entry has no kind set", function () {
    const s = pb.structPb.Struct.deserializeBinary(new Uint8Array(entry("bad", Buffer.alloc(0))));
    expect(s.getFieldsMap().get("bad").getKindCase()).to.equal(0);
  });
});
