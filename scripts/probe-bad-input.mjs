// A probe from outside: starts a plugin executable the way the engine does and
// fires a few of each kind of bad input and fault that issue 22 was about,
// then prints what came back. It knows nothing of the host's code or tests:
// requests are built from proto/ with protobufjs (or written byte by byte
// where no encoder would write them), sent with @grpc/grpc-js, and judged by
// what a user should see.
//
//   node scripts/probe-bad-input.mjs [PLUGIN] [--venv DIR]
//
// PLUGIN: a pulumi-resource-pulumi-nodejs or pulumi-resource-pulumi-python
// executable (the mode is its name); default bin/pulumi-resource-pulumi-nodejs.
// --venv: the virtualenv with `pulumi` and `dill` for Python mode (default
// $PULUMI_RUNTIME_VIRTUALENV, else .cache/test-venv); it makes the Python
// payloads and runs the plugin's workers. Exits 1 if any row fails.
import * as grpc from "@grpc/grpc-js";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const args = process.argv.slice(2);
const venvAt = args.indexOf("--venv");
const venv = path.resolve(venvAt >= 0 ? args.splice(venvAt, 2)[1] : process.env.PULUMI_RUNTIME_VIRTUALENV || path.join(ROOT, ".cache/test-venv"));
const plugin = path.resolve(args[0] ?? path.join(ROOT, "bin/pulumi-resource-pulumi-nodejs"));
const language = path.basename(plugin).includes("python") ? "python" : "nodejs";
const urn = (name) => `urn:pulumi:probe::proj::pulumi-${language}:dynamic:Resource::${name}`;
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const BOUND_MS = 15_000;
const CAP = 8192;

// --- the messages --------------------------------------------------------------------------------

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => (target.startsWith("google/protobuf/") ? target : path.join(ROOT, "proto", target));
root.loadSync("pulumirpc/provider.proto", { keepCase: true });
const CreateRequest = root.lookupType("pulumirpc.CreateRequest");
const CheckRequest = root.lookupType("pulumirpc.CheckRequest");

/** A plain value as a google.protobuf.Value (objects and arrays nest; `undefined` is a Value with no kind). */
function value(v) {
  if (v === undefined) return {};
  if (v === null) return { nullValue: 0 };
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "number") return { numberValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(value) } };
  return { structValue: struct(v) };
}
const struct = (o) => ({ fields: Object.fromEntries(Object.entries(o).map(([k, v]) => [k, value(v)])) });
const bytes = (type, message) => Buffer.from(type.encode(type.fromObject(message)).finish());

// Bytes by hand, for what encoders cannot write (they recurse per level) or will not.
const varint = (n) => {
  const out = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n & 127) | 128);
  out.push(n);
  return Buffer.from(out);
};
const len = (field, body) => Buffer.concat([varint(field * 8 + 2), varint(body.length), body]);
/** A Struct entry: key = 1, value = 2. */
const entry = (key, valueBytes) => len(1, Buffer.concat([len(1, Buffer.from(key)), len(2, valueBytes)]));

/** A Value nested `depth` objects deep ({d: {d: … 1}}), built inside out. */
function nested(depth) {
  let v = Buffer.concat([Buffer.from([0x11]), Buffer.from(new Float64Array([1]).buffer)]);
  for (let i = 0; i < depth; i++) v = len(5, entry("d", v));
  return v;
}

// --- the provider, made the way each language's SDK makes it -------------------------------------

const NODE_PROVIDER = `exports.handler = function () {
  const fail = (what, bag) => { throw new Error(what + " failed with " + JSON.stringify(bag.secret)); };
  return {
    async check(olds, news) { if (news.act === "throw") fail("check", news); return { inputs: news }; },
    async create(props) {
      if (props.act === "sleep") await new Promise((resolve) => setTimeout(resolve, props.ms));
      if (props.act === "throw") fail("create", props);
      return { id: "probe", outs: props };
    },
  };
};
`;

const PYTHON_PROVIDER = `
import base64, pickle, sys, time
import dill
from pulumi.dynamic import CheckResult, CreateResult, ResourceProvider

class Probe(ResourceProvider):
    def check(self, olds, news):
        if news.get("act") == "throw":
            raise Exception(f"check failed with {news.get('secret')!r}")
        return CheckResult(news, [])

    def create(self, props):
        if props.get("act") == "sleep":
            time.sleep(props["ms"] / 1000)
        if props.get("act") == "throw":
            raise Exception(f"create failed with {props.get('secret')!r}")
        return CreateResult("probe", props)

sys.stdout.write(base64.b64encode(dill.dumps(Probe(), protocol=pickle.DEFAULT_PROTOCOL, recurse=True)).decode())
`;

