// The shared core against a fake runtime that records what it was asked: which
// bag held the provider, what the response carries, and how failures map.
import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { DynamicCore, typeOfUrn } from "../../src/host/core.js";
import { BadRequestError, toStatus, UserOperationError, ProviderResultError, NotImplementedError, CancelledError, WorkerDiedError } from "../../src/host/errors.js";
import { NODEJS, PYTHON } from "../../src/host/plugin/modes.js";
import { StatusType, InitFailedType, INIT_FAILED_TYPE_URL } from "../../src/host/wire/proto.js";
import type { ProviderReference } from "../../src/host/references/provider-references.js";
import type { Bag, CallInfo, DynamicRuntime, ProviderSource } from "../../src/host/runtime.js";
import { EncodedStruct } from "../../src/host/wire/struct-bytes.js";
import { encodeStruct, jsToStruct, structToJs, type AnyStruct } from "../../src/host/wire/wire.js";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
type Form = DynamicRuntime["bags"];
/** A bag in either form a runtime may take and give. */
const bag = (form: Form, o: object): AnyStruct => (form === "encoded" ? new EncodedStruct(encodeStruct(jsToStruct(o))!) : jsToStruct(o));
const s = (o: object) => jsToStruct(o);

class FakeRuntime implements DynamicRuntime {
  readonly language = "nodejs" as const;
  calls: { op: string; provider: string; call: CallInfo }[] = [];
  outs: AnyStruct;
  /** Set to play a provider without diff or update methods of its own. */
  noMethods = false;
  constructor(readonly bags: Form = "decoded") {
    this.outs = bag(bags, { out: 1 });
  }
  async configure(_: Bag) {}
  /** A text as it is; a reference as "ref:<reference>". */
  private rec(op: string, call: CallInfo, source: ProviderSource) {
    this.calls.push({ op, provider: source.text ?? `ref:${source.reference.reference}`, call });
  }
  isReferenceText(text: string, ref: ProviderReference) {
    return text === `text of ${ref.reference}`;
  }
  async check(call: CallInfo, provider: ProviderSource) {
    this.rec("check", call, provider);
    return { inputs: bag(this.bags, { checked: true, __provider: "user tried to replace it" }), failures: [] };
  }
  async diff(call: CallInfo, provider: ProviderSource) {
    this.rec("diff", call, provider);
    if (this.noMethods) return { changes: "unknown" as const, replaces: [], deleteBeforeReplace: false, byDefault: true as const };
    return { changes: "some" as const, replaces: ["a"], deleteBeforeReplace: true };
  }
  async create(call: CallInfo, provider: ProviderSource) {
    this.rec("create", call, provider);
    return { id: "id1", outs: this.outs };
  }
  async read(call: CallInfo, provider: ProviderSource, id: string) {
    this.rec("read", call, provider);
    return { id, outs: this.outs, inputs: bag(this.bags, { in: 1 }) };
  }
  async update(call: CallInfo, provider: ProviderSource) {
    this.rec("update", call, provider);
    return this.noMethods ? {} : { outs: this.outs };
  }
  async delete(call: CallInfo, provider: ProviderSource) {
    this.rec("delete", call, provider);
  }
  cancelAll() {}
  async close() {}
}

const signal = new CallSignal();
const urn = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::r";

