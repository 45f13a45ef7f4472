// The providers a Python worker keeps are bounded: the host names at most a
// limit of provider texts to each worker (WorkerProcess's ids), tells it the
// ids it let go ($/forget), and the worker drops those providers once no
// request runs them (python-stub/serving.py). A provider used again after it
// went is sent, loaded and configured again; one a running request uses stays
// until that request ends. Driven through the real worker with real pickles
// (test/fixtures/python_counted_providers.py), sizes read from its ping answer.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { messageType } from "../../src/host/wire/proto.js";
import { encodeStruct, jsToStruct, structToJs, type WireStruct } from "../../src/host/wire/wire.js";
import { spawnWorker } from "../../src/python-bridge/worker/spawn.js";
import { SENT_TEXTS_LIMIT, WorkerProcess } from "../../src/python-bridge/worker/worker-process.js";
import { workerScript, workerSettings } from "../../src/python-bridge/worker/worker-settings.js";
import { FIXTURES, PYTHON_PROGRAM, VENV_PYTHON } from "../helpers/paths.js";

const StructType = messageType("google.protobuf.Struct");
const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;

/** `count` distinct provider texts, made once for the file. */
const texts = (() => {
  let made: string[] = [];
  return (count: number): string[] => {
    if (made.length < count) {
      const out = execFileSync(VENV_PYTHON, [`${FIXTURES}python_counted_providers.py`, String(count)], { encoding: "utf8", maxBuffer: 1 << 28 });
      made = JSON.parse(out) as string[];
    }
    return made.slice(0, count);
  };
})();

function startWorker(limit?: number): WorkerProcess {
  const child = spawnWorker({ python: VENV_PYTHON, env: { ...process.env } }, PYTHON_PROGRAM, workerScript());
  return new WorkerProcess(0, child, workerSettings(), limit);
}

/** A create with the provider `text`: its outputs (n, and how often that provider was configured in the worker). */
async function create(worker: WorkerProcess, text: string, name: string, gate?: string): Promise<{ n: number; configures: number }> {
  const props = encodeStruct(jsToStruct({ __provider: text, ...(gate ? { gate } : {}) }))!;
  const result = await worker.request({ method: "create", urn: urn(name), operation: "Create" }, { urn: urn(name), provider: text, props });
  const outs = structToJs(StructType.decode(result.outs as Buffer) as unknown as WireStruct) as Record<string, unknown>;
  return { n: outs.n as number, configures: outs.configures as number };
}

/** What the worker keeps: providers (loaded or loading) and provider ids it knows. */
async function sizes(worker: WorkerProcess): Promise<{ providers: number; texts: number }> {
  const answer = await worker.conn.request({ method: "ping", urn: "", operation: "test" }, {});
  return { providers: answer.providers as number, texts: answer.texts as number };
}

describe("a Python worker's providers are bounded", function () {
  this.timeout(300_000);
  let worker: WorkerProcess | undefined;
  let dir: string;

  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), "provider-bound-"))));
  afterEach(async function () {
    worker?.kill();
    await worker?.exited;
    worker = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the most recently used, and loads and configures one that went when it is used again", async function () {
    const w = (worker = startWorker(3));
    await w.started;
    const [a, b, c, d, e] = texts(5);
    for (const [i, t] of [a, b, c, d, e].entries()) expect(await create(w, t, `r${i}`)).to.deep.equal({ n: i, configures: 1 });
    expect(await sizes(w)).to.deep.equal({ providers: 3, texts: 3 });
    // Kept: served by the provider already loaded.
    expect(await create(w, e, "again-e")).to.deep.equal({ n: 4, configures: 1 });
    // Gone: sent again, loaded and configured again, and the right provider answers.
    expect(await create(w, a, "again-a")).to.deep.equal({ n: 0, configures: 2 });
    expect(await sizes(w)).to.deep.equal({ providers: 3, texts: 3 });
  });

  it("keeps a provider a running request uses until that request ends, though the host let it go", async function () {
    const w = (worker = startWorker(3));
    await w.started;
    const [a, b, c, d] = texts(4);
    const gate = path.join(dir, "gate");
    const running = create(w, a, "gated", gate);
    // b, c and d push a out of the host's three: the worker hears of it while a's create still runs.
    for (const [i, t] of [b, c, d].entries()) expect(await create(w, t, `r${i}`)).to.deep.equal({ n: i + 1, configures: 1 });
    expect(await sizes(w)).to.deep.equal({ providers: 4, texts: 3 });
    expect(existsSync(gate)).to.equal(false);
    writeFileSync(gate, "");
    expect(await running).to.deep.equal({ n: 0, configures: 1 });
    expect(await sizes(w)).to.deep.equal({ providers: 3, texts: 3 });
  });

  it(`holds at most ${SENT_TEXTS_LIMIT} providers with more distinct ones than that`, async function () {
    expect(SENT_TEXTS_LIMIT).to.be.within(100, 5000);
    const w = (worker = startWorker());
    await w.started;
    const all = texts(SENT_TEXTS_LIMIT + 40);
    for (let i = 0; i < all.length; i += 50) {
      const batch = all.slice(i, i + 50).map((t, j) => create(w, t, `r${i + j}`));
      for (const [j, out] of (await Promise.all(batch)).entries()) expect(out).to.deep.equal({ n: i + j, configures: 1 });
    }
    expect(await sizes(w)).to.deep.equal({ providers: SENT_TEXTS_LIMIT, texts: SENT_TEXTS_LIMIT });
    expect(await create(w, all[0], "first-again")).to.deep.equal({ n: 0, configures: 2 });
  });
});
