// The preloader (python-stub/preloader.py, started by prestart.py; docs/preloader.md): a worker that
// imported everything waits on an owner-only socket and forks a fresh worker for each start of
// pulumi-resource-pulumi-python. A forked worker must be the worker a fresh start would have given:
// the same sys.path and environment, the start's cwd and umask, no state of earlier workers; how it
// ends is reported as any worker's. A stale, shadowed, dead or switched-off preloader never costs a
// start: a fresh worker serves, and the host says why at -v. Started as the engine starts the plugin.
import { expect } from "chai";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { doctor } from "../../src/cli/doctor/doctor.js";
import { pythonProvider } from "../helpers/payloads.js";
import { PYTHON_PROGRAM } from "../helpers/paths.js";
import { ENGINE_ADDRESS, Plugin, type LaunchOptions } from "../helpers/plugin.js";
import { parentOf, processState } from "../helpers/proc.js";

const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const LOUD = ["--logtostderr", "-v=2", ENGINE_ADDRESS];

interface Facts {
  sysPath: string[];
  environ: Record<string, string>;
  pid: number;
  ppid: number;
  cwd: string;
  umask: number;
  argv: string[];
  nofile: [number, number];
}

async function create<T>(p: Plugin, name: string, provider: string): Promise<T> {
  const a = await p.client.create({ urn: urn(name), properties: { __provider: pythonProvider(provider, "python_launcher_providers.py") } });
  expect(a.code, `${a.details}\n${p.stderr}`).to.equal(0);
  return a.view.properties as T;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("pulumi-resource-pulumi-python's preloader: a fork instead of an interpreter's start", function () {
  const started: Plugin[] = [];
  let runtimeDir: string;
  let socketDir: string;
  let env: NodeJS.ProcessEnv;
  const launch = async (opts: LaunchOptions = {}) => {
    const p = await Plugin.launch("ours", { language: "python", args: LOUD, ...opts, env: { ...env, ...opts.env } });
    started.push(p);
    return p;
  };
  /** The pid of the preloader listening in the socket directory, once one does (its lock file holds its pid). */
  const preloader = async (): Promise<number> => {
    for (let i = 0; i < 400; i++) {
      const socks = fs.existsSync(socketDir) ? fs.readdirSync(socketDir).filter((f) => f.endsWith(".sock")) : [];
      for (const sock of socks) {
        const listening = await new Promise<boolean>((resolve) => {
          const c = net.connect(path.join(socketDir, sock));
          c.once("connect", () => (c.destroy(), resolve(true))).once("error", () => resolve(false));
        });
        const pid = readPid(path.join(socketDir, sock.replace(/\.sock$/, ".lock")));
        if (listening && pid > 0) return pid;
      }
      await sleep(50);
    }
    throw new Error(`no preloader listens in ${socketDir}`);
  };
  /** The pid in a lock file; 0 once a leaving preloader removed it. */
  const readPid = (file: string) => {
    try {
      return Number(fs.readFileSync(file, "utf8").trim());
    } catch {
      return 0;
    }
  };
  const preloaders = () => (fs.existsSync(socketDir) ? fs.readdirSync(socketDir).filter((f) => f.endsWith(".lock")) : []).map((f) => readPid(path.join(socketDir, f))).filter((pid) => pid > 0);
  /** Waits for `pid` to end (gone, or a zombie of an ended parent). */
  const ended = async (pid: number) => {
    for (let i = 0; i < 200 && processState(pid) !== undefined && processState(pid) !== "Z"; i++) await sleep(25);
    return processState(pid) === undefined || processState(pid) === "Z";
  };
  const stopPreloaders = async () => {
    for (const pid of preloaders()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    await sleep(100);
    fs.rmSync(socketDir, { recursive: true, force: true });
  };

  beforeEach(function () {
    runtimeDir = fs.mkdtempSync(path.join(os.tmpdir(), "preloader-"));
    fs.chmodSync(runtimeDir, 0o700);
    socketDir = path.join(runtimeDir, "pulumi-dynamic-host");
    env = { XDG_RUNTIME_DIR: runtimeDir, PULUMI_DYNAMIC_HOST_PRELOAD: "1", PULUMI_DYNAMIC_HOST_PRELOAD_DELAY_MS: "0", PULUMI_DYNAMIC_HOST_PRELOAD_IDLE_S: "120" };
  });
  afterEach(async function () {
    await Promise.all(started.splice(0).map((p) => p.stop()));
    await stopPreloaders();
    fs.rmSync(runtimeDir, { recursive: true, force: true });
  });

  it("a start that finds none starts a fresh worker, as before, and leaves a preloader for the next", async function () {
    const p = await launch();
    const f = await create<Facts>(p, "first", "facts");
    expect(p.stderr).to.contain("python worker: fresh worker: none: No such file or directory");
    expect(p.stderr).to.contain(`python worker (pid ${f.pid}) started by the launcher`);
    expect(f.ppid).to.equal(p.child.pid);
    const pid = await preloader();
    expect(parentOf(pid), "detached: not the plugin's child").to.not.equal(p.child.pid);
    expect(fs.statSync(socketDir).mode & 0o777).to.equal(0o700);
  });

  it("the next start's worker is its fork: the sys.path, environment, argv, cwd and umask of a fresh worker, and nothing of an earlier one", async function () {
    await (await launch()).stop();
    const pid = await preloader();
    // A fresh worker to compare with, in another directory and umask than the preloader was started in.
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "preloader-program-"));
    fs.cpSync(PYTHON_PROGRAM, cwd, { recursive: true });
    const fresh = await launch({ cwd, env: { PULUMI_DYNAMIC_HOST_PRELOAD: "0", THIS_START: "fresh" } });
    const a = await create<Facts>(fresh, "fresh", "facts");
    const forked = await launch({ cwd, env: { THIS_START: "forked" } });
    const b = await create<Facts>(forked, "forked", "facts");
    expect(forked.stderr).to.contain(`python worker (pid ${b.pid}) forked by the preloader`);
    expect(forked.stderr).to.not.contain("fresh worker");
    expect(b.ppid, "the preloader's child").to.equal(pid);
    expect(b.sysPath).to.deep.equal(a.sysPath);
    expect([b.cwd, b.umask, b.argv]).to.deep.equal([a.cwd, a.umask, a.argv]);
    expect(b.environ.THIS_START).to.equal("forked");
    for (const e of [a.environ, b.environ]) delete e.PULUMI_DYNAMIC_HOST_PRELOAD, delete e.THIS_START;
    expect(b.environ).to.deep.equal(a.environ);
    // Each forked worker starts from the preloader's state, never an earlier worker's.
    expect((await create<{ seen: number }>(forked, "mark-1", "mark")).seen).to.equal(0);
    expect((await create<{ seen: number }>(forked, "mark-2", "mark")).seen, "the same worker's mark").to.equal(b.pid);
    await forked.stop();
    const again = await launch({ cwd });
    expect((await create<{ seen: number }>(again, "mark-3", "mark")).seen).to.equal(0);
    expect(again.stderr).to.contain("forked by the preloader");
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it("a forked worker takes the start's resource limits (the soft limit on open files, lowered by the shell that ran the engine)", async function () {
    await (await launch()).stop();
    await preloader();
    const wrapper = path.join(runtimeDir, "ulimit-launcher");
    const plugin = (await import("../helpers/paths.js")).OUR_PYTHON_PLUGIN;
    fs.writeFileSync(wrapper, `#!/bin/sh\nulimit -Sn 321\nexec "${plugin}" "$@"\n`, { mode: 0o755 });
    const p = await launch({ executable: wrapper });
    const f = await create<Facts>(p, "limited", "facts");
    expect(p.stderr).to.contain(`python worker (pid ${f.pid}) forked by the preloader`);
    expect(f.nofile[0]).to.equal(321);
  });

  it("a forked worker's death is reported as any worker's, with how it ended, and another serves", async function () {
    await (await launch()).stop();
    await preloader();
    const p = await launch();
    const first = await create<Facts>(p, "first", "facts");
    expect(p.stderr).to.contain(`python worker (pid ${first.pid}) forked by the preloader`);
    process.kill(first.pid, "SIGKILL");
    await p.until(() => p.stderr.includes(`(pid ${first.pid}) exited: was killed by SIGKILL`), "the host to see the worker's death");
    const second = await create<Facts>(p, "second", "facts");
    expect(second.pid).to.not.equal(first.pid);
    expect(second.ppid, "a worker the host spawns itself").to.equal(p.child.pid);
    for (let i = 0; i < 100 && processState(first.pid) !== undefined; i++) await sleep(50);
    expect(processState(first.pid), "reaped by the preloader").to.equal(undefined);
  });

  it("stale (a directory on sys.path changed since it loaded): declines, a fresh worker serves, and a new preloader starts", async function () {
    const extra = fs.mkdtempSync(path.join(os.tmpdir(), "preloader-path-"));
    env.PYTHONPATH = extra;
    await (await launch()).stop();
    const old = await preloader();
    fs.writeFileSync(path.join(extra, "newly_installed.py"), "");
    const p = await launch();
    const f = await create<Facts>(p, "after", "facts");
    expect(p.stderr).to.match(new RegExp(`python worker: fresh worker: declined stale: ${extra} changed since it was loaded`));
    expect(f.ppid).to.equal(p.child.pid);
    for (let i = 0; i < 100 && processState(old) !== undefined && processState(old) !== "Z"; i++) await sleep(50);
    expect(processState(old), "the stale preloader exits").to.be.oneOf([undefined, "Z"]);
    const next = await preloader();
    expect(next).to.not.equal(old);
    fs.rmSync(extra, { recursive: true, force: true });
  });

  it("a program directory that would shadow a module it loaded: declines, a fresh worker serves", async function () {
    await (await launch()).stop();
    const pid = await preloader();
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "preloader-shadow-"));
    fs.cpSync(PYTHON_PROGRAM, cwd, { recursive: true });
    // A namespace portion beside the program: a fresh worker imports google.protobuf with it on sys.path.
    fs.mkdirSync(path.join(cwd, "google"));
    const p = await launch({ cwd });
    const f = await create<Facts>(p, "shadow", "facts");
    expect(p.stderr).to.contain("python worker: fresh worker: declined the program directory has google, which a worker would import as google");
    expect(f.ppid).to.equal(p.child.pid);
    expect(await preloader(), "still serves other programs").to.equal(pid);
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it("a killed preloader (its socket left behind) costs nothing: a fresh worker, and a new preloader", async function () {
    await (await launch()).stop();
    const dead = await preloader();
    process.kill(dead, "SIGKILL");
    for (let i = 0; i < 100 && processState(dead) !== undefined && processState(dead) !== "Z"; i++) await sleep(20);
    const p = await launch();
    const f = await create<Facts>(p, "after", "facts");
    expect(p.stderr).to.contain("python worker: fresh worker: none: Connection refused");
    expect(f.ppid).to.equal(p.child.pid);
    expect(await preloader()).to.not.equal(dead);
  });

  it("an idle preloader exits and leaves nothing in its directory: neither its socket nor its lock file", async function () {
    env.PULUMI_DYNAMIC_HOST_PRELOAD_IDLE_S = "2";
    await (await launch()).stop();
    const pid = await preloader();
    expect(fs.readdirSync(socketDir).sort()).to.have.length(2);
    expect(await ended(pid), "it exits when idle").to.equal(true);
    expect(fs.readdirSync(socketDir)).to.deep.equal([]);
  });

  it("a preloader sent SIGTERM leaves nothing behind; its forked worker serves on, and the next start leaves a new one", async function () {
    await (await launch()).stop();
    const old = await preloader();
    const p = await launch();
    const before = await create<Facts>(p, "before", "facts");
    expect(before.ppid).to.equal(old);
    process.kill(old, "SIGTERM");
    expect(await ended(old)).to.equal(true);
    expect(fs.readdirSync(socketDir)).to.deep.equal([]);
    const after = await create<Facts>(p, "after", "facts");
    expect(after.pid, "the same worker, still serving").to.equal(before.pid);
    const next = await launch();
    await create<Facts>(next, "next", "facts");
    expect(next.stderr).to.contain("python worker: fresh worker: none: No such file or directory");
    expect(await preloader()).to.not.equal(old);
  });

  it("a start that waited for the lock of a preloader that left takes a new lock file, not the removed one", async function () {
    await (await launch()).stop();
    const dead = await preloader();
    const lock = path.join(socketDir, fs.readdirSync(socketDir).find((f) => f.endsWith(".lock"))!);
    process.kill(dead, "SIGKILL");
    expect(await ended(dead)).to.equal(true);
    // Another process holds the lock, then leaves as a preloader does: removes the file, then lets go.
    const holder = spawn("python3", ["-c", `import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.flock(fd, fcntl.LOCK_EX)\nprint("held", flush=True)\ntime.sleep(0.8)\nos.unlink(sys.argv[1])\nos.close(fd)`, lock], { stdio: ["ignore", "pipe", "inherit"] });
    // Listened for now: on a busy machine the holder may be gone before the Create below is answered.
    const holderExited = new Promise((resolve) => holder.once("exit", resolve));
    await new Promise((resolve) => holder.stdout!.once("data", resolve));
    const p = await launch();
    await create<Facts>(p, "while-held", "facts");
    await holderExited;
    const next = await preloader();
    expect(next).to.not.equal(dead);
    expect(readPid(lock), "the lock file at the path is the new preloader's").to.equal(next);
  });

  it("a new preloader removes what preloaders that no longer run left (a lock nobody holds and its socket), and nothing that is held", async function () {
    fs.mkdirSync(socketDir, { mode: 0o700 });
    const left = ["0123456789abcdef.lock", "0123456789abcdef.sock", "fedcba9876543210.lock"];
    for (const f of left) fs.writeFileSync(path.join(socketDir, f), "4194304\n", { mode: 0o600 });
    const heldLock = path.join(socketDir, "00000000000000aa.lock");
    fs.writeFileSync(heldLock, "", { mode: 0o600 });
    const holder = spawn("python3", ["-c", `import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.flock(fd, fcntl.LOCK_EX)\nprint("held", flush=True)\nsys.stdin.read()`, heldLock], { stdio: ["pipe", "pipe", "inherit"] });
    await new Promise((resolve) => holder.stdout!.once("data", resolve));
    try {
      await (await launch()).stop();
      const pid = await preloader();
      let files: string[] = [];
      for (let i = 0; i < 100; i++) {
        files = fs.readdirSync(socketDir).sort();
        if (!files.some((f) => left.includes(f))) break;
        await sleep(20);
      }
      expect(files.filter((f) => left.includes(f)), "the leftovers are gone").to.deep.equal([]);
      expect(files).to.include("00000000000000aa.lock");
      const own = files.filter((f) => f !== "00000000000000aa.lock");
      expect(own.map((f) => path.extname(f)).sort()).to.deep.equal([".lock", ".sock"]);
      expect(readPid(path.join(socketDir, own.find((f) => f.endsWith(".lock"))!))).to.equal(pid);
    } finally {
      holder.stdin!.end();
    }
  });

  it("doctor sums up the running preloaders in one line (count, memory, how to stop them), and with --verbose names each; none once they are gone", async function () {
    await (await launch()).stop();
    const pid = await preloader();
    const lines = async (verbose: boolean) => {
      const out: string[] = [];
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "preloader-doctor-"));
      await doctor({ dir, env: { ...process.env, ...env }, verbose }, (l) => out.push(l), () => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
      return out.filter((l) => l.includes("python preloader"));
    };
    const [summary, ...more] = await lines(false);
    expect(more).to.deep.equal([]);
    expect(summary).to.match(/^ok: python preloaders: 1 running for you, \d+ MiB in all \(proportional set size\); /);
    expect(summary).to.contain(`\`kill ${pid}\` stops them, leaving nothing behind, and PULUMI_DYNAMIC_HOST_PRELOAD=0 keeps them from being used or started; \`doctor --verbose\` lists each`);
    const [again, line, ...rest] = await lines(true);
    expect(again.startsWith("ok: python preloaders: 1 running for you")).to.equal(true);
    expect(rest).to.deep.equal([]);
    const interpreter = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
    expect(line.startsWith(`ok: python preloader: pid ${pid} (${interpreter}), started `), line).to.equal(true);
    expect(line).to.match(/, started \d+ s ago, \d+ MiB resident \(\d+ MiB proportional\)$/);
    process.kill(pid, "SIGTERM");
    expect(await ended(pid)).to.equal(true);
    expect(await lines(true)).to.deep.equal([]);
  });

  it("at most PULUMI_DYNAMIC_HOST_PRELOAD_MAX live at once: a new one asks the least recently used to leave; it stops taking starts and exits", async function () {
    env.PULUMI_DYNAMIC_HOST_PRELOAD_MAX = "2";
    /** The pids of the preloaders that listen now. */
    const listening = async () => {
      const pids: number[] = [];
      for (const sock of fs.existsSync(socketDir) ? fs.readdirSync(socketDir).filter((f) => f.endsWith(".sock")) : []) {
        const up = await new Promise<boolean>((resolve) => {
          const c = net.connect(path.join(socketDir, sock));
          c.once("connect", () => (c.destroy(), resolve(true))).once("error", () => resolve(false));
        });
        const pid = readPid(path.join(socketDir, sock.replace(/\.sock$/, ".lock")));
        if (up && pid > 0) pids.push(pid);
      }
      return pids.sort();
    };
    /** A start in the environment `name` (an LC_ variable, part of a preloader's key); the preloader it leaves or uses. */
    const startIn = async (name: string, known: number[]) => {
      const p = await launch({ env: { LC_PRELOADER_TEST: name } });
      const f = await create<Facts>(p, name, "facts");
      await p.stop();
      if (p.stderr.includes("forked by the preloader")) return f.ppid;
      for (let i = 0; i < 400; i++) {
        const fresh = (await listening()).filter((pid) => !known.includes(pid));
        if (fresh.length === 1) return fresh[0];
        await sleep(50);
      }
      throw new Error(`no preloader started for ${name}`);
    };
    const a = await startIn("a", []);
    const b = await startIn("b", [a]);
    expect(await listening()).to.deep.equal([a, b].sort());
    // a serves again: b is now the least recently used.
    expect(await startIn("a", [a, b]), "a's preloader forks the second start of a").to.equal(a);
    const c = await startIn("c", [a, b]);
    expect(await ended(b), "b, least recently used, leaves").to.equal(true);
    expect(await listening()).to.deep.equal([a, c].sort());
    expect(fs.readdirSync(socketDir).length, "b's socket and lock file are gone").to.equal(4);
  });

  it("PULUMI_DYNAMIC_HOST_PRELOAD=0: none is used or started", async function () {
    env.PULUMI_DYNAMIC_HOST_PRELOAD = "0";
    const p = await launch();
    const f = await create<Facts>(p, "off", "facts");
    await p.stop();
    await sleep(500);
    expect(f.ppid).to.equal(p.child.pid);
    expect(p.stderr).to.not.match(/preload/);
    expect(fs.existsSync(socketDir)).to.equal(false);
  });

  it("a directory that is not the user's alone is not used", async function () {
    fs.mkdirSync(socketDir, { mode: 0o755 });
    fs.chmodSync(socketDir, 0o755);
    const p = await launch();
    await create<Facts>(p, "open", "facts");
    expect(p.stderr).to.contain("python worker: preloader not used: its directory is not this user's alone");
    expect(fs.readdirSync(socketDir)).to.deep.equal([]);
  });
});