// Each case runs with the bags decoded (Node mode) and still encoded (Python mode's passthrough).
for (const form of ["decoded", "encoded"] as const)
describe(`core: provider selection and response building (${form} bags)`, function () {
  let rt: FakeRuntime;
  let core: DynamicCore;
  const s = (o: object) => bag(form, o);
  beforeEach(function () {
    rt = new FakeRuntime(form);
    // A directory with no Pulumi.yaml at or above it: no declarations.
    core = new DynamicCore(NODEJS, rt, { cwd: "/" });
  });

  it("Check loads from news and carries news.__provider into the inputs", async function () {
    const resp = await core.check({ urn, olds: s({ __provider: "old" }), news: s({ __provider: "new", a: 1 }) }, signal);
    expect(rt.calls[0].provider).to.equal("new");
    expect(structToJs(resp.inputs)).to.deep.equal({ __provider: "new", checked: true });
  });

  it("Check and Diff load from olds when news.__provider is unknown (D1), but inputs keep the sentinel", async function () {
    const resp = await core.check({ urn, olds: s({ __provider: "old" }), news: s({ __provider: UNKNOWN }) }, signal);
    expect(rt.calls[0].provider).to.equal("old");
    expect(structToJs(resp.inputs).__provider).to.equal(UNKNOWN);
    await core.diff({ urn, olds: s({ __provider: "old" }), news: s({ __provider: UNKNOWN }) }, signal);
    expect(rt.calls[1].provider).to.equal("old");
  });

  it("Diff maps the outcome through the one diff function", async function () {
    const resp = await core.diff({ urn, id: "x", olds: s({ __provider: "p" }), news: s({ __provider: "p" }) }, signal);
    expect(resp).to.deep.equal({ changes: 2, replaces: ["a"], deleteBeforeReplace: true });
  });

  it("Create uses properties and attaches their __provider to the outputs", async function () {
    const resp = await core.create({ urn, properties: s({ __provider: "p", a: 1 }) }, signal);
    expect(resp.id).to.equal("id1");
    expect(structToJs(resp.properties)).to.deep.equal({ __provider: "p", out: 1 });
  });

  it("Update always uses news, never olds", async function () {
    const resp = await core.update({ urn, olds: s({ __provider: "old" }), news: s({ __provider: "new" }) }, signal);
    expect(rt.calls[0].provider).to.equal("new");
    expect(structToJs(resp.properties).__provider).to.equal("new");
  });

  it("Update of a provider without update keeps the old outputs as sent, with news.__provider", async function () {
    rt.noMethods = true;
    const olds = s({ __provider: "old", a: 1, later: UNKNOWN, nested: { k: [1, "x", null] } });
    const resp = await core.update({ urn, olds, news: s({ __provider: "new", a: 2 }) }, signal);
    expect(rt.calls[0].provider).to.equal("new");
    expect(structToJs(resp.properties)).to.deep.equal({ __provider: "new", a: 1, later: UNKNOWN, nested: { k: [1, "x", null] } });
    // No old outputs at all: only the new __provider, as before.
    const bare = await core.update({ urn, news: s({ __provider: "new" }) }, signal);
    expect(structToJs(bare.properties)).to.deep.equal({ __provider: "new" });
  });

  it("Diff without the user's diff: a __provider changed only in layout is DIFF_NONE; any other change is left to the engine", async function () {
    rt.noMethods = true;
    const diff = (old_inputs: object | undefined, news: object) =>
      core.diff({ urn, id: "x", olds: s({ __provider: "a\n", out: 1 }), news: s(news), old_inputs: old_inputs && s(old_inputs) }, signal);
    expect(await diff({ __provider: "f() {\r\n  x; \r\n}", a: 1 }, { __provider: "f() {\n  x;\n}", a: 1 })).to.deep.equal({ changes: 1 });
    expect(await diff({ __provider: "f() { x; }", a: 1 }, { __provider: "f() { y; }", a: 1 })).to.deep.equal({ changes: 0 });
    expect(await diff({ __provider: "f()  ", a: 1 }, { __provider: "f()", a: 2 })).to.deep.equal({ changes: 0 });
    expect(await diff({ __provider: "f()", a: 1 }, { __provider: "f()", a: UNKNOWN })).to.deep.equal({ changes: 0 });
    // No old inputs sent: as before.
    expect(await diff(undefined, { __provider: "f()" })).to.deep.equal({ changes: 0 });
    // A user's diff always decides.
    rt.noMethods = false;
    expect(await diff({ __provider: "f() ", a: 1 }, { __provider: "f()", a: 1 })).to.deep.equal({ changes: 2, replaces: ["a"], deleteBeforeReplace: true });
  });

  it("Delete uses the state's provider (properties), not old inputs", async function () {
    await core.delete({ urn, id: "x", properties: s({ __provider: "state" }) }, signal);
    expect(rt.calls[0].provider).to.equal("state");
  });

  it("Read uses properties, falls back to inputs when properties are empty, and carries __provider into inputs", async function () {
    let resp = await core.read({ urn, id: "x", properties: s({ __provider: "state" }), inputs: s({ __provider: "in" }) }, signal);
    expect(rt.calls[0].provider).to.equal("state");
    expect(structToJs(resp.inputs!)).to.deep.equal({ __provider: "state", in: 1 });
    resp = await core.read({ urn, id: "x", inputs: s({ __provider: "in" }) }, signal);
    expect(rt.calls[1].provider).to.equal("in");
    expect(structToJs(resp.properties).__provider).to.equal("in");
  });

  it("a missing __provider is a clear error naming operation, resource and bag", async function () {
    try {
      await core.create({ urn, properties: s({ a: 1 }) }, signal);
      expect.fail("should throw");
    } catch (e) {
      expect(e).to.be.instanceOf(BadRequestError);
      expect((e as BadRequestError).code).to.equal(grpc.status.UNKNOWN);
      expect((e as Error).message).to.equal(
        `Create ${urn}: the request's properties has no "__provider" property, so the dynamic provider cannot be loaded; ` +
          "__provider must be the serialized provider the SDK writes into every dynamic resource",
      );
    }
    expect(rt.calls).to.have.length(0);
  });

  it("a non-string __provider says what it is", async function () {
    try {
      await core.update({ urn, news: s({ __provider: 5 }) }, signal);
      expect.fail("should throw");
    } catch (e) {
      expect((e as Error).message).to.contain('the request\'s news has a number as its "__provider" property');
    }
  });

  if (form === "encoded")
    it("a bag that is not an encoded Struct is a bad request naming the operation, resource and bag", async function () {
      const broken = new EncodedStruct(Buffer.from([0x0a, 0x05, 0x0a]));
      for (const [run, bagName] of [
        [() => core.create({ urn, properties: broken }, signal), "properties"],
        [() => core.check({ urn, olds: s({ __provider: "p" }), news: broken }, signal), "news"],
        [() => core.read({ urn, id: "x", properties: broken }, signal), "properties"],
      ] as [() => Promise<unknown>, string][]) {
        try {
          await run();
          expect.fail("should throw");
        } catch (e) {
          expect(e).to.be.instanceOf(BadRequestError);
          expect((e as BadRequestError).code).to.equal(grpc.status.INVALID_ARGUMENT);
          expect((e as Error).message).to.match(new RegExp(`^[A-Z][a-z]+ ${urn}: the request's ${bagName} is not a valid encoded protobuf Struct: a field of 5 bytes runs past the end at byte 1$`));
        }
      }
      expect(rt.calls).to.have.length(0);
    });

  it("refuses a request for the other language's package, by type or by URN", async function () {
    const py = "urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::r";
    for (const req of [{ urn: py }, { urn: "", type: "pulumi-python:dynamic:Resource" }, { urn: "urn:pulumi:dev::proj::my:comp:C$pulumi-python:dynamic:Resource::r" }]) {
      try {
        await core.create({ ...req, properties: s({ __provider: "p" }) }, signal);
        expect.fail("should throw");
      } catch (e) {
        expect(e).to.be.instanceOf(BadRequestError);
        expect((e as BadRequestError).code).to.equal(grpc.status.INVALID_ARGUMENT);
        expect((e as Error).message).to.contain("serves pulumi-nodejs resources").and.contain("package pulumi-python");
      }
    }
    expect(rt.calls).to.have.length(0);
    const pyCore = new DynamicCore(PYTHON, rt);
    await pyCore.create({ urn: "urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::r", properties: s({ __provider: "p" }) }, signal);
    expect(rt.calls).to.have.length(1);
  });

  it("parses the type out of URNs with parents", function () {
    expect(typeOfUrn(urn)).to.equal("pulumi-nodejs:dynamic:Resource");
    expect(typeOfUrn("urn:pulumi:s::p::a:b:C$pulumi-nodejs:dynamic/m:T::n")).to.equal("pulumi-nodejs:dynamic/m:T");
    expect(typeOfUrn("")).to.equal("");
    // As splitting on "::" reads them: the third part, names with "::" in them, too few parts.
    const bySplit = (u: string) => {
      const parts = u.split("::");
      return parts.length < 4 ? "" : parts[2].slice(parts[2].lastIndexOf("$") + 1);
    };
    for (const u of ["urn:pulumi:s::p::t::n::m", "a:::b::c::d", "::::::", "a::b::c", "a::b::c::", "x::y::$::z", "a::b::p$q$r::n"]) {
      expect(typeOfUrn(u), u).to.equal(bySplit(u));
    }
  });
});

