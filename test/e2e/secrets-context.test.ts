// Secrets out and the call context under the real engine (issue 20), in both
// languages: a provider that returns a secret Output gets it stored as a
// secret (encrypted in `stack export`), its plaintext in no engine event and
// nowhere in the export; plain outputs stay plain; a secret input echoed back
// stays secret. A provider that reports its call context sees the resource's
// URN, name, type, the preview flag, the deadline from customTimeouts, and a
// Delete's old inputs. Node: an Automation API inline program in this process;
// Python: test/e2e/python-program/secrets_context.py.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { REPO } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { drive } from "./python-driver.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const { providers } = require(`${REPO}test/fixtures/node-providers-secrets.cjs`);

const SECRET_SIG = { key: "4dabf18193072939515e22adb298388d", value: "1b47061264138c4ac30d75fd1eb44270" };

function isEncryptedSecret(v: unknown): boolean {
  return !!v && typeof v === "object" && (v as any)[SECRET_SIG.key] === SECRET_SIG.value && typeof (v as any).ciphertext === "string";
}

/**
 * `pulumi stack export` as a user runs it (the Automation APIs export with
 * --show-secrets, which decrypts): secrets stay ciphertext.
 */
function encryptedExport(sb: Sandbox, stack: string, cwd: string): any {
  return JSON.parse(execFileSync(`${E2E_BIN}/pulumi`, ["stack", "export", "--stack", stack], { cwd, env: { ...process.env, ...sb.env }, encoding: "utf8" }));
}

/** What both languages' records must show: `events` and `exports` as JSON texts. */
function expectSecretsKept(language: string, minted: any, eventsText: string, exportsText: string, plaintexts: string[]) {
  expect(isEncryptedSecret(minted.outputs.password), `${language}: password encrypted`).to.equal(true);
  expect(isEncryptedSecret(minted.outputs.echo), `${language}: the echoed secret input stays secret`).to.equal(true);
  expect(minted.outputs.plain).to.equal("visible");
  expect(minted.outputs.note, "a plain Output becomes its plain value").to.equal("plain-note");
  for (const p of plaintexts) {
    expect(exportsText, `${language}: ${p} in the export`).to.not.include(p);
    const at = eventsText.indexOf(p);
    expect(at, `${language}: ${p} in an engine event: …${eventsText.slice(Math.max(0, at - 600), at + 100)}`).to.equal(-1);
  }
}

