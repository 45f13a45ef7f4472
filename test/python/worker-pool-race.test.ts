// The host's pool of Python workers, in this process, with real workers: what
// happens to requests that meet a worker's death. Driving the pool directly
// lets the test decide exactly what the host has seen: blocking this thread
// until the killed worker is a zombie and then sending in the same tick means
// the host cannot have read its channel's end yet, so every write fails; waiting
// for the child's exit event first means the host knew before it was asked;
// stopping the worker (SIGSTOP) before a burst leaves the burst written to its
// socket and never read, never acknowledged ($/ack), when it is killed.
import { expect } from "chai";
import fs from "node:fs";
import type { Duplex } from "node:stream";
import { setVerbosity } from "../../src/host/diagnostics/log.js";
import { encodeStruct, jsToStruct } from "../../src/host/wire/wire.js";
import { UndeliveredError, type RequestInfo } from "../../src/python-bridge/channel/connection.js";
import type { Interpreter } from "../../src/python-bridge/interpreter/interpreter.js";
import { WorkerPool } from "../../src/python-bridge/worker/pool.js";
import { spawnWorker, type WorkerChild } from "../../src/python-bridge/worker/spawn.js";
import { workerScript } from "../../src/python-bridge/worker/worker-settings.js";
import { WorkerDiedError } from "../../src/host/errors.js";
import { FIXTURES, PYTHON_PROGRAM, VENV_PYTHON } from "../helpers/paths.js";
import { pythonProvider } from "../helpers/payloads.js";

const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const create = (name: string): RequestInfo => ({ method: "create", urn: urn(name), operation: "Create" });
const interpreter: Interpreter = { python: VENV_PYTHON, env: { ...process.env } };
const BURST = 50;
const IN_FLIGHT = 4;

/**
 * Blocks until every thread of `pid` has exited: the process is a zombie with
 * no other thread left, or gone. Its files, the channel included, are closed
 * then (a zombie leader alone is not enough: its other threads may still hold
 * them). Nothing else runs in this process meanwhile.
 */
function awaitDeathSync(pid: number, ms = 10_000): void {
  const until = Date.now() + ms;
  for (;;) {
    let state: string | undefined;
    let threads: string[];
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      threads = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    if ((state === "Z" || state === "X") && threads.length <= 1) return;
    if (Date.now() > until) throw new Error(`worker ${pid} still in state ${state} with ${threads.length} threads ${ms} ms after SIGKILL`);
  }
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settled = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** Polls `cond` (for states no event announces: what a worker printed, a socket's queue). */
async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** `p`, or a failure naming `what` if it does not settle within `ms` (a hang fails the test instead of stalling it). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Keeps what is written to this process's stderr (the workers' stderr is forwarded there) from the terminal, until restored. */
function captureStderr(): { text: () => string; restore: () => void } {
  let text = "";
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }) as typeof process.stderr.write;
  return { text: () => text, restore: () => void (process.stderr.write = write) };
}

const exitOf = (child: WorkerChild) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

/** The host's log lines written while `body` runs (verbosity 1). */
async function logged<T>(body: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    if (text.startsWith("pulumi-dynamic-host: ")) lines.push(...text.trimEnd().split("\n"));
    else return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    return true;
  }) as typeof process.stderr.write;
  setVerbosity(1);
  try {
    return { result: await body(), lines };
  } finally {
    setVerbosity(-1);
    process.stderr.write = write;
  }
}

