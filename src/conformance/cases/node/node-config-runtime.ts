// Spec §9 rows about Configure and provider.configure, the provider cache,
// Cancel, user output, module resolution and uncaught errors (Node). Cases that
// depend on process state (config, the provider cache, uncaught errors) have a
// session, hence a plugin, of their own; what the plugin printed is observed
// and compared too.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { contains, equal, matches, ok, secret, session, type Case, type CaseContext, type LaunchedPlugin } from "../../case.js";
import type { Outcome, Props } from "../../client.js";

const TOP = "differential (Node): configure, provider cache and runtime";
const CFG = "node-providers-cfg";

/** A hermetic environment: the project is set explicitly unless a case says otherwise. */
const BASE_ENV: Record<string, string | undefined> = {
  PULUMI_NODEJS_PROJECT: "proj",
  PULUMI_PROJECT: undefined,
  PULUMI_CONFIG: undefined,
  TEST_CONFIGURE_THROW_ONCE: undefined,
  TEST_CONFIGURE_SLOW_MS: undefined,
  TEST_CONFIGURE_REQUIRE: undefined,
};

/** A session of one case: a plugin of its own, started with `env` over BASE_ENV. */
function own(slug: string, env: Record<string, string | undefined> = {}) {
  return session({ id: `node/config-runtime/${slug}`, language: "nodejs", suite: [TOP], launch: { env: { ...BASE_ENV, ...env } } });
}

/** Stack frames differ (file names, our host's frames); everything else must match. */
const withoutFrames = (s: string) => s.split("\n").filter((l) => !/^\s+at /.test(l));

const OK_EMPTY = { code: 0, details: "", view: {}, bytes: "" };

/** What the plugin printed: stdout after the port line, all of stderr. */
interface Printed {
  stdout: string[];
  stderr: string;
}
const printed = (ctx: CaseContext): Printed => ({ stdout: [...ctx.userStdout()], stderr: ctx.stderr() });

function okOutcome(o: Outcome, what: string): void {
  equal(o.code, 0, `${what}: ${o.details}`);
}

const configured = (ctx: CaseContext) => ctx.payload("configured");

const namespacedConfig = {
  "proj:a": "from proj",
  "pyproj:a": "from pyproj",
  "project:a": "from the default project",
  "colors:banana": "yellow",
};

// ---------------------------------------------------------------- 13

const s13 = own("13-cancel");
interface Cancel {
  holder: string;
  during: Outcome;
  info: Outcome;
  finishedEarly: number;
  release: Outcome;
  a: Outcome;
  b: Outcome;
  after: Outcome;
  plain: Outcome;
  out: Printed;
}

const c13 = s13.case<Cancel>("13-cancel-ok", {
  title: "13 cancel_ok: Cancel answers Empty while creates are in flight and after they finished, aborting nothing",
  spec: ["13"],
  async ask(ctx) {
    const holder = await ctx.payload("holder", CFG);
    let finished = 0;
    const hold = (name: string) =>
      ctx.client.create({ urn: ctx.urn(name), properties: { __provider: holder, act: "hold", name } }).then((r) => {
        finished++;
        return r;
      });
    const heldA = hold("A");
    const heldB = hold("B");
    await ctx.plugin.until(() => ctx.plugin.userStdout.includes("holding A") && ctx.plugin.userStdout.includes("holding B"), "both creates to start");
    const during = await ctx.client.cancel();
    // A further round trip after the Cancel: the held creates are still running.
    const info = await ctx.client.getPluginInfo();
    const finishedEarly = finished;
    const release = await ctx.client.create({ urn: ctx.urn("releaser"), properties: { __provider: holder, act: "release" } });
    const [a, b] = [await heldA, await heldB];
    const after = await ctx.client.cancel();
    // Cancel does not shut anything down: the plugin goes on serving.
    const plain = await ctx.client.create({ urn: ctx.urn("plain"), properties: { __provider: holder } });
    return { holder, during, info, finishedEarly, release, a, b, after, plain, out: printed(ctx) };
  },
  expect(x) {
    equal(x.during, OK_EMPTY, "Cancel during the creates");
    okOutcome(x.info, "GetPluginInfo");
    equal(x.finishedEarly, 0, "creates finished by the Cancel");
    okOutcome(x.release, "the releasing create");
    equal(x.release.view.id, "release");
    equal(x.release.view.properties.released, 2);
    equal(x.a.view, { id: "held-A", properties: { name: "A", __provider: x.holder } });
    equal(x.b.view, { id: "held-B", properties: { name: "B", __provider: x.holder } });
    equal(x.after, OK_EMPTY, "Cancel after the creates");
    okOutcome(x.plain, "a create after Cancel");
    equal(x.plain.view.id, "plain");
    equal(x.out, { stdout: ["holding A", "holding B"], stderr: "" });
  },
});

