// Strings that are not valid UTF-8, in a request's own fields and in its
// bags, against our plugins started like the engine starts them: every one is
// refused as INVALID_ARGUMENT naming the field (and the property, in a bag),
// with the same text in both modes, before any provider code or Python worker
// sees it. Proto3 requires valid UTF-8 in strings (Go's protobuf and upb
// refuse the message); unchecked, Node mode put U+FFFD in place of the bad
// bytes without a word and Python mode answered upb's DecodeError traceback.
import { expect } from "chai";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";
import { call, entry, len, stringValue, text } from "../helpers/wire-bytes.js";

const INVALID_ARGUMENT = 3;
const NOT_UTF8 = "is not valid UTF-8, as every protobuf string must be";

for (const language of ["nodejs", "python"] as const) {
  const urn = `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::utf8`;

  describe(`strings that are not valid UTF-8, ${language} mode: refused naming the field, never replaced or misread`, function () {
    let p: Plugin;
    let provider: string;

    before(async function () {
      provider = language === "nodejs" ? await nodeProvider("scripted") : pythonProvider("scripted");
      p = await Plugin.launch("ours", { language });
    });
    after(async function () {
      await p?.stop();
    });

    const good = () => entry("__provider", stringValue(provider));
    /** An entry whose key or string value is the given bytes. */
    const rawEntry = (key: Buffer, value: Buffer) => len(1, Buffer.concat([len(1, key), len(2, len(3, value))]));

    /** Serving, silent. */
    afterEach(async function () {
      if (this.currentTest?.state !== "passed") return;
      const ok = await call(p.port, "Create", Buffer.concat([text(1, urn), len(2, Buffer.concat([good(), entry("a", stringValue("é🙂"))]))]));
      expect(ok.code, ok.details).to.equal(0);
      expect(p.stdout).to.have.length(1);
      expect(p.stderr).to.equal("");
    });

    const cases: [string, () => Buffer, string][] = [
      [
        "in the urn",
        () => Buffer.concat([len(1, Buffer.from([0x75, 0x72, 0x6e, 0xff])), len(2, good())]),
        `Create (no urn): the request is not a valid CreateRequest: CreateRequest.urn (field 1) ${NOT_UTF8}`,
      ],
      [
        "in a string value (a lone surrogate)",
        () => Buffer.concat([text(1, urn), len(2, Buffer.concat([good(), rawEntry(Buffer.from("k"), Buffer.from([0x61, 0xed, 0xa0, 0x80]))]))]),
        `Create ${urn}: the request's properties is not a valid encoded protobuf Struct: in property "k": the string_value of a Value (field 3) ${NOT_UTF8}`,
      ],
      [
        "in a key",
        () => Buffer.concat([text(1, urn), len(2, Buffer.concat([good(), rawEntry(Buffer.from([0x6b, 0xc3]), Buffer.from("v"))]))]),
        `Create ${urn}: the request's properties is not a valid encoded protobuf Struct: in property "k\ufffd": the key of an entry (field 1) ${NOT_UTF8}`,
      ],
      [
        "in __provider (cut inside a character)",
        () => Buffer.concat([text(1, urn), len(2, rawEntry(Buffer.from("__provider"), Buffer.concat([Buffer.from(provider.slice(0, 40)), Buffer.from([0xe2, 0x82])])))]),
        `Create ${urn}: the request's properties is not a valid encoded protobuf Struct: in property "__provider": the string_value of a Value (field 3) ${NOT_UTF8}`,
      ],
    ];
    for (const [where, body, details] of cases) {
      it(where, async function () {
        const answer = await call(p.port, "Create", body());
        expect(answer.code, answer.details).to.equal(INVALID_ARGUMENT);
        expect(answer.details).to.match(new RegExp(`^${details.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} at byte \\d+$`));
      });
    }
  });
}
