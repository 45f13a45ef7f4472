// The launcher's worker (src/python-bridge/worker/prestarted.ts): what the host reads
// from PULUMI_DYNAMIC_HOST_PRESTARTED, how it decides the worker is the one it
// would have spawned (argv and environment from /proc, here a fake /proc
// directory), and how it reads how the worker ended.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { envDigest, exitOf, expectedWorker, mismatch, takePrestarted } from "../../src/python-bridge/worker/prestarted.js";
import { REPO, VENV_PYTHON } from "../helpers/paths.js";
import { workerScript } from "../../src/python-bridge/worker/worker-settings.js";

describe("the launcher's python worker (prestarted.ts)", function () {
  let proc: string;
  const writeProc = (pid: number, files: Record<string, string | Buffer>) => {
    fs.mkdirSync(path.join(proc, String(pid)), { recursive: true });
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(proc, String(pid), name), content);
  };
  const nul = (items: string[]) => Buffer.from(items.map((i) => `${i}\0`).join(""));
  /** A /proc/<pid>/stat line: 52 fields, the command in parentheses, `state` and `ppid`, `status` as field 52. */
  const stat = (pid: number, comm: string, state: string, ppid: number, status = 0) => {
    const rest = Array.from({ length: 48 }, (_, i) => (i === 47 ? String(status) : "0"));
    return `${pid} (${comm}) ${state} ${ppid} ${rest.join(" ")}\n`;
  };
  const interpreter = { python: "/venv/bin/python", env: { PATH: "/venv/bin:/usr/bin", PWD: "/project", SECRET_TOKEN: "hunter22", GONE: undefined } };
  // The host's own worker script (a checkout's): the launcher starts it through start.py beside it.
  const script = workerScript();
  const start = path.join(path.dirname(script), "start.py");

  beforeEach(function () {
    proc = fs.mkdtempSync(path.join(os.tmpdir(), "fake-proc-"));
  });
  afterEach(function () {
    fs.rmSync(proc, { recursive: true, force: true });
  });

  it("reads the variable (pid, three descriptors, the interpreter with any spaces) and removes it", function () {
    const env: NodeJS.ProcessEnv = { PULUMI_DYNAMIC_HOST_PRESTARTED: "4242 3 5 7 /opt/my python/bin/python3", OTHER: "x" };
    expect(takePrestarted(env)).to.deep.equal({ pid: 4242, channel: 3, stdout: 5, stderr: 7, python: "/opt/my python/bin/python3" });
    expect(env).to.deep.equal({ OTHER: "x" });
    expect(takePrestarted(env)).to.equal(undefined);
    expect(takePrestarted({ PULUMI_DYNAMIC_HOST_PRESTARTED: "1" })).to.equal(undefined);
    expect(takePrestarted({ PULUMI_DYNAMIC_HOST_PRESTARTED: "x 3 4 5 python" })).to.equal(undefined);
  });

  it("reads a worker the preloader forked: the descriptor its exit is reported on and its environment's digest first", function () {
    const env: NodeJS.ProcessEnv = { PULUMI_DYNAMIC_HOST_PRESTARTED: "P9:0a1b2c3d 4242 3 5 7 /usr/bin/python3", PULUMI_DYNAMIC_HOST_PRELOAD_NOTE: "x" };
    expect(takePrestarted(env)).to.deep.equal({ pid: 4242, channel: 3, stdout: 5, stderr: 7, python: "/usr/bin/python3", preloaded: { status: 9, envDigest: "0a1b2c3d" } });
    expect(env).to.deep.equal({});
    expect(takePrestarted({ PULUMI_DYNAMIC_HOST_PRESTARTED: "P9: 4242 3 5 7 python" })).to.equal(undefined);
  });

  it("digests an environment as the launcher does (prestart.py), so that the same one matches and any change does not", function () {
    const env = { PATH: "/venv/bin:/usr/bin", "É": "ü\n=x", EMPTY: "", Z: "1", a: "2" };
    const script = `import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("prestart", "${REPO}python-stub/prestart.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
print(m._env_digest(json.loads(sys.argv[1])))`;
    const python = execFileSync(VENV_PYTHON, ["-c", script, JSON.stringify(env)], { encoding: "utf8" }).trim();
    expect(envDigest(env)).to.equal(python);
    expect(envDigest({ ...env, Z: "2" })).to.not.equal(python);
    expect(envDigest({ PATH: env.PATH })).to.not.equal(python);
  });

  it("expects the argv and environment the host gives its first worker, with the marker the worker reads", function () {
    expect(expectedWorker(interpreter, script)).to.deep.equal({
      argv: ["/venv/bin/python", "-u", start, script],
      env: { PATH: "/venv/bin:/usr/bin", PWD: "/project", SECRET_TOKEN: "hunter22", PULUMI_DYNAMIC_HOST_CHANNEL_FD: "3", PULUMI_DYNAMIC_HOST_PRESTARTED: "1" },
    });
  });

  it("takes a worker whose argv and environment are exactly those, in any order", function () {
    const want = expectedWorker(interpreter, script);
    writeProc(10, { cmdline: nul(want.argv), environ: nul(Object.entries(want.env).reverse().map(([k, v]) => `${k}=${v}`)) });
    expect(mismatch(10, want, proc)).to.equal(undefined);
  });

  it("refuses another interpreter or script, saying what it runs", function () {
    const want = expectedWorker(interpreter, script);
    writeProc(11, { cmdline: nul(["python3", ...want.argv.slice(1)]), environ: nul([]) });
    expect(mismatch(11, want, proc)).to.match(/^it runs \["python3","-u",.*\], not \["\/venv\/bin\/python"/);
    writeProc(12, { cmdline: nul([...want.argv.slice(0, 3), "/elsewhere/worker.py"]), environ: nul([]) });
    expect(mismatch(12, want, proc)).to.match(/^it runs /);
  });

  it("refuses a different environment, naming the variables and never their values", function () {
    const want = expectedWorker(interpreter, script);
    const env = Object.entries(want.env).map(([k, v]) => `${k}=${k === "SECRET_TOKEN" ? "other-value" : v}`);
    writeProc(13, { cmdline: nul(want.argv), environ: nul([...env.filter((e) => !e.startsWith("PWD=")), "EXTRA=1"]) });
    const why = mismatch(13, want, proc)!;
    expect(why).to.equal("its environment differs in EXTRA, PWD, SECRET_TOKEN");
    expect(why).to.not.contain("hunter22").and.not.contain("other-value");
  });

  it("refuses a worker that is gone or exited before it started", function () {
    const want = expectedWorker(interpreter, script);
    expect(mismatch(14, want, proc)).to.equal("its process cannot be read (ENOENT)");
    writeProc(15, { cmdline: "", environ: "" });
    expect(mismatch(15, want, proc)).to.equal("it exited before it started");
  });

  it("reads how it ended from its zombie's wait status, and nothing while it runs", function () {
    const me = process.pid;
    writeProc(20, { stat: stat(20, "python3", "S", me) });
    expect(exitOf(20, proc)).to.equal(undefined);
    writeProc(21, { stat: stat(21, "python3", "Z", me, 3 << 8) });
    expect(exitOf(21, proc)).to.deep.equal({ code: 3, signal: null });
    writeProc(22, { stat: stat(22, "py) (odd name", "Z", me, 9) });
    expect(exitOf(22, proc)).to.deep.equal({ code: null, signal: "SIGKILL" });
    writeProc(23, { stat: stat(23, "python3", "X", me, 0) });
    expect(exitOf(23, proc)).to.deep.equal({ code: 0, signal: null });
  });

  it("counts a pid that is gone, or now another process's child, as ended with nothing known", function () {
    expect(exitOf(30, proc)).to.deep.equal({ code: null, signal: null });
    writeProc(31, { stat: stat(31, "bash", "S", 1) });
    expect(exitOf(31, proc)).to.deep.equal({ code: null, signal: null });
  });
});
