// The host's pool of Python workers, in this process, with real workers: what
// happens to requests that meet a worker's death. Driving the pool directly
// lets the test decide exactly what the host has seen: blocking this thread
// until the killed worker is a zombie and then sending in the same tick means
// the host cannot have read its channel's end yet, so every write fails; waiting
// for the child's exit event first means the host knew before it was asked.
import { expect } from "chai";
import fs from "node:fs";
import { setVerbosity } from "../src/host/log.js";
import { encodeStruct, jsToStruct } from "../src/host/wire.js";
import { UndeliveredError, type RequestInfo } from "../src/python-bridge/connection.js";
import type { Interpreter } from "../src/python-bridge/interpreter.js";
import { WorkerPool } from "../src/python-bridge/pool.js";
import { spawnWorker, type WorkerChild } from "../src/python-bridge/spawn.js";
import { workerScript } from "../src/python-bridge/worker-settings.js";
import { WorkerDiedError } from "../src/host/errors.js";
import { FIXTURES, PYTHON_PROGRAM, VENV_PYTHON } from "./helpers/paths.js";
import { pythonProvider } from "./helpers/payloads.js";

const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const create = (name: string): RequestInfo => ({ method: "create", urn: urn(name), operation: "Create" });
const interpreter: Interpreter = { python: VENV_PYTHON, env: { ...process.env } };
const BURST = 50;

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
