// One provider, every Pulumi language: a JavaScript program (an Automation API
// inline program, project runtime nodejs) registers pulumi-python:dynamic:Counter
// with a plain pulumi.CustomResource and plain inputs, and the Python provider
// the project declares in Pulumi.yaml (counters:CounterProvider, from
// test/e2e/declared-project/counters.py copied beside it) serves it under the
// real engine: up, an up with nothing to change, refresh, an update, `pulumi
// import` of an existing counter, destroy. No __provider exists anywhere.
//
// The Python is picked by a nodejs project's rules
// (src/python-bridge/interpreter/project-interpreter.ts): the section's `python:` naming the
// test virtualenv (relative to Pulumi.yaml) in one project, a `.venv` symlink to
// it in the other. The provider reports the process that ran it (ranBy), so
// "our plugin ran it, with that Python" is read from the state.
//
// Beside ours, the same program under Pulumi's own Python plugin, which cannot
// serve a request without __provider: its failure is recorded as it is.
import { expect } from "chai";
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, languageStandIn, prepareEngine, prepareReferenceEngine, sandbox, type Sandbox } from "./harness.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");

const PROJECT = "declared-python";
const TYPE = "pulumi-python:dynamic:Counter";
const OUR_PYTHON_PLUGIN = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const COUNTERS = `${REPO}test/e2e/declared-project/counters.py`;

type Event = Record<string, any>;

interface Project {
  dir: string;
  settings: Record<string, unknown>;
  /** The python the project's rules should pick, as the worker sees itself (sys.executable). */
  python: string;
}

const made: string[] = [];

/** A fresh nodejs project under .cache/e2e holding counters.py; `how` says where its Python comes from. */
function makeProject(sb: Sandbox, how: "python-key" | "dot-venv"): Project {
  const base = `${E2E_ROOT}/projects`;
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, "declared-python-"));
  made.push(dir);
  fs.copyFileSync(COUNTERS, path.join(dir, "counters.py"));
  const section: Record<string, unknown> = { providers: { [TYPE]: "counters:CounterProvider" } };
  let python: string;
  if (how === "python-key") {
    section.python = path.relative(dir, TEST_VENV);
    python = VENV_PYTHON;
  } else {
    fs.symlinkSync(TEST_VENV, path.join(dir, ".venv"));
    python = `${dir}/.venv/bin/python`;
  }
  const settings = { name: PROJECT, runtime: "nodejs", backend: { url: `file://${sb.backend}` }, "pulumi-dynamic-host": section };
  return { dir, settings, python };
}

async function stackFor(sb: Sandbox, project: Project, stackName: string, program: () => Promise<unknown>, root = E2E_ROOT) {
  const pulumiCommand = await automation.PulumiCommand.get({ root, skipVersionCheck: true });
  return inlineStack(
    { stackName, projectName: PROJECT, program },
    { workDir: project.dir, pulumiHome: sb.home, envVars: sb.env, pulumiCommand, projectSettings: project.settings },
  );
}

function recorder() {
  const events: Event[] = [];
  return { events, onEvent: (e: Event) => events.push(e) };
}

/** The Counters of `stack export`, by name. */
async function counters(stack: any): Promise<Record<string, any>> {
  const out: Record<string, any> = {};
  for (const r of (await stack.exportStack()).deployment.resources ?? []) if (r.type === TYPE) out[r.urn.split("::").pop()] = r;
  return out;
}

/** No resource of the stack holds __provider, in its inputs or its outputs. */
async function expectNoProvider(stack: any): Promise<void> {
  for (const r of (await stack.exportStack()).deployment.resources ?? []) {
    expect(Object.keys(r.inputs ?? {}), `${r.urn} inputs`).to.not.include("__provider");
    expect(Object.keys(r.outputs ?? {}), `${r.urn} outputs`).to.not.include("__provider");
  }
}

