// Spec §9, Python side: start-up (rows 1–6), the protocol surface (7–14),
// Check, Diff and Create (15–37), the concurrency cap (69) and the fresh
// contextvars context per RPC (70). Every request goes to the Python reference
// (`<venv>/bin/python -u -m pulumi.dynamic`, pulumi 3.270.0 from PyPI, in the
// test virtualenv) and to our pulumi-resource-pulumi-python; the answers are
// compared, and the concrete expected value is asserted as well, so that no
// test passes on two equally wrong answers.
//
// Errors are grpc-python's `context.abort(UNKNOWN, traceback.format_exc())`.
// Tracebacks differ only in the plugin's own plumbing frames (the reference's
// pulumi/dynamic/__main__.py wrapper and RPC method; ours' op_<method> frame of
// python-stub/worker.py): they are compared with those frames left out, i.e.
// the first line, every user and SDK frame and the final exception lines
// exactly. Tests named "[difference]" pin a deliberate difference: the
// reference's exact behaviour and ours' exact (different) behaviour.
import { expect } from "chai";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EMPTY_DIFF_VIEW, ProviderClient, type Outcome, type Props } from "../helpers/client.js";
import { OUR_PYTHON_PLUGIN, PYTHON_PROGRAM, SCENARIOS, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { pythonProvider, UNKNOWN } from "../helpers/payloads.js";
import { ENGINE_ADDRESS, launchPair, Plugin, type LaunchOptions } from "../helpers/plugin.js";
import { both, usePair, type Pair } from "../helpers/pair.js";

const PY_TYPE = "pulumi-python:dynamic:Resource";
const urnOf = (name: string) => `urn:pulumi:dev::proj::${PY_TYPE}::${name}`;

/** The run-time environment every launch starts from: nothing left over from the test runner's shell. */
const BASE_ENV: NodeJS.ProcessEnv = {
  PULUMI_PROJECT: undefined,
  PULUMI_CONFIG: undefined,
  PULUMI_PYTHON_CMD: undefined,
  PULUMI_RUNTIME_TOOLCHAIN: undefined,
  PYTHONHOME: undefined,
  TEST_CONFIGURE_RAISE_ONCE: undefined,
  TEST_CONFIGURE_REQUIRE: undefined,
};

const pythonPair = (opts: LaunchOptions = {}) => launchPair({ language: "python", ...opts, env: { ...BASE_ENV, ...opts.env } });

// ------------------------------------------------------------------ payloads

const A_FILE = `${SCENARIOS}python_providers_a.py`;
const SCRIPTED_FILE = `${SCENARIOS}python_providers.py`;
/** A payload of src/conformance/scenarios/python_providers_a.py, made by the SDK's serialize_provider in the test venv. */
const providerA = (name: string): string => pythonProvider(name, "python_providers_a.py");

// ------------------------------------------------------------------ pairs and stderr


/** A Python pair for the enclosing describe. */
const usePythonPair = (opts: LaunchOptions = {}): Pair => usePair(() => pythonPair(opts));

interface StderrMark {
  ours: number;
  ref: number;
}

const markStderr = (pair: Pair): StderrMark => ({ ours: pair.ours.stderr.length, ref: pair.ref.stderr.length });

let barriers = 0;

/**
 * What each plugin printed on stderr since `since`. A create whose provider
 * writes a unique marker to stderr is sent to both and awaited: stderr is
 * written in order, so whatever earlier RPCs printed lies before the marker,
 * and an empty segment proves that nothing was printed.
 */
async function stderrSince(pair: Pair, since: StderrMark): Promise<{ ours: string; ref: string }> {
  const marker = `stderr-barrier-${++barriers}`;
  const properties = { __provider: pythonProvider("scripted"), act: "print", msg: marker };
  const [o, r] = await both(pair, (c) => c.create({ urn: urnOf("barrier"), properties }));
  expect(o.code, o.details).to.equal(0);
  expect(r.code, r.details).to.equal(0);
  const echo = `stderr from create ${marker}\n`;
  const segment = async (p: Plugin, from: number) => {
    await p.until(() => p.stderr.indexOf(echo, from) >= 0, `the stderr barrier ${marker}`);
    return p.stderr.slice(from, p.stderr.indexOf(echo, from));
  };
  const [ours, ref] = await Promise.all([segment(pair.ours, since.ours), segment(pair.ref, since.ref)]);
  return { ours, ref };
}

// ------------------------------------------------------------------ tracebacks

interface Frame {
  file: string;
  line: number;
  name: string;
  /** The frame's whole text: the File line, the source line and any caret line. */
  text: string;
}

interface Traceback {
  first: string;
  frames: Frame[];
  final: string[];
}

function parseTraceback(details: string): Traceback {
  const lines = details.replace(/\n$/, "").split("\n");
  const frames: Frame[] = [];
  let i = 1;
  while (i < lines.length) {
    const m = /^ {2}File "(.*)", line (\d+), in (.*)$/.exec(lines[i]);
    if (!m) break;
    const body = [lines[i++]];
    while (i < lines.length && lines[i].startsWith("    ")) body.push(lines[i++]);
    frames.push({ file: m[1], line: Number(m[2]), name: m[3], text: body.join("\n") });
  }
  return { first: lines[0], frames, final: lines.slice(i) };
}

const REFERENCE_MAIN = /\/pulumi\/dynamic\/__main__\.py$/;
/** The worker script: in the checkout or npm package, or extracted from the single executable. */
const OUR_WORKER = /\/python-stub\/worker\.py$/;

/**
 * The traceback without the plugin's plumbing frames, after checking that the
 * frames left out are plumbing indeed: the reference's __main__.py frames
 * (wrapper, the RPC method, get_provider, a list comprehension), ours' single
 * op_<method> frame of python-stub/worker.py.
 */
function userTraceback(details: string, kind: "ours" | "reference", op: "check" | "diff" | "create"): Traceback {
  const tb = parseTraceback(details);
  const plumbing = tb.frames.filter((f) => (kind === "ours" ? OUR_WORKER.test(f.file) : REFERENCE_MAIN.test(f.file)));
  if (kind === "ours") {
    expect(plumbing.map((f) => f.name), "ours' plumbing frames").to.deep.equal([`op_${op}`]);
  } else {
    expect(plumbing.map((f) => f.name).slice(0, 2), "the reference's plumbing frames").to.deep.equal([
      "wrapper",
      op[0].toUpperCase() + op.slice(1),
    ]);
  }
  return { ...tb, frames: tb.frames.filter((f) => !plumbing.includes(f)) };
}

/** A frame of the user's (or the SDK's) code: file, the line holding `code` (its nth occurrence), function name. */
interface UserFrame {
  file: string;
  code: string;
  name: string;
  nth?: number;
}

function lineOf(file: string, code: string, nth = 1): number {
  const lines = readFileSync(file, "utf8").split("\n");
  let seen = 0;
  for (let i = 0; i < lines.length; i++) if (lines[i].trim() === code && ++seen === nth) return i + 1;
  throw new Error(`${file} has no line ${JSON.stringify(code)} (occurrence ${nth})`);
}

/**
 * Both answers are UNKNOWN with a traceback; with the plumbing frames left
 * out they are identical, and they are the expected user frames and final
 * exception line(s).
 */
function expectSameTraceback(o: Outcome, r: Outcome, op: "check" | "diff" | "create", frames: UserFrame[], final: string[]): void {
  expect(r.code, r.details).to.equal(2);
  expect(o.code, o.details).to.equal(2);
  expect(o).to.not.have.property("initFailed");
  expect(r).to.not.have.property("initFailed");
  const ours = userTraceback(o.details, "ours", op);
  const ref = userTraceback(r.details, "reference", op);
  expect(ours.first).to.equal(ref.first).and.equal("Traceback (most recent call last):");
  expect(ours.frames.map((f) => f.text)).to.deep.equal(ref.frames.map((f) => f.text));
  expect(ref.frames.map(({ file, line, name }) => ({ file, line, name }))).to.deep.equal(
    frames.map((f) => ({ file: f.file, line: lineOf(f.file, f.code, f.nth), name: f.name })),
  );
  for (const [i, f] of ref.frames.entries()) expect(f.text.split("\n")[1].trim()).to.equal(frames[i].code);
  expect(ours.final).to.deep.equal(ref.final).and.deep.equal(final);
}

/** The reference's answer: UNKNOWN with a traceback whose last line is `final`. */
function expectReferenceTraceback(r: Outcome, finalLine: string): void {
  expect(r.code, r.details).to.equal(2);
  const tb = parseTraceback(r.details);
  expect(tb.first).to.equal("Traceback (most recent call last):");
  expect(tb.frames.length).to.be.greaterThan(0);
  expect(tb.final).to.deep.equal([finalLine]);
}

/** Ours' message for a request without a usable `__provider` (deliberate difference c). */
function noProviderMessage(op: string, urn: string, bag: string, problem = "has no"): string {
  return (
    `${op} ${urn}: the request's ${bag} ${problem} "__provider" property, so the dynamic provider cannot be loaded; ` +
    `__provider must be the serialized provider the SDK writes into every dynamic resource`
  );
}

const ACT_RAISE = { file: SCRIPTED_FILE, code: 'raise Exception(props.get("msg", "boom"))', name: "act" };
const DECODE_UNKNOWN = "TypeError: argument should be a bytes-like object or ASCII string, not 'Unknown'";

// ------------------------------------------------------------------ launcher

/** The lines the reference launcher prints for a virtualenv it cannot use (spec §1.3). */
function launcherVenvError(venv: string, pwd: string, exists: boolean): string {
  return [
    exists
      ? `The 'virtualenv' option in Pulumi.yaml is set to "${venv}", but "${venv}" doesn't appear to be a virtual environment.`
      : `The 'virtualenv' option in Pulumi.yaml is set to "${venv}", but "${venv}" doesn't exist.`,
    "Run the following commands to create the virtual environment and install dependencies into it:",
    `    1. python3 -m venv ${venv}`,
    `    2. ${venv}/bin/python -m pip install --upgrade pip setuptools wheel`,
    `    3. ${venv}/bin/python -m pip install -r ${pwd}/requirements.txt`,
    "For more information see: https://www.pulumi.com/docs/intro/languages/python/#virtual-environments",
    "",
  ].join("\n");
}

/**
 * The reference as its launcher runs it for a usable virtualenv `venv`:
 * `"$V/bin/python" -u -m pulumi.dynamic <addr>` in the program directory, with
 * `$V/bin` prepended to PATH, PYTHONHOME unset, PWD exported by sh as the
 * directory it runs in, and PULUMI_RUNTIME_VIRTUALENV exported as the
 * absolutised path when it came from the environment (sh rewrites it in place).
 */
class LauncherReference {
  readonly stdout: string[] = [];
  stderr = "";
  port = 0;
  readonly client: Promise<ProviderClient>;
  private readonly exited: Promise<void>;

  constructor(
    readonly child: ChildProcess,
    ready: Promise<number>,
  ) {
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    this.client = ready.then((port) => {
      this.port = port;
      return new ProviderClient(`127.0.0.1:${port}`);
    });
  }

  static start(venv: string, cwd: string, env: NodeJS.ProcessEnv): LauncherReference {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PATH: `${venv}/bin:${process.env.PATH}`, PWD: realpathSync(cwd) };
    delete childEnv.PYTHONHOME;
    if (env.PULUMI_RUNTIME_VIRTUALENV !== undefined) childEnv.PULUMI_RUNTIME_VIRTUALENV = venv;
    const child = spawn(`${venv}/bin/python`, ["-u", "-m", "pulumi.dynamic", ENGINE_ADDRESS], {
      cwd,
      env: childEnv,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let buf = "";
    let self: LauncherReference | undefined = undefined;
    const ready = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the reference did not print its port; stderr=${JSON.stringify(self?.stderr)}`)), 30_000);
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        buf += d;
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          self!.stdout.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
          if (self!.stdout.length === 1) {
            clearTimeout(timer);
            resolve(Number(self!.stdout[0].trim()));
          }
        }
      });
      child.once("exit", () => reject(new Error(`the reference exited before its port; stderr=${JSON.stringify(self?.stderr)}`)));
    });
    ready.catch(() => undefined);
    self = new LauncherReference(child, ready);
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (self!.stderr += d));
    return self;
  }

  async stop(): Promise<void> {
    (await this.client.catch(() => undefined))?.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const kill = (sig: NodeJS.Signals) => {
        try {
          process.kill(-this.child.pid!, sig);
        } catch {
          // already gone
        }
      };
      kill("SIGINT");
      const timer = setTimeout(() => kill("SIGKILL"), 5000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

/** A fresh program directory (its real path) for one test; removed after the test. */
function programDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}
const temps: string[] = [];

/** The EnvProbe provider's create, echoing the interpreter and environment, sent to one plugin's client. */
function envProbe(c: ProviderClient): Promise<Outcome> {
  return c.create({ urn: urnOf("env"), properties: { __provider: providerA("envprobe") } });
}

function withoutProvider(o: Outcome): Props {
  expect(o.code, o.details).to.equal(0);
  const { __provider, ...rest } = o.view.properties as Props;
  expect(__provider).to.equal(providerA("envprobe"));
  return rest;
}

// =================================================================== tests

describe("differential (Python): start-up, protocol surface, Check, Diff and Create (§9 rows 1–37, 69, 70)", function () {
  let scripted: string;
  let minimal: string;
  let shapes: string;

  before(function () {
    scripted = pythonProvider("scripted");
    minimal = pythonProvider("minimal");
    shapes = providerA("shapes");
  });

  after(function () {
    for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  describe("start-up (rows 1–6)", function () {
    it("1 start_port_line: flags are accepted; the port is the first and only stdout line; ours logs only because -v was asked for", async function () {
      const args = ["--logtostderr", "-v=9", "--tracing", "x", ENGINE_ADDRESS];
      const { ours, ref } = await pythonPair({ args });
      for (const p of [ours, ref]) {
        expect(p.stdout[0]).to.match(/^\d+$/);
        expect(await p.client.getPluginInfo()).to.deep.include({ code: 0, view: { version: "0.1.0" } });
      }
      await Promise.all([ours.stop(), ref.stop()]);
      expect(ours.userStdout).to.deep.equal(ref.userStdout).and.deep.equal([]);
      expect(ref.stderr).to.equal("");
      const logLines = ours.stderr.split("\n").filter(Boolean);
      expect(logLines.length).to.be.greaterThan(0);
      for (const line of logLines) expect(line).to.match(/^pulumi-dynamic-host: /);
    });

    it("1 start_port_line: without flags nothing but the port, even after a create and the engine's SIGINT to the process group", async function () {
      const { ours, ref } = await pythonPair();
      const [o, r] = await both({ ours, ref }, (c) => c.create({ urn: urnOf("r1"), properties: { __provider: minimal, a: 1 } }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ id: "minimal", properties: { __provider: minimal, got: ["__provider", "a"] } });
      const [eo, er] = await Promise.all([ours.stop(), ref.stop()]);
      // The reference turns SIGINT into KeyboardInterrupt and exits 0; so do we in Python mode.
      expect(eo).to.deep.equal(er).and.deep.equal({ code: 0, signal: null });
      for (const p of [ours, ref]) {
        expect(p.stdout, p.kind).to.have.length(1);
        expect(p.stderr, p.kind).to.equal("");
      }
    });

    it("2 start_no_args: Python starts normally without the engine address", async function () {
      const { ours, ref } = await pythonPair({ args: [] });
      const [o, r] = await both({ ours, ref }, (c) => c.create({ urn: urnOf("r2"), properties: { __provider: minimal } }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ id: "minimal", properties: { __provider: minimal, got: ["__provider"] } });
      await Promise.all([ours.stop(), ref.stop()]);
      for (const p of [ours, ref]) {
        expect(p.stdout[0], p.kind).to.match(/^\d+$/);
        expect(p.stderr, p.kind).to.equal("");
      }
    });

    // The reference launcher (sdk/python/dist/pulumi-resource-pulumi-python) is
    // not installed here: ours is held to the exact lines of spec §1.3, which
    // the launcher prints with `1>&2 echo` before `exit 1`, and no port.
    const runOurs = (cwd: string, env: NodeJS.ProcessEnv) =>
      spawnSync(OUR_PYTHON_PLUGIN, [ENGINE_ADDRESS], { cwd, env: { ...process.env, ...BASE_ENV, ...env }, encoding: "utf8", timeout: 30_000 });

    it("3 start_python_venv_missing: the launcher's exact lines on stderr, exit 1, no port (relative, trailing slash, absolute)", function () {
      const pwd = realpathSync(PYTHON_PROGRAM);
      for (const [setting, venv] of [
        ["nope", `${pwd}/nope`],
        ["nope/", `${pwd}/nope`],
        ["/nonexistent/venv/", "/nonexistent/venv"],
      ]) {
        // The engine's own PWD is stale (the plugin runs elsewhere): sh's $PWD is then the working directory.
        const o = runOurs(PYTHON_PROGRAM, { PULUMI_RUNTIME_VIRTUALENV: setting, PWD: "/" });
        expect(o.status, setting).to.equal(1);
        expect(o.stdout, setting).to.equal("");
        expect(o.stderr, setting).to.equal(launcherVenvError(venv, pwd, false));
      }
    });

    it("3 start_python_venv_missing: an inherited PWD that spells the directory through a symlink is the launcher's $PWD", function () {
      const dir = programDir("pdh-r3-");
      mkdirSync(`${dir}/prog`);
      symlinkSync(`${dir}/prog`, `${dir}/link`);
      const o = runOurs(`${dir}/link`, { PULUMI_RUNTIME_VIRTUALENV: "nope", PWD: `${dir}/link` });
      expect(o.status).to.equal(1);
      expect(o.stdout).to.equal("");
      expect(o.stderr).to.equal(launcherVenvError(`${dir}/link/nope`, `${dir}/link`, false));
    });

    it("4 start_python_venv_not_venv: a directory without bin/python gets `doesn't appear to be a virtual environment`, exit 1, no port", function () {
      const dir = programDir("pdh-r4-");
      mkdirSync(`${dir}/empty`);
      mkdirSync(`${dir}/dirpython/bin/python`, { recursive: true }); // -f: a directory named python is no interpreter
      for (const setting of ["empty", "dirpython/", `${dir}/empty`]) {
        const venv = setting.startsWith("/") ? setting : `${dir}/${setting.replace(/\/$/, "")}`;
        const o = runOurs(dir, { PULUMI_RUNTIME_VIRTUALENV: setting, PWD: "/" });
        expect(o.status, setting).to.equal(1);
        expect(o.stdout, setting).to.equal("");
        expect(o.stderr, setting).to.equal(launcherVenvError(venv, dir, true));
      }
    });

    it("5 start_python_toolchain_uv: `.venv` of the program directory runs the provider, as the launcher runs it", async function () {
      const dir = programDir("pdh-r5-");
      symlinkSync(TEST_VENV, `${dir}/.venv`);
      const venv = `${dir}/.venv`;
      // No virtualenv option: the engine sets no PULUMI_RUNTIME_VIRTUALENV at all. PYTHONHOME must be dropped
      // (with it the interpreter would not even start), and the engine's stale PWD is replaced by sh's.
      const env = { PULUMI_RUNTIME_VIRTUALENV: undefined, PULUMI_RUNTIME_TOOLCHAIN: "uv" };
      const ours = await Plugin.launch("ours", { language: "python", cwd: dir, env: { ...BASE_ENV, ...env, PYTHONHOME: "/nonexistent-python-home", PWD: "/" } });
      const ref = LauncherReference.start(venv, dir, { ...BASE_ENV, ...env });
      try {
        const [o, r] = await Promise.all([envProbe(ours.client), ref.client.then(envProbe)]);
        expect(withoutProvider(o)).to.deep.equal(withoutProvider(r));
        expect(withoutProvider(o)).to.deep.include({
          executable: `${venv}/bin/python`,
          path0: dir,
          cwd: dir,
          pathHead: `${venv}/bin`,
          pythonHome: "<unset>",
          virtualenv: "<unset>",
          pwd: dir,
        });
      } finally {
        await Promise.all([ours.stop(), ref.stop()]);
      }
      expect(ours.stderr).to.equal(ref.stderr).and.equal("");
    });

    it("5 start_python_toolchain_uv: a virtualenv option the launcher rewrites (empty + uv, relative with a slash) reaches the provider absolutised", async function () {
      const dir = programDir("pdh-r5b-");
      symlinkSync(TEST_VENV, `${dir}/.venv`);
      symlinkSync(TEST_VENV, `${dir}/venv`);
      for (const [env, venv] of [
        [{ PULUMI_RUNTIME_VIRTUALENV: "", PULUMI_RUNTIME_TOOLCHAIN: "uv" }, `${dir}/.venv`],
        [{ PULUMI_RUNTIME_VIRTUALENV: "venv/" }, `${dir}/venv`],
      ] as const) {
        const ours = await Plugin.launch("ours", { language: "python", cwd: dir, env: { ...BASE_ENV, ...env, PWD: "/" } });
        const ref = LauncherReference.start(venv, dir, { ...BASE_ENV, ...env });
        try {
          const [o, r] = await Promise.all([envProbe(ours.client), ref.client.then(envProbe)]);
          expect(withoutProvider(o), JSON.stringify(env)).to.deep.equal(withoutProvider(r));
          expect(withoutProvider(o), JSON.stringify(env)).to.deep.include({
            executable: `${venv}/bin/python`,
            pathHead: `${venv}/bin`,
            virtualenv: venv,
            pwd: dir,
            path0: dir,
          });
        } finally {
          await Promise.all([ours.stop(), ref.stop()]);
        }
      }
    });

    it("6 start_python_cmd: PULUMI_PYTHON_CMD is the interpreter when no virtualenv is set; PATH is left alone", async function () {
      const pwd = realpathSync(PYTHON_PROGRAM);
      const env = { PULUMI_RUNTIME_VIRTUALENV: undefined, PULUMI_PYTHON_CMD: VENV_PYTHON };
      // The launcher runs `"$PULUMI_PYTHON_CMD" -u -m pulumi.dynamic`, which is exactly the harness's reference command.
      const { ours, ref } = await Promise.all([
        Plugin.launch("ours", { language: "python", env: { ...BASE_ENV, ...env, PWD: "/" } }),
        Plugin.launch("reference", { language: "python", env: { ...BASE_ENV, ...env, PWD: pwd } }),
      ]).then(([ours, ref]) => ({ ours, ref }));
      try {
        const [o, r] = await both({ ours, ref }, envProbe);
        expect(withoutProvider(o)).to.deep.equal(withoutProvider(r));
        expect(withoutProvider(o)).to.deep.include({
          executable: VENV_PYTHON,
          path0: pwd,
          pathHead: (process.env.PATH ?? "").split(":")[0],
          virtualenv: "<unset>",
          pwd,
        });
      } finally {
        await Promise.all([ours.stop(), ref.stop()]);
      }
      expect(ours.stderr).to.equal(ref.stderr).and.equal("");
    });
  });

  describe("protocol surface (rows 7–14)", function () {
    const pair = usePythonPair();

    it("7 getplugininfo_version: 0.1.0", async function () {
      const [o, r] = await both(pair, (c) => c.getPluginInfo());
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ version: "0.1.0" });
    });

    it("8 handshake_unimplemented: UNIMPLEMENTED `Method not implemented!`", async function () {
      const [o, r] = await both(pair, (c) => c.refused("handshake"));
      expect(o).to.deep.equal(r).and.deep.equal({ code: 12, details: "Method not implemented!" });
    });

    it("9 configure_empty_response: zero bytes", async function () {
      const [o, r] = await both(pair, (c) => c.configure({ "proj:a": "1" }));
      expect(o).to.deep.equal(r);
      expect(o).to.deep.include({ code: 0, bytes: "" });
    });

    const refusals: [string, string][] = [
      ["parameterize", "Method not implemented!"],
      ["getSchema", "GetSchema is not implemented by the dynamic provider"],
      ["checkConfig", "CheckConfig is not implemented by the dynamic provider"],
      ["diffConfig", "DiffConfig is not implemented by the dynamic provider"],
      ["call", "Method not implemented!"],
      ["construct", "Method not implemented!"],
      ["attach", "Method not implemented!"],
      ["getMapping", "Method not implemented!"],
      ["getMappings", "Method not implemented!"],
    ];
    for (const [rpc, details] of refusals) {
      it(`10 unimplemented_matrix: ${rpc} is UNIMPLEMENTED \`${details}\``, async function () {
        const [o, r] = await both(pair, (c) => c.refused(rpc));
        expect(o).to.deep.equal(r).and.deep.equal({ code: 12, details });
      });
    }

    it("11 invoke_error: UNIMPLEMENTED `Invoke is not implemented by the dynamic provider`", async function () {
      const [o, r] = await both(pair, (c) => c.invoke("pkg:index:fn"));
      expect(o).to.deep.equal(r).and.deep.equal({ code: 12, details: "Invoke is not implemented by the dynamic provider" });
    });

    it("12 list_stream_unimplemented: the stream ends UNIMPLEMENTED", async function () {
      const [o, r] = await both(pair, (c) => c.list());
      expect(o).to.deep.equal(r).and.deep.equal({ code: 12, details: "List is not implemented by the dynamic provider" });
    });

    it("14 unknown_method [difference]: UNIMPLEMENTED in both; the details are grpc-js's text, not grpc-python's", async function () {
      // grpc-js has no public hook for a method nobody registered; the engine never calls one.
      const [o, r] = await both(pair, (c) => c.unknownMethod());
      expect(r).to.deep.equal({ code: 12, details: "Method not found!" });
      expect(o.code).to.equal(12);
      expect(o.details).to.match(/^The server does not implement the method \/pulumirpc\.ResourceProvider\/Nope$/);
    });

    it("7–14: none of these printed anything", async function () {
      const since = { ours: 0, ref: 0 };
      const err = await stderrSince(pair, since);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });
  });

  describe("Check (rows 15–23)", function () {
    const pair = usePythonPair();
    const check = (news: Props, olds: Props = {}, urn = urnOf("c")) => both(pair, (c) => c.check({ urn, olds, news }));

    it("15 check_default_passthrough: without check, inputs are news less null-valued keys (nested too; list nulls kept), no failures", async function () {
      const news = { __provider: minimal, b: 1, a: "x", n: null, o: { z: null, y: [null, 1, { k: null }] }, t: true };
      const [o, r] = await check(news, { __provider: minimal, old: 1 });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({
        inputs: { __provider: minimal, a: "x", b: 1, o: { y: [null, 1, {}] }, t: true },
        failures: [],
      });
    });

    it("16 check_user_inputs_failures: returned inputs and failures map to the CheckResponse", async function () {
      const [o, r] = await check({ __provider: scripted, act: "checkFailures", a: 1 });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({
        inputs: { __provider: scripted, act: "checkFailures", a: 1, checked: true },
        failures: [
          { property: "a", reason: "bad a" },
          { property: "b", reason: "bad b" },
        ],
      });
    });

    it("16 check_user_inputs_failures: a __provider the check returns is overwritten from news", async function () {
      const [o, r] = await check({ __provider: shapes, mode: "overwriteProvider", a: 1 });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ inputs: { __provider: shapes, mode: "overwriteProvider", a: 1 }, failures: [] });
    });

    it("16 check_user_inputs_failures: a failure whose property is not a str fails building the CheckFailure (protobuf TypeError)", async function () {
      const [o, r] = await check({ __provider: shapes, mode: "numericFailureProperty" });
      expectSameTraceback(o, r, "check", [], ["TypeError: bad argument type for built-in operation"]);
    });

    it("17 check_failures_empty_vs_missing: failures [] and () give byte-identical responses; None is a TypeError", async function () {
      const [plain, plainRef] = await check({ __provider: shapes, mode: "emptyFailures", a: 1 });
      const [tuple, tupleRef] = await check({ __provider: shapes, mode: "tupleFailures", a: 1 });
      expect(plain).to.deep.equal(plainRef);
      expect(tuple).to.deep.equal(tupleRef);
      expect(plain.view).to.deep.equal({ inputs: { __provider: shapes, a: 1 }, failures: [] });
      expect(tuple.view).to.deep.equal({ inputs: { __provider: shapes, a: 1 }, failures: [] });
      expect(plain.bytes).to.be.a("string").and.not.equal("");
      expect(tuple.bytes).to.equal(plain.bytes);
      const [o, r] = await check({ __provider: shapes, mode: "noneFailures", a: 1 });
      expectSameTraceback(o, r, "check", [], ["TypeError: 'NoneType' object is not iterable"]);
    });

    it("18 check_result_inputs_falsy: inputs None, 0, \"\" or False are a TypeError (no fallback to news)", async function () {
      const cases: [Props, string][] = [
        [{ __provider: scripted, act: "checkNoneInputs" }, "NoneType"],
        [{ __provider: shapes, mode: "zeroInputs" }, "int"],
        [{ __provider: shapes, mode: "emptyStringInputs" }, "str"],
        [{ __provider: shapes, mode: "falseInputs" }, "bool"],
      ];
      for (const [news, type] of cases) {
        const [o, r] = await check({ ...news, a: 1 });
        expectSameTraceback(o, r, "check", [], [`TypeError: '${type}' object does not support item assignment`]);
      }
    });

    it("18 check_result_inputs_falsy: inputs {} is used as it is, so the checked inputs are only __provider", async function () {
      const [o, r] = await check({ __provider: shapes, mode: "emptyObjectInputs", a: 1 });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ inputs: { __provider: shapes }, failures: [] });
    });

    it("19 check_unknown_values_view: a preview unknown reaches check as an Unknown instance (keep_unknowns) and goes back as the sentinel", async function () {
      const [o, r] = await check({ __provider: scripted, a: UNKNOWN, l: [UNKNOWN] }, { __provider: scripted, u: UNKNOWN });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({
        inputs: {
          __provider: scripted,
          a: UNKNOWN,
          l: [UNKNOWN],
          newsTypes: { __provider: "str", a: "Unknown", l: "list" },
          oldsKeys: ["__provider", "u"],
        },
        failures: [],
      });
    });

    it("20 check_unknown_provider_uses_olds [difference]: D1, ours loads the provider from olds; the reference b64decodes the Unknown", async function () {
      const urn = urnOf("c20");
      const [o, r] = await check({ __provider: UNKNOWN, x: 1 }, { __provider: scripted, o: 1 }, urn);
      expectReferenceTraceback(r, DECODE_UNKNOWN);
      expect(o.code, o.details).to.equal(0);
      expect(o.view).to.deep.equal({
        inputs: { __provider: UNKNOWN, x: 1, newsTypes: { __provider: "Unknown", x: "float" }, oldsKeys: ["__provider", "o"] },
        failures: [],
      });
    });

    it("20 check_unknown_provider_uses_olds [difference]: an unknown news.__provider and none in olds is named (reference: the same TypeError)", async function () {
      const urn = urnOf("c20");
      const [o, r] = await check({ __provider: UNKNOWN, x: 1 }, { o: 1 }, urn);
      expectReferenceTraceback(r, DECODE_UNKNOWN);
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Check", urn, "olds") });
    });

    it("21 check_missing_provider_key [difference]: no __provider in news is named, not a KeyError traceback", async function () {
      const urn = urnOf("c21");
      const [o, r] = await check({ a: 1 }, {}, urn);
      expectReferenceTraceback(r, "KeyError: '__provider'");
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Check", urn, "news") });
    });

    it("21 check_missing_provider_key [difference]: a non-string __provider is named with its kind (reference: b64decode TypeError)", async function () {
      const urn = urnOf("c21");
      const [o, r] = await check({ __provider: 5, a: 1 }, {}, urn);
      expectReferenceTraceback(r, "TypeError: argument should be a bytes-like object or ASCII string, not 'float'");
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Check", urn, "news", "has a number as its") });
    });

    it("22 check_throws_stderr: UNKNOWN with the traceback (same user frames and exception), nothing on stderr", async function () {
      const since = markStderr(pair);
      const checkFrame = { file: SCRIPTED_FILE, code: 'act(news, "check")', name: "check" };
      let [o, r] = await check({ __provider: scripted, act: "raise", msg: "boom" });
      expectSameTraceback(o, r, "check", [checkFrame, ACT_RAISE], ["Exception: boom"]);
      [o, r] = await check({ __provider: scripted, act: "raiseValue", msg: "bad" });
      expectSameTraceback(
        o,
        r,
        "check",
        [checkFrame, { file: SCRIPTED_FILE, code: 'raise ValueError(props.get("msg", "bad value"))', name: "act" }],
        ["ValueError: bad"],
      );
      const err = await stderrSince(pair, since);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });

    it("23 check_error_numeric_code: an exception's integer code is not a status code: UNKNOWN", async function () {
      const since = markStderr(pair);
      const [o, r] = await check({ __provider: shapes, mode: "codeError", msg: "coded check" });
      expectSameTraceback(o, r, "check", [{ file: A_FILE, code: "raise coded_error(news)", name: "check" }], ["Exception: coded check"]);
      const err = await stderrSince(pair, since);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });
  });

  describe("Diff (rows 24–30)", function () {
    const pair = usePythonPair();


    const diff = (news: Props, olds: Props = { __provider: news.__provider as string, a: 1 }, urn = urnOf("d")) =>
      both(pair, (c) => c.diff({ urn, id: "id1", olds, news, oldInputs: { __provider: news.__provider as string, a: 1 } }));

    it("24 diff_missing_method: DIFF_UNKNOWN with no replaces and no deleteBeforeReplace (an empty response)", async function () {
      const [o, r] = await diff({ __provider: minimal, a: 2 });
      expect(o).to.deep.equal(r);
      expect(o).to.deep.include({ code: 0, bytes: "" });
      expect(o.view).to.deep.equal(EMPTY_DIFF_VIEW);
    });

    it("24b diff_provider_layout_only [difference]: without diff, __provider differing only in trailing blanks: ours DIFF_NONE, the reference DIFF_UNKNOWN", async function () {
      // A pickle's base64 is one line: it differs this way only in a state edited by hand.
      const ask = (oldInputs: Props, news: Props) => both(pair, (c) => c.diff({ urn: urnOf("d"), id: "id1", olds: { ...oldInputs, out: 1 }, news, oldInputs }));
      const [o, r] = await ask({ __provider: `${minimal} \t`, a: 1 }, { __provider: minimal, a: 1 });
      expect(r).to.deep.include({ code: 0, bytes: "" });
      expect(r.view).to.deep.equal(EMPTY_DIFF_VIEW);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 1 });
      // Anything else changed too, another pickle, or a user's diff: alike, as before.
      const scripted = pythonProvider("scripted");
      for (const [oldInputs, news] of [
        [{ __provider: `${minimal} `, a: 1 }, { __provider: minimal, a: 2 }],
        [{ __provider: scripted, a: 1 }, { __provider: minimal, a: 1 }],
        [{ __provider: `${scripted} `, a: 1 }, { __provider: scripted, a: 1 }],
      ]) {
        const [oo, rr] = await ask(oldInputs, news);
        expect(oo).to.deep.equal(rr);
        expect(oo.view.changes).to.equal(0);
      }
    });

    // changes as the provider returns it -> DiffResponse.changes (Python: None is UNKNOWN, else truthiness, D12).
    const matrix: [Props, string, number][] = [
      [{ __provider: "scripted", changes: "T" }, "True", 2],
      [{ __provider: "scripted", changes: "F" }, "False", 1],
      [{ __provider: "scripted", changes: "N" }, "None", 0],
      [{ __provider: "scripted" }, "None (no changes key)", 0],
      [{ __provider: "scripted", changes: "one" }, "1", 2],
      [{ __provider: "scripted", changes: "zero" }, "0", 1],
      [{ __provider: "scripted", changes: "yes" }, '"yes"', 2],
      [{ __provider: "scripted", changes: "empty" }, '""', 1],
      [{ __provider: "shapes", changes: [] }, "[]", 1],
      [{ __provider: "shapes", changes: {} }, "{}", 1],
      [{ __provider: "shapes", changes: [1] }, "[1.0]", 2],
      [{ __provider: "shapes", changes: 2.5 }, "2.5", 2],
    ];
    for (const [news, shown, want] of matrix) {
      it(`25 diff_changes_matrix: changes ${shown} gives ${["DIFF_UNKNOWN", "DIFF_NONE", "DIFF_SOME"][want]}`, async function () {
        const provider = news.__provider === "scripted" ? scripted : shapes;
        const [o, r] = await diff({ ...news, __provider: provider });
        expect(o).to.deep.equal(r);
        expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: want });
      });
    }

    it("26 diff_replaces_dbr: replaces [\"a\"] and delete_before_replace True are both set", async function () {
      const [o, r] = await diff({ __provider: scripted, changes: "T", replaces: ["a"], dbr: true });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a"], deletebeforereplace: true });
    });

    it("26 diff_replaces_dbr: replaces [] and delete_before_replace False leave both unset (same bytes as neither)", async function () {
      const [plain, plainRef] = await diff({ __provider: scripted, changes: "T" });
      const [o, r] = await diff({ __provider: scripted, changes: "T", replaces: [], dbr: false });
      expect(o).to.deep.equal(r);
      expect(plain).to.deep.equal(plainRef);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 2 });
      expect(o.bytes).to.equal(plain.bytes);
    });

    it("26 diff_replaces_dbr: a replaces str is taken character by character (protobuf extend)", async function () {
      const [o, r] = await diff({ __provider: scripted, changes: "T", replaces: "ab", dbr: true });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a", "b"], deletebeforereplace: true });
    });

    it("26 diff_replaces_dbr: protobuf's type rules reject a float or str deleteBeforeReplace and non-str replaces", async function () {
      const cases: [Props, string][] = [
        [{ replaces: ["a"], dbr: 1 }, "TypeError: 'float' object cannot be interpreted as an integer"],
        [{ replaces: ["a"], dbr: 0 }, "TypeError: 'float' object cannot be interpreted as an integer"],
        [{ replaces: ["a"], dbr: "yes" }, "TypeError: 'str' object cannot be interpreted as an integer"],
        [{ replaces: [1], dbr: true }, "TypeError: bad argument type for built-in operation"],
      ];
      for (const [fields, final] of cases) {
        const [o, r] = await diff({ __provider: scripted, changes: "T", ...fields });
        expectSameTraceback(o, r, "diff", [], [final]);
      }
    });

    it("27 diff_stables_ignored: stables never reach the response", async function () {
      const [plain] = await diff({ __provider: scripted, changes: "F" });
      const [o, r] = await diff({ __provider: shapes, mode: "stables" });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 1 });
      expect(o.bytes).to.equal(plain.bytes);
    });

    it("28 diff_olds_are_outputs: diff sees DiffRequest.olds (the outputs), not old_inputs", async function () {
      const [o, r] = await both(pair, (c) =>
        c.diff({
          urn: urnOf("d28"),
          id: "id1",
          olds: { __provider: shapes, out1: 1, shared: 2 },
          news: { __provider: shapes, mode: "echoOlds" },
          oldInputs: { __provider: shapes, in1: 1, shared: 2 },
        }),
      );
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, replacesList: ["__provider", "out1", "shared"] });
    });

    it("29 diff_unknown_provider [difference]: D1, ours loads the provider from olds; the reference b64decodes the Unknown", async function () {
      const [o, r] = await diff({ __provider: UNKNOWN, changes: "T", replaces: ["a"] }, { __provider: scripted, a: 1 });
      expectReferenceTraceback(r, DECODE_UNKNOWN);
      expect(o.code, o.details).to.equal(0);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a"] });
    });

    it("29 diff_unknown_provider [difference]: an unknown news.__provider and none in olds is named (reference: the same TypeError)", async function () {
      const urn = urnOf("d29");
      const [o, r] = await diff({ __provider: UNKNOWN, changes: "T" }, { a: 1 }, urn);
      expectReferenceTraceback(r, DECODE_UNKNOWN);
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Diff", urn, "olds") });
    });

    it("30 diff_returns_undefined: diff returning None is the reference's AttributeError", async function () {
      const [o, r] = await diff({ __provider: shapes, mode: "returnNone" });
      expectSameTraceback(o, r, "diff", [], ["AttributeError: 'NoneType' object has no attribute 'changes'"]);
    });

    it("30 diff errors: a diff that raises (integer code or not) is UNKNOWN with its traceback, nothing on stderr", async function () {
      const since = markStderr(pair);
      let [o, r] = await diff({ __provider: scripted, act: "raise", msg: "diff boom" });
      expectSameTraceback(o, r, "diff", [{ file: SCRIPTED_FILE, code: 'act(news, "diff")', name: "diff" }, ACT_RAISE], ["Exception: diff boom"]);
      [o, r] = await diff({ __provider: shapes, mode: "codeError", msg: "coded diff" });
      expectSameTraceback(o, r, "diff", [{ file: A_FILE, code: "raise coded_error(news)", name: "diff", nth: 2 }], ["Exception: coded diff"]);
      const err = await stderrSince(pair, since);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });
  });

  describe("Create (rows 31–37)", function () {
    const pair = usePythonPair();
    const create = (properties: Props, urn = urnOf("cr")) => both(pair, (c) => c.create({ urn, properties }));
    const createFrame = { file: SCRIPTED_FILE, code: 'act(props, "create")', name: "create" };

    it("31 create_outs_provider_attached: the outputs are outs plus __provider from the request (null-valued keys were never seen)", async function () {
      const [o, r] = await create({ __provider: scripted, id: "c1", x: 1, n: null, o: { l: [null], z: null } });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ id: "c1", properties: { __provider: scripted, id: "c1", x: 1, o: { l: [null] } } });
    });

    it("31 create_outs_provider_attached: a __provider in outs is overwritten with the request's", async function () {
      const [o, r] = await create({ __provider: shapes, mode: "overwriteProvider" });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ id: "ow", properties: { __provider: shapes, x: 1 } });
    });

    it("32 create_no_outs: CreateResult(id) and CreateResult(id, {}) give outputs {__provider}", async function () {
      for (const [mode, id] of [
        ["noOuts", "no-outs"],
        ["emptyOuts", "empty-outs"],
      ]) {
        const [o, r] = await create({ __provider: shapes, mode, a: 1 });
        expect(o, mode).to.deep.equal(r);
        expect(o.view, mode).to.deep.equal({ id, properties: { __provider: shapes } });
      }
    });

    it("32 create_no_outs: create returning None is the reference's AttributeError", async function () {
      const [o, r] = await create({ __provider: scripted, act: "returnNone" });
      expectSameTraceback(o, r, "create", [], ["AttributeError: 'NoneType' object has no attribute 'outs'"]);
    });

    it("33 create_missing_method: the SDK base class's `Subclass of ResourceProvider must implement 'create'`", async function () {
      const [o, r] = await create({ __provider: providerA("nocreate"), a: 1 });
      const sdk = readdirSync(`${TEST_VENV}/lib`).map((v) => `${TEST_VENV}/lib/${v}/site-packages/pulumi/dynamic/dynamic.py`)[0];
      expectSameTraceback(
        o,
        r,
        "create",
        [{ file: sdk, code: `raise Exception("Subclass of ResourceProvider must implement 'create'")`, name: "create" }],
        ["Exception: Subclass of ResourceProvider must implement 'create'"],
      );
    });

    it("34 create_error_plain: UNKNOWN with the traceback, no status details, nothing on stderr", async function () {
      const since = markStderr(pair);
      let [o, r] = await create({ __provider: scripted, act: "raise", msg: "create failed" });
      expectSameTraceback(o, r, "create", [createFrame, ACT_RAISE], ["Exception: create failed"]);
      [o, r] = await create({ __provider: shapes, mode: "codeError", msg: "coded create" });
      expectSameTraceback(o, r, "create", [{ file: A_FILE, code: "raise coded_error(props)", name: "create" }], ["Exception: coded create"]);
      const err = await stderrSince(pair, since);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });

    it("37 create_exception_with_id_python: an exception carrying an id is a plain UNKNOWN, no init-failure detail", async function () {
      const since = markStderr(pair);
      const [o, r] = await create({ __provider: scripted, act: "raiseWithId" });
      expectSameTraceback(o, r, "create", [createFrame, { file: SCRIPTED_FILE, code: "raise e", name: "act" }], ["Exception: half made"]);
      const err = await stderrSince(pair, since);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });

    it("21 check_missing_provider_key [difference] (Create): no __provider in properties is named, not a KeyError traceback", async function () {
      const urn = urnOf("cr21");
      const [o, r] = await create({ a: 1 }, urn);
      expectReferenceTraceback(r, "KeyError: '__provider'");
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Create", urn, "properties") });
    });
  });

  describe("concurrency and context (rows 70, 69)", function () {
    const pair = usePythonPair();

    it("70 python_fresh_context_per_rpc: a ContextVar set by one RPC is unset in the next, in the same process and provider", async function () {
      const probe = providerA("contextprobe");
      const seen: { ours: Props[]; ref: Props[] } = { ours: [], ref: [] };
      for (const name of ["a", "b", "c"]) {
        const [o, r] = await both(pair, (c) => c.create({ urn: urnOf(`cv-${name}`), properties: { __provider: probe, name } }));
        expect(o.code, o.details).to.equal(0);
        expect(r.code, r.details).to.equal(0);
        seen.ours.push(o.view.properties);
        seen.ref.push(r.view.properties);
      }
      for (const [kind, outs] of Object.entries(seen)) {
        expect(
          outs.map(({ before, after, calls }) => ({ before, after, calls })),
          kind,
        ).to.deep.equal([
          { before: "unset", after: "set by a", calls: 1 },
          { before: "unset", after: "set by b", calls: 2 },
          { before: "unset", after: "set by c", calls: 3 },
        ]);
        expect(new Set(outs.map((p) => p.pid)).size, `${kind}: one process served them all`).to.equal(1);
      }
    });

    it("70 python_fresh_context_per_rpc: the scripted `contextvar` act, sequential and concurrent", async function () {
      const send = (name: string) => both(pair, (c) => c.create({ urn: urnOf(`cv2-${name}`), properties: { __provider: scripted, act: "contextvar", name } }));
      const results = [await send("s1"), await send("s2"), ...(await Promise.all(["p1", "p2", "p3", "p4"].map(send)))];
      for (const [o, r] of results) {
        expect(o).to.deep.equal(r);
        expect(o.view).to.deep.equal({ id: "cv", properties: { __provider: scripted, before: "unset" } });
      }
    });

    it("70 python_thread_name: a provider's thread is named as the reference's pool names its threads", async function () {
      // Which idle thread takes a request is up to the scheduler in both, so the name's form is compared.
      const sleeper = providerA("sleeper");
      for (const i of [0, 1, 2]) {
        const [o, r] = await both(pair, (c) => c.create({ urn: urnOf(`tn${i}`), properties: { __provider: sleeper, name: `tn${i}`, seconds: 0 } }));
        for (const out of [o, r]) {
          expect(out.code, out.details).to.equal(0);
          expect((out.view.properties as { thread: string }).thread).to.match(/^ThreadPoolExecutor-0_\d+$/);
        }
      }
    });

    it("69 python_concurrency_cap [difference]: 8 concurrent 1 s creates, the reference runs at most 4 at once (~2 s), ours all 8 (~1 s)", async function () {
      const sleeper = providerA("sleeper");
      const round = (tag: string, seconds: number) =>
        Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            both(pair, (c) => c.create({ urn: urnOf(`${tag}${i}`), properties: { __provider: sleeper, name: `${tag}${i}`, seconds } })),
          ),
        );
      // Warm-up: lets ours start every worker process its pool may use, so that the measured round pays no start-up.
      for (const [o, r] of await round("w", 0.2)) {
        expect(o.code, o.details).to.equal(0);
        expect(r.code, r.details).to.equal(0);
      }
      const results = await round("s", 1);
      const runs = { ours: [] as { start: number; end: number }[], ref: [] as { start: number; end: number }[] };
      for (const [i, [o, r]] of results.entries()) {
        for (const [kind, out] of [
          ["ours", o],
          ["ref", r],
        ] as const) {
          expect(out.code, out.details).to.equal(0);
          expect(out.view.id).to.equal(`s${i}`);
          const { start, end } = out.view.properties as { start: number; end: number };
          expect(end - start, kind).to.be.at.least(0.99);
          runs[kind].push({ start, end });
        }
      }
      const overlap = (iv: { start: number; end: number }[]) => {
        // Ends sort before starts at the same instant: touching is not overlapping.
        const events = iv.flatMap((x) => [[x.start, 1] as const, [x.end, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        let now = 0;
        let most = 0;
        for (const [, d] of events) most = Math.max(most, (now += d));
        return most;
      };
      const queued = (iv: { start: number; end: number }[]) => {
        const firstEnd = Math.min(...iv.map((x) => x.end));
        return iv.filter((x) => x.start >= firstEnd).length;
      };
      const span = (iv: { start: number; end: number }[]) => Math.max(...iv.map((x) => x.end)) - Math.min(...iv.map((x) => x.start));
      // The reference: grpc-python's ThreadPoolExecutor(max_workers=4): 4 at once, the other 4 wait for a thread.
      expect(overlap(runs.ref), "reference: most at once").to.equal(4);
      expect(queued(runs.ref), "reference: started only after another ended").to.equal(4);
      expect(span(runs.ref), "reference: two rounds of 1 s").to.be.at.least(1.95);
      // Ours: no cap, all 8 at once, none waits for another.
      expect(overlap(runs.ours), "ours: most at once").to.equal(8);
      expect(queued(runs.ours), "ours: started only after another ended").to.equal(0);
    });
  });
});
