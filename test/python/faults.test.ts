// Faults around the Python worker, against our pulumi-resource-pulumi-python
// started like the engine starts it. The reference would crash, hang or mix
// output in each of these; ours must answer every request with a clear error,
// keep serving, and leave no process behind.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FIXTURES, PYTHON_PROGRAM } from "../helpers/paths.js";
import { nodeProvider, pickleFromPython310, pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";
import { PROTOCOL_VERSION } from "../../src/python-bridge/channel/protocol.js";

const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const WORKERS = `${FIXTURES}workers/`;
const UNAVAILABLE = 14;

/** The worker processes of a plugin: its process group less the host itself. */
function workerPids(p: Plugin): number[] {
  return p.groupPids().filter((pid) => pid !== p.child.pid);
}

async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Keeps `concurrency` CPU-bound Creates (each spinning `seconds`) in flight until
 * `enough` says stop or `max` have been sent; returns the pids that answered.
 */
async function spinWaves(p: Plugin, opts: { concurrency: number; seconds: number; max: number; enough: () => boolean }): Promise<number[]> {
  const scripted = pythonProvider("scripted");
  const pids: number[] = [];
  let sent = 0;
  const loop = async () => {
    while (sent < opts.max && !opts.enough()) {
      sent++;
      const answer = await p.client.create({ urn: urn(`spin${sent}`), properties: { __provider: scripted, act: "spin", seconds: opts.seconds } });
      expect(answer.code, answer.details).to.equal(0);
      pids.push(answer.view.properties.pid as number);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, loop));
  return pids;
}

describe("python worker pool", function () {
  let p: Plugin;
  beforeEach(async function () {
    p = await Plugin.launch("ours", { language: "python", env: { PULUMI_DYNAMIC_HOST_PYTHON_WORKERS: "2" } });
  });
  afterEach(async function () {
    await p?.stop();
  });

  it("requests that wait (IO, sleeps) share one worker process, however many run at once", async function () {
    const scripted = pythonProvider("scripted");
    for (let wave = 0; wave < 3; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => p.client.create({ urn: urn(`sleep${wave}-${i}`), properties: { __provider: scripted, act: "sleep", seconds: 0.3 } })),
      );
      expect(answers.map((a) => a.code)).to.deep.equal(new Array(16).fill(0));
    }
    expect(workerPids(p)).to.have.length(1);
  });

  it("CPU-bound requests that queue behind one interpreter lock start a second worker, and both serve", async function () {
    const pids = await spinWaves(p, { concurrency: 4, seconds: 0.05, max: 400, enough: () => workerPids(p).length >= 2 });
    expect(workerPids(p)).to.have.length(2);
    // Once both are up, requests go to both.
    const after = await spinWaves(p, { concurrency: 4, seconds: 0.05, max: 24, enough: () => false });
    expect(new Set(after).size, `pids that answered: ${[...new Set([...pids, ...after])]}`).to.equal(2);
  });

  it("one CPU-bound request at a time never starts a second worker", async function () {
    await spinWaves(p, { concurrency: 1, seconds: 0.05, max: 30, enough: () => false });
    expect(workerPids(p)).to.have.length(1);
  });
});

