// Secret resource inputs under the real engine (issue 20), in both languages:
// a program passes secret inputs (a string, one nested in an object, a number,
// one in a list, a boolean); its provider prints them in check, diff, create,
// update and delete, and another provider quotes one in the error it throws.
// Through our plugins (which accept secrets: src/host/secrets/secret-inputs.ts) every
// such line is under its resource with `[secret]` in place of the value, the
// error too, and no engine event holds a plaintext; the provider itself saw
// plain values; what it echoes back is stored encrypted (`stack export`).
// Beside it, the same programs through Pulumi's own plugins, which answer
// acceptSecrets false: the engine strips the secrets, and the plaintexts reach
// the CLI (docs/parity.md, "Secrets in error texts").
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { REPO } from "../helpers/paths.js";
import { E2E_ROOT, prepareEngine, prepareReferenceEngine, sandbox, type Sandbox } from "./harness.js";
import { drive, type Step } from "./python-driver.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const providers = require(`${REPO}test/e2e/node-program/secret-inputs.cjs`);

const NODE_WORK_DIR = `${REPO}test/e2e/node-program`;
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** The plaintexts of the program's secret inputs (the boolean aside: see docs/parity.md). */
const TOKEN = "tok-9f3a-secret";
const NESTED = "nested-k3y-secret";
const PIN = 40417.25;
const LISTED = "l1st-item-secret";
const PLAINTEXTS = [TOKEN, NESTED, String(PIN), LISTED];

interface Line {
  under: string;
  severity: string;
  line: string;
}

/** Every non-blank line of every diagnostic, with the name of the resource it is under ("" for none, "stack"). */
function linesOf(diagnostics: { urn?: string; severity: string; message: string }[]): Line[] {
  const out: Line[] = [];
  for (const d of diagnostics) {
    const urn = d.urn ?? "";
    const under = urn === "" ? "" : urn.includes("pulumi:pulumi:Stack") ? "stack" : urn.split("::").pop()!;
    for (const line of d.message.split("\n")) if (line.trim() !== "") out.push({ under, severity: d.severity, line: line.trimEnd() });
  }
  return out;
}

function isEncrypted(v: unknown): boolean {
  return !!v && typeof v === "object" && (v as any)[SIG] === SECRET_SIG && typeof (v as any).ciphertext === "string";
}

/** `pulumi stack export` as a user runs it (secrets stay ciphertext), through the CLI under `root`. */
function encryptedExport(sb: Sandbox, root: string, stack: string, cwd: string): any {
  return JSON.parse(execFileSync(`${root}/bin/pulumi`, ["stack", "export", "--stack", stack], { cwd, env: { ...process.env, ...sb.env }, encoding: "utf8" }));
}

/** Where `text` first occurs in `haystack`, with some context, for a failure's message. */
function around(haystack: string, text: string): string {
  const at = haystack.indexOf(text);
  return at < 0 ? "" : `…${haystack.slice(Math.max(0, at - 400), at + 200)}…`;
}

/**
 * The echoed inputs in the state: each secret one ciphertext. The list holding one secret item:
 * through ours, as the program gave it (that item secret); through the reference, the engine's
 * rule by property name makes the whole list secret.
 */
function expectEchoEncrypted(outputs: any, language: string, list: "item" | "whole") {
  expect(isEncrypted(outputs.token), `${language}: token`).to.equal(true);
  expect(isEncrypted(outputs.nested?.key), `${language}: nested.key`).to.equal(true);
  expect(outputs.nested?.other).to.equal("shown");
  expect(isEncrypted(outputs.pin), `${language}: pin`).to.equal(true);
  if (list === "whole") expect(isEncrypted(outputs.list), `${language}: list`).to.equal(true);
  else expect([outputs.list?.[0], isEncrypted(outputs.list?.[1])], `${language}: list`).to.deep.equal(["plain-item", true]);
  expect(isEncrypted(outputs.flag), `${language}: flag`).to.equal(true);
  expect(outputs.plain).to.equal("visible");
}

interface Run {
  /** Every engine event of every operation. */
  events: any[];
  lines: Line[];
  /** The echo resource's outputs in `stack export` after the first up. */
  exported: any;
  /** The thrower's error diagnostic. */
  error: { urn: string; message: string };
}

async function nodeStack(sb: Sandbox, root: string, stackName: string, program: () => Promise<unknown>) {
  const pulumiCommand = await automation.PulumiCommand.get({ root, skipVersionCheck: true });
  return inlineStack(
    { stackName, projectName: "e2e-node", program },
    {
      workDir: NODE_WORK_DIR,
      pulumiHome: sb.home,
      envVars: sb.env,
      pulumiCommand,
      projectSettings: { name: "e2e-node", runtime: "nodejs", backend: { url: `file://${sb.backend}` } },
    },
  );
}

