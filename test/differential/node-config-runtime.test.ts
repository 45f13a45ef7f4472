// Spec §9 rows about Configure and provider.configure, the provider cache,
// Cancel, user output, module resolution and uncaught errors: the same requests
// go to the Node reference plugin and to our pulumi-resource-pulumi-nodejs, and
// every outcome is compared, plus the concrete value each must have.
//
// Tests that depend on process state (config, the provider cache, uncaught
// errors) launch their own pair; launchPair merges opts.env over the test
// runner's environment, and an `undefined` value removes a variable.
import { expect } from "chai";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { nodeUrn, type Outcome } from "../helpers/client.js";
import { NODE_PROGRAM } from "../helpers/paths.js";
import { nodeProvider, SECRET_SIG, SIG } from "../helpers/payloads.js";
import { launchPair, Plugin, type LaunchOptions, type PluginKind } from "../helpers/plugin.js";
import type { Pair } from "../helpers/pair.js";

const CFG = "node-providers-cfg.cjs";


/** A hermetic environment: the project is set explicitly unless a test says otherwise. */
const BASE_ENV: NodeJS.ProcessEnv = {
  PULUMI_NODEJS_PROJECT: "proj",
  PULUMI_PROJECT: undefined,
  PULUMI_CONFIG: undefined,
  TEST_CONFIGURE_THROW_ONCE: undefined,
  TEST_CONFIGURE_SLOW_MS: undefined,
  TEST_CONFIGURE_REQUIRE: undefined,
};

const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });

/** Stack frames differ (file names, our host's frames); everything else must match. */
const withoutFrames = (s: string) => s.split("\n").filter((l) => !/^\s+at /.test(l));