// ---------------------------------------------------------------- 61–63

interface ConfigRun {
  configure: Outcome;
  create: Outcome;
  out: Printed;
}

async function configureThenCreate(ctx: CaseContext, args: Props, name: string): Promise<ConfigRun> {
  const configure = await ctx.client.configure(args);
  const create = await ctx.client.create({ urn: ctx.urn(name), properties: { __provider: await configured(ctx) } });
  return { configure, create, out: printed(ctx) };
}

const c61 = own("61-secret").case<ConfigRun>("61-configure-secret-unwrapped", {
  title: "61 configure_secret_unwrapped: a secret config value reaches configure as a plain string",
  spec: ["61"],
  ask: (ctx) => configureThenCreate(ctx, { "proj:password": secret("hunter2"), "proj:a": "1", "colors:banana": secret("yellow") }, "s"),
  expect(x) {
    okOutcome(x.configure, "Configure");
    okOutcome(x.create, "Create");
    equal(x.create.view.id, "cfg");
    equal(x.create.view.properties.seen, { a: "1", banana: "yellow", password: "hunter2", project: "proj" });
    equal(x.out, { stdout: [], stderr: "" });
  },
});

// PULUMI_PROJECT is the Python reference's variable: the Node plugin ignores it.
const c62 = own("62-project-set", { PULUMI_NODEJS_PROJECT: "proj", PULUMI_PROJECT: "pyproj" }).case<ConfigRun>("62-namespacing-project-set", {
  title: '62 configure_namespacing (PULUMI_NODEJS_PROJECT set): get("a") reads <project>:a, get("colors:banana") is verbatim',
  spec: ["62"],
  ask: (ctx) => configureThenCreate(ctx, namespacedConfig, "n"),
  expect(x) {
    okOutcome(x.configure, "Configure");
    okOutcome(x.create, "Create");
    equal(x.create.view.properties.seen, { a: "from proj", banana: "yellow", password: null, project: "proj" });
    equal(x.out, { stdout: [], stderr: "" });
  },
});

const c62b = (
  [
    ["unset", undefined],
    ["empty", ""],
  ] as const
).map(([label, value]) =>
  own(`62-project-${label}`, { PULUMI_NODEJS_PROJECT: value, PULUMI_PROJECT: "pyproj" }).case<ConfigRun>(`62-namespacing-project-${label}`, {
    title: `62 configure_namespacing (PULUMI_NODEJS_PROJECT ${label}): the project is "project"`,
    spec: ["62"],
    ask: (ctx) => configureThenCreate(ctx, namespacedConfig, "n"),
    expect(x) {
      okOutcome(x.configure, "Configure");
      okOutcome(x.create, "Create");
      equal(x.create.view.properties.seen, { a: "from the default project", banana: "yellow", password: null, project: "project" });
      equal(x.out, { stdout: [], stderr: "" });
    },
  }),
);

