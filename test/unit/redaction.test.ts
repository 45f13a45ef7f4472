// Secrets kept out of error texts: which plaintexts a request and the config
// mark as secret, how they are replaced, and that toStatus, the one mapper,
// replaces them in every text it sends (then bounds it).
import { expect } from "chai";
import { toStatus, UserOperationError, BadRequestError, WorkerDiedError } from "../../src/host/errors.js";
import { InitFailedType, StatusType } from "../../src/host/wire/proto.js";
import { redact, Redaction, REDACTED, secretTexts } from "../../src/host/secrets/redaction.js";
import { EncodedStruct } from "../../src/host/wire/struct-bytes.js";
import { encodeStruct, jsToStruct, SECRET_SIG, SIG_KEY, type WireValue } from "../../src/host/wire/wire.js";

const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });
const decoded = (o: object) => jsToStruct(o);
const encoded = (o: object) => new EncodedStruct(encodeStruct(jsToStruct(o))!);

describe("redaction: which plaintexts are secret", function () {
  for (const [form, bag] of [["decoded", decoded], ["encoded", encoded]] as const) {
    it(`finds secrets at any depth of a ${form} bag, in the forms errors quote them`, function () {
      const found = secretTexts([
        bag({
          plain: "not-a-secret",
          password: secret("hunter22"),
          nested: { deeper: [1, { token: secret("tok-\"quoted\"\nline") }] },
          number: secret(31337),
          fraction: secret(2.5e-3),
          whole: secret({ user: "admin-user", pin: 4242, flag: true, nothing: null, inner: [secret("inner-secret")] }),
          short: secret("abc"),
          bool: secret(true),
          nul: secret(null),
        }),
      ]);
      expect([...found].sort()).to.deep.equal(
        [
          "hunter22",
          'tok-"quoted"\nline',
          'tok-\\"quoted\\"\\nline',
          "31337",
          "31337.0",
          "0.0025",
          "admin-user",
          "4242",
          "4242.0",
          "inner-secret",
        ].sort(),
      );
    });
  }

  it("finds nothing in bags without secrets, in unset bags, or in a signature that is not the secret one", function () {
    expect(secretTexts([decoded({ a: "hunter22", b: { [SIG_KEY]: "c44067f5952c0a294b673a41bacd8c17", value: "an asset?" } }), undefined]).size).to.equal(0);
    expect(secretTexts([encoded({ a: "hunter22" })]).size).to.equal(0);
  });

  it("skips an encoded bag that cannot be decoded instead of failing the answer", function () {
    const broken = new EncodedStruct(Buffer.concat([Buffer.from(SECRET_SIG), Buffer.from([0x0a, 0xff])]));
    expect(secretTexts([broken]).size).to.equal(0);
  });

  it("walks a secret nested 100 000 levels deep without overflowing the stack", function () {
    // Built by hand: the recursive converters are not what is tested here.
    let v: WireValue = { structValue: jsToStruct(secret("deep-secret")) };
    for (let i = 0; i < 100_000; i++) v = { structValue: { fields: { v } } };
    expect([...secretTexts([{ fields: { top: v } }])]).to.deep.equal(["deep-secret"]);
  });

  it("a Redaction remembers the config's secrets and adds each request's own, by the RPC's Struct fields", function () {
    const r = new Redaction();
    expect(r.secretsFor("Create", { urn: "u", properties: decoded({ a: secret("request-secret") }) })).to.deep.equal(["request-secret"]);
    r.rememberConfig(decoded({ "proj:password": secret("config-password"), "proj:plain": "visible" }));
    expect(r.secretsFor("Create", { urn: "u", properties: decoded({ a: 1 }) })).to.deep.equal(["config-password"]);
    // Every Struct field of the request counts (Python mode's are still bytes).
    const both = r.secretsFor("Update", {
      olds: encodeStruct(decoded({ o: secret("old-secret-value") })),
      news: decoded({ n: secret("new-one") }),
      old_inputs: decoded({ i: secret("old-input") }),
    });
    expect([...both].sort()).to.deep.equal(["config-password", "new-one", "old-input", "old-secret-value"]);
    // Longest first, so a secret holding another goes whole.
    expect(both[0]).to.equal("old-secret-value");
    // Fields that are not Structs are never read as bags.
    expect(r.secretsFor("Check", { randomSeed: Buffer.from(SECRET_SIG), news: decoded({}) })).to.deep.equal(["config-password"]);
    expect(r.secretsFor("GetPluginInfo", {})).to.deep.equal(["config-password"]);
  });
});