describe("python worker faults", function () {
  describe("a worker that dies mid-request", function () {
    let p: Plugin;
    before(async function () {
      p = await Plugin.launch("ours", { language: "python" });
    });
    after(async function () {
      await p?.stop();
    });

    it("SIGKILL: the request in flight fails at once, naming resource, method and signal; the next gets a fresh worker", async function () {
      const scripted = pythonProvider("scripted");
      const first = await p.client.create({ urn: urn("warm"), properties: { __provider: scripted, act: "echo" } });
      expect(first.code).to.equal(0);
      const pending = p.client.create({ urn: urn("victim"), properties: { __provider: scripted, act: "hang" } });
      await p.until(() => p.stderr.includes("hanging in create"), "the worker to be inside create");
      const [victim] = workerPids(p);
      process.kill(victim, "SIGKILL");
      const answer = await pending;
      expect(answer.code).to.equal(UNAVAILABLE);
      expect(answer.details).to.match(new RegExp(`^Create ${urn("victim")}: the Python worker running it \\(pid ${victim}\\) was killed by SIGKILL`));
      expect(answer.details).to.contain("hanging in create").and.contain("The next request starts a fresh worker.");
      const again = await p.client.create({ urn: urn("after"), properties: { __provider: scripted, act: "echo" } });
      expect(again.code).to.equal(0);
      expect(workerPids(p)).to.not.include(victim);
    });

    it("exit: the exit code and the worker's last stderr lines are in the error", async function () {
      const scripted = pythonProvider("scripted");
      const answer = await p.client.create({ urn: urn("exiter"), properties: { __provider: scripted, act: "exit", code: 7 } });
      expect(answer.code).to.equal(UNAVAILABLE);
      expect(answer.details).to.match(/^Create urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::exiter: the Python worker running it \(pid \d+\) exited with code 7/);
      expect(answer.details).to.contain("its last stderr lines:\nabout to exit from create");
      expect((await p.client.create({ urn: urn("next"), properties: { __provider: scripted, act: "echo" } })).code).to.equal(0);
    });

    it("a timeout is honoured: DEADLINE_EXCEEDED while sync code hangs, and the worker keeps serving", async function () {
      const scripted = pythonProvider("scripted");
      const started = Date.now();
      const answer = await p.client.create({ urn: urn("slow"), properties: { __provider: scripted, act: "hang" }, timeout: 0.5 });
      expect(answer.code).to.equal(4);
      expect(answer.details).to.contain(`Create ${urn("slow")}: did not finish within the 0.5 s timeout`);
      expect(Date.now() - started).to.be.lessThan(20_000);
      expect((await p.client.create({ urn: urn("fine"), properties: { __provider: scripted, act: "echo" } })).code).to.equal(0);
    });

    it("Cancel interrupts an async create in flight; it answers CANCELLED", async function () {
      const pending = p.client.create({ urn: urn("async"), properties: { __provider: pythonProvider("async"), seconds: 60, announce: "c1" } });
      await p.until(() => p.stderr.includes("async create c1 awaiting"), "the async create to be awaiting");
      expect((await p.client.cancel()).code).to.equal(0);
      const answer = await pending;
      expect(answer.code).to.equal(1);
      expect(answer.details).to.contain(`Create ${urn("async")}: create was cancelled`);
    });
  });

  it("a worker that never answers: requests fail once it misses a health check, and it is replaced", async function () {
    const p = await Plugin.launch("ours", {
      language: "python",
      env: {
        PULUMI_DYNAMIC_HOST_WORKER_SCRIPT: `${WORKERS}silent_worker.py`,
        PULUMI_DYNAMIC_HOST_PING_INTERVAL_MS: "100",
        PULUMI_DYNAMIC_HOST_PING_TIMEOUT_MS: "400",
      },
    });
    try {
      const answer = await p.client.create({ urn: urn("silent"), properties: { __provider: pythonProvider("minimal") } });
      expect(answer.code).to.equal(UNAVAILABLE);
      expect(answer.details, answer.details).to.match(/stopped answering \(no reply to a health check within 400 ms\) and was killed/);
      expect((await p.client.getPluginInfo()).code).to.equal(0);
    } finally {
      await p.stop();
    }
  });

  it("garbage on the channel: the worker is stopped, its requests fail clearly, the host keeps serving", async function () {
    const p = await Plugin.launch("ours", { language: "python", env: { PULUMI_DYNAMIC_HOST_WORKER_SCRIPT: `${WORKERS}garbage_worker.py` } });
    try {
      const answer = await p.client.create({ urn: urn("garbled"), properties: { __provider: pythonProvider("minimal") } });
      expect(answer.code).to.equal(UNAVAILABLE);
      expect(answer.details).to.contain(`Create ${urn("garbled")}: the worker wrote an unreadable frame: no frame header`);
      expect((await p.client.getPluginInfo()).code).to.equal(0);
      expect(p.userStdout).to.deep.equal([]);
    } finally {
      await p.stop();
    }
  });

  it("a worker speaking another channel protocol is stopped before it serves, and its requests say why", async function () {
    const p = await Plugin.launch("ours", { language: "python", env: { PULUMI_DYNAMIC_HOST_WORKER_SCRIPT: `${WORKERS}old_protocol_worker.py` } });
    try {
      const answer = await p.client.create({ urn: urn("mismatch"), properties: { __provider: pythonProvider("minimal") } });
      expect(answer.code).to.equal(UNAVAILABLE);
      expect(answer.details).to.contain(`Create ${urn("mismatch")}: the Python worker running it`);
      expect(answer.details).to.contain(`speaks channel protocol 1, but this host speaks ${PROTOCOL_VERSION}`);
      expect((await p.client.getPluginInfo()).code).to.equal(0);
    } finally {
      await p.stop();
    }
  });

  it("a worker printing to its stdout reaches the host's stdout, never the channel", async function () {
    const p = await Plugin.launch("ours", { language: "python", env: { PULUMI_DYNAMIC_HOST_WORKER_SCRIPT: `${WORKERS}chatty_worker.py` } });
    try {
      const answer = await p.client.create({ urn: urn("chatty"), properties: { __provider: pythonProvider("minimal") } });
      expect(answer.code).to.equal(0);
      expect(answer.view.id).to.equal("minimal");
      await p.until(() => p.userStdout.length >= 2, "the worker's own prints");
      expect(p.userStdout).to.deep.equal(["chatty worker: hello on stdout", "chatty worker: raw fd 1 write"]);
    } finally {
      await p.stop();
    }
  });

  describe("payloads that cannot be Python providers", function () {
    let p: Plugin;
    before(async function () {
      p = await Plugin.launch("ours", { language: "python" });
    });
    after(async function () {
      await p?.stop();
    });

    it("corrupt base64", async function () {
      const answer = await p.client.create({ urn: urn("b64"), properties: { __provider: "not base64 at all!" } });
      expect(answer).to.deep.equal({
        code: 2,
        details: `Create ${urn("b64")}: its __provider is not the base64 text the pulumi Python SDK writes: it has characters outside the base64 alphabet`,
      });
    });

    it("truncated base64", async function () {
      const real = pythonProvider("scripted");
      const answer = await p.client.create({ urn: urn("trunc"), properties: { __provider: real.slice(0, real.length - 5) } });
      expect(answer.code).to.equal(2);
      expect(answer.details).to.match(/its __provider is not the base64 text the pulumi Python SDK writes: its length \d+ is not a multiple of 4, so it looks truncated$/);
    });

    it("a truncated pickle that is still valid base64: named by the worker, which alone can tell, with its traceback below", async function () {
      const real = pythonProvider("scripted");
      const answer = await p.client.create({ urn: urn("short"), properties: { __provider: real.slice(0, 400) } });
      expect(answer.code).to.equal(2);
      expect(answer.details).to.match(
        new RegExp(`^Create ${urn("short")}: the resource's __provider could not be loaded: the pickle is cut short: it ends before it is complete \\((UnpicklingError: pickle data was truncated|EOFError: Ran out of input)\\)\n\nTraceback \\(most recent call last\\):\n`),
      );
      expect(answer.details.trim().split("\n").pop()).to.match(/^_pickle\.UnpicklingError: pickle data was truncated$|^EOFError: Ran out of input$/);
      expect((await p.client.create({ urn: urn("ok"), properties: { __provider: real, act: "echo" } })).code).to.equal(0);
    });

    it("an empty or blank __provider is refused before any worker unpickles it", async function () {
      for (const [text, what] of [["", "an empty string"], ["  \n", "only whitespace"]]) {
        const answer = await p.client.create({ urn: urn("empty"), properties: { __provider: text } });
        expect(answer).to.deep.equal({ code: 2, details: `Create ${urn("empty")}: its __provider is ${what}, not the base64 text the pulumi Python SDK writes` });
      }
    });

    it("a Node payload sent to the Python plugin", async function () {
      const answer = await p.client.create({ urn: urn("node"), properties: { __provider: await nodeProvider("createOnly") } });
      expect(answer.code).to.equal(2);
      expect(answer.details).to.equal(
        `Create ${urn("node")}: its __provider is JavaScript (a Node.js dynamic provider, as TypeScript/JavaScript programs write it), ` +
          "not a Python pickle; pulumi-resource-pulumi-python runs providers written with the pulumi Python SDK",
      );
    });

    it("code pickled by another Python is refused before any worker runs it", async function () {
      const payload = pickleFromPython310();
      const before = workerPids(p);
      const answer = await p.client.create({ urn: urn("py310"), properties: { __provider: payload } });
      expect(answer.code).to.equal(2);
      expect(answer.details).to.match(
        // Where the host looked for a Python 3.10 with pulumi and dill, and the ways out: test/python/drift.test.ts.
        new RegExp(
          `^Create ${urn("py310")}: the provider was pickled by Python 3\\.10 \\(dill ≥ 0\\.3\\), but this program's Python is 3\\.11\\.\\d+ ` +
            `\\(\\S+/bin/python, dill 0\\.4\\.1\\), and bytecode from another Python version cannot run\\. No Python 3\\.10 with pulumi and dill was found`,
        ),
      );
      expect(workerPids(p)).to.deep.equal(before);
    });
  });

  it("a by-reference provider class that cannot be imported names the class and the program directory", async function () {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "no-provider-module-"));
    const p = await Plugin.launch("ours", { language: "python", cwd: elsewhere });
    try {
      const answer = await p.client.create({ urn: urn("local"), properties: { __provider: pythonProvider("local") } });
      expect(answer.code).to.equal(2);
      expect(answer.details).to.match(
        new RegExp(
          `^Create ${urn("local")}: the resource's __provider could not be loaded: its provider class provider\\.SimpleProvider could not be imported: ` +
            `it needs the module 'provider', which is not on the program's path \\(ModuleNotFoundError: No module named 'provider'\\); ` +
            `put the module in the program directory \\(${elsewhere}, first on sys\\.path\\) or install it in the program's environment\\n\\nTraceback`,
        ),
      );
    } finally {
      await p.stop();
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
    // The same payload from the program directory that holds provider.py works.
    const q = await Plugin.launch("ours", { language: "python", cwd: PYTHON_PROGRAM });
    try {
      const answer = await q.client.create({ urn: urn("local"), properties: { __provider: pythonProvider("local") } });
      expect(answer.code).to.equal(0);
      expect(answer.view.properties.module).to.equal("provider");
    } finally {
      await q.stop();
    }
  });

  describe("no process outlives the host", function () {
    /** A host with two workers: CPU-bound requests make the pool start its second process. */
    async function busyHost(opts: { pipeStdin?: boolean } = {}): Promise<{ p: Plugin; workers: number[] }> {
      const p = await Plugin.launch("ours", { language: "python", pipeStdin: opts.pipeStdin, env: { PULUMI_DYNAMIC_HOST_PYTHON_WORKERS: "2" } });
      await spinWaves(p, { concurrency: 4, seconds: 0.05, max: 400, enough: () => workerPids(p).length >= 2 });
      const workers = workerPids(p);
      expect(workers.length).to.equal(2);
      return { p, workers };
    }

    // As the Python reference: SIGINT is a KeyboardInterrupt that stops the server (exit 0); SIGTERM kills.
    for (const [signal, exit] of [["SIGINT", { code: 0, signal: null }], ["SIGTERM", { code: null, signal: "SIGTERM" }]] as const) {
      it(`${signal} to the host: it stops its workers and exits as the Python reference does`, async function () {
        const { p, workers } = await busyHost();
        process.kill(p.child.pid!, signal);
        expect(await p.exited).to.deep.equal(exit);
        await waitFor(() => workers.every((pid) => !fs.existsSync(`/proc/${pid}`)), "the workers to be gone");
        expect(p.groupPids()).to.deep.equal([]);
      });
    }

    it("the engine goes away (stdin closes): the host and its workers exit", async function () {
      const { p } = await busyHost({ pipeStdin: true });
      p.closeStdin();
      expect((await p.exited).code).to.equal(0);
      await waitFor(() => p.groupPids().length === 0, "the process group to be empty");
    });

    it("the host is SIGKILLed alone: its workers see the channel close and exit", async function () {
      const { p, workers } = await busyHost();
      process.kill(p.child.pid!, "SIGKILL");
      await p.exited;
      await waitFor(() => workers.every((pid) => !fs.existsSync(`/proc/${pid}`)), "the orphaned workers to exit");
      expect(p.groupPids()).to.deep.equal([]);
    });
  });
});