const c63 = own("63-require", { TEST_CONFIGURE_REQUIRE: "k" }).case<ConfigRun>("63-configure-require-missing", {
  title: "63 configure_require_missing: Create fails with `Missing required configuration key: k`, nothing on stderr",
  spec: ["63"],
  ask: (ctx) => configureThenCreate(ctx, { "proj:a": "1" }, "r"),
  expect(x) {
    okOutcome(x.configure, "Configure");
    // The key as passed, not the prefixed one.
    equal(x.create, { code: 2, details: "Missing required configuration key: k" });
    equal(x.out, { stdout: [], stderr: "" });
  },
});

// ---------------------------------------------------------------- 64–68

const seenA = { a: "A", banana: null, project: "proj" };

const c64 = own("64-once").case<{ v1: string; answers: Outcome[]; out: Printed }>("64-configure-once-per-string", {
  title: "64 configure_once_per_string: three RPCs with one text give one evaluation and one configure",
  spec: ["64"],
  async ask(ctx) {
    const v1 = await ctx.payload("countedV1", CFG);
    const answers = [await ctx.client.configure({ "proj:a": "A" })];
    answers.push(await ctx.client.check({ urn: ctx.urn("c"), news: { __provider: v1, name: "c" } }));
    answers.push(await ctx.client.create({ urn: ctx.urn("c"), properties: { __provider: v1, name: "c" } }));
    answers.push(await ctx.client.create({ urn: ctx.urn("d"), properties: { __provider: v1, name: "d" } }));
    return { v1, answers, out: printed(ctx) };
  },
  expect({ v1, answers: [configure, check, c1, c2], out }) {
    for (const [o, what] of [[configure, "Configure"], [check, "Check"], [c1, "Create c"], [c2, "Create d"]] as const) okOutcome(o, what);
    equal(check.view.inputs.view, { version: "v1", seen: seenA, configures: 1, calls: 1, evaluations: 1 });
    equal(c1.view.id, "v1-c");
    equal(c1.view.properties, { version: "v1", seen: seenA, configures: 1, calls: 2, evaluations: 1, __provider: v1 });
    equal(c2.view.properties, { version: "v1", seen: seenA, configures: 1, calls: 3, evaluations: 1, __provider: v1 });
    equal(out, { stdout: [], stderr: "" });
  },
});

const c65 = own("65-throws-retry", { TEST_CONFIGURE_THROW_ONCE: "1" }).case<{ v1: string; answers: Outcome[]; firstErrLine: string; stdout: string[] }>(
  "65-configure-throws-retry",
  {
    title: "65 configure_throws_retry: the failing configure fails only its RPC; the next one runs unconfigured, never re-configured",
    spec: ["65"],
    async ask(ctx) {
      const v1 = await ctx.payload("countedV1", CFG);
      const answers = [await ctx.client.configure({ "proj:a": "A" })];
      // Triggered by a Check, so the error is also echoed to stderr as for any Check failure.
      answers.push(await ctx.client.check({ urn: ctx.urn("t"), news: { __provider: v1, name: "t" } }));
      await ctx.plugin.until(() => ctx.plugin.stderr.includes("\n"), "the echoed configure error");
      const firstErrLine = ctx.plugin.stderr.split("\n")[0];
      answers.push(await ctx.client.create({ urn: ctx.urn("t"), properties: { __provider: v1, name: "t" } }));
      answers.push(await ctx.client.create({ urn: ctx.urn("u"), properties: { __provider: v1, name: "u" } }));
      return { v1, answers, firstErrLine, stdout: [...ctx.userStdout()] };
    },
    expect({ v1, answers: [configure, failed, next, again], firstErrLine, stdout }) {
      okOutcome(configure, "Configure");
      equal(failed, { code: 2, details: "configure failed once (v1)" });
      equal(firstErrLine, "Error: configure failed once (v1): Error: configure failed once (v1)", "stderr's first line");
      okOutcome(next, "the next Create");
      equal(next.view.properties, { version: "v1", seen: null, configures: 1, calls: 1, evaluations: 1, __provider: v1 });
      okOutcome(again, "the Create after it");
      equal(again.view.properties, { version: "v1", seen: null, configures: 1, calls: 2, evaluations: 1, __provider: v1 });
      equal(stdout, [], "stdout");
    },
  },
);

