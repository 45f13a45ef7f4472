// The worker's own files run from compiled code kept between starts
// (python-stub/start.py, python-stub/bytecode.py, issue 21): what is kept,
// that a changed or damaged entry is compiled afresh, that a cache that
// cannot be written changes nothing but the speed, and that tracebacks still
// name the worker's own files.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";
import { workerModules } from "../helpers/worker-modules.js";

/**
 * worker.py and the modules it is made of: each kept compiled, none named in a user's traceback. Not
 * preloader.py, which only a preloader loads (docs/preloader.md; the tests keep it off).
 */
const WORKER_MODULES = workerModules().filter((f) => f !== "preloader.py");
const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;

describe("python: the worker's compiled code kept between starts", function () {
  this.timeout(120_000);
  let dir: string;

  before(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bytecode-cache-"));
  });
  after(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Launches ours with `cacheDir`, answers one Create, stops. */
  async function createWith(cacheDir: string, name: string) {
    const p = await Plugin.launch("ours", { language: "python", env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: cacheDir } });
    try {
      return await p.client.create({ urn: urn(name), properties: { __provider: pythonProvider("minimal") } });
    } finally {
      await p.stop();
    }
  }

  /** The kept entries: file name → bytes. */
  function entries(cacheDir: string): Map<string, Buffer> {
    const root = path.join(cacheDir, "python-bytecode");
    const out = new Map<string, Buffer>();
    if (!fs.existsSync(root)) return out;
    for (const tag of fs.readdirSync(root)) {
      for (const f of fs.readdirSync(path.join(root, tag))) out.set(`${tag}/${f}`, fs.readFileSync(path.join(root, tag, f)));
    }
    return out;
  }

  it("keeps worker.py and its siblings under the cache directory, and a second start uses them unchanged", async function () {
    const cache = path.join(dir, "fresh");
    const first = await createWith(cache, "first");
    expect(first.code, first.details).to.equal(0);
    const kept = entries(cache);
    const names = [...kept.keys()].map((k) => k.split("/")[1].replace(/-[0-9a-f]{8}\.bin$/, ""));
    expect(names).to.include.members([...WORKER_MODULES, "protocol.py", "threads.py", "secret_outputs.py", "reference.py"]);
    const second = await createWith(cache, "second");
    expect(second.code, second.details).to.equal(0);
    const again = entries(cache);
    expect([...again.keys()]).to.have.members([...kept.keys()]);
    for (const [k, v] of kept) expect(again.get(k)!.equals(v), k).to.equal(true);
  });

  it("a damaged entry is compiled afresh and replaced", async function () {
    const cache = path.join(dir, "damaged");
    expect((await createWith(cache, "a")).code).to.equal(0);
    const [key, good] = [...entries(cache)].find(([k]) => k.includes("/worker.py-"))!;
    const file = path.join(cache, "python-bytecode", key);
    fs.writeFileSync(file, Buffer.concat([good.subarray(0, 20), Buffer.from("not marshal data")]));
    const answer = await createWith(cache, "b");
    expect(answer.code, answer.details).to.equal(0);
    expect(fs.readFileSync(file).equals(good)).to.equal(true);
  });

  it("a cache directory that cannot be made (a file in its place) changes nothing but the speed", async function () {
    const blocked = path.join(dir, "a-file");
    fs.writeFileSync(blocked, "not a directory");
    const answer = await createWith(blocked, "blocked");
    expect(answer.code, answer.details).to.equal(0);
  });

  it("code compiled from the cache keeps the worker's file names: its frames are known as its own (left out of the answer, shown whole at -v)", async function () {
    const p = await Plugin.launch("ours", { language: "python", args: ["-v=1", "--logtostderr"], env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: path.join(dir, "fresh") } });
    try {
      const answer = await p.client.create({ urn: urn("boom"), properties: { __provider: pythonProvider("scripted"), act: "raise" } });
      expect(answer.code).to.not.equal(0);
      expect(answer.details).to.match(/^Traceback \(most recent call last\):\n {2}File "[^"]*python_providers\.py", line \d+, in create\n/);
      for (const file of [...WORKER_MODULES, "start.py", "bytecode.py"]) expect(answer.details).to.not.contain(file);
      const logged = p.stderr.slice(p.stderr.indexOf("the whole Python traceback"));
      expect(logged).to.match(/python-stub\/serving\.py", line \d+, in _run/);
      expect(logged).to.match(/python-stub\/operations\.py", line \d+, in op_create/);
      expect(logged).to.match(/python-stub\/user_code\.py", line \d+, in call_user/);
      expect(logged).to.not.contain("start.py");
      expect(logged).to.not.contain("bytecode.py");
    } finally {
      await p.stop();
    }
  });
});
