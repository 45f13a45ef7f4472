// Secrets, both languages: a provider whose error quotes a value the request
// marks secret, or a secret config value (the references send the plaintext;
// ours "[secret]" in its place, otherwise the reference's text: docs/parity.md,
// "Secrets in error texts"); and a provider that returns `pulumi.secret(v)`
// (Node) or `Output.secret(v)` (Python) in its results (the references cannot:
// pulumi#3012, #6860; ours sends each as the secret signature object, which the
// engine stores as a secret: docs/parity.md, "Secrets out").
import { contains, equal, matches, notContains, secret, session, type Case, type CaseContext, type Language } from "../case.js";
import type { Outcome, Props } from "../client.js";

const lastLine = (s: string) => s.trimEnd().split("\n").pop()!;
const REDACTION_DOC = "docs/parity.md#secrets-in-error-texts";
const SECRETS_OUT_DOC = "docs/parity.md#secrets-out";

// ---------------------------------------------------------------- secrets in error texts

function redactionCases(language: Language): Case[] {
  const s = session({
    id: `${language === "nodejs" ? "node" : "python"}/secret-redaction`,
    language,
    suite: [`${language}: secrets in error texts, ours beside the reference`],
    async setup(ctx) {
      const o = await ctx.client.configure({ "proj:password": secret("config-pa55word") });
      if (o.code !== 0) throw new Error(`Configure with a secret value failed: ${o.details}`);
    },
  });
  const leaky = (ctx: CaseContext) => ctx.payload("leaky", language === "nodejs" ? "node-providers-errors" : "python_providers_errors");

  /** Ours is the reference's text with each plaintext replaced (Python: the exception line; its plumbing frames differ). */
  const redacted = (plaintext: string) => ({
    ours(o: Outcome) {
      equal(o.code, 2, "status");
      notContains(o.details, plaintext, "ours' details");
      contains(o.details, "[secret]", "ours' details");
    },
    relate(o: Outcome, r: Outcome) {
      if (language === "nodejs") equal(o.details, r.details.split(plaintext).join("[secret]"));
      else equal(lastLine(o.details), lastLine(r.details).split(plaintext).join("[secret]"));
    },
  });

  const secretConfig = redacted("config-pa55word");
  return [
    s.case<Outcome>("create-secret-input", {
      title: "[difference] a create error quoting an input the request marks secret: ours [secret], the reference the value",
      ask: async (ctx) => ctx.client.create({ urn: ctx.urn("s"), properties: { __provider: await leaky(ctx), quote: secret("s3cr3t-input") } }),
      expect: (o) => equal(o.code, 2, "status"),
      difference: {
        doc: REDACTION_DOC,
        // The reference hands its provider the {sig, value} object (an engine never sends it one: it answers acceptSecrets
        // false), whose text quotes the plaintext. Ours accepts secrets and unwraps them: the provider sees the value, as
        // under the engine, and what it quotes is redacted.
        ours(o) {
          notContains(o.details, "s3cr3t-input", "ours' details");
          if (language === "nodejs") equal(o.details, "could not create with [secret]");
          else equal(lastLine(o.details), "Exception: could not create with [secret]");
        },
        reference: (o) => contains(o.details, "s3cr3t-input", "the reference sends the plaintext"),
      },
    }),
    s.case<Outcome>("configure-accept-secrets", {
      title: "[difference] Configure: ours answers acceptSecrets true, the reference false",
      ask: (ctx) => ctx.client.configure({ "proj:password": secret("config-pa55word") }, (resp: any) => resp.getAcceptsecrets()),
      expect: (o) => equal(o.code, 0, o.details),
      difference: {
        doc: REDACTION_DOC,
        ours: (o) => equal(o.view, true, "acceptSecrets"),
        reference: (o) => equal(o.view, false, "acceptSecrets"),
      },
    }),
    s.case<Outcome>("create-secret-config", {
      title: "[difference] a create error quoting a secret config value: ours [secret], the reference the value",
      ask: async (ctx) => ctx.client.create({ urn: ctx.urn("c"), properties: { __provider: await leaky(ctx), fail: "config" } }),
      relate: secretConfig.relate,
      difference: {
        doc: REDACTION_DOC,
        ours: secretConfig.ours,
        reference(o) {
          equal(o.code, 2, "status");
          contains(o.details, "config-pa55word", "the reference sends the plaintext");
          matches(lastLine(o.details), /could not log in with password config-pa55word$/);
        },
      },
    }),
    s.case<Outcome>("create-plain-text", {
      title: "the same text, not marked secret, is sent alike by both",
      ask: async (ctx) => ctx.client.create({ urn: ctx.urn("p"), properties: { __provider: await leaky(ctx), quote: "s3cr3t-input" } }),
      compare: (o) => ({ code: o.code, text: language === "nodejs" ? o.details : lastLine(o.details) }),
      expect(o) {
        if (language === "nodejs") equal(o.details, "could not create with s3cr3t-input");
        else equal(lastLine(o.details), "Exception: could not create with s3cr3t-input");
      },
    }),
  ];
}