/** `pulumi import` in the project, with the language host stand-in first on PATH (test/e2e/language-stand-in.mjs). */
function pulumiImport(sb: Sandbox, project: Project, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, ...sb.env, PATH: `${languageStandIn()}:${sb.env.PATH}` };
  return new Promise((resolve) => {
    execFile(`${E2E_BIN}/pulumi`, ["import", ...args], { cwd: project.dir, env, encoding: "utf8" }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The program: one Counter, registered with plain inputs and its two outputs asked for, which it exports.
 * It passes `step` as counters.py's read reports it, and its diff compares it, so that an up after an
 * import or a refresh finds nothing to change.
 */
function counterProgram(start: () => number) {
  return async () => {
    const c = new pulumi.CustomResource(TYPE, "counted", { start: start(), step: 1, value: undefined, ranBy: undefined });
    return { value: c.value, ranBy: c.ranBy };
  };
}

/** The provider's report (counters.ran_by) says our plugin ran it, in our worker, with the project's Python. */
function expectOurs(ranBy: any, project: Project) {
  expect(ranBy.launchedAs, "the plugin the engine ran").to.equal(OUR_PYTHON_PLUGIN);
  expect(ranBy.script).to.match(/\/python-stub\/worker\.py$/);
  expect(ranBy.python).to.equal(project.python);
}

describe("end to end: a JavaScript program uses a Python provider declared in Pulumi.yaml (one provider, every language)", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-declared-python");
  });
  after(function () {
    sb?.cleanup();
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const how of ["python-key", "dot-venv"] as const) {
    it(`up, up again, refresh, update, pulumi import, destroy; the Python chosen by ${how === "python-key" ? "the section's python:" : "a .venv beside Pulumi.yaml"}`, async function () {
      const project = makeProject(sb, how);
      let start = 1;
      const stackName = `lifecycle-${how}`;
      const stack = await stackFor(sb, project, stackName, counterProgram(() => start));

      const up = await stack.up({});
      expect(up.summary.result).to.equal("succeeded");
      expect(up.summary.resourceChanges).to.deep.equal({ create: 2 });
      expect(up.outputs.value.value, "the output the program asked for").to.equal(1);
      expectOurs(up.outputs.ranBy.value, project);
      let state = await counters(stack);
      expect(state.counted.id).to.equal("counter-1");
      expect(state.counted.inputs).to.deep.equal({ start: 1, step: 1 });
      expect(state.counted.outputs).to.deep.include({ start: 1, step: 1, value: 1 });
      expectOurs(state.counted.outputs.ranBy, project);
      await expectNoProvider(stack);

      const again = await stack.up({});
      expect(again.summary.resourceChanges).to.deep.equal({ same: 2 });

      const refresh = await stack.refresh({});
      expect(refresh.summary.result).to.equal("succeeded");
      expect(refresh.summary.resourceChanges).to.deep.equal({ same: 2 });
      state = await counters(stack);
      expect(state.counted.outputs).to.deep.include({ start: 1, value: 1 });
      expectOurs(state.counted.outputs.ranBy, project);
      await expectNoProvider(stack);

      start = 2;
      const update = await stack.up({});
      expect(update.summary.resourceChanges).to.deep.equal({ same: 1, update: 1 });
      expect(update.outputs.value.value, "start + step").to.equal(3);
      state = await counters(stack);
      expect([state.counted.id, state.counted.inputs]).to.deep.equal(["counter-1", { start: 2, step: 1 }]);
      await expectNoProvider(stack);

      const imported = await pulumiImport(sb, project, [TYPE, "adopted", "counter-7", "--yes", "--generate-code=false", "--protect=false", "--stack", stackName, "--non-interactive"]);
      expect(imported.code, `${imported.stdout}\n${imported.stderr}`).to.equal(0);
      state = await counters(stack);
      expect(state.adopted.id).to.equal("counter-7");
      expect(state.adopted.inputs).to.deep.equal({ start: 7, step: 1 });
      expect(state.adopted.outputs).to.deep.include({ start: 7, value: 7 });
      expectOurs(state.adopted.outputs.ranBy, project);
      await expectNoProvider(stack);

      const rec = recorder();
      const destroy = await stack.destroy({ onEvent: rec.onEvent });
      expect(destroy.summary.result).to.equal("succeeded");
      expect(destroy.summary.resourceChanges).to.deep.equal({ delete: 3 });
      expect(await counters(stack)).to.deep.equal({});
    });
  }

  it("under Pulumi's own Python plugin the same program fails: it cannot serve a request without __provider (recorded, not ours)", async function () {
    const project = makeProject(sb, "python-key");
    const stack = await stackFor(sb, project, "under-reference", counterProgram(() => 1), prepareReferenceEngine());
    const rec = recorder();
    let error: any;
    await stack.up({ onEvent: rec.onEvent }).catch((e: any) => (error = e));
    expect(error, "the up should fail").to.not.equal(undefined);
    const errors = rec.events
      .filter((e) => e.diagnosticEvent && e.diagnosticEvent.severity === "error" && e.diagnosticEvent.urn)
      .map((e) => e.diagnosticEvent);
    expect(errors.map((d) => d.urn)).to.deep.equal([`urn:pulumi:under-reference::${PROJECT}::${TYPE}::counted`]);
    // What `python -m pulumi.dynamic` says: the SDK looks __provider up in the request and fails with a KeyError.
    expect(errors[0].message).to.match(/KeyError: '__provider'/);
    expect(errors[0].message, "not our host's text").to.not.contain("pulumi-dynamic-host");
    expect(await counters(stack)).to.deep.equal({});
  });
});
