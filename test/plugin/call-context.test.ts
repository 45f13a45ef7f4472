// The call context (issue 20): the extra argument a provider method may take,
// as the method sees it, in both languages, ours beside the reference. The
// providers (test/fixtures/node-providers-secrets.cjs,
// python_providers_secrets.py) report the context in their outputs, or in an
// error text for Diff and Delete. Under the real engine: test/e2e/secrets-context.test.ts.
import { expect } from "chai";
import { onBoth } from "../helpers/pair.js";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { launchPair, type Plugin } from "../helpers/plugin.js";

const TYPE = (language: string) => `pulumi-${language}:dynamic:Resource`;

/** The JSON a provider put after `prefix` in an error text (Python: the traceback's last line). */
function reported(details: string, prefix: string): any {
  const m = new RegExp(`${prefix} (\\{.*\\})`).exec(details);
  expect(m, details).to.not.equal(null);
  return JSON.parse(m![1]);
}

for (const language of ["nodejs", "python"] as const) {
  const type = TYPE(language);
  const urn = (name: string) => `urn:pulumi:dev::proj::${type}::${name}`;
  const payload = (name: string) =>
    language === "nodejs" ? nodeProvider(name, "node-providers-secrets.cjs") : Promise.resolve(pythonProvider(name, "python_providers_secrets.py"));
  const live = language === "nodejs" ? { signal: true } : { cancelled: false };

  describe(`${language}: the call context a provider method sees`, function () {
    let ours: Plugin;
    let ref: Plugin;
    let echo: string;

    before(async function () {
      ({ ours, ref } = await launchPair({ language }));
      echo = await payload("contextEcho");
      const [o, r] = await onBoth(ours, ref, (p) => p.client.configure({}));
      expect([o.code, r.code]).to.deep.equal([0, 0]);
    });
    after(async function () {
      await Promise.all([ours?.stop(), ref?.stop()]);
    });

    it("[difference] create: urn, name, type, operation, the preview flag and the deadline from the request's timeout", async function () {
      const before = Date.now();
      const [o, r] = await onBoth(ours, ref, (p) =>
        p.client.create({ urn: urn("c"), type, name: "c", timeout: 120, properties: { __provider: echo, a: "x" } }),
      );
      const after = Date.now();
      expect(o.code, o.details).to.equal(0);
      const seen = o.view.properties.createContext;
      expect({ ...seen, deadline: undefined }).to.deep.equal({
        operation: "create",
        urn: urn("c"),
        name: "c",
        type,
        preview: false,
        deadline: undefined,
        ...live,
        oldInputs: "unset",
      });
      // The deadline is the request's 120 s from when the host took the call: between the two clocks read around it.
      const deadline = Date.parse(seen.deadline);
      expect(deadline).to.be.within(before + 120_000 - 1, after + 120_000 + 1);
      // The references pass no context: Node's method sees none; Python's keyword-only parameter is never filled.
      if (language === "nodejs") {
        expect(r.code).to.equal(0);
        expect(r.view.properties.createContext).to.equal("no context");
      } else {
        expect(r.code).to.equal(2);
        expect(r.details).to.match(/TypeError: ContextEcho\.create\(\) missing 1 required keyword-only argument: 'context'/);
      }
    });

    it("check and read: no preview flag in the request, so preview is unset; no timeout, so no deadline", async function () {
      const c = await ours.client.check({ urn: urn("k"), type, name: "k", olds: {}, news: { __provider: echo, a: "x" } });
      expect(c.code, c.details).to.equal(0);
      expect(c.view.inputs.checkContext).to.deep.equal({ operation: "check", urn: urn("k"), name: "k", type, preview: "unset", deadline: "unset", ...live, oldInputs: "unset" });
      const rd = await ours.client.read({ urn: urn("k"), type, name: "k", id: "c1", properties: { __provider: echo, a: "x" } });
      expect(rd.code, rd.details).to.equal(0);
      expect(rd.view.properties.readContext).to.deep.equal({ operation: "read", urn: urn("k"), name: "k", type, preview: "unset", deadline: "unset", ...live, oldInputs: "unset" });
    });

    it("update (Python: a `context=None` parameter) and diff (Python: **kwargs)", async function () {
      const u = await ours.client.update({ urn: urn("u"), type, name: "u", id: "c1", olds: { __provider: echo, a: "x" }, news: { __provider: echo, a: "y" } });
      expect(u.code, u.details).to.equal(0);
      expect(u.view.properties.updateContext).to.deep.equal({ operation: "update", urn: urn("u"), name: "u", type, preview: false, deadline: "unset", ...live, oldInputs: "unset" });
      const d = await ours.client.diff({ urn: urn("u"), type, name: "u", id: "c1", olds: { __provider: echo }, news: { __provider: echo, failDiff: true } });
      expect(d.code).to.equal(2);
      expect(reported(d.details, "diff context")).to.deep.equal({ operation: "diff", urn: urn("u"), name: "u", type, preview: "unset", deadline: "unset", ...live, oldInputs: "unset" });
    });

    it("delete: the old inputs the engine sends, as the method's other bags are given; preview false", async function () {
      const d = await ours.client.delete({
        urn: urn("d"),
        type,
        name: "d",
        id: "c1",
        properties: { __provider: echo, failDelete: true },
        oldInputs: { __provider: echo, a: "old-a", n: 1 },
      });
      expect(d.code).to.equal(2);
      expect(reported(d.details, "delete context")).to.deep.equal({
        operation: "delete",
        urn: urn("d"),
        name: "d",
        type,
        preview: false,
        deadline: "unset",
        ...live,
        oldInputs: { __provider: echo, a: "old-a", n: 1 },
      });
    });

    it("the name and type come from the URN when the request leaves them out", async function () {
      const c = await ours.client.create({ urn: urn("from-urn"), properties: { __provider: echo } });
      expect(c.code, c.details).to.equal(0);
      expect(c.view.properties.createContext).to.include({ name: "from-urn", type });
    });

    it("a method stops when its call's timeout passes: the context's signal / cancelled event fires", async function () {
      const waiting = await payload(language === "nodejs" ? "abortable" : "cancellable");
      const c = await ours.client.create({ urn: urn("slow"), type, name: "slow", timeout: 1, properties: { __provider: waiting } });
      expect(c.code).to.equal(4); // DEADLINE_EXCEEDED
      const line = language === "nodejs" ? "create saw abort: Create " + urn("slow") + ": did not finish within the 1 s timeout" : "create saw cancelled";
      await ours.until(() => ours.stderr.includes(line), `the provider's "${line}"`);
    });

    if (language === "nodejs") {
      it("the engine's Cancel aborts the signal of calls in flight; the method's own answer still goes back", async function () {
        const waiting = await payload("abortable");
        const pending = ours.client.create({ urn: urn("cancelled"), type, name: "cancelled", properties: { __provider: waiting, label: "c1" } });
        await ours.until(() => ours.stderr.includes("create c1 waiting for abort"), "the create to wait on its signal");
        expect((await ours.client.cancel()).code).to.equal(0);
        const answer = await pending;
        expect(answer.code, answer.details).to.equal(0);
        expect(answer.view.id).to.equal("late");
        expect(ours.stderr).to.include("create saw abort: the engine cancelled the deployment");
        // A call after the Cancel gets a fresh signal (a debug host serves deployment after deployment).
        const echo2 = await ours.client.create({ urn: urn("after"), type, name: "after", properties: { __provider: echo } });
        expect(echo2.view.properties.createContext.signal, "not aborted").to.equal(true);
      });
    }

    if (language === "python") {
      it("signatures that do not ask get no context, and are called as by the reference", async function () {
        const none = await payload("noContext");
        const [o, r] = await onBoth(ours, ref, (p) => p.client.create({ urn: urn("n"), properties: { __provider: none } }));
        expect(o.code, o.details).to.equal(0);
        expect(o.view.properties).to.deep.equal(r.view.properties).and.deep.equal({ __provider: none, retries: 3 });
        const [ou, ru] = await onBoth(ours, ref, (p) => p.client.update({ urn: urn("n"), id: "n1", olds: { __provider: none }, news: { __provider: none } }));
        expect(ou.code, ou.details).to.equal(0);
        expect(ou.view.properties).to.deep.equal(ru.view.properties).and.deep.equal({ __provider: none, args: 0 });
      });
    }
  });
}