const c66 = own("66-race").case<{ gated: string; configure: Outcome; releaser: Outcome; first: Outcome; out: Printed }>("66-configure-async-race", {
  title: "66 configure_async_race_node: a request arriving during a pending configure gets the provider unconfigured",
  spec: ["66"],
  async ask(ctx) {
    const gated = await ctx.payload("gatedConfigure", CFG);
    const configure = await ctx.client.configure({ "proj:a": "A" });
    const waiter = ctx.client.create({ urn: ctx.urn("w"), properties: { __provider: gated } });
    await ctx.plugin.until(() => ctx.plugin.userStdout.includes("configure started"), "the first create's configure to start");
    // The second create is served while the first one's configure is still pending, and releases it.
    const releaser = await ctx.client.create({ urn: ctx.urn("r"), properties: { __provider: gated, act: "releaseConfigure" } });
    const first = await waiter;
    return { gated, configure, releaser, first, out: printed(ctx) };
  },
  expect({ gated, configure, releaser, first, out }) {
    okOutcome(configure, "Configure");
    okOutcome(releaser, "the releasing create");
    equal(releaser.view, { id: "releaser", properties: { configured: false, configuredWith: null, __provider: gated } });
    okOutcome(first, "the waiting create");
    equal(first.view, { id: "waiter", properties: { configured: true, configuredWith: "A", __provider: gated } });
    equal(out, { stdout: ["configure started"], stderr: "" });
  },
});

const c66b = own("66-slow", { TEST_CONFIGURE_SLOW_MS: "1500" }).case<{ v1: string; configure: Outcome; answers: Outcome[]; out: Printed }>(
  "66-configure-slow-two-creates",
  {
    title: "66 configure_async_race_node (slow configure, two concurrent creates): one sees the configured provider, the other does not",
    spec: ["66"],
    async ask(ctx) {
      const v1 = await ctx.payload("countedV1", CFG);
      const configure = await ctx.client.configure({ "proj:a": "A" });
      const create = () => ctx.client.create({ urn: ctx.urn("racer"), properties: { __provider: v1, name: "racer" } });
      // Either create may arrive first; order the answers by the call counter they report.
      const answers = (await Promise.all([create(), create()])).sort((a, b) => (a.view?.properties?.calls ?? 0) - (b.view?.properties?.calls ?? 0));
      return { v1, configure, answers, out: printed(ctx) };
    },
    expect({ v1, configure, answers, out }) {
      okOutcome(configure, "Configure");
      equal(answers.map((o) => o.code), [0, 0], "the creates' status");
      equal(answers.map((o) => o.view.properties), [
        { version: "v1", seen: null, configures: 1, calls: 1, evaluations: 1, __provider: v1 },
        { version: "v1", seen: seenA, configures: 1, calls: 2, evaluations: 1, __provider: v1 },
      ]);
      equal(out, { stdout: [], stderr: "" });
    },
  },
);

const c67 = own("67-before-configure").case<{ failed: Outcome; firstErrLine: string; next: Outcome }>("67-rpc-before-configure", {
  title: "67 rpc_before_configure: without a Configure, config.get in configure is a TypeError; the provider stays cached unconfigured",
  spec: ["67"],
  async ask(ctx) {
    const failed = await ctx.client.check({ urn: ctx.urn("b"), news: { __provider: await configured(ctx) } });
    await ctx.plugin.until(() => ctx.plugin.stderr.includes("\n"), "the echoed TypeError");
    const firstErrLine = ctx.plugin.stderr.split("\n")[0];
    return { failed, firstErrLine, next: await ctx.client.create({ urn: ctx.urn("b"), properties: { __provider: await configured(ctx) } }) };
  },
  expect({ failed, firstErrLine, next }) {
    const msg = "Cannot read properties of undefined (reading 'proj:a')";
    equal(failed, { code: 2, details: msg });
    equal(firstErrLine, `TypeError: ${msg}: TypeError: ${msg}`, "stderr's first line");
    okOutcome(next, "the next Create");
    equal(next.view.properties.seen, null);
  },
});