function providerText() {
  if (language === "nodejs") return NODE_PROVIDER;
  return execFileSync(path.join(venv, "bin/python"), ["-c", PYTHON_PROVIDER], { encoding: "utf8" });
}

// --- the plugin ----------------------------------------------------------------------------------

async function launch() {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "probe-"));
  const env = { ...process.env, PULUMI_RUNTIME_VIRTUALENV: language === "python" ? venv : "" };
  // stdin a real pipe (a FIFO) that nothing writes to, as the engine gives it: closing it says the engine is gone.
  const fifo = path.join(cwd, "stdin");
  execFileSync("mkfifo", [fifo]);
  const stdinWriteEnd = fs.openSync(fifo, fs.constants.O_RDWR);
  const stdin = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const child = spawn(plugin, ["127.0.0.1:1"], { cwd, env, stdio: [stdin, "pipe", "pipe"] });
  fs.closeSync(stdin);
  const out = { child, lines: [], stderr: "", closeStdin: () => fs.closeSync(stdinWriteEnd) };
  child.stderr.on("data", (d) => (out.stderr += d));
  let buffered = "";
  const port = await new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => reject(new Error(`the plugin exited before printing a port (${code ?? signal}): ${out.stderr}`)));
    child.stdout.on("data", (d) => {
      buffered += d;
      for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
        out.lines.push(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
        if (out.lines.length === 1) resolve(Number(out.lines[0]));
      }
    });
  });
  out.client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { "grpc.max_receive_message_length": -1 });
  return out;
}

/** One call with raw bytes; { code, details, ms }, or lost: true when no answer came within the bound. */
function call(p, method, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const timer = setTimeout(() => {
      c.cancel();
      resolve({ lost: true, code: -1, details: "", ms: ms() });
    }, BOUND_MS);
    const c = p.client.makeUnaryRequest(`/pulumirpc.ResourceProvider/${method}`, (x) => x, (x) => x, body, (err, response) => {
      clearTimeout(timer);
      resolve(err ? { code: err.code, details: err.details ?? "", ms: ms() } : { code: 0, details: "", response, ms: ms() });
    });
  });
}

const create = (p, name, properties, extra = {}) => call(p, "Create", bytes(CreateRequest, { urn: urn(name), properties: struct(properties), ...extra }));

/** The plugin's worker processes (Linux: its children). */
function workers(pid) {
  const kids = [];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) kids.push(Number(d));
    } catch {
      // gone
    }
  }
  return kids;
}

// --- the probes ----------------------------------------------------------------------------------

const rows = [];
const codeName = (c) => (c === -1 ? "no answer" : grpc.status[c] ?? String(c));
const short = (s) => (s.length > 150 ? `${s.slice(0, 100)} … ${s.slice(-45)}` : s).replace(/\n/g, " ⏎ ");
function row(what, answer, pass, note = short(answer.details)) {
  rows.push({ what, answer: `${codeName(answer.code)} in ${answer.ms} ms`, pass, note });
}
const names = (a, name) => a.details.includes(urn(name));