describe("differential (Node): configure, provider cache and runtime", function () {
  const launched: Plugin[] = [];

  async function pair(env: NodeJS.ProcessEnv = {}, opts: LaunchOptions = {}): Promise<Pair> {
    const p = await launchPair({ ...opts, env: { ...BASE_ENV, ...env } });
    launched.push(p.ours, p.ref);
    return p;
  }

  /** Runs `f` against both plugins at once: [ours, reference]. */
  function both<T>(p: Pair, f: (x: Plugin) => Promise<T>): Promise<[T, T]> {
    return Promise.all([f(p.ours), f(p.ref)]);
  }

  /** Both answered the same, and that answer is OK. */
  function sameOk([o, r]: [Outcome, Outcome]): Outcome {
    expect(o, "ours vs reference").to.deep.equal(r);
    expect(o.code, o.details).to.equal(0);
    return o;
  }

  /** Both failed the same way, with exactly this status. */
  function sameError([o, r]: [Outcome, Outcome], code: number, details: string): void {
    expect(o, "ours vs reference").to.deep.equal(r);
    expect(o).to.deep.equal({ code, details });
  }

  /** Nothing after the port line on stdout other than `stdout`, and exactly `stderr` on stderr, in both. */
  function sameOutput(p: Pair, stdout: string[] = [], stderr = ""): void {
    expect(p.ours.userStdout, "ours stdout").to.deep.equal(p.ref.userStdout);
    expect(p.ours.userStdout).to.deep.equal(stdout);
    expect(p.ours.stderr, "ours stderr").to.equal(p.ref.stderr);
    expect(p.ours.stderr).to.equal(stderr);
  }

  afterEach(async function () {
    await Promise.all(launched.splice(0).map((p) => p.stop()));
  });

  // ---------------------------------------------------------------- row 13

  it("13 cancel_ok: Cancel answers Empty while creates are in flight and after they finished, aborting nothing", async function () {
    const holder = await nodeProvider("holder", CFG);
    const p = await pair();
    const finished = new Set<PluginKind>();
    const hold = (name: string) =>
      both(p, (x) =>
        x.client.create({ urn: nodeUrn(name), properties: { __provider: holder, act: "hold", name } }).then((r) => {
          finished.add(x.kind);
          return r;
        }),
      );
    const heldA = hold("A");
    const heldB = hold("B");
    await both(p, (x) => x.until(() => x.userStdout.includes("holding A") && x.userStdout.includes("holding B"), "both creates to start"));

    const during = await both(p, (x) => x.client.cancel());
    expect(sameOk(during)).to.deep.equal({ code: 0, details: "", view: {}, bytes: "" });
    // A further round trip after the Cancel: the held creates are still running.
    sameOk(await both(p, (x) => x.client.getPluginInfo()));
    expect([...finished]).to.deep.equal([]);

    const release = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("releaser"), properties: { __provider: holder, act: "release" } })));
    expect(release.view.id).to.equal("release");
    expect(release.view.properties.released).to.equal(2);
    const a = sameOk(await heldA);
    const b = sameOk(await heldB);
    expect(a.view).to.deep.equal({ id: "held-A", properties: { name: "A", __provider: holder } });
    expect(b.view).to.deep.equal({ id: "held-B", properties: { name: "B", __provider: holder } });

    const after = await both(p, (x) => x.client.cancel());
    expect(sameOk(after)).to.deep.equal({ code: 0, details: "", view: {}, bytes: "" });
    // Cancel does not shut anything down: the plugin goes on serving.
    const plain = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("plain"), properties: { __provider: holder } })));
    expect(plain.view.id).to.equal("plain");
    sameOutput(p, ["holding A", "holding B"]);
  });

  // ---------------------------------------------------------------- row 61

  it("61 configure_secret_unwrapped: a secret config value reaches configure as a plain string", async function () {
    const configured = await nodeProvider("configured");
    const p = await pair();
    const args = { "proj:password": secret("hunter2"), "proj:a": "1", "colors:banana": secret("yellow") };
    sameOk(await both(p, (x) => x.client.configure(args)));
    const o = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("s"), properties: { __provider: configured } })));
    expect(o.view.id).to.equal("cfg");
    expect(o.view.properties.seen).to.deep.equal({ a: "1", banana: "yellow", password: "hunter2", project: "proj" });
    sameOutput(p);
  });

  // ---------------------------------------------------------------- row 62

  const namespacedConfig = {
    "proj:a": "from proj",
    "pyproj:a": "from pyproj",
    "project:a": "from the default project",
    "colors:banana": "yellow",
  };

  it("62 configure_namespacing (PULUMI_NODEJS_PROJECT set): get(\"a\") reads <project>:a, get(\"colors:banana\") is verbatim", async function () {
    const configured = await nodeProvider("configured");
    // PULUMI_PROJECT is the Python reference's variable: the Node plugin ignores it.
    const p = await pair({ PULUMI_NODEJS_PROJECT: "proj", PULUMI_PROJECT: "pyproj" });
    sameOk(await both(p, (x) => x.client.configure(namespacedConfig)));
    const o = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("n"), properties: { __provider: configured } })));
    expect(o.view.properties.seen).to.deep.equal({ a: "from proj", banana: "yellow", password: null, project: "proj" });
    sameOutput(p);
  });

  for (const [label, value] of [["unset", undefined], ["empty", ""]] as const) {
    it(`62 configure_namespacing (PULUMI_NODEJS_PROJECT ${label}): the project is "project"`, async function () {
      const configured = await nodeProvider("configured");
      const p = await pair({ PULUMI_NODEJS_PROJECT: value, PULUMI_PROJECT: "pyproj" });
      sameOk(await both(p, (x) => x.client.configure(namespacedConfig)));
      const o = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("n"), properties: { __provider: configured } })));
      expect(o.view.properties.seen).to.deep.equal({ a: "from the default project", banana: "yellow", password: null, project: "project" });
      sameOutput(p);
    });
  }

  // ---------------------------------------------------------------- row 63

  it("63 configure_require_missing: Create fails with `Missing required configuration key: k`, nothing on stderr", async function () {
    const configured = await nodeProvider("configured");
    const p = await pair({ TEST_CONFIGURE_REQUIRE: "k" });
    sameOk(await both(p, (x) => x.client.configure({ "proj:a": "1" })));
    const outcome = await both(p, (x) => x.client.create({ urn: nodeUrn("r"), properties: { __provider: configured } }));
    // The key as passed, not the prefixed one.
    sameError(outcome, 2, "Missing required configuration key: k");
    sameOutput(p);
  });

  // ---------------------------------------------------------------- row 64

  it("64 configure_once_per_string: three RPCs with one text give one evaluation and one configure", async function () {
    const v1 = await nodeProvider("countedV1", CFG);
    const p = await pair();
    sameOk(await both(p, (x) => x.client.configure({ "proj:a": "A" })));
    const seen = { a: "A", banana: null, project: "proj" };

    const check = sameOk(await both(p, (x) => x.client.check({ urn: nodeUrn("c"), news: { __provider: v1, name: "c" } })));
    expect(check.view.inputs.view).to.deep.equal({ version: "v1", seen, configures: 1, calls: 1, evaluations: 1 });
    const c1 = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("c"), properties: { __provider: v1, name: "c" } })));
    expect(c1.view.id).to.equal("v1-c");
    expect(c1.view.properties).to.deep.equal({ version: "v1", seen, configures: 1, calls: 2, evaluations: 1, __provider: v1 });
    const c2 = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("d"), properties: { __provider: v1, name: "d" } })));
    expect(c2.view.properties).to.deep.equal({ version: "v1", seen, configures: 1, calls: 3, evaluations: 1, __provider: v1 });
    sameOutput(p);
  });

  // ---------------------------------------------------------------- row 65

  it("65 configure_throws_retry: the failing configure fails only its RPC; the next one runs unconfigured, never re-configured", async function () {
    const v1 = await nodeProvider("countedV1", CFG);
    const p = await pair({ TEST_CONFIGURE_THROW_ONCE: "1" });
    sameOk(await both(p, (x) => x.client.configure({ "proj:a": "A" })));

    // Triggered by a Check, so the error is also echoed to stderr as for any Check failure.
    const failed = await both(p, (x) => x.client.check({ urn: nodeUrn("t"), news: { __provider: v1, name: "t" } }));
    sameError(failed, 2, "configure failed once (v1)");
    await both(p, (x) => x.until(() => x.stderr.includes("\n"), "the echoed configure error"));
    const firstLine = "Error: configure failed once (v1): Error: configure failed once (v1)";
    expect(p.ours.stderr.split("\n")[0]).to.equal(p.ref.stderr.split("\n")[0]).and.equal(firstLine);

    const next = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("t"), properties: { __provider: v1, name: "t" } })));
    expect(next.view.properties).to.deep.equal({ version: "v1", seen: null, configures: 1, calls: 1, evaluations: 1, __provider: v1 });
    const again = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("u"), properties: { __provider: v1, name: "u" } })));
    expect(again.view.properties).to.deep.equal({ version: "v1", seen: null, configures: 1, calls: 2, evaluations: 1, __provider: v1 });
    expect(p.ours.userStdout).to.deep.equal(p.ref.userStdout).and.deep.equal([]);
  });

  // ---------------------------------------------------------------- row 66

  it("66 configure_async_race_node: a request arriving during a pending configure gets the provider unconfigured", async function () {
    const gated = await nodeProvider("gatedConfigure", CFG);
    const p = await pair();
    sameOk(await both(p, (x) => x.client.configure({ "proj:a": "A" })));
    const waiter = both(p, (x) => x.client.create({ urn: nodeUrn("w"), properties: { __provider: gated } }));
    await both(p, (x) => x.until(() => x.userStdout.includes("configure started"), "the first create's configure to start"));
    // The second create is served while the first one's configure is still pending, and releases it.
    const releaser = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("r"), properties: { __provider: gated, act: "releaseConfigure" } })));
    expect(releaser.view).to.deep.equal({ id: "releaser", properties: { configured: false, configuredWith: null, __provider: gated } });
    const first = sameOk(await waiter);
    expect(first.view).to.deep.equal({ id: "waiter", properties: { configured: true, configuredWith: "A", __provider: gated } });
    sameOutput(p, ["configure started"]);
  });

  it("66 configure_async_race_node (slow configure, two concurrent creates): one sees the configured provider, the other does not", async function () {
    const v1 = await nodeProvider("countedV1", CFG);
    const p = await pair({ TEST_CONFIGURE_SLOW_MS: "1500" });
    sameOk(await both(p, (x) => x.client.configure({ "proj:a": "A" })));
    const create = (x: Plugin) => x.client.create({ urn: nodeUrn("racer"), properties: { __provider: v1, name: "racer" } });
    // Either create may arrive first; order the answers by the call counter they report.
    const byCalls = (os: Outcome[]) => [...os].sort((a, b) => a.view.properties.calls - b.view.properties.calls);
    const [ours, ref] = await both(p, (x) => Promise.all([create(x), create(x)]).then(byCalls));
    expect(ours).to.deep.equal(ref);
    expect(ours.map((o) => o.code)).to.deep.equal([0, 0]);
    expect(ours.map((o) => o.view.properties)).to.deep.equal([
      { version: "v1", seen: null, configures: 1, calls: 1, evaluations: 1, __provider: v1 },
      { version: "v1", seen: { a: "A", banana: null, project: "proj" }, configures: 1, calls: 2, evaluations: 1, __provider: v1 },
    ]);
    sameOutput(p);
  });

  // ---------------------------------------------------------------- row 67

  it("67 rpc_before_configure: without a Configure, config.get in configure is a TypeError; the provider stays cached unconfigured", async function () {
    const configured = await nodeProvider("configured");
    const p = await pair();
    const failed = await both(p, (x) => x.client.check({ urn: nodeUrn("b"), news: { __provider: configured } }));
    sameError(failed, 2, "Cannot read properties of undefined (reading 'proj:a')");
    await both(p, (x) => x.until(() => x.stderr.includes("\n"), "the echoed TypeError"));
    const firstLine = "TypeError: Cannot read properties of undefined (reading 'proj:a'): TypeError: Cannot read properties of undefined (reading 'proj:a')";
    expect(p.ours.stderr.split("\n")[0]).to.equal(p.ref.stderr.split("\n")[0]).and.equal(firstLine);
    const next = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("b"), properties: { __provider: configured } })));
    expect(next.view.properties.seen).to.equal(null);
  });

  // ---------------------------------------------------------------- row 68

  it("68 provider_code_change_between_steps: two texts, two evaluations and two configures; the old text still deletes", async function () {
    const [v1, v2] = await Promise.all([nodeProvider("countedV1", CFG), nodeProvider("countedV2", CFG)]);
    expect(v1).to.not.equal(v2);
    const p = await pair();
    sameOk(await both(p, (x) => x.client.configure({ "proj:a": "A" })));
    const seen = { a: "A", banana: null, project: "proj" };

    const created = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("r"), properties: { __provider: v1, name: "r" } })));
    expect(created.view).to.deep.equal({ id: "v1-r", properties: { version: "v1", seen, configures: 1, calls: 1, evaluations: 1, __provider: v1 } });
    // The next step's program carries new provider code: its Check and the replacement's Create use the new text.
    const checked = sameOk(await both(p, (x) => x.client.check({ urn: nodeUrn("r"), olds: { __provider: v1, name: "r" }, news: { __provider: v2, name: "r" } })));
    expect(checked.view.inputs.view).to.deep.equal({ version: "v2", seen, configures: 1, calls: 1, evaluations: 2 });
    const replacement = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("r"), properties: { __provider: v2, name: "r2" } })));
    expect(replacement.view).to.deep.equal({ id: "v2-r2", properties: { version: "v2", seen, configures: 1, calls: 2, evaluations: 2, __provider: v2 } });
    // Deleting the replaced resource uses its state's (old) text, still cached and not re-configured.
    const deleted = sameOk(await both(p, (x) => x.client.delete({ urn: nodeUrn("r"), id: "v1-r", properties: created.view.properties, oldInputs: { __provider: v1, name: "r" } })));
    expect(deleted.view).to.deep.equal({});
    await both(p, (x) => x.until(() => x.userStdout.length === 1, "the delete's line"));
    sameOutput(p, ["delete v1-r ran v1 code: configures=1 calls=2 evaluations=2"]);
  });

  // ---------------------------------------------------------------- row 71

  it("71 user_stdout_stderr_passthrough: console.log/console.error in create reach stdout/stderr after the port line, unchanged", async function () {
    const scripted = await nodeProvider("scripted");
    const p = await pair();
    const msg = "héllo\tworld ✓ {\"json\": [1, 2]} 100%";
    const o = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("log"), properties: { __provider: scripted, act: "log", msg } })));
    expect(o.view.id).to.equal("log");
    await both(p, (x) => x.until(() => x.userStdout.length > 0 && x.stderr.endsWith("\n"), "the user's lines"));
    for (const x of [p.ours, p.ref]) expect(x.stdout[0], x.kind).to.match(/^\d+$/);
    sameOutput(p, [`stdout from create ${msg}`], `stderr from create ${msg}\n`);
  });

  // ---------------------------------------------------------------- row 73

  it("73 node_require_from_cwd: a node_modules package and a relative file resolve from the plugin cwd; __filename is \"\"", async function () {
    const [requires, scripted] = await Promise.all([nodeProvider("requires", CFG), nodeProvider("scripted")]);
    // The closure requires sleep-promise by package name, as the serializer writes modules under node_modules.
    expect(requires).to.include('require("sleep-promise');
    const p = await pair();
    const cwd = fs.realpathSync(NODE_PROGRAM);
    const o = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("req"), properties: { __provider: requires } })));
    expect(o.view.properties).to.deep.equal({
      sleepIsFunction: true,
      slept: true,
      sleepResolved: createRequire(path.join(cwd, "x.js")).resolve("sleep-promise"),
      helperResolved: path.join(cwd, "local-helper.js"),
      helperWhere: "node-program/local-helper.js",
      helperDoubled: 42,
      cwd,
      filename: "",
      dirname: ".",
      __provider: requires,
    });
    const rel = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("rel"), properties: { __provider: scripted, act: "requireRelative" } })));
    expect(rel.view).to.deep.equal({ id: "rel", properties: { where: "node-program/local-helper.js", doubled: 42, __provider: scripted } });
    sameOutput(p);
  });

  // ---------------------------------------------------------------- realm

  it("realm: values crossing into and out of provider code are of the main realm (instanceof Array/Object/Error/Promise)", async function () {
    const scripted = await nodeProvider("scripted");
    const p = await pair();
    const o = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("realm"), properties: { __provider: scripted, act: "realm", l: [1, "two", null] } })));
    expect(o.view).to.deep.equal({
      id: "realm",
      properties: {
        propsIsObject: true,
        listIsArray: true,
        errorIsError: true,
        promiseIsPromise: true,
        bufferIsUint8: true,
        protoOfProps: true,
        filename: "",
        dirname: ".",
        typeofRequire: "function",
        __provider: scripted,
      },
    });
    sameOutput(p);
  });

  // ---------------------------------------------------------------- PULUMI_CONFIG

  it("PULUMI_CONFIG from the plugin's environment is visible to provider code", async function () {
    const scripted = await nodeProvider("scripted");
    const config = JSON.stringify({ id: "testing123" });
    const p = await pair({ PULUMI_CONFIG: config, PULUMI_NODEJS_PROJECT: "proj" });
    const o = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("env"), properties: { __provider: scripted, act: "env" } })));
    expect(o.view.id).to.equal("env");
    expect(o.view.properties.config).to.equal(config);
    expect(JSON.parse(o.view.properties.config)).to.deep.equal({ id: "testing123" });
    expect(o.view.properties.project).to.equal("proj");
    expect(o.view.properties.proj).to.equal("proj");
    expect(o.view.properties.stack).to.be.a("string");
    sameOutput(p);
  });

  // ---------------------------------------------------------------- row 74

  /** An unhandled rejection and an uncaught exception from provider code; both plugins must print and survive them. */
  async function leaveUncaughtErrors(p: Pair): Promise<void> {
    const uncaught = await nodeProvider("uncaught", CFG);
    const r1 = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("r1"), properties: { __provider: uncaught, act: "reject", name: "r1" } })));
    expect(r1.view).to.deep.equal({ id: "u-r1", properties: { act: "reject", __provider: uncaught } });
    await both(p, (x) => x.until(() => x.stderr.includes("Error: unhandled rejection r1"), "the unhandled rejection"));
    sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("t1"), properties: { __provider: uncaught, act: "throwLater", name: "t1" } })));
    await both(p, (x) => x.until(() => x.stderr.includes("Error: uncaught exception t1"), "the uncaught exception"));
    // Still serving after both.
    const after = sameOk(await both(p, (x) => x.client.create({ urn: nodeUrn("ok"), properties: { __provider: uncaught, act: "none", name: "ok" } })));
    expect(after.view.id).to.equal("u-ok");
    // Each printed once, as its stack (frames differ: file names and our host's own frames).
    for (const x of [p.ours, p.ref]) {
      expect(withoutFrames(x.stderr), x.kind).to.deep.equal(["Error: unhandled rejection r1", "Error: uncaught exception t1", ""]);
      expect(x.stderr.split("\n")[1], x.kind).to.match(/^ {4}at /);
    }
    expect(p.ours.userStdout).to.deep.equal(p.ref.userStdout).and.deep.equal([]);
  }

  it("74 node_uncaught_async_error: printed to stderr, the plugin keeps serving; SIGINT (as the engine stops it) ends both alike", async function () {
    const p = await pair();
    await leaveUncaughtErrors(p);
    const [o, r] = await both(p, (x) => x.stop());
    expect(o).to.deep.equal(r);
    // No handler catches SIGINT, so the exit-code rewrite never runs: the process dies of the signal.
    expect(r).to.deep.equal({ code: null, signal: "SIGINT" });
  });

  it("74 node_uncaught_async_error: a normal exit after an uncaught error has exit code 1 (0 without one)", async function () {
    const uncaught = await nodeProvider("uncaught", CFG);
    const exitNow = (x: Plugin) => {
      // The process ends right after answering; whether the answer gets out first is not the point.
      void x.client.create({ urn: nodeUrn("x"), properties: { __provider: uncaught, act: "exit0", name: "x" } });
      return x.exited;
    };
    const dirty = await pair();
    await leaveUncaughtErrors(dirty);
    const [o, r] = await both(dirty, exitNow);
    expect(o).to.deep.equal(r).and.deep.equal({ code: 1, signal: null });

    const clean = await pair();
    const [oc, rc] = await both(clean, exitNow);
    expect(oc).to.deep.equal(rc).and.deep.equal({ code: 0, signal: null });
    sameOutput(clean);
  });

  it("74 node_uncaught_async_error: closing the harness's stdin (a socket, not a pipe) stops neither; SIGINT then ends both alike", async function () {
    const p = await pair();
    await leaveUncaughtErrors(p);
    await both(p, (x) => {
      const closed = new Promise((resolve) => x.child.stdin!.once("close", resolve));
      x.child.stdin!.end();
      return closed;
    });
    const info = sameOk(await both(p, (x) => x.client.getPluginInfo()));
    expect(info.view.version).to.match(/^3\.\d+\.\d+$/);
    expect([p.ours.child.exitCode, p.ref.child.exitCode]).to.deep.equal([null, null]);
    const [o, r] = await both(p, (x) => x.stop());
    expect(o).to.deep.equal(r).and.deep.equal({ code: null, signal: "SIGINT" });
  });

  it("74 node_uncaught_async_error [difference]: when a real pipe on stdin closes (the engine is gone), ours exits with code 1; the reference keeps serving", async function () {
    // The engine's stdin is an os.Pipe it never writes to and never closes while
    // the plugin lives (exec.Cmd.StdinPipe): EOF means the engine process died.
    // The reference ignores it and lives on as an orphan; ours shuts down, and
    // the uncaught errors it saw make that exit code 1, as on any clean exit.
    const [ours, ref] = await Promise.all([launchWithPipeStdin("ours"), launchWithPipeStdin("reference")]);
    launched.push(ours.plugin, ref.plugin);
    const p = { ours: ours.plugin, ref: ref.plugin };
    await leaveUncaughtErrors(p);
    ours.closeStdin();
    ref.closeStdin();
    const oursExit = await p.ours.exited;
    expect(oursExit).to.deep.equal({ code: 1, signal: null });
    // Both saw EOF at the same moment; by the time ours has exited, the reference still answers.
    const info = await p.ref.client.getPluginInfo();
    expect(info.code).to.equal(0);
    expect(p.ref.child.exitCode).to.equal(null);
    expect(await p.ref.stop()).to.deep.equal({ code: null, signal: "SIGINT" });
    expect(p.ours.userStdout).to.deep.equal(p.ref.userStdout).and.deep.equal([]);
  });
});

async function launchWithPipeStdin(kind: PluginKind): Promise<{ plugin: Plugin; closeStdin: () => void }> {
  const plugin = await Plugin.launch(kind, { pipeStdin: true, env: BASE_ENV });
  return { plugin, closeStdin: () => plugin.closeStdin() };
}

