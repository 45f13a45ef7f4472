// Secrets out (issue 20): a provider that returns `pulumi.secret(v)` (Node) or
// `Output.secret(v)` (Python) in its results, ours beside each reference. The
// references cannot return one (pulumi#3012, #6860: Node fails on the Output
// object, Python on the event loop its gRPC thread lacks); ours sends each
// secret as the secret signature object, which the engine stores as a secret
// (under the real engine: test/e2e/secrets-context.test.ts). Plain Outputs
// become their values; plain values stay plain (docs/parity.md, "Secrets out").
import { expect } from "chai";
import { onBoth } from "../helpers/pair.js";
import { nodeProvider, pythonProvider, SECRET_SIG, SIG } from "../helpers/payloads.js";
import { launchPair, type Plugin } from "../helpers/plugin.js";

const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });

for (const language of ["nodejs", "python"] as const) {
  const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::${name}`;
  const payload = (name: string) =>
    language === "nodejs" ? nodeProvider(name, "node-providers-secrets.cjs") : Promise.resolve(pythonProvider(name, "python_providers_secrets.py"));

  describe(`${language}: secrets out, ours beside the reference`, function () {
    let ours: Plugin;
    let ref: Plugin;
    let provider: string;

    before(async function () {
      ({ ours, ref } = await launchPair({ language }));
      provider = await payload("secretOuts");
      const [o, r] = await onBoth(ours, ref, (p) => p.client.configure({}));
      expect([o.code, r.code]).to.deep.equal([0, 0]);
    });
    after(async function () {
      await Promise.all([ours?.stop(), ref?.stop()]);
    });

    const props = () => ({ __provider: provider, token: "t0k3n-plaintext", inner: "inn3r-plaintext", echo: "e-visible" });

    it("[difference] create returning secret Outputs: ours sends them as secrets, the reference fails", async function () {
      const [o, r] = await onBoth(ours, ref, (p) => p.client.create({ urn: urn("s"), properties: props() }));
      expect(o.code, o.details).to.equal(0);
      expect(o.view.properties).to.deep.equal({
        __provider: provider,
        token: secret("t0k3n-plaintext"),
        nested: { inner: secret("inn3r-plaintext"), plain: "p-visible" },
        list: [secret("inn3r-plaintext"), "l-visible"],
        viaOutput: "o-visible",
        plain: "visible",
        echo: "e-visible",
      });
      expect(r.code, "the reference fails").to.equal(2);
      if (language === "nodejs") expect(r.details).to.equal("Unexpected struct type.");
      else expect(r.details).to.match(/RuntimeError: There is no current event loop in thread/);
    });

    it("[difference] update and read returning a secret Output: ours sends it as a secret, the reference fails", async function () {
      const [o, r] = await onBoth(ours, ref, (p) =>
        p.client.update({ urn: urn("s"), id: "s1", olds: props(), news: { ...props(), token: "n3w-t0k3n" } }),
      );
      expect(o.code, o.details).to.equal(0);
      expect(o.view.properties).to.deep.equal({ __provider: provider, token: secret("n3w-t0k3n"), plain: "visible" });
      expect(r.code).to.equal(2);
      const [or, rr] = await onBoth(ours, ref, (p) => p.client.read({ urn: urn("s"), id: "s1", properties: { __provider: provider, plain: "visible" } }));
      expect(or.code, or.details).to.equal(0);
      expect(or.view.properties).to.deep.equal({ __provider: provider, plain: "visible", token: secret("read-visible") });
      expect(rr.code).to.equal(2);
    });

    it("a secret of the request echoed back is returned as the secret object it came as", async function () {
      // The request's own secret echoed back: both keep the object, the engine stores a secret.
      const echoing = { ...props(), echo: secret("ech0-secret") };
      const [o, r] = await onBoth(ours, ref, (p) => p.client.create({ urn: urn("e"), properties: echoing }));
      expect(o.code, o.details).to.equal(0);
      expect(o.view.properties.echo).to.deep.equal(secret("ech0-secret"));
      // The reference fails on the Outputs before the echo matters (its echo alone: row 44's test).
      expect(r.code).to.equal(2);
    });

    if (language === "python") {
      it("[difference] an async create's Output.secret (made on the worker's loop) is a secret too", async function () {
        const asyncProvider = await payload("asyncSecretOuts");
        const o = await ours.client.create({ urn: urn("a"), properties: { __provider: asyncProvider, token: "as-t0k3n" } });
        expect(o.code, o.details).to.equal(0);
        expect(o.view.properties).to.deep.equal({ __provider: asyncProvider, token: secret("as-t0k3n"), plain: "visible" });
      });
    }
  });
}
