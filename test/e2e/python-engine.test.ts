// The real engine driving a real Python program through our
// pulumi-resource-pulumi-python. The program (test/e2e/python-program/program.py)
// is a Python Automation API driver with inline programs, run in the test
// virtualenv: its process is the language host and the CLI built by
// scripts/engine.sh does the rest (see there for why). Each scenario prints one
// JSON document: per operation, the engine's events (the Automation API's event
// objects as plain dicts, so snake_case names), its summary or error, and the
// dynamic resources of `stack export` after it. Every assertion reads those
// records. The last test has one install serve a Node and a Python stack at once.
import { expect } from "chai";
import fs from "node:fs";
import { createRequire } from "node:module";
import { OUR_PLUGIN_DIR, REPO, TEST_VENV } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, expectOurPythonHost, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { drive, PYTHON_WORK_DIR as WORK_DIR, type Step } from "./python-driver.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const nodeProviders = require(`${REPO}test/e2e/node-program/providers.cjs`);

const OUR_PYTHON = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const OUR_NODE = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;
const WORKER = `${REPO}python-stub/worker.py`;
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const SECRET_SIG = { key: "4dabf18193072939515e22adb298388d", value: "1b47061264138c4ac30d75fd1eb44270" };

type Event = Record<string, any>;

/** The operation's events, checked to be the whole stream: the engine's last event is its cancel event. */
function recorded(step: Step): Event[] {
  expect(step.events.length, `${step.name}: events`).to.be.greaterThan(0);
  expect(step.events[step.events.length - 1].cancel_event, `${step.name}: the event stream ends with the cancel event`).to.be.an("object");
  return step.events;
}

function diagnostics(step: Step): Event[] {
  return recorded(step)
    .filter((e) => e.diagnostic_event)
    .map((e) => e.diagnostic_event);
}

function errorMessages(step: Step): string {
  return diagnostics(step)
    .filter((d) => d.severity === "error")
    .map((d) => d.message)
    .join("\n");
}

/** step op by resource name, in the order the engine ran them. */
function steps(step: Step): { op: string; name: string; type: string }[] {
  return recorded(step)
    .filter((e) => e.res_outputs_event)
    .map((e) => e.res_outputs_event.metadata)
    .filter((m) => m.type !== "pulumi:pulumi:Stack" && !m.type.startsWith("pulumi:providers:"))
    .map((m) => ({ op: m.op, name: m.urn.split("::").pop(), type: m.type }));
}

function isSecret(v: unknown): boolean {
  return !!v && typeof v === "object" && (v as any)[SECRET_SIG.key] === SECRET_SIG.value;
}

/** What a plain (not secret) serialized provider pickled. */
function pickled(serialized: unknown): string {
  expect(serialized).to.be.a("string");
  return Buffer.from(serialized as string, "base64").toString("latin1");
}

/** The provider's report of the process that ran it (whoami in program.py) is our worker under our host, started by the engine. */
function expectOurHost(ranBy: any) {
  expectOurPythonHost(ranBy, OUR_PYTHON);
  expect(ranBy.worker).to.equal(WORKER);
  expect(ranBy.cwd, "the plugin runs in the program directory").to.equal(WORK_DIR);
  expect(ranBy.prefix, "the worker runs in the test virtualenv").to.equal(TEST_VENV);
  // Under an inline program the engine replaces the project runtime by `client {address}`.
  expect(ranBy.runtime_address).to.match(/^127\.0\.0\.1:\d+$/);
}