const c68 = own("68-code-change").case<{ v1: string; v2: string; answers: Outcome[]; out: Printed }>("68-provider-code-change", {
  title: "68 provider_code_change_between_steps: two texts, two evaluations and two configures; the old text still deletes",
  spec: ["68"],
  async ask(ctx) {
    const [v1, v2] = [await ctx.payload("countedV1", CFG), await ctx.payload("countedV2", CFG)];
    const answers = [await ctx.client.configure({ "proj:a": "A" })];
    const created = await ctx.client.create({ urn: ctx.urn("r"), properties: { __provider: v1, name: "r" } });
    answers.push(created);
    // The next step's program carries new provider code: its Check and the replacement's Create use the new text.
    answers.push(await ctx.client.check({ urn: ctx.urn("r"), olds: { __provider: v1, name: "r" }, news: { __provider: v2, name: "r" } }));
    answers.push(await ctx.client.create({ urn: ctx.urn("r"), properties: { __provider: v2, name: "r2" } }));
    // Deleting the replaced resource uses its state's (old) text, still cached and not re-configured.
    answers.push(await ctx.client.delete({ urn: ctx.urn("r"), id: "v1-r", properties: created.view?.properties, oldInputs: { __provider: v1, name: "r" } }));
    await ctx.plugin.until(() => ctx.plugin.userStdout.length === 1, "the delete's line");
    return { v1, v2, answers, out: printed(ctx) };
  },
  expect({ v1, v2, answers: [configure, created, checked, replacement, deleted], out }) {
    ok(v1 !== v2, "the two versions' payloads differ");
    for (const [o, what] of [[configure, "Configure"], [created, "Create"], [checked, "Check"], [replacement, "the replacement's Create"], [deleted, "Delete"]] as const) okOutcome(o, what);
    equal(created.view, { id: "v1-r", properties: { version: "v1", seen: seenA, configures: 1, calls: 1, evaluations: 1, __provider: v1 } });
    equal(checked.view.inputs.view, { version: "v2", seen: seenA, configures: 1, calls: 1, evaluations: 2 });
    equal(replacement.view, { id: "v2-r2", properties: { version: "v2", seen: seenA, configures: 1, calls: 2, evaluations: 2, __provider: v2 } });
    equal(deleted.view, {});
    equal(out, { stdout: ["delete v1-r ran v1 code: configures=1 calls=2 evaluations=2"], stderr: "" });
  },
});

// ---------------------------------------------------------------- 71, 73, realm, PULUMI_CONFIG

const MSG71 = 'héllo\tworld ✓ {"json": [1, 2]} 100%';
const c71 = own("71-output").case<{ o: Outcome; portLine: string; out: Printed }>("71-user-stdout-stderr", {
  title: "71 user_stdout_stderr_passthrough: console.log/console.error in create reach stdout/stderr after the port line, unchanged",
  spec: ["71"],
  async ask(ctx) {
    const o = await ctx.client.create({ urn: ctx.urn("log"), properties: { __provider: await ctx.payload("scripted"), act: "log", msg: MSG71 } });
    await ctx.plugin.until(() => ctx.plugin.userStdout.length > 0 && ctx.plugin.stderr.endsWith("\n"), "the user's lines");
    return { o, portLine: ctx.plugin.stdout[0], out: printed(ctx) };
  },
  compare: ({ o, out }) => ({ o, out }),
  expect({ o, portLine, out }) {
    okOutcome(o, "Create");
    equal(o.view.id, "log");
    matches(portLine, /^\d+$/, "the port line");
    equal(out, { stdout: [`stdout from create ${MSG71}`], stderr: `stderr from create ${MSG71}\n` });
  },
});

