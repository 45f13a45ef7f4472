// Declared types under the real engine, from a Go program: test/e2e/go-program
// (an Automation API driver, built by scripts/go-program.sh) registers
// pulumi-nodejs:dynamic/files:TextFile and pulumi-python:dynamic:Counter by
// token alone, with no provider object and no __provider input; the project's
// Pulumi.yaml declares where each provider lives (the shared fixtures of
// test/e2e/declared-project), and our two plugins serve them from that
// declaration through up, an up and a refresh that change nothing, an update,
// `pulumi import` of both types and destroy. The steps run in order on one
// stack, each asserting on the state `stack export` gives after it.
//
// The providers report who ran them: the Node one its process.argv[1] (our
// Node plugin's path, as the engine ran it), the Python one the
// PULUMI_DYNAMIC_HOST_SERVE its host was started with (our Python plugin's
// launcher, as the engine ran it) and its pid, which moves on whenever a new
// plugin process ran the provider's code.
import { expect } from "chai";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, languageStandIn, prepareEngine, sandbox, type Sandbox } from "./harness.js";

const TEXT_FILE = "pulumi-nodejs:dynamic/files:TextFile";
const COUNTER = "pulumi-python:dynamic:Counter";
const PROJECT = "go-declared";
const STACK = "dev";
const OUR_NODE = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;
const OUR_PYTHON = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const FIXTURES = `${REPO}test/e2e/declared-project`;

// Pulumi.yaml as a user writes it for a Go program; the Go driver must leave it as it is.
const PULUMI_YAML = `name: ${PROJECT}
runtime: go
pulumi-dynamic-host:
  providers:
    ${TEXT_FILE}: ./text-file#textFileProvider
    ${COUNTER}: counters:CounterProvider
`;

type Event = Record<string, any>;

/** One operation of the Go driver (its JSON, test/e2e/go-program/main.go). */
interface GoStep {
  name: string;
  summary?: { result: string; resourceChanges?: Record<string, number> };
  outputs?: Record<string, any>;
  error?: string;
  events: Event[];
}

interface Operation {
  name: string;
  op: "up" | "preview" | "refresh" | "destroy";
  expectNoChanges?: boolean;
  inputs?: { path: string; content: string; start: number };
}

