// src/node-dynamic/secret-outputs.ts with real Outputs of @pulumi/pulumi: what
// a provider's result becomes before it is written (docs/parity.md, "Secrets out").
import { expect } from "chai";
import { createRequire } from "node:module";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { ProviderResultError } from "../../src/host/errors.js";
import type { CallInfo } from "../../src/host/runtime.js";
import { resolveOutputs } from "../../src/node-dynamic/secret-outputs.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const call: CallInfo = { operation: "Create", urn: "urn:pulumi:s::p::pulumi-nodejs:dynamic:Resource::r", signal: new CallSignal(), secrets: () => [] };

describe("secret outputs: Outputs in what a Node provider returns", function () {
  it("a value without Outputs is returned as the same object", async function () {
    const outs = { a: 1, b: [{ c: "x" }], d: null };
    expect(await resolveOutputs(call, "create", "outs", outs)).to.equal(outs);
  });

  it("secret Outputs become secret signature objects, others their values; the user's objects are left alone", async function () {
    const inner = { s: pulumi.secret("pw"), keep: "k" };
    const outs = { top: pulumi.secret({ n: 1 }), plain: pulumi.output("v"), inner, list: [pulumi.secret(2), 3] };
    const resolved = await resolveOutputs(call, "create", "outs", outs);
    expect(resolved).to.deep.equal({
      top: { [SIG]: SECRET, value: { n: 1 } },
      plain: "v",
      inner: { s: { [SIG]: SECRET, value: "pw" }, keep: "k" },
      list: [{ [SIG]: SECRET, value: 2 }, 3],
    });
    expect(outs.inner).to.equal(inner);
    expect(pulumi.Output.isInstance(inner.s)).to.equal(true);
  });

  it("an Output whose value is not known is refused, naming where it is", async function () {
    const unknown = new pulumi.Output(new Set(), Promise.resolve(undefined), Promise.resolve(false), Promise.resolve(false), Promise.resolve(new Set()));
    const err = await Promise.resolve(resolveOutputs(call, "create", "outs", { a: { b: unknown } })).then(
      () => undefined,
      (e: any) => e,
    );
    expect(err).to.be.instanceOf(ProviderResultError);
    expect(err.message).to.equal(
      `Create ${call.urn}: the dynamic provider's create returned outs.a.b = an Output whose value is not known; ` +
        `the engine stores only known values, so return the value itself (or an Output of it)`,
    );
  });

  it("a value without Outputs comes back as it is, not as a promise", function () {
    const outs = { a: 1 };
    expect(resolveOutputs(call, "create", "outs", outs)).to.equal(outs);
  });

  it("a circular value (even one referring to itself twice: no walk of every path) is left for the Struct writer to name", async function () {
    const outs: Record<string, unknown> = { a: 1 };
    outs.self = outs;
    outs.again = outs;
    expect(resolveOutputs(call, "create", "outs", outs)).to.equal(outs);
  });
});