/** The Node program through the plugins under `root`: up, up with a change (diff, update), destroy; then a create that throws. */
async function nodeRun(sb: Sandbox, root: string, stackName: string): Promise<Run> {
  let round = 1;
  const stack = await nodeStack(sb, root, stackName, async () => {
    new pulumi.dynamic.Resource(providers.echo, "echo", {
      token: pulumi.secret(TOKEN),
      nested: { key: pulumi.secret(NESTED), other: "shown" },
      pin: pulumi.secret(PIN),
      list: ["plain-item", pulumi.secret(LISTED)],
      flag: pulumi.secret(true),
      plain: "visible",
      round,
    });
  });
  const events: any[] = [];
  const onEvent = (e: any) => events.push(e);
  expect((await stack.up({ onEvent })).summary.result).to.equal("succeeded");
  const exported = encryptedExport(sb, root, stackName, NODE_WORK_DIR).deployment.resources.find((r: any) => r.urn.endsWith("::echo"));
  round = 2;
  const changed = await stack.up({ onEvent });
  expect(changed.summary.resourceChanges?.update, "the second up updates").to.equal(1);
  await stack.destroy({ onEvent });

  const failing = await nodeStack(sb, root, `${stackName}-throws`, async () => {
    new pulumi.dynamic.Resource(providers.thrower, "thrower", { token: pulumi.secret(TOKEN) });
  });
  let failed: unknown;
  await failing.up({ onEvent }).catch((e: unknown) => (failed = e));
  expect(failed, "the thrower's up fails").to.not.equal(undefined);
  await failing.destroy({});
  return finish(events, exported);
}

function finish(events: any[], exported: any): Run {
  // The engine's event objects: the Automation API's (camelCase) in Node, as dicts (snake_case) in Python.
  const diagnostics = events.map((e) => e.diagnosticEvent ?? e.diagnostic_event).filter((d) => d);
  const error = diagnostics.find((d) => d.severity === "error" && d.urn?.endsWith("::thrower"));
  expect(error, JSON.stringify(diagnostics.filter((d) => d.severity === "error"))).to.not.equal(undefined);
  return { events, lines: linesOf(diagnostics), exported, error };
}

/**
 * The events without the program's own SDK's debug lines: the Node SDK (the language side, not a
 * plugin) logs the RegisterResource request and answer it exchanges with the engine, secrets and
 * all, at debug; no plugin is involved.
 */
function withoutSdkDebug(events: any[]): any[] {
  return events.filter((e) => {
    const d = e.diagnosticEvent ?? e.diagnostic_event;
    return !(d?.severity === "debug" && /^RegisterResource RPC (prepared|finished)/.test(d.message ?? ""));
  });
}