describe("end to end (Python): the real engine runs a Python program through our plugin", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-python");
  });
  after(function () {
    sb?.cleanup();
  });

  describe("one stack through preview, up, change, up, refresh and destroy", function () {
    let ops: Record<string, Step>;

    before(async function () {
      ops = await drive(sb, "lifecycle", "runtime-options");
      expect(Object.keys(ops)).to.deep.equal(["preview", "up", "up-change", "up-unchanged", "refresh", "destroy"]);
    });

    it("preview: Check sees the upstream id as Unknown; nothing is created", function () {
      const preview = ops.preview;
      expect(preview.error).to.equal(undefined);
      const pre = recorded(preview)
        .filter((e) => e.resource_pre_event)
        .map((e) => e.resource_pre_event.metadata);
      const dependent = pre.find((m) => m.urn.endsWith("::dependent"));
      expect(dependent.op).to.equal("create");
      expect(dependent.new.inputs.upstream).to.equal(UNKNOWN);
      expect(dependent.new.inputs.upstream_unknown_at_check).to.equal(true);
      expect(diagnostics(preview).filter((d) => d.severity !== "debug")).to.deep.equal([]);
      expect(preview.resources).to.deep.equal({});
    });

    it("up: creates everything with our host in the virtualenv, records __provider, config and secrets", function () {
      const up = ops.up;
      expect(up.error).to.equal(undefined);
      expect(up.summary!.result).to.equal("succeeded");
      expect(up.summary!.resource_changes.create).to.equal(12);
      const state = up.resources;
      expect(Object.keys(state).sort()).to.deep.equal(
        ["basic", "captured", "chatty", "configured", "custom", "deleted-first", "dependent", "local-module", "plain", "reader", "replaced"],
      );
      // Our plugin ran the providers, in the virtualenv the runtime variables name.
      expectOurHost(state.basic.outputs.ran_by);
      expect(state.basic.outputs.ran_by).to.include({
        python: `${TEST_VENV}/bin/python`,
        runtime_virtualenv: TEST_VENV,
        runtime_toolchain: "pip",
      });
      expect(state.basic.type).to.equal("pulumi-python:dynamic:Resource");
      // serialize_as_secret_always defaults to True: __provider is a secret in inputs and outputs.
      expect(isSecret(state.basic.inputs.__provider)).to.equal(true);
      expect(state.basic.outputs.__provider).to.deep.equal(state.basic.inputs.__provider);
      expect(state.dependent.outputs.upstream).to.equal(state.basic.id);
      expect(state.dependent.inputs.upstream_unknown_at_check).to.equal(false);
      // The update ran with the plain and the secret value, and configure read both.
      expect(up.summary!.config).to.deep.equal({
        "e2e-python:plain": { value: "plain-value", secret: false },
        "e2e-python:secret": { value: "s3cr3t-value", secret: true },
      });
      expect(state.configured.outputs).to.include({ plain: "plain-value", secret_length: "s3cr3t-value".length });
      // serialize_as_secret_always = False, and a captured secret Output: secret all the same.
      expect(isSecret(state.captured.inputs.__provider)).to.equal(true);
      expect(isSecret(state.captured.outputs.__provider)).to.equal(true);
      expect(state.captured.outputs.secret_length).to.equal("hush-hush".length);
      // serialize_as_secret_always = False and nothing secret captured: plain, the class pickled by value.
      expect(state.plain.inputs.__provider).to.be.a("string");
      expect(state.plain.outputs.__provider).to.equal(state.plain.inputs.__provider);
      expect(pickled(state.plain.inputs.__provider)).to.contain("_create_type").and.contain("__main__");
      // The program-local module's class is pickled by reference; the worker imported provider.py from the program directory.
      const byReference = pickled(state["local-module"].inputs.__provider);
      expect(byReference).to.contain("provider").and.contain("LocalModuleProvider").and.not.contain("_create_type");
      expect(state["local-module"].outputs.__provider).to.equal(state["local-module"].inputs.__provider);
      expect(state["local-module"].outputs).to.include({ module: "provider", module_file: `${WORK_DIR}/provider.py`, worker: WORKER });
      expect(state.custom.type).to.equal("pulumi-python:dynamic/custom-provider:CustomResource");
      expectOurHost(state.custom.outputs.ran_by);
      // print in create is an info diagnostic (the engine shows plugin stdout).
      const info = diagnostics(up).filter((d) => d.severity === "info");
      expect(info.map((d) => d.message.trim())).to.include("hello from create: hi there");
      expect(diagnostics(up).filter((d) => !["debug", "info"].includes(d.severity))).to.deep.equal([]);
    });

    it("up after a change: update in place, replace (create first) and delete-before-replace", function () {
      const change = ops["up-change"];
      expect(change.error).to.equal(undefined);
      expect(change.summary!.result).to.equal("succeeded");
      const ran = steps(change);
      const of = (name: string) => ran.filter((s) => s.name === name).map((s) => s.op);
      expect(of("basic")).to.deep.equal(["update"]);
      expect(of("replaced")).to.deep.equal(["create-replacement", "replace", "delete-replaced"]);
      expect(of("deleted-first")).to.deep.equal(["delete-replaced", "replace", "create-replacement"]);
      expect(change.summary!.resource_changes).to.include({ update: 1, replace: 2 });
      const state = change.resources;
      expect(state.basic.id).to.equal(ops.up.resources.basic.id);
      expect(state.basic.outputs).to.include({ value: "v2", updated_from: "v1" });
      expectOurHost(state.basic.outputs.ran_by);
      expect(state.replaced.outputs.key).to.equal("b");
      expect(state.replaced.id).to.not.equal(ops.up.resources.replaced.id);
      expect(state["deleted-first"].id).to.equal("dbr-b");
    });

    it("an unchanged up changes nothing and shows no diagnostics but debug", function () {
      const same = ops["up-unchanged"];
      expect(same.error).to.equal(undefined);
      expect(Object.keys(same.summary!.resource_changes)).to.deep.equal(["same"]);
      expect(diagnostics(same).filter((d) => d.severity !== "debug")).to.deep.equal([]);
    });

    it("refresh with expect_no_changes passes: read returns inputs", function () {
      const refresh = ops.refresh;
      expect(refresh.error).to.equal(undefined);
      expect(refresh.summary!.result).to.equal("succeeded");
      expect(Object.keys(refresh.summary!.resource_changes)).to.deep.equal(["same"]);
      const reader = refresh.resources.reader;
      expect(reader.inputs).to.deep.equal({ __provider: reader.inputs.__provider, value: "steady" });
      expect(reader.outputs.value).to.equal("steady");
    });

    it("destroy removes every resource", function () {
      const destroy = ops.destroy;
      expect(destroy.error).to.equal(undefined);
      expect(destroy.summary!.result).to.equal("succeeded");
      expect(destroy.summary!.resource_changes.delete).to.equal(12);
      expect(destroy.resources).to.deep.equal({});
    });
  });

  it("a provider without update whose code is reformatted: the engine runs Update and every output stays in stack export (issue 19)", async function () {
    const ops = await drive(sb, "kept-outputs", "runtime-options");
    expect(Object.keys(ops)).to.deep.equal(["up", "up-reformatted", "destroy"]);
    for (const op of Object.values(ops)) expect(op.error, op.name).to.equal(undefined);
    const before = ops.up.resources.kept;
    const after = ops["up-reformatted"].resources.kept;
    expect(steps(ops["up-reformatted"]).map((s) => s.op)).to.deep.equal(["update"]);
    expect(after.inputs.__provider).to.be.a("string").and.not.equal(before.inputs.__provider);
    const { __provider, ...outputs } = before.outputs;
    expect(__provider).to.equal(before.inputs.__provider);
    expect(outputs).to.deep.equal({ label: "k1", serial: 42, made_by: "create", nested: { list: [1, "two", true] } });
    expect(after.outputs).to.deep.equal({ ...outputs, __provider: after.inputs.__provider });
    expect(diagnostics(ops["up-reformatted"]).filter((d) => !["debug", "info"].includes(d.severity))).to.deep.equal([]);
    expect(ops.destroy.resources).to.deep.equal({});
  });

  it("a Check failure stops preview with the provider's message", async function () {
    const { preview } = await drive(sb, "check-fails", "runtime-options");
    expect(preview.error, "preview should fail").to.not.equal(undefined);
    expect(errorMessages(preview)).to.contain("value must not be 'bad'");
    expect(preview.resources).to.deep.equal({});
  });

  it("a create that raises is recorded as a failed operation", async function () {
    const { up } = await drive(sb, "create-raises", "runtime-options");
    expect(up.error, "up should fail").to.not.equal(undefined);
    const failed = recorded(up)
      .filter((e) => e.res_op_failed_event)
      .map((e) => e.res_op_failed_event.metadata);
    expect(failed.map((m) => [m.op, m.urn.split("::").pop()])).to.deep.equal([["create", "exploding"]]);
    expect(errorMessages(up)).to.contain("create exploded on purpose");
    expect(up.resources).to.deep.equal({});
  });

  it("one install, both languages: the same .cache/e2e/bin serves a Node and a Python stack at once", async function () {
    const nodeStack = await inlineStack(
      {
        stackName: "both",
        projectName: "e2e-node",
        program: async () => {
          new pulumi.dynamic.Resource(nodeProviders.basic, "from-node", { key: "n", value: "node" });
        },
      },
      {
        workDir: `${REPO}test/e2e/node-program`,
        pulumiHome: sb.home,
        envVars: sb.env,
        pulumiCommand: await automation.PulumiCommand.get({ root: E2E_ROOT, skipVersionCheck: true }),
        projectSettings: { name: "e2e-node", runtime: "nodejs", backend: { url: `file://${sb.backend}` } },
      },
    );
    // The Python driver in its virtualenv, activated as a user runs one (the plugin then runs python3 from PATH).
    const [nodeUp, python] = await Promise.all([nodeStack.up({}), drive(sb, "whoami", "activated-venv")]);

    expect(nodeUp.summary.result).to.equal("succeeded");
    const nodeState = (await nodeStack.exportStack()).deployment.resources.find((r: any) => r.urn.endsWith("::from-node"));
    expect(nodeState.outputs.ranBy).to.equal(OUR_NODE);
    expect(fs.realpathSync(nodeState.outputs.ranBy)).to.equal(fs.realpathSync(`${OUR_PLUGIN_DIR}/pulumi-resource-pulumi-nodejs`));

    expect(python.up.error).to.equal(undefined);
    const ranBy = python.up.resources.whoami.outputs.ran_by;
    expectOurHost(ranBy);
    expect(ranBy.python).to.equal(`${TEST_VENV}/bin/python3`);
    // The engine passed no runtime options (the inline program's runtime is `client`).
    expect(ranBy.runtime_virtualenv).to.equal(null);
    expect(ranBy.runtime_toolchain).to.equal(null);
    expect(python.destroy.summary!.resource_changes.delete).to.equal(2);

    const nodeDestroy = await nodeStack.destroy({});
    expect(nodeDestroy.summary.resourceChanges.delete).to.equal(2);
  });
});