describe("errors: one mapping to gRPC status", function () {
  it("user errors keep their code and details; init failures become the status detail trailer", function () {
    const st = toStatus(new UserOperationError(2, "half made", { id: "i1", properties: s({ a: 1 }), reasons: ["r"] }), "Create");
    expect(st.code).to.equal(2);
    expect(st.details).to.equal("half made");
    const bin = st.metadata.get("grpc-status-details-bin")[0] as Buffer;
    const status = StatusType.decode(bin) as any;
    expect(status.code).to.equal(2);
    expect(status.message).to.equal("half made");
    expect(status.details[0].type_url).to.equal(INIT_FAILED_TYPE_URL);
    const detail = InitFailedType.decode(status.details[0].value) as any;
    expect(detail.id).to.equal("i1");
    expect(detail.reasons).to.deep.equal(["r"]);
    expect(structToJs(detail.properties)).to.deep.equal({ a: 1 });
  });

  it("maps every kind to its code", function () {
    expect(toStatus(new ProviderResultError("bad"), "x").code).to.equal(grpc.status.UNKNOWN);
    expect(toStatus(new NotImplementedError("no"), "x").code).to.equal(grpc.status.UNIMPLEMENTED);
    expect(toStatus(new CancelledError("c"), "x").code).to.equal(grpc.status.CANCELLED);
    expect(toStatus(new WorkerDiedError("w"), "x").code).to.equal(grpc.status.UNAVAILABLE);
    expect(toStatus(new UserOperationError(5, "nf"), "x").metadata.get("grpc-status-details-bin")).to.deep.equal([]);
  });

  it("anything else is reported as a host bug, never swallowed", function () {
    const st = toStatus(new TypeError("oops"), "Check");
    expect(st.code).to.equal(grpc.status.INTERNAL);
    expect(st.details).to.match(/^pulumi-dynamic-host internal error in Check: TypeError: oops/);
    expect(toStatus("str", "Check").details).to.equal("pulumi-dynamic-host internal error in Check: str");
  });
});