interface Requires {
  requires: string;
  scripted: string;
  cwd: string;
  sleepResolved: string;
  o: Outcome;
  rel: Outcome;
  out: Printed;
}

const c73 = own("73-require").case<Requires>("73-node-require-from-cwd", {
  title: '73 node_require_from_cwd: a node_modules package and a relative file resolve from the plugin cwd; __filename is ""',
  spec: ["73"],
  needs: ["sleep-promise"],
  async ask(ctx) {
    const [requires, scripted] = [await ctx.payload("requires", CFG), await ctx.payload("scripted")];
    const cwd = fs.realpathSync(ctx.programDir);
    const o = await ctx.client.create({ urn: ctx.urn("req"), properties: { __provider: requires } });
    const rel = await ctx.client.create({ urn: ctx.urn("rel"), properties: { __provider: scripted, act: "requireRelative" } });
    return { requires, scripted, cwd, sleepResolved: createRequire(path.join(cwd, "x.js")).resolve("sleep-promise"), o, rel, out: printed(ctx) };
  },
  expect({ requires, scripted, cwd, sleepResolved, o, rel, out }) {
    // The closure requires sleep-promise by package name, as the serializer writes modules under node_modules.
    contains(requires, 'require("sleep-promise', "the payload");
    okOutcome(o, "Create");
    equal(o.view.properties, {
      sleepIsFunction: true,
      slept: true,
      sleepResolved,
      helperResolved: path.join(cwd, "local-helper.js"),
      helperWhere: "node-program/local-helper.js",
      helperDoubled: 42,
      cwd,
      filename: "",
      dirname: ".",
      __provider: requires,
    });
    okOutcome(rel, "the relative require's Create");
    equal(rel.view, { id: "rel", properties: { where: "node-program/local-helper.js", doubled: 42, __provider: scripted } });
    equal(out, { stdout: [], stderr: "" });
  },
});