describe("end to end: secret resource inputs a provider prints or quotes in an error (issue 20), under the real engine", function () {
  this.timeout(15 * 60 * 1000);
  let sb: Sandbox;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-secret-inputs");
  });
  after(function () {
    sb?.cleanup();
  });

  describe("Node", function () {
    let ours: Run;
    before(async function () {
      ours = await nodeRun(sb, E2E_ROOT, "secret-inputs");
    });

    it("every line the provider printed is under its resource with [secret] for each secret input, at its severity, in every method", function () {
      const echo = ours.lines.filter((l) => l.under === "echo" && !l.line.startsWith("RegisterResource"));
      const printed = echo.filter((l) => /^(check|diff|token|nested|pin|list|in a sentence|flag|update|delete)\b/.test(l.line));
      expect(printed.map((l) => [l.severity, l.line])).to.deep.include.members([
        ["info", "check sees token [secret]"],
        ["info", "token is [secret]"],
        ["info", "nested key is [secret]"],
        ["warning", "pin is [secret]"],
        // console.error is info: an error would show the resource failed (docs/provider-output.md, "Severities").
        ["info", "list holds [secret]"],
        ["debug", "in a sentence: the-[secret]-suffix"],
        // A boolean is not redacted (one bit; "true" everywhere would garble text); the plain value is shown.
        ["info", "flag is true, a plain value is visible"],
        ["info", "diff sees token [secret], was [secret]"],
        ["info", "update sees token [secret]"],
        ["info", "delete sees token [secret]"],
      ]);
    });

    it("the error quoting a secret input: [secret] in its text, under the resource, with the where block", function () {
      expect(ours.error.message.split("\n")[0]).to.equal("cannot log in with token [secret]");
      expect(ours.error.message).to.contain(`\n\n  where: Create ${ours.error.urn}`);
    });

    it("no plaintext in any engine event (the program's own SDK debug lines aside)", function () {
      const shown = withoutSdkDebug(ours.events);
      expect(ours.events.length - shown.length, "the SDK's own debug lines are there (the filter is not empty-handed)").to.be.greaterThan(0);
      const text = JSON.stringify(shown);
      for (const p of PLAINTEXTS) expect(text.includes(p), `${p} in an event: ${around(text, p)}`).to.equal(false);
    });

    it("the provider saw plain values, and the echoed secrets are stored encrypted (stack export)", function () {
      expect(ours.exported.outputs.typeOfToken).to.equal("string");
      expectEchoEncrypted(ours.exported.outputs, "nodejs", "item");
      expect(isEncrypted(ours.exported.inputs.token)).to.equal(true);
      expect(JSON.stringify(ours.exported)).to.not.include(TOKEN);
    });

    it("[difference] the reference plugin: the engine strips the secrets, the plaintexts reach the CLI in the lines and the error", async function () {
      const ref = await nodeRun(sb, prepareReferenceEngine(), "secret-inputs-reference");
      const lines = ref.lines.map((l) => l.line);
      expect(lines).to.include(`token is ${TOKEN}`);
      expect(lines).to.include(`check sees token ${TOKEN}`);
      expect(ref.error.message.trimEnd()).to.equal(`cannot log in with token ${TOKEN}`);
      // The engine marks echoed outputs secret by name for it: the same values are ciphertext (the list as a whole).
      expect(ref.exported.outputs.typeOfToken).to.equal("string");
      expectEchoEncrypted(ref.exported.outputs, "nodejs reference", "whole");
    });
  });

  describe("Python", function () {
    let ours: Run;
    before(async function () {
      ours = await pythonRun(sb, E2E_ROOT);
    });

    it("every line the provider printed is under its resource with [secret] for each secret input, at its severity, in every method", function () {
      const echo = ours.lines.filter((l) => l.under === "echo");
      expect(echo.map((l) => [l.severity, l.line])).to.deep.include.members([
        ["info", "check sees token [secret]"],
        ["info", "token is [secret]"],
        ["info", "nested key is [secret]"],
        ["warning", "pin is [secret]"],
        ["error", "list holds [secret]"],
        ["debug", "in a sentence: the-[secret]-suffix"],
        ["info", "flag is True, a plain value is visible"],
        ["info", "diff sees token [secret], was [secret]"],
        ["info", "update sees token [secret]"],
        ["info", "delete sees token [secret]"],
      ]);
    });

    it("the error quoting a secret input: [secret] in its text, under the resource, with the where block", function () {
      expect(ours.error.message).to.contain("Exception: cannot log in with token [secret]\n");
      expect(ours.error.message).to.contain(`\n  where: Create ${ours.error.urn}`);
    });

    it("no plaintext in any engine event", function () {
      const text = JSON.stringify(ours.events);
      for (const p of PLAINTEXTS) expect(text.includes(p), `${p} in an event: ${around(text, p)}`).to.equal(false);
    });

    it("the provider saw plain values, and the echoed secrets are stored encrypted (stack export)", function () {
      expect(ours.exported.outputs.typeOfToken).to.equal("str");
      expectEchoEncrypted(ours.exported.outputs, "python", "item");
      expect(JSON.stringify(ours.exported)).to.not.include(TOKEN);
    });

    it("[difference] the reference plugin: the engine strips the secrets, the plaintexts reach the CLI in the lines and the error", async function () {
      const ref = await pythonRun(sb, prepareReferenceEngine(), "-reference");
      const lines = ref.lines.map((l) => l.line);
      expect(lines).to.include(`token is ${TOKEN}`);
      expect(ref.error.message.trimEnd().endsWith(`Exception: cannot log in with token ${TOKEN}`)).to.equal(true);
      expect(ref.exported.outputs.typeOfToken).to.equal("str");
      expectEchoEncrypted(ref.exported.outputs, "python reference", "whole");
    });
  });
});

/** The Python program (python-program/secret_inputs.py) through the plugins under `root`. */
async function pythonRun(sb: Sandbox, root: string, suffix = ""): Promise<Run> {
  const steps = await drive(sb, "secret-inputs", "runtime-options", { driver: "secret_inputs.py", root, extra: { suffix } });
  for (const name of ["up", "export", "up-change", "destroy"]) expect(steps[name]?.error, `${name}: ${JSON.stringify(steps[name]?.error)}`).to.equal(undefined);
  expect(steps.throws.error, "the thrower's up fails").to.not.equal(undefined);
  expect(steps.export.cli!.code, steps.export.cli!.stderr).to.equal(0);
  const exported = JSON.parse(steps.export.cli!.stdout).deployment.resources.find((r: any) => r.urn.endsWith("::echo"));
  const events = (Object.values(steps) as Step[]).flatMap((s) => s.events);
  return finish(events, exported);
}

