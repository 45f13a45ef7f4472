// Secrets in error texts, ours beside each reference: a provider whose error
// quotes a value the request marks secret, or a secret config value. The
// references send the plaintext; ours sends "[secret]" in its place and is
// otherwise the reference's text (docs/parity.md, "Secrets in error texts").
import { expect } from "chai";
import { onBoth } from "../helpers/pair.js";
import { nodeProvider, pythonProvider, SECRET_SIG, SIG } from "../helpers/payloads.js";
import { launchPair, type Plugin } from "../helpers/plugin.js";

const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
const lastLine = (s: string) => s.trimEnd().split("\n").pop()!;

for (const language of ["nodejs", "python"] as const) {
  const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::${name}`;

  describe(`${language}: secrets in error texts, ours beside the reference`, function () {
    let ours: Plugin;
    let ref: Plugin;
    let leaky: string;

    before(async function () {
      ({ ours, ref } = await launchPair({ language }));
      leaky = language === "nodejs" ? await nodeProvider("leaky", "node-providers-errors.cjs") : pythonProvider("leaky", "python_providers_errors.py");
      const [o, r] = await onBoth(ours, ref, (p) => p.client.configure({ "proj:password": secret("config-pa55word") }));
      expect([o.code, r.code]).to.deep.equal([0, 0]);
    });
    after(async function () {
      await Promise.all([ours?.stop(), ref?.stop()]);
    });

    /** Ours is the reference's text with each plaintext replaced; checked on the text the user code wrote. */
    function expectRedacted(o: { code: number; details: string }, r: { code: number; details: string }, plaintext: string): void {
      expect(o.code).to.equal(r.code).and.equal(2);
      expect(r.details, "the reference sends the plaintext").to.include(plaintext);
      expect(o.details).to.not.include(plaintext);
      expect(o.details).to.include("[secret]");
      // Node's details are the message itself; Python's are a traceback whose plumbing frames differ (docs/parity.md).
      if (language === "nodejs") expect(o.details).to.equal(r.details.split(plaintext).join("[secret]"));
      else expect(lastLine(o.details)).to.equal(lastLine(r.details).split(plaintext).join("[secret]"));
    }

    it("[difference] a create error quoting an input the request marks secret: ours [secret], the reference the value", async function () {
      const [o, r] = await onBoth(ours, ref, (p) => p.client.create({ urn: urn("s"), properties: { __provider: leaky, quote: secret("s3cr3t-input") } }));
      expect(o.code).to.equal(r.code).and.equal(2);
      // The reference hands its provider the {sig, value} object (an engine never sends it one: it answers acceptSecrets
      // false), whose text quotes the plaintext. Ours accepts secrets and unwraps them: the provider sees the value, as
      // under the engine, and what it quotes is redacted.
      expect(r.details, "the reference sends the plaintext").to.include("s3cr3t-input");
      expect(o.details).to.not.include("s3cr3t-input");
      if (language === "nodejs") expect(o.details).to.equal("could not create with [secret]");
      else expect(lastLine(o.details)).to.equal("Exception: could not create with [secret]");
    });

    it("[difference] Configure: ours answers acceptSecrets true, the reference false", async function () {
      const [o, r] = await onBoth(ours, ref, (p) => p.client.configure({ "proj:password": secret("config-pa55word") }, (resp: any) => resp.getAcceptsecrets()));
      expect([o.code, r.code]).to.deep.equal([0, 0]);
      expect({ ours: o.view, reference: r.view }).to.deep.equal({ ours: true, reference: false });
    });

    it("[difference] a create error quoting a secret config value: ours [secret], the reference the value", async function () {
      const [o, r] = await onBoth(ours, ref, (p) => p.client.create({ urn: urn("c"), properties: { __provider: leaky, fail: "config" } }));
      expectRedacted(o, r, "config-pa55word");
      expect(lastLine(r.details)).to.match(/could not log in with password config-pa55word$/);
    });

    it("the same text, not marked secret, is sent alike by both", async function () {
      const [o, r] = await onBoth(ours, ref, (p) => p.client.create({ urn: urn("p"), properties: { __provider: leaky, quote: "s3cr3t-input" } }));
      expect(o.code).to.equal(r.code);
      if (language === "nodejs") expect(o.details).to.equal(r.details).and.equal("could not create with s3cr3t-input");
      else expect(lastLine(o.details)).to.equal(lastLine(r.details)).and.equal("Exception: could not create with s3cr3t-input");
    });
  });
}