const cRealm = own("realm").case<{ scripted: string; o: Outcome; out: Printed }>("realm", {
  title: "realm: values crossing into and out of provider code are of the main realm (instanceof Array/Object/Error/Promise)",
  async ask(ctx) {
    const scripted = await ctx.payload("scripted");
    const o = await ctx.client.create({ urn: ctx.urn("realm"), properties: { __provider: scripted, act: "realm", l: [1, "two", null] } });
    return { scripted, o, out: printed(ctx) };
  },
  expect({ scripted, o, out }) {
    okOutcome(o, "Create");
    equal(o.view, {
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
    equal(out, { stdout: [], stderr: "" });
  },
});

const PULUMI_CONFIG = JSON.stringify({ id: "testing123" });
const cConfig = own("pulumi-config", { PULUMI_CONFIG, PULUMI_NODEJS_PROJECT: "proj" }).case<{ o: Outcome; out: Printed }>("pulumi-config-env", {
  title: "PULUMI_CONFIG from the plugin's environment is visible to provider code",
  async ask(ctx) {
    const o = await ctx.client.create({ urn: ctx.urn("env"), properties: { __provider: await ctx.payload("scripted"), act: "env" } });
    return { o, out: printed(ctx) };
  },
  expect({ o, out }) {
    okOutcome(o, "Create");
    equal(o.view.id, "env");
    equal(o.view.properties.config, PULUMI_CONFIG);
    equal(JSON.parse(o.view.properties.config), { id: "testing123" });
    equal(o.view.properties.project, "proj");
    equal(o.view.properties.proj, "proj");
    equal(typeof o.view.properties.stack, "string", "the stack");
  },
});

// ---------------------------------------------------------------- 74

interface Uncaught {
  answers: Outcome[];
  stderrLines: string[];
  secondLine: string;
  stdout: string[];
}

/** An unhandled rejection and an uncaught exception from provider code; the plugin must print and survive them. */
async function leaveUncaughtErrors(ctx: CaseContext, p: LaunchedPlugin): Promise<Uncaught> {
  const uncaught = await ctx.payload("uncaught", CFG);
  const answers = [await p.client.create({ urn: ctx.urn("r1"), properties: { __provider: uncaught, act: "reject", name: "r1" } })];
  await p.until(() => p.stderr.includes("Error: unhandled rejection r1"), "the unhandled rejection");
  answers.push(await p.client.create({ urn: ctx.urn("t1"), properties: { __provider: uncaught, act: "throwLater", name: "t1" } }));
  await p.until(() => p.stderr.includes("Error: uncaught exception t1"), "the uncaught exception");
  // Still serving after both.
  answers.push(await p.client.create({ urn: ctx.urn("ok"), properties: { __provider: uncaught, act: "none", name: "ok" } }));
  return { answers, stderrLines: withoutFrames(p.stderr), secondLine: p.stderr.split("\n")[1], stdout: [...p.userStdout] };
}

function expectUncaught({ answers: [r1, t1, after], stderrLines, secondLine, stdout }: Uncaught, uncaught: string): void {
  okOutcome(r1, "the rejecting create");
  equal(r1.view, { id: "u-r1", properties: { act: "reject", __provider: uncaught } });
  okOutcome(t1, "the throwing create");
  okOutcome(after, "a create after both");
  equal(after.view.id, "u-ok");
  // Each printed once, as its stack (frames differ: file names and our host's own frames).
  equal(stderrLines, ["Error: unhandled rejection r1", "Error: uncaught exception t1", ""], "stderr without stack frames");
  matches(secondLine, /^ {4}at /, "stderr's second line");
  equal(stdout, [], "stdout");
}

/** The comparable part of an Uncaught: the stack frames' text differs between plugins. */
const uncaughtShape = (u: Uncaught) => ({ answers: u.answers, stderrLines: u.stderrLines, stdout: u.stdout });

const c74a = own("74-sigint").case<{ uncaught: string; u: Uncaught; exit: unknown }>("74-uncaught-sigint", {
  title: "74 node_uncaught_async_error: printed to stderr, the plugin keeps serving; SIGINT (as the engine stops it) ends both alike",
  spec: ["74"],
  async ask(ctx) {
    const u = await leaveUncaughtErrors(ctx, ctx.plugin);
    return { uncaught: await ctx.payload("uncaught", CFG), u, exit: await ctx.plugin.stop() };
  },
  compare: (x) => ({ u: uncaughtShape(x.u), exit: x.exit }),
  expect(x) {
    expectUncaught(x.u, x.uncaught);
    // No handler catches SIGINT, so the exit-code rewrite never runs: the process dies of the signal.
    equal(x.exit, { code: null, signal: "SIGINT" }, "the exit");
  },
});

const exitNow = (ctx: CaseContext, p: LaunchedPlugin, uncaught: string) => {
  // The process ends right after answering; whether the answer gets out first is not the point.
  void p.client.create({ urn: ctx.urn("x"), properties: { __provider: uncaught, act: "exit0", name: "x" } });
  return p.exited;
};

const c74b = own("74-exit-code").case<{ uncaught: string; u: Uncaught; dirty: unknown; clean: unknown; cleanOut: Printed }>("74-uncaught-exit-code", {
  title: "74 node_uncaught_async_error: a normal exit after an uncaught error has exit code 1 (0 without one)",
  spec: ["74"],
  async ask(ctx) {
    const uncaught = await ctx.payload("uncaught", CFG);
    const u = await leaveUncaughtErrors(ctx, ctx.plugin);
    const dirty = await exitNow(ctx, ctx.plugin, uncaught);
    const clean = await ctx.launch({ env: BASE_ENV });
    const cleanExit = await exitNow(ctx, clean, uncaught);
    return { uncaught, u, dirty, clean: cleanExit, cleanOut: { stdout: [...clean.userStdout], stderr: clean.stderr } };
  },
  compare: (x) => ({ u: uncaughtShape(x.u), dirty: x.dirty, clean: x.clean, cleanOut: x.cleanOut }),
  expect(x) {
    expectUncaught(x.u, x.uncaught);
    equal(x.dirty, { code: 1, signal: null }, "the exit after uncaught errors");
    equal(x.clean, { code: 0, signal: null }, "the exit without one");
    equal(x.cleanOut, { stdout: [], stderr: "" }, "the clean plugin's output");
  },
});

const c74c = own("74-socket-stdin").case<{ uncaught: string; u: Uncaught; info: Outcome; running: boolean; exit: unknown }>("74-uncaught-socket-stdin", {
  title: "74 node_uncaught_async_error: closing the harness's stdin (a socket, not a pipe) stops neither; SIGINT then ends both alike",
  spec: ["74"],
  async ask(ctx) {
    const u = await leaveUncaughtErrors(ctx, ctx.plugin);
    await ctx.plugin.closeStdin();
    const info = await ctx.client.getPluginInfo();
    const running = ctx.plugin.exitCode() === null;
    return { uncaught: await ctx.payload("uncaught", CFG), u, info, running, exit: await ctx.plugin.stop() };
  },
  compare: (x) => ({ u: uncaughtShape(x.u), info: x.info, running: x.running, exit: x.exit }),
  expect(x) {
    expectUncaught(x.u, x.uncaught);
    okOutcome(x.info, "GetPluginInfo");
    matches(x.info.view.version, /^3\.\d+\.\d+$/, "version");
    ok(x.running, "still running after its stdin closed");
    equal(x.exit, { code: null, signal: "SIGINT" }, "the exit");
  },
});

/** How long a plugin whose stdin closed must stay up to count as "keeps serving". */
const STILL_SERVING_MS = 3000;

const s74d = session({ id: "node/config-runtime/74-pipe-stdin", language: "nodejs", suite: [TOP], launch: { env: BASE_ENV, pipeStdin: true } });
const c74d = s74d.case<{ uncaught: string; u: Uncaught; exit: unknown; info?: Outcome; running: boolean; stopped?: unknown }>("74-uncaught-pipe-stdin-closed", {
  title: "74 node_uncaught_async_error [difference]: when a real pipe on stdin closes (the engine is gone), ours exits with code 1; the reference keeps serving",
  spec: ["74"],
  // The engine's stdin is an os.Pipe it never writes to and never closes while
  // the plugin lives (exec.Cmd.StdinPipe): EOF means the engine process died.
  // The reference ignores it and lives on as an orphan; ours shuts down, and
  // the uncaught errors it saw make that exit code 1, as on any clean exit.
  async ask(ctx) {
    const uncaught = await ctx.payload("uncaught", CFG);
    const u = await leaveUncaughtErrors(ctx, ctx.plugin);
    await ctx.plugin.closeStdin();
    // Either it exits (ours, at once), or it is still serving well after: a plugin that
    // never exits can only be told by waiting (side by side the tests waited for ours' exit).
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([ctx.plugin.exited, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), STILL_SERVING_MS)))]);
    clearTimeout(timer);
    if (exit) return { uncaught, u, exit, running: false };
    const info = await ctx.client.getPluginInfo();
    const running = ctx.plugin.exitCode() === null;
    return { uncaught, u, exit: null, info, running, stopped: await ctx.plugin.stop() };
  },
  expect: (x) => expectUncaught(x.u, x.uncaught),
  difference: {
    doc: "docs/parity.md#both-languages (the engine goes away)",
    ours: (x) => equal(x.exit, { code: 1, signal: null }, "the exit once stdin closed"),
    reference(x) {
      equal(x.exit, null, "an exit");
      equal(x.info?.code, 0, "GetPluginInfo after stdin closed");
      ok(x.running, "still running after its stdin closed");
      equal(x.stopped, { code: null, signal: "SIGINT" }, "the exit on SIGINT");
    },
  },
});

export const nodeConfigRuntime: Case[] = [c13, c61, c62, ...c62b, c63, c64, c65, c66, c66b, c67, c68, c71, c73, cRealm, cConfig, c74a, c74b, c74c, c74d];