// ---------------------------------------------------------------- secrets out

function secretsOutCases(language: Language): Case[] {
  const s = session({
    id: `${language === "nodejs" ? "node" : "python"}/secrets-out`,
    language,
    suite: [`${language}: secrets out, ours beside the reference`],
    async setup(ctx) {
      const o = await ctx.client.configure({});
      if (o.code !== 0) throw new Error(`Configure failed: ${o.details}`);
    },
  });
  const payload = (ctx: CaseContext, name: string) => ctx.payload(name, language === "nodejs" ? "node-providers-secrets" : "python_providers_secrets");
  const props = (provider: string): Props => ({ __provider: provider, token: "t0k3n-plaintext", inner: "inn3r-plaintext", echo: "e-visible" });

  /** How the reference fails on a result holding an Output. */
  const referenceFails = (o: Outcome) => {
    equal(o.code, 2, "the reference fails");
    if (language === "nodejs") equal(o.details, "Unexpected struct type.");
    else matches(o.details, /RuntimeError: There is no current event loop in thread/);
  };

  const cases: Case[] = [
    s.case<{ provider: string; o: Outcome }>("create-secret-outputs", {
      title: "[difference] create returning secret Outputs: ours sends them as secrets, the reference fails",
      async ask(ctx) {
        const provider = await payload(ctx, "secretOuts");
        return { provider, o: await ctx.client.create({ urn: ctx.urn("s"), properties: props(provider) }) };
      },
      difference: {
        doc: SECRETS_OUT_DOC,
        ours({ provider, o }) {
          equal(o.code, 0, o.details);
          equal(o.view.properties, {
            __provider: provider,
            token: secret("t0k3n-plaintext"),
            nested: { inner: secret("inn3r-plaintext"), plain: "p-visible" },
            list: [secret("inn3r-plaintext"), "l-visible"],
            viaOutput: "o-visible",
            plain: "visible",
            echo: "e-visible",
          });
        },
        reference: ({ o }) => referenceFails(o),
      },
    }),
    s.case<{ provider: string; update: Outcome; read: Outcome }>("update-read-secret-output", {
      title: "[difference] update and read returning a secret Output: ours sends it as a secret, the reference fails",
      async ask(ctx) {
        const provider = await payload(ctx, "secretOuts");
        const update = await ctx.client.update({ urn: ctx.urn("s"), id: "s1", olds: props(provider), news: { ...props(provider), token: "n3w-t0k3n" } });
        const read = await ctx.client.read({ urn: ctx.urn("s"), id: "s1", properties: { __provider: provider, plain: "visible" } });
        return { provider, update, read };
      },
      difference: {
        doc: SECRETS_OUT_DOC,
        ours({ provider, update, read }) {
          equal(update.code, 0, update.details);
          equal(update.view.properties, { __provider: provider, token: secret("n3w-t0k3n"), plain: "visible" });
          equal(read.code, 0, read.details);
          equal(read.view.properties, { __provider: provider, plain: "visible", token: secret("read-visible") });
        },
        reference({ update, read }) {
          equal(update.code, 2, "the reference's Update fails");
          equal(read.code, 2, "the reference's Read fails");
        },
      },
    }),
    s.case<Outcome>("echoed-request-secret", {
      title: "a secret of the request echoed back is returned as the secret object it came as",
      // The request's own secret echoed back: both keep the object, the engine stores a secret.
      ask: async (ctx) => ctx.client.create({ urn: ctx.urn("e"), properties: { ...props(await payload(ctx, "secretOuts")), echo: secret("ech0-secret") } }),
      difference: {
        doc: SECRETS_OUT_DOC,
        ours(o) {
          equal(o.code, 0, o.details);
          equal(o.view.properties.echo, secret("ech0-secret"));
        },
        // The reference fails on the Outputs before the echo matters (its echo alone: row 44's case).
        reference: (o) => equal(o.code, 2, "the reference fails"),
      },
    }),
  ];
  if (language === "python") {
    cases.push(
      s.case<{ provider: string; o: Outcome }>("async-secret-output", {
        title: "[difference] an async create's Output.secret (made on the worker's loop) is a secret too",
        only: "plugin",
        onlyWhy: "the test asked ours only; the reference's answer is recorded for the kit",
        async ask(ctx) {
          const provider = await payload(ctx, "asyncSecretOuts");
          return { provider, o: await ctx.client.create({ urn: ctx.urn("a"), properties: { __provider: provider, token: "as-t0k3n" } }) };
        },
        difference: {
          doc: SECRETS_OUT_DOC,
          ours({ provider, o }) {
            equal(o.code, 0, o.details);
            equal(o.view.properties, { __provider: provider, token: secret("as-t0k3n"), plain: "visible" });
          },
          reference: ({ o }) => equal(o.code, 2, "the reference fails"),
        },
      }),
    );
  }
  return cases;
}

export const secretRedaction: Case[] = [...redactionCases("nodejs"), ...redactionCases("python")];
export const secretsOut: Case[] = [...secretsOutCases("nodejs"), ...secretsOutCases("python")];