/** The driver's executable: built from the Go module proxy, or reused from ~/.cache. */
function buildGoProgram(): string {
  const out = execFileSync("bash", [`${REPO}scripts/go-program.sh`], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return out.trim().split("\n").pop()!;
}

/** The engine's step op by resource name (urn's last part), for the dynamic resources. */
function ops(events: Event[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events) {
    const m = e.resOutputsEvent?.metadata;
    if (m && (m.type === TEXT_FILE || m.type === COUNTER)) out[m.urn.split("::").pop()] = m.op;
  }
  return out;
}

/** Diagnostics worse than info: none are expected in any step. */
function complaints(events: Event[]): Event[] {
  return events.filter((e) => e.diagnosticEvent && !["debug", "info"].includes(e.diagnosticEvent.severity)).map((e) => e.diagnosticEvent);
}

describe("end to end (Go): declared Node and Python providers through the whole lifecycle", function () {
  this.timeout(15 * 60 * 1000);
  let sb: Sandbox;
  let exe: string;
  let dir: string;
  /** The environment of every CLI run: the sandbox's, and the test virtualenv's Python for the Python plugin. */
  let cliEnv: Record<string, string>;
  const file = (name: string) => path.join(dir, "data", name);

  before(function () {
    prepareEngine();
    exe = buildGoProgram();
    sb = sandbox("e2e-go-declared");
    fs.mkdirSync(`${E2E_ROOT}/projects`, { recursive: true });
    dir = fs.mkdtempSync(`${E2E_ROOT}/projects/go-declared-`);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PULUMI_YAML);
    for (const f of ["text-file.js", "counters.py"]) fs.copyFileSync(path.join(FIXTURES, f), path.join(dir, f));
    // The project sits inside this repository, whose package.json says "type": "module";
    // a package boundary of its own keeps text-file.js CommonJS, as it is in a Go project elsewhere.
    fs.writeFileSync(path.join(dir, "package.json"), `{ "private": true }\n`);
    // The two supported ways a non-Python project names its Python: a .venv beside Pulumi.yaml, and PULUMI_PYTHON_CMD.
    fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(dir, ".venv"));
    fs.mkdirSync(path.join(dir, "data"));
    cliEnv = { ...sb.env, PULUMI_PYTHON_CMD: VENV_PYTHON };
  });
  after(function () {
    sb?.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs one operation with the Go driver; the driver itself gets none of the caller's Pulumi settings. */
  function runGo(operation: Operation): Promise<GoStep> {
    const settings = { root: E2E_ROOT, workDir: dir, project: PROJECT, stack: STACK, home: sb.home, env: cliEnv, operations: [operation] };
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_")));
    return new Promise((resolve, reject) => {
      execFile(exe, [JSON.stringify(settings)], { cwd: dir, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
        try {
          if (err) throw new Error(`go driver: ${err.message}\n${stderr}`);
          const doc = JSON.parse(stdout);
          if (doc.driverError) throw new Error(`go driver: ${doc.driverError}`);
          const [step] = doc.steps as GoStep[];
          expect(step.error, `${operation.name}: ${stderr}`).to.equal(undefined);
          // The Automation API read the work dir's Pulumi.yaml and wrote none over it.
          expect(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")).to.equal(PULUMI_YAML);
          resolve(step);
        } catch (e) {
          reject(e);
        }
      });
    });
  }

  /** The pulumi CLI in the project, as a user runs it; the language host stand-in answers for `go` (import runs no program). */
  function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = { ...process.env, ...cliEnv, PATH: `${languageStandIn()}:${cliEnv.PATH}` };
    return new Promise((resolve) => {
      execFile(`${E2E_BIN}/pulumi`, args, { cwd: dir, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  /**
   * The stack's resources by name after a step, checked for what every step
   * must keep: no __provider anywhere (inputs or outputs of any resource), and
   * every dynamic resource's outputs written by our plugins.
   */
  async function exported(): Promise<Record<string, any>> {
    const res = await cli(["stack", "export", "--stack", STACK]);
    expect(res.code, res.stderr).to.equal(0);
    const resources: any[] = JSON.parse(res.stdout).deployment.resources ?? [];
    expect(res.stdout).to.not.contain("__provider");
    const out: Record<string, any> = {};
    for (const r of resources) {
      if (r.type === TEXT_FILE) {
        expect(r.outputs.ranBy.script, `${r.urn}: the Node plugin that ran it`).to.equal(OUR_NODE);
        expect(r.outputs.ranBy.launchedAs, "our Node plugin is run by its own name, with no launcher").to.equal(null);
      }
      if (r.type === COUNTER) expect(r.outputs.ranBy.launchedAs, `${r.urn}: the Python plugin that ran it`).to.equal(OUR_PYTHON);
      if (r.type === TEXT_FILE || r.type === COUNTER) out[r.urn.split("::").pop()] = r;
    }
    return out;
  }

  let first: Record<string, any>;

  it("up creates both from their declarations; the program reads their outputs", async function () {
    const step = await runGo({ name: "up", op: "up", inputs: { path: file("notes.txt"), content: "hello", start: 3 } });
    expect(ops(step.events)).to.deep.equal({ notes: "create", visits: "create" });
    expect(complaints(step.events)).to.deep.equal([]);
    expect(step.outputs).to.deep.include({ fileId: file("notes.txt"), fileSize: 5, counterId: "counter-3", counterValue: 3 });
    expect(step.outputs!.fileRanBy.script).to.equal(OUR_NODE);
    expect(step.outputs!.counterRanBy.launchedAs).to.equal(OUR_PYTHON);
    expect(fs.readFileSync(file("notes.txt"), "utf8")).to.equal("hello");
    first = await exported();
    expect(first.notes.inputs).to.deep.equal({ path: file("notes.txt"), content: "hello" });
    expect(first.notes.outputs).to.include({ size: 5, content: "hello" });
    expect(first.visits.id).to.equal("counter-3");
    expect(first.visits.inputs).to.deep.equal({ start: 3 });
    expect(first.visits.outputs).to.include({ value: 3, start: 3 });
  });

  it("a second up with the same inputs changes nothing (--expect-no-changes)", async function () {
    const step = await runGo({ name: "again", op: "up", expectNoChanges: true, inputs: { path: file("notes.txt"), content: "hello", start: 3 } });
    expect(step.summary!.resourceChanges).to.deep.equal({ same: 3 });
    expect(complaints(step.events)).to.deep.equal([]);
    const state = await exported();
    // Nothing ran the providers' create or update again: the outputs are the first up's.
    expect(state.notes.outputs).to.deep.equal(first.notes.outputs);
    expect(state.visits.outputs).to.deep.equal(first.visits.outputs);
  });

  it("refresh reads both with new plugin processes and changes nothing (--expect-no-changes)", async function () {
    const step = await runGo({ name: "refresh", op: "refresh", expectNoChanges: true });
    expect(step.summary!.resourceChanges).to.deep.equal({ same: 3 });
    expect(complaints(step.events)).to.deep.equal([]);
    const state = await exported();
    expect(state.notes.outputs.ranBy.pid, "the Node provider's read ran").to.not.equal(first.notes.outputs.ranBy.pid);
    expect(state.visits.outputs.ranBy.pid, "the Python provider's read ran").to.not.equal(first.visits.outputs.ranBy.pid);
    expect(state.notes.outputs).to.include({ size: 5, content: "hello" });
    expect(state.visits.outputs).to.include({ value: 3 });
  });

  it("an update with new content and start updates both in place", async function () {
    const step = await runGo({ name: "update", op: "up", inputs: { path: file("notes.txt"), content: "hello again", start: 5 } });
    expect(ops(step.events)).to.deep.equal({ notes: "update", visits: "update" });
    expect(complaints(step.events)).to.deep.equal([]);
    // The counter's update answers start + step.
    expect(step.outputs).to.deep.include({ fileSize: 11, counterId: "counter-3", counterValue: 6 });
    expect(fs.readFileSync(file("notes.txt"), "utf8")).to.equal("hello again");
    const state = await exported();
    expect(state.notes.inputs).to.deep.equal({ path: file("notes.txt"), content: "hello again" });
    expect(state.visits.inputs).to.deep.equal({ start: 5 });
    expect(state.visits.outputs).to.include({ value: 6, start: 5 });
  });

  it("pulumi import of an existing file and of counter-7: each provider's read serves the id alone", async function () {
    fs.writeFileSync(file("adopted.txt"), "made outside pulumi");
    // Unprotected (import protects by default), so that the destroy below deletes them.
    const common = ["--yes", "--generate-code=false", "--protect=false", "--stack", STACK, "--non-interactive"];
    const fileImport = await cli(["import", TEXT_FILE, "adopted", file("adopted.txt"), ...common]);
    expect(fileImport.code, `${fileImport.stdout}\n${fileImport.stderr}`).to.equal(0);
    const counterImport = await cli(["import", COUNTER, "seven", "counter-7", ...common]);
    expect(counterImport.code, `${counterImport.stdout}\n${counterImport.stderr}`).to.equal(0);
    const state = await exported();
    expect(Object.keys(state).sort()).to.deep.equal(["adopted", "notes", "seven", "visits"]);
    expect(state.adopted.id).to.equal(file("adopted.txt"));
    expect(state.adopted.inputs).to.deep.equal({ path: file("adopted.txt"), content: "made outside pulumi" });
    expect(state.adopted.outputs).to.include({ size: "made outside pulumi".length });
    expect(state.seven.id).to.equal("counter-7");
    expect(state.seven.inputs).to.deep.equal({ start: 7, step: 1 });
    expect(state.seven.outputs).to.include({ value: 7 });
    expect([state.adopted.protect, state.seven.protect]).to.deep.equal([undefined, undefined]);
  });

  it("destroy deletes all four with the declared providers", async function () {
    const step = await runGo({ name: "destroy", op: "destroy" });
    expect(ops(step.events)).to.deep.equal({ notes: "delete", visits: "delete", adopted: "delete", seven: "delete" });
    expect(complaints(step.events)).to.deep.equal([]);
    expect(fs.existsSync(file("notes.txt")), "the Node provider's delete ran").to.equal(false);
    expect(fs.existsSync(file("adopted.txt"))).to.equal(false);
    expect(await exported()).to.deep.equal({});
  });
});
