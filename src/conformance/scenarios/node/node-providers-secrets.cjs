// Node dynamic providers for secrets out, the call context and the debugger
// (issue 20): test/differential/secrets-out.test.ts, test/plugin/call-context.test.ts,
// test/e2e/secrets-context.test.ts and test/e2e/debug-attach.test.ts. They
// use the program's own @pulumi/pulumi (required by the serialized text, as a
// real program's provider does).
"use strict";
const pulumi = require("@pulumi/pulumi");
const { providerFixture } = require("./serialize.cjs");

/** Returns props.token as a secret, a nested secret, a plain Output and plain values. */
const secretOuts = {
  async create(props) {
    return {
      id: "s1",
      outs: {
        token: pulumi.secret(props.token),
        nested: { inner: pulumi.secret(props.inner), plain: "p-visible" },
        list: [pulumi.secret(props.inner), "l-visible"],
        viaOutput: pulumi.output("o-visible"),
        plain: "visible",
        echo: props.echo,
      },
    };
  },
  async update(id, olds, news) {
    return { outs: { token: pulumi.secret(news.token), plain: "visible" } };
  },
  async read(id, props) {
    return { id, props: { ...props, token: pulumi.secret("read-" + props.plain) } };
  },
};

/** Makes a secret of its own (its plaintext is in no input) beside plain outputs, and echoes `echo`. */
const minted = {
  async create(props) {
    return {
      id: "m1",
      outs: { password: pulumi.secret(`${props.seed}-minted`), note: pulumi.output("plain-note"), plain: "visible", echo: props.echo },
    };
  },
};

/** For the debugger test (test/e2e/debug-attach.test.ts): a breakpoint goes on the marked line. */
const debuggee = {
  async create(props) {
    const greeting = `hello ${props.who}`; // breakpoint-here
    return { id: "d1", outs: { greeting } };
  },
};

/** Reports the call context of every method in its outputs or failures. */
const contextEcho = {
  async check(olds, news, context) {
    return { inputs: { ...news, checkContext: summary(context) } };
  },
  async diff(id, olds, news, context) {
    if (news.failDiff) throw new Error("diff context " + JSON.stringify(summary(context)));
    return { changes: olds.value !== news.value };
  },
  async create(props, context) {
    return { id: "c1", outs: { ...props, createContext: summary(context) } };
  },
  async update(id, olds, news, context) {
    return { outs: { ...news, updateContext: summary(context) } };
  },
  async read(id, props, context) {
    return { id, props: { ...props, readContext: summary(context) } };
  },
  async delete(id, props, context) {
    if (props.failDelete) throw new Error("delete context " + JSON.stringify(summary(context)));
    // Under the real engine (a destroy must succeed): the context goes to a file the test names.
    if (props.reportTo) require("fs").writeFileSync(props.reportTo, JSON.stringify(summary(context)));
  },
};

/** Waits until its call is cancelled (the context's signal), then says why on stderr. */
const abortable = {
  async create(props, context) {
    const reason = await new Promise((resolve) => {
      if (context.signal.aborted) resolve(context.signal.reason);
      context.signal.addEventListener("abort", () => resolve(context.signal.reason), { once: true });
      console.error(`create ${props.label} waiting for abort`);
    });
    console.error(`create saw abort: ${reason && reason.message}`);
    return { id: "late", outs: {} };
  },
};

function summary(context) {
  if (context === undefined) return "no context";
  return {
    operation: context.operation,
    urn: context.urn,
    name: context.name,
    type: context.type,
    preview: context.preview === undefined ? "unset" : context.preview,
    deadline: context.deadline === undefined ? "unset" : context.deadline.toISOString(),
    signal: context.signal instanceof AbortSignal && !context.signal.aborted,
    oldInputs: context.oldInputs === undefined ? "unset" : context.oldInputs,
  };
}

const providers = { secretOuts, minted, contextEcho, abortable, debuggee };

module.exports = { ...providerFixture(providers), providers, summary };