describe("end to end: secrets out and the call context, under the real engine", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-secrets-context");
  });
  after(function () {
    sb?.cleanup();
  });

  it("Node: secret Outputs are stored encrypted, their plaintext nowhere; the context has the resource's facts", async function () {
    const report = path.join(sb.dir, "node-delete-context.json");
    let phase = 1;
    const program = async () => {
      const D = pulumi.dynamic.Resource;
      new D(providers.minted, "minted", { seed: "n0de-s33d", echo: pulumi.secret("n0de-ech0-secret") });
      const ctx = new D(providers.contextEcho, "ctx", { value: phase === 1 ? "x" : "y", reportTo: report }, { customTimeouts: { create: "2m", delete: "3m" } });
      return { ctxUrn: ctx.urn };
    };
    const pulumiCommand = await automation.PulumiCommand.get({ root: E2E_ROOT, skipVersionCheck: true });
    const stack = await inlineStack(
      { stackName: "secrets", projectName: "e2e-node", program },
      {
        workDir: `${REPO}test/e2e/node-program`,
        pulumiHome: sb.home,
        envVars: sb.env,
        pulumiCommand,
        projectSettings: { name: "e2e-node", runtime: "nodejs", backend: { url: `file://${sb.backend}` } },
      },
    );
    const events: any[] = [];
    const beforeUp = Date.now();
    const up = await stack.up({ onEvent: (e: any) => events.push(e) });
    const afterUp = Date.now();
    expect(up.summary.result).to.equal("succeeded");
    const exported = encryptedExport(sb, "secrets", `${REPO}test/e2e/node-program`);
    const byName = Object.fromEntries(
      exported.deployment.resources.filter((r: any) => r.type.startsWith("pulumi-nodejs:")).map((r: any) => [r.urn.split("::").pop(), r]),
    );
    // The program's own SDK (the language side, not a plugin) prints the engine's RegisterResource answer, secrets
    // decrypted, in a debug line of its own (runtime/resource.js); that line aside, no event holds a plaintext.
    const sdkOwn = (e: any) => e.diagnosticEvent?.severity === "debug" && /^RegisterResource RPC finished: /.test(e.diagnosticEvent.message);
    expect(events.filter(sdkOwn).length, "the SDK's own debug lines are there (the filter is not empty-handed)").to.be.greaterThan(0);
    const shown = events.filter((e) => !sdkOwn(e));
    expectSecretsKept("nodejs", byName.minted, JSON.stringify(shown), JSON.stringify(exported), ["n0de-s33d-minted", "n0de-ech0-secret"]);

    const urn = up.outputs.ctxUrn.value;
    const type = "pulumi-nodejs:dynamic:Resource";
    const created = byName.ctx.outputs.createContext;
    expect({ ...created, deadline: undefined }).to.deep.equal({ operation: "create", urn, name: "ctx", type, preview: false, deadline: undefined, signal: true, oldInputs: "unset" });
    // customTimeouts create: 2m, counted from when the host took the call, which was during the up.
    expect(Date.parse(created.deadline)).to.be.within(beforeUp + 120_000, afterUp + 120_000);
    expect(byName.ctx.inputs.checkContext).to.deep.equal({ operation: "check", urn, name: "ctx", type, preview: "unset", deadline: "unset", signal: true, oldInputs: "unset" });

    phase = 2;
    const changed = await stack.up({ onEvent: () => {} });
    expect(changed.summary.resourceChanges.update).to.equal(1);
    const after = await stack.exportStack();
    const ctxAfter = after.deployment.resources.find((r: any) => r.urn === urn);
    expect(ctxAfter.outputs.updateContext).to.deep.equal({ operation: "update", urn, name: "ctx", type, preview: false, deadline: "unset", signal: true, oldInputs: "unset" });

    await stack.destroy({ onEvent: () => {} });
    const deleted = JSON.parse(fs.readFileSync(report, "utf8"));
    expect({ ...deleted, deadline: undefined }).to.deep.equal({
      operation: "delete",
      urn,
      name: "ctx",
      type,
      preview: false,
      deadline: undefined,
      signal: true,
      oldInputs: { __provider: ctxAfter.inputs.__provider, value: "y", reportTo: report, checkContext: ctxAfter.inputs.checkContext },
    });
    expect(deleted.deadline).to.be.a("string");
  });

  it("Python: secret Outputs are stored encrypted, their plaintext nowhere; the context has the resource's facts", async function () {
    const report = path.join(sb.dir, "python-delete-context.json");
    const beforeUp = Date.now();
    const steps = await drive(sb, "secrets-context", "runtime-options", { driver: "secrets_context.py", extra: { report } });
    const afterAll = Date.now();
    for (const s of Object.values(steps)) expect(s.error, `${s.name}: ${JSON.stringify(s.error)}`).to.equal(undefined);
    const up = steps.up;
    expect(steps.export.cli!.code, steps.export.cli!.stderr).to.equal(0);
    const exportText = steps.export.cli!.stdout;
    const minted = JSON.parse(exportText).deployment.resources.find((r: any) => r.urn.endsWith("::minted"));
    const events = JSON.stringify(Object.values(steps).map((s) => s.events));
    expectSecretsKept("python", minted, events, exportText, ["py-s33d-minted", "py-ech0-secret"]);

    const ctx = up.resources.ctx;
    const urn = ctx.urn;
    const type = "pulumi-python:dynamic:Resource";
    const created = ctx.outputs.createContext;
    expect({ ...created, deadline: undefined }).to.deep.equal({ operation: "create", urn, name: "ctx", type, preview: false, deadline: undefined, cancelled: false, oldInputs: "unset" });
    expect(Date.parse(created.deadline)).to.be.within(beforeUp + 120_000, afterAll + 120_000);
    expect(ctx.inputs.checkContext).to.deep.equal({ operation: "check", urn, name: "ctx", type, preview: "unset", deadline: "unset", cancelled: false, oldInputs: "unset" });
    expect(steps["up-change"].resources.ctx.outputs.updateContext).to.deep.equal({ operation: "update", urn, name: "ctx", type, preview: false, deadline: "unset", cancelled: false, oldInputs: "unset" });

    const deleted = JSON.parse(fs.readFileSync(report, "utf8"));
    const lastInputs = steps["up-change"].resources.ctx.inputs;
    // The state keeps __provider secret (the SDK's serialize_as_secret_always); the provider sees its text.
    expect(deleted.oldInputs.__provider).to.be.a("string").and.match(/^gAS/);
    delete deleted.oldInputs.__provider;
    expect({ ...deleted, deadline: undefined }).to.deep.equal({
      operation: "delete",
      urn,
      name: "ctx",
      type,
      preview: false,
      deadline: undefined,
      cancelled: false,
      oldInputs: { a: "y", reportTo: report, checkContext: lastInputs.checkContext },
    });
  });
});
