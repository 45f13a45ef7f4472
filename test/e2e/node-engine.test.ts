// The real engine driving a real TypeScript program through our
// pulumi-resource-pulumi-nodejs. The program is an Automation API inline
// program (its process is the language host; the CLI built from the Go module
// proxy does the rest: see scripts/engine.sh for why). Every assertion reads the
// engine's own records: the event log of each operation and `stack export`.
import { expect } from "chai";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { REPO } from "../helpers/paths.js";
import { E2E_ROOT, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const providers = require(`${REPO}test/e2e/node-program/providers.cjs`);

const WORK_DIR = `${REPO}test/e2e/node-program`;
const PROJECT = "e2e-node";
const SENTINEL = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const SECRET_SIG = { key: "4dabf18193072939515e22adb298388d", value: "1b47061264138c4ac30d75fd1eb44270" };

type Event = Record<string, any>;

/** The operation's engine events (the CLI's --event-log, as the Automation API reads it). */
function recorder() {
  const events: Event[] = [];
  return { events, onEvent: (e: Event) => events.push(e) };
}

function diagnostics(events: Event[]): Event[] {
  return events.filter((e) => e.diagnosticEvent).map((e) => e.diagnosticEvent);
}

/** step op by resource name, in the order the engine ran them. */
function steps(events: Event[]): { op: string; name: string; type: string }[] {
  return events
    .filter((e) => e.resOutputsEvent)
    .map((e) => e.resOutputsEvent.metadata)
    .filter((m) => m.type !== "pulumi:pulumi:Stack" && !m.type.startsWith("pulumi:providers:"))
    .map((m) => ({ op: m.op, name: m.urn.split("::").pop(), type: m.type }));
}

function resources(deployment: any): Record<string, any> {
  const out: Record<string, any> = {};
  for (const r of deployment.deployment.resources ?? []) {
    if (r.type.startsWith("pulumi-nodejs:")) out[r.urn.split("::").pop()] = r;
  }
  return out;
}

function isSecret(v: unknown): boolean {
  return !!v && typeof v === "object" && (v as any)[SECRET_SIG.key] === SECRET_SIG.value;
}

async function stackFor(sb: Sandbox, stackName: string, program: () => Promise<unknown>) {
  const pulumiCommand = await automation.PulumiCommand.get({ root: E2E_ROOT, skipVersionCheck: true });
  return inlineStack(
    { stackName, projectName: PROJECT, program },
    {
      workDir: WORK_DIR,
      pulumiHome: sb.home,
      envVars: sb.env,
      pulumiCommand,
      projectSettings: { name: PROJECT, runtime: "nodejs", backend: { url: `file://${sb.backend}` } },
    },
  );
}

describe("end to end (Node): the real engine runs a TypeScript program through our plugin", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-node");
  });
  after(function () {
    sb?.cleanup();
  });

  describe("one stack through preview, up, change, up, refresh and destroy", function () {
    let phase = 1;
    let stack: any;
    const program = async () => {
      const D = pulumi.dynamic.Resource;
      const basic = new D(providers.basic, "basic", { key: phase === 1 ? "k1" : "k1", value: phase === 1 ? "v1" : "v2" });
      new D(providers.basic, "replaced", { key: phase === 1 ? "a" : "b", value: "same" });
      new D(providers.deleteFirst, "deleted-first", { key: phase === 1 ? "a" : "b" });
      new D(providers.configured, "configured", {});
      new D(providers.reader, "reader", { value: "steady" });
      new D(providers.chatty, "chatty", { greeting: "hi there" });
      new D(providers.dependent, "dependent", { upstream: basic.id });
      new D(providers.capturingSecret(pulumi.secret("hush-hush")), "captured", {});
      const custom = new D(providers.basic, "custom", { key: "c", value: "typed" }, undefined, "custom-provider", "CustomResource");
      return { customUrn: custom.urn };
    };

    before(async function () {
      stack = await stackFor(sb, "dev", program);
      await stack.setConfig("plain", { value: "plain-value" });
      await stack.setConfig("secret", { value: "s3cr3t-value", secret: true });
    });

    it("preview: Check sees the unknown upstream id as the sentinel; nothing is created", async function () {
      const rec = recorder();
      await stack.preview({ onEvent: rec.onEvent, diff: true });
      const pre = rec.events.filter((e) => e.resourcePreEvent).map((e) => e.resourcePreEvent.metadata);
      const dependent = pre.find((m) => m.urn.endsWith("::dependent"));
      expect(dependent.op).to.equal("create");
      expect(dependent.new.inputs.upstreamUnknownAtCheck).to.equal(true);
      expect(diagnostics(rec.events).filter((d) => d.severity !== "debug")).to.deep.equal([]);
    });

    it("up: creates everything with our host, records __provider, config and secrets", async function () {
      const rec = recorder();
      const result = await stack.up({ onEvent: rec.onEvent });
      expect(result.summary.result).to.equal("succeeded");
      expect(result.summary.resourceChanges.create).to.equal(10);
      const state = resources(await stack.exportStack());
      expect(Object.keys(state).sort()).to.deep.equal(["basic", "captured", "chatty", "configured", "custom", "deleted-first", "dependent", "reader", "replaced"]);
      // Our plugin ran the providers, not a reference left somewhere.
      expect(state.basic.outputs.ranBy).to.equal(`${E2E_ROOT}/bin/pulumi-resource-pulumi-nodejs`);
      expect(state.basic.inputs.__provider).to.be.a("string").and.match(/^exports\.handler = __f0;/);
      expect(state.basic.outputs.__provider).to.equal(state.basic.inputs.__provider);
      expect(state.dependent.outputs.upstream).to.equal(state.basic.id);
      expect(state.configured.outputs).to.include({ plain: "plain-value", secretLength: "s3cr3t-value".length });
      // A captured secret makes the serialized provider secret in state, inputs and outputs alike.
      expect(isSecret(state.captured.inputs.__provider)).to.equal(true);
      expect(isSecret(state.captured.outputs.__provider)).to.equal(true);
      expect(state.captured.outputs.secretLength).to.equal("hush-hush".length);
      expect(state.custom.type).to.equal("pulumi-nodejs:dynamic/custom-provider:CustomResource");
      // console.log in create is an info diagnostic (the engine shows plugin stdout), attached to the stack.
      const info = diagnostics(rec.events).filter((d) => d.severity === "info");
      expect(info.map((d) => d.message.trim())).to.include("hello from create: hi there");
      expect(diagnostics(rec.events).filter((d) => !["debug", "info"].includes(d.severity))).to.deep.equal([]);
    });

    it("up after a change: update in place, replace (create first) and delete-before-replace", async function () {
      phase = 2;
      const rec = recorder();
      const result = await stack.up({ onEvent: rec.onEvent });
      expect(result.summary.result).to.equal("succeeded");
      const ops = steps(rec.events);
      const of = (name: string) => ops.filter((s) => s.name === name).map((s) => s.op);
      expect(of("basic")).to.deep.equal(["update"]);
      expect(of("replaced")).to.deep.equal(["create-replacement", "replace", "delete-replaced"]);
      expect(of("deleted-first")).to.deep.equal(["delete-replaced", "replace", "create-replacement"]);
      const state = resources(await stack.exportStack());
      expect(state.basic.outputs).to.include({ value: "v2", updatedFrom: "v1" });
      expect(state.replaced.outputs.key).to.equal("b");
    });

    it("an unchanged up changes nothing and shows no diagnostics but debug", async function () {
      const rec = recorder();
      const result = await stack.up({ onEvent: rec.onEvent });
      const changes = result.summary.resourceChanges;
      expect(Object.keys(changes)).to.deep.equal(["same"]);
      expect(diagnostics(rec.events).filter((d) => d.severity !== "debug")).to.deep.equal([]);
    });

    it("refresh --expect-no-changes passes: read returns inputs", async function () {
      const rec = recorder();
      const result = await stack.refresh({ onEvent: rec.onEvent, expectNoChanges: true });
      expect(result.summary.result).to.equal("succeeded");
      const state = resources(await stack.exportStack());
      expect(state.reader.inputs).to.deep.equal({ __provider: state.reader.inputs.__provider, value: "steady" });
    });

    it("destroy removes every resource", async function () {
      const result = await stack.destroy({});
      expect(result.summary.result).to.equal("succeeded");
      expect(result.summary.resourceChanges.delete).to.equal(10);
      expect(Object.keys(resources(await stack.exportStack()))).to.deep.equal([]);
    });
  });

  describe("a provider without update or diff whose code changes keeps its outputs (issue 19)", function () {
    // Copies of one module in the sandbox: as written, with a comment added, and that again with CRLF line ends and trailing blanks.
    const KEPT = fs.readFileSync(`${WORK_DIR}/kept-outputs.cjs`, "utf8");
    let variant = "written";
    let stack: any;
    const load = (name: string, text: string) => {
      const file = path.join(sb.dir, `kept-outputs-${name}.cjs`);
      fs.writeFileSync(file, text);
      return require(file).provider;
    };
    let variants: Record<string, unknown>;
    const outputs = (r: any) => {
      const { __provider, ...rest } = r.outputs;
      return { __provider, rest };
    };

    before(async function () {
      const commented = KEPT.replace("async create(inputs) {\n", "async create(inputs) {\n    // A comment added: another text, the same code.\n");
      // The commented copy (what the state holds by the second test) with CRLF line ends and trailing blanks.
      const layout = commented.replace(/\n/g, "  \r\n");
      expect(commented).to.not.equal(KEPT);
      variants = { written: load("written", KEPT), commented: load("commented", commented), layout: load("layout", layout) };
      stack = await stackFor(sb, "kept", async () => {
        new pulumi.dynamic.Resource(variants[variant], "kept", { label: "k1" });
      });
    });

    it("changed code: the engine runs Update, and every output is still in stack export with the new __provider", async function () {
      await stack.up({});
      const before = resources(await stack.exportStack()).kept;
      expect(outputs(before).rest).to.deep.equal({ label: "k1", serial: 42, madeBy: "create", nested: { list: [1, "two", null] } });
      variant = "commented";
      const rec = recorder();
      const result = await stack.up({ onEvent: rec.onEvent });
      expect(result.summary.result).to.equal("succeeded");
      expect(steps(rec.events).map((s) => s.op)).to.deep.equal(["update"]);
      const after = resources(await stack.exportStack()).kept;
      expect(after.inputs.__provider).to.contain("A comment added").and.not.equal(before.inputs.__provider);
      expect(outputs(after)).to.deep.equal({ __provider: after.inputs.__provider, rest: outputs(before).rest });
    });

    it("code changed only in line endings and trailing blanks: no update; the outputs stay", async function () {
      const state = resources(await stack.exportStack()).kept;
      variant = "layout";
      const rec = recorder();
      const result = await stack.up({ onEvent: rec.onEvent });
      expect(result.summary.result).to.equal("succeeded");
      expect(steps(rec.events).map((s) => s.op)).to.deep.equal(["same"]);
      // The serializer kept the layout: the engine was handed another text, and Diff settled it.
      const pre = rec.events.filter((e) => e.resourcePreEvent).map((e) => e.resourcePreEvent.metadata).find((m) => m.urn.endsWith("::kept"));
      expect(pre.new.inputs.__provider).to.contain("\r\n").and.not.equal(state.inputs.__provider);
      const after = resources(await stack.exportStack()).kept;
      expect(outputs(after)).to.deep.equal(outputs(state));
    });

    after(async function () {
      await stack?.destroy({});
    });
  });

  it("a Check failure stops preview with the provider's message", async function () {
    const stack = await stackFor(sb, "check-fails", async () => {
      new pulumi.dynamic.Resource(providers.checkFails, "refused", { value: "bad" });
    });
    const rec = recorder();
    let error: any;
    await stack.preview({ onEvent: rec.onEvent }).catch((e: any) => (error = e));
    expect(error, "preview should fail").to.not.equal(undefined);
    const errors = diagnostics(rec.events).filter((d) => d.severity === "error").map((d) => d.message);
    expect(errors.join("\n")).to.contain("value must not be 'bad'");
  });

  it("a create that throws is recorded as a failed operation", async function () {
    const stack = await stackFor(sb, "create-throws", async () => {
      new pulumi.dynamic.Resource(providers.createThrows, "exploding", {});
    });
    const rec = recorder();
    let error: any;
    await stack.up({ onEvent: rec.onEvent }).catch((e: any) => (error = e));
    expect(error, "up should fail").to.not.equal(undefined);
    const failed = rec.events.filter((e) => e.resOpFailedEvent).map((e) => e.resOpFailedEvent.metadata);
    expect(failed.map((m) => m.urn.split("::").pop())).to.deep.equal(["exploding"]);
    const errors = diagnostics(rec.events).filter((d) => d.severity === "error").map((d) => d.message);
    expect(errors.join("\n")).to.contain("create exploded on purpose");
    expect(Object.keys(resources(await stack.exportStack()))).to.deep.equal([]);
  });

  it("a partial create (ErrorResourceInitFailed) keeps the half-made resource in state", async function () {
    const stack = await stackFor(sb, "partial", async () => {
      new pulumi.dynamic.Resource(providers.partialCreate, "half", {});
    });
    const rec = recorder();
    let error: any;
    await stack.up({ onEvent: rec.onEvent }).catch((e: any) => (error = e));
    expect(error, "up should fail").to.not.equal(undefined);
    const errors = diagnostics(rec.events).filter((d) => d.severity === "error").map((d) => d.message);
    expect(errors.join("\n")).to.contain("the widget did not start");
    const state = resources(await stack.exportStack());
    expect(state.half.id).to.equal("partial-1");
    // As the reference: the partial outputs are what the error carried, without __provider.
    expect(state.half.outputs).to.deep.equal({ made: true });
  });
});