describe("core: timeouts and cancellation", function () {
  class Hanging extends FakeRuntime {
    cancelled = 0;
    override async create(call: CallInfo, provider: ProviderSource) {
      this.calls.push({ op: "create", provider: provider.text ?? "", call });
      return new Promise<never>(() => undefined);
    }
    override cancelAll() {
      this.cancelled++;
    }
  }

  it("answers DEADLINE_EXCEEDED when the request's timeout passes, naming the resource", async function () {
    const rt = new Hanging();
    const core = new DynamicCore(NODEJS, rt);
    const started = Date.now();
    try {
      await core.create({ urn, properties: s({ __provider: "p" }), timeout: 0.05 }, new CallSignal());
      expect.fail("should time out");
    } catch (e) {
      const st = toStatus(e, "Create");
      expect(st.code).to.equal(grpc.status.DEADLINE_EXCEEDED);
      expect(st.details).to.contain(`Create ${urn}: did not finish within the 0.05 s timeout`);
    }
    expect(Date.now() - started).to.be.lessThan(5000);
    expect(rt.calls[0].call.signal.aborted).to.equal(true);
  });

  it("a timeout beyond what one Node timer holds (720h, 1e9 s) is kept, not turned into an immediate deadline", async function () {
    class Slow extends FakeRuntime {
      override async create(call: CallInfo, provider: ProviderSource) {
        // Longer than the 1 ms an overflowed timer fires after; the timer armed before this one fires first.
        await new Promise((r) => setTimeout(r, 10));
        return super.create(call, provider);
      }
    }
    for (const timeout of [2_592_000, 1e9]) {
      const rt = new Slow();
      const out = await new DynamicCore(NODEJS, rt).create({ urn, properties: s({ __provider: "p" }), timeout }, new CallSignal());
      expect(out.id).to.equal("id1");
      expect(rt.calls[0].call.signal.aborted).to.equal(false);
    }
  });

  it("answers CANCELLED at once when the engine abandons the call", async function () {
    const core = new DynamicCore(NODEJS, new Hanging());
    const abort = new CallSignal();
    const pending = core.create({ urn, properties: s({ __provider: "p" }) }, abort);
    abort.abort(new CancelledError("Create was cancelled by the engine"));
    try {
      await pending;
      expect.fail("should be cancelled");
    } catch (e) {
      expect(toStatus(e, "Create").code).to.equal(grpc.status.CANCELLED);
    }
  });

  it("a call signal runs each listener once, in order, unless unregistered; late listeners run at once", function () {
    const sig = new CallSignal();
    const heard: string[] = [];
    sig.onAbort((r) => heard.push(`a:${r.message}`));
    const off = sig.onAbort(() => heard.push("b"));
    sig.onAbort((r) => heard.push(`c:${r.message}`));
    off();
    off();
    expect(sig.aborted).to.equal(false);
    expect(sig.reason).to.equal(undefined);
    sig.abort(new Error("first"));
    sig.abort(new Error("second"));
    expect(heard).to.deep.equal(["a:first", "c:first"]);
    expect(sig.reason!.message).to.equal("first");
    sig.onAbort((r) => heard.push(`late:${r.message}`))();
    expect(heard).to.deep.equal(["a:first", "c:first", "late:first"]);
  });

  it("the Cancel RPC reaches the runtime", function () {
    const rt = new Hanging();
    new DynamicCore(NODEJS, rt).cancel();
    expect(rt.cancelled).to.equal(1);
  });
});