describe("redaction: replacing them", function () {
  it("replaces every occurrence, longest first, and leaves other text alone", function () {
    expect(redact("a hunter22 b hunter22-long c", ["hunter22-long", "hunter22"])).to.equal(`a ${REDACTED} b ${REDACTED} c`);
    expect(redact("nothing here", ["hunter22"])).to.equal("nothing here");
    expect(redact("x", [])).to.equal("x");
  });

  it("treats secrets as text, not patterns", function () {
    expect(redact("cost: $5.00 (a+b)* [x] \\d", ["$5.00", "(a+b)*", "[x]", "\\d"])).to.equal(`cost: ${REDACTED} ${REDACTED} ${REDACTED} ${REDACTED}`);
  });

  it("handles secrets of any length and number", function () {
    const long = "L".repeat(5 * 1024 * 1024);
    expect(redact(`<${long}>`, [long, "short-one"])).to.equal(`<${REDACTED}>`);
    const many = Array.from({ length: 5000 }, (_, i) => `secret-number-${String(i).padStart(5, "0")}`);
    expect(redact("a secret-number-04999 b secret-number-00000", many)).to.equal(`a ${REDACTED} b ${REDACTED}`);
  });
});

describe("toStatus: secrets replaced, then the size bound, in every text it sends", function () {
  const secrets = ["hunter22"];

  it("status details of every kind", function () {
    for (const err of [
      new UserOperationError(2, "boom: hunter22"),
      new BadRequestError("bad hunter22"),
      new WorkerDiedError("died hunter22"),
      new TypeError("host bug hunter22"),
    ]) {
      const st = toStatus(err, "Create", { urn: "urn:x", secrets });
      expect(st.details).to.include(REDACTED).and.not.include("hunter22");
    }
  });

  it("an init failure's message and reasons, bounded in all", function () {
    const reasons = ["reason with hunter22", ...Array.from({ length: 500 }, (_, i) => `r${i} ${"x".repeat(100)}`)];
    const st = toStatus(new UserOperationError(2, "half made hunter22", { id: "i1", properties: jsToStruct({ a: 1 }), reasons }), "Create", { secrets });
    expect(st.details).to.equal(`half made ${REDACTED}`);
    const status = StatusType.decode(st.metadata.get("grpc-status-details-bin")[0] as Buffer) as any;
    expect(status.message).to.equal(st.details);
    const detail = InitFailedType.decode(status.details[0].value) as any;
    expect(detail.reasons[0]).to.equal(`reason with ${REDACTED}`);
    expect(detail.reasons.reduce((n: number, r: string) => n + Buffer.byteLength(r), 0)).to.be.at.most(8192);
    expect(detail.reasons[detail.reasons.length - 1]).to.match(/^… \[\d+ more \(\d+ bytes\) cut\] …$/);
  });

  it("a secret across the cut is replaced before cutting, so no part of it survives", function () {
    // The head keeps ≈ 4 KiB: the secret spans bytes 3 914 to 4 223 of the text, across that cut.
    const long = "hunter22-" + "q".repeat(300);
    const text = "a".repeat(3900) + long + "b".repeat(20_000);
    const st = toStatus(new UserOperationError(2, text), "Create", { urn: "urn:x", secrets: [long] });
    const head = st.details.slice(0, st.details.indexOf("… ["));
    expect(head).to.equal(`Create urn:x: ${"a".repeat(3900)}${REDACTED}${"b".repeat(head.length - 14 - 3900 - REDACTED.length)}`);
    expect(st.details).to.not.include("q").and.not.include("hunter");
    // Cut first, it would have kept the secret's beginning.
    expect(text.slice(0, head.length - 14)).to.include("hunter22-qqq");
  });

  it("a cut text is prefixed with the RPC and URN; an ordinary one is sent as it is", function () {
    const urn = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::r";
    expect(toStatus(new UserOperationError(2, "boom"), "Create", { urn }).details).to.equal("boom");
    const cut = toStatus(new UserOperationError(2, "m".repeat(1 << 20)), "Create", { urn }).details;
    expect(cut).to.match(new RegExp(`^Create ${urn}: m+… \\[\\d+ bytes cut\\] …m+$`));
    expect(Buffer.byteLength(cut)).to.be.at.most(8192);
  });
});