describe("python worker pool: requests that meet a worker's death", function () {
  this.timeout(60_000);
  const text = pythonProvider("scripted");
  const echo = (name: string, n: number) => ({ urn: urn(name), provider: text, props: encodeStruct(jsToStruct({ __provider: text, act: "echo", n })) });
  let pool: WorkerPool;
  let child: WorkerChild;

  beforeEach(async function () {
    pool = new WorkerPool({ interpreter, cwd: PYTHON_PROGRAM, size: 2 });
    child = spawnWorker(interpreter, PYTHON_PROGRAM, workerScript());
    pool.warm(child);
    const warm = await pool.request(create("warm"), echo("warm", -1));
    expect(warm.id).to.equal("echo");
  });
  afterEach(async function () {
    await pool?.close();
  });

  it(`the host has not read the channel's end: each of ${BURST} writes fails, and each request is sent once more, to a fresh worker`, async function () {
    const { result, lines } = await logged(async () => {
      process.kill(child.pid!, "SIGKILL");
      awaitDeathSync(child.pid!);
      return Promise.all(Array.from({ length: BURST }, (_, i) => pool.request(create(`after${i}`), echo(`after${i}`, i))));
    });
    expect(result.map((r) => r.id)).to.deep.equal(new Array(BURST).fill("echo"));
    const resent = lines.filter((l) => / it could not be sent to the Python worker: writing to its channel failed \(write EPIPE\); sending it to another worker$/.test(l));
    expect(resent, lines.join("\n")).to.have.length(BURST);
    expect(resent[0]).to.equal(`pulumi-dynamic-host: Create ${urn("after0")}: it could not be sent to the Python worker: writing to its channel failed (write EPIPE); sending it to another worker`);
    expect((await pool.workerInfo())!.pid).to.not.equal(child.pid);
  });

  it(`the host saw the worker exit: ${BURST} requests go straight to a fresh worker, none is written to the dead one`, async function () {
    const { result, lines } = await logged(async () => {
      process.kill(child.pid!, "SIGKILL");
      await exitOf(child);
      return Promise.all(Array.from({ length: BURST }, (_, i) => pool.request(create(`after${i}`), echo(`after${i}`, i))));
    });
    expect(result.map((r) => r.id)).to.deep.equal(new Array(BURST).fill("echo"));
    expect(lines.filter((l) => l.includes("could not be sent")), lines.join("\n")).to.deep.equal([]);
  });

  it(`the worker dies with ${BURST} requests written to its socket and never read, and ${IN_FLIGHT} it is running: the unread ones, never acknowledged, are sent to a fresh worker; the running ones fail naming their resource and are not run again`, async function () {
    const channel = child.stdio[3] as unknown as Duplex;
    // Without __provider in their props (the worker has the text by its id), so that the whole burst fits in the socket's buffer.
    const small = (name: string, props: Record<string, unknown>) => ({ urn: urn(name), provider: text, props: encodeStruct(jsToStruct(props)) });
    const captured = captureStderr();
    const stderr = captured.text;
    let result: { burst: Settled<Record<string, unknown>>[]; inFlight: Settled<Record<string, unknown>>[] };
    try {
      const inFlight = Array.from({ length: IN_FLIGHT }, (_, i) => settled(pool.request(create(`inflight${i}`), small(`inflight${i}`, { act: "hang" }))));
      await until(() => count(stderr(), "hanging in create") === IN_FLIGHT, `${IN_FLIGHT} creates running in the worker`);
      // Stopped, the worker reads nothing more: the burst lies in its socket, written but unread.
      process.kill(child.pid!, "SIGSTOP");
      const burst = Array.from({ length: BURST }, (_, i) => settled(pool.request(create(`unread${i}`), small(`unread${i}`, { act: "echo", n: i }))));
      await until(() => channel.writableLength === 0, "the burst to be written to the worker's socket");
      process.kill(child.pid!, "SIGKILL");
      // Bounded: an in-flight create sent again would hang in the fresh worker, never answered.
      result = { burst: await Promise.all(burst), inFlight: await within(Promise.all(inFlight), 20_000, "the in-flight creates to fail") };
    } finally {
      captured.restore();
    }
    for (const [i, r] of result.burst.entries()) expect(r, `unread${i}`).to.deep.include({ ok: true }).and.have.nested.property("value.id", "echo");
    for (const [i, r] of result.inFlight.entries()) {
      expect(r.ok, `inflight${i}`).to.equal(false);
      const err = (r as { error: unknown }).error;
      expect(err).to.be.instanceOf(WorkerDiedError).and.not.be.instanceOf(UndeliveredError);
      expect((err as Error).message).to.match(new RegExp(`^Create ${urn(`inflight${i}`)}: the Python worker running it \\(pid ${child.pid}\\) was killed by SIGKILL`));
    }
    // Acknowledged, they may have run: none was sent to the fresh worker, where it would hang again.
    expect(count(stderr(), "hanging in create"), stderr()).to.equal(IN_FLIGHT);
    expect((await pool.workerInfo())!.pid).to.not.equal(child.pid);
  });

  it("a request is sent twice at most: when the fresh worker cannot take it either, it fails with that worker's death, naming the resource", async function () {
    // Workers of this pool exit before reading anything, as in an environment without pulumi.
    const saved = process.env.PULUMI_DYNAMIC_HOST_WORKER_SCRIPT;
    process.env.PULUMI_DYNAMIC_HOST_WORKER_SCRIPT = `${FIXTURES}workers/dead_on_arrival_worker.py`;
    try {
      const { result: err, lines } = await logged(async () => {
        process.kill(child.pid!, "SIGKILL");
        awaitDeathSync(child.pid!);
        return pool.request(create("doomed"), echo("doomed", 0)).then(
          () => undefined,
          (e: unknown) => e,
        );
      });
      expect(err).to.be.instanceOf(WorkerDiedError);
      expect(err).to.not.be.instanceOf(UndeliveredError);
      const message = (err as Error).message;
      expect(message, message).to.match(new RegExp(`^Create ${urn("doomed")}: the Python worker running it \\(pid (\\d+)\\) exited with code 1 before it finished starting; its last stderr lines:\\ndead on arrival: this worker exits before it reads a request\\n`));
      expect(Number(/\(pid (\d+)\)/.exec(message)![1])).to.not.equal(child.pid);
      expect(lines.filter((l) => l.includes("sending it to another worker")), lines.join("\n")).to.have.length(1);
    } finally {
      if (saved === undefined) delete process.env.PULUMI_DYNAMIC_HOST_WORKER_SCRIPT;
      else process.env.PULUMI_DYNAMIC_HOST_WORKER_SCRIPT = saved;
    }
  });
});