async function main() {
  const provider = providerText();
  const p = await launch();

  const long = await create(p, "timeout", { __provider: provider, act: "sleep", ms: 200 }, { timeout: 720 * 3600 });
  row("customTimeouts 720h, a 200 ms create", long, long.code === 0);

  const deepBody = Buffer.concat([len(1, Buffer.from(urn("deep"))), len(2, Buffer.concat([entry("__provider", len(3, Buffer.from(provider))), entry("deep", nested(1200))]))]);
  const deep = await call(p, "Create", deepBody);
  row("a property nested 1200 levels", deep, deep.code === 0 || (deep.code === 3 && /nested 1200 levels deep/.test(deep.details) && names(deep, "deep")));

  const garbage = await create(p, "garbage", { __provider: "x".repeat(50 * 1024 * 1024) });
  row("a 50 MiB garbage __provider", garbage, garbage.code > 0 && Buffer.byteLength(garbage.details) <= CAP && garbage.details.startsWith(`Create ${urn("garbage")}`), `${Buffer.byteLength(garbage.details)} bytes: ${short(garbage.details)}`);

  const cut = language === "nodejs" ? provider.slice(0, provider.length >> 1) : Buffer.from(provider, "base64").subarray(0, 200).toString("base64");
  const truncated = await create(p, "truncated", { __provider: cut });
  row(`a truncated __provider (${language === "nodejs" ? "JavaScript" : "pickle"})`, truncated, truncated.code > 0 && truncated.details.startsWith(`Create ${urn("truncated")}`) && /provider/.test(truncated.details));

  const unset = await create(p, "unset", { __provider: provider, u: { k: [1, undefined] } });
  row("a Value with no kind set", unset, unset.code === 3 && names(unset, "unset") && unset.details.includes("properties.u.k[1]"));

  const varintUrn = Buffer.concat([Buffer.from([0x08, 0x07]), bytes(CreateRequest, { urn: urn("wiretype"), properties: struct({ __provider: provider }) })]);
  const wire = await call(p, "Create", varintUrn);
  row("a urn sent with the wrong wire type", wire, wire.code === 3 && /CreateRequest\.urn \(field 1\) has wire type 0/.test(wire.details) && names(wire, "wiretype"));

  const badUtf8 = Buffer.concat([len(1, Buffer.from(urn("utf8"))), len(2, Buffer.concat([entry("__provider", len(3, Buffer.from(provider))), entry("k", len(3, Buffer.from([0xc3, 0x28])))]))]);
  const utf8 = await call(p, "Create", badUtf8);
  row("a string value that is not UTF-8", utf8, utf8.code === 3 && /not valid UTF-8/.test(utf8.details) && names(utf8, "utf8"));

  const plaintext = `probe-s3cret-${process.pid}`;
  const stderrBefore = p.stderr.length;
  const secret = { [SIG]: SECRET_SIG, value: plaintext };
  const inCreate = await create(p, "secret", { __provider: provider, act: "throw", secret });
  const inCheck = await call(p, "Check", bytes(CheckRequest, { urn: urn("secret"), olds: struct({}), news: struct({ __provider: provider, act: "throw", secret }) }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const leaked = [inCreate.details, inCheck.details, p.stderr.slice(stderrBefore), p.lines.join("\n")].some((t) => t.includes(plaintext));
  row("a secret input quoted in a provider's error (Create, Check)", inCreate, inCreate.code > 0 && inCheck.code > 0 && !leaked, `${leaked ? "LEAKED" : "[secret] in place"}: ${short(inCheck.details)}`);

  if (language === "python" && process.platform === "linux") {
    // Four 1 s creates in flight; the workers killed; sixteen more sent 1.5 ms apart.
    const inFlight = [0, 1, 2, 3].map((i) => create(p, `inflight${i}`, { __provider: provider, act: "sleep", ms: 1000 }));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const killed = workers(p.child.pid);
    for (const pid of killed) process.kill(pid, "SIGKILL");
    const racing = [];
    for (let i = 0; i < 16; i++) {
      racing.push(create(p, `racing${i}`, { __provider: provider }));
      await new Promise((resolve) => setTimeout(resolve, 1.5));
    }
    const all = await Promise.all([...inFlight, ...racing]);
    const lost = all.filter((a) => a.lost).length;
    const failed = all.filter((a) => !a.lost && a.code !== 0);
    const unnamed = failed.filter((a) => !/urn:pulumi:probe::proj::/.test(a.details)).length;
    const worst = { code: failed[0]?.code ?? 0, ms: Math.max(...all.map((a) => a.ms)), details: failed[0]?.details ?? "" };
    row(`${killed.length} worker(s) SIGKILLed, 4 requests in flight, 16 racing`, worst, lost === 0 && unnamed === 0, `ok ${all.length - failed.length - lost}, failed ${failed.length} (${unnamed} unnamed), lost ${lost}: ${short(worst.details)}`);
  }

  const after = await create(p, "after", { __provider: provider });
  row("a good request after all of it", after, after.code === 0, `stdout lines after the port: ${p.lines.length - 1}; stderr: ${p.stderr.length} bytes`);

  p.client.close();
  const left = workers(p.child.pid);
  const exit = await new Promise((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) resolve(`already exited: ${p.child.exitCode ?? p.child.signalCode}`);
    p.child.once("exit", (code, signal) => resolve(code ?? signal));
    p.closeStdin();
    setTimeout(() => {
      resolve("still running 5 s after stdin closed");
      p.child.kill("SIGKILL");
    }, 5000).unref();
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const alive = left.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  rows.push({ what: "stdin closed (the engine leaves)", answer: `exit ${exit}`, pass: exit === 0 && alive.length === 0, note: `${left.length} worker(s) before, ${alive.length} left after` });

  console.log(`probe of ${plugin} (${language} mode)\n`);
  console.log("| what | answer | pass | text |\n|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.what} | ${r.answer} | ${r.pass ? "yes" : "**NO**"} | ${r.note.replace(/\|/g, "\\|")} |`);
  if (p.lines.length > 1) console.log(`\nstdout after the port line:\n${p.lines.slice(1).join("\n")}`);
  if (p.stderr) console.log(`\nstderr (${language === "nodejs" ? "Node mode echoes an error thrown in Check, as its reference does" : "none expected"}):\n${short(p.stderr)}`);
  process.exitCode = rows.every((r) => r.pass) ? 0 : 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
