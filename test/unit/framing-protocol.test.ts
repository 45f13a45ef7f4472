// The worker channel: framing in TypeScript and Python agree byte for byte,
// decoding survives any chunking, and the two method tables are the same.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { encodeFrame, FrameDecoder, FrameError } from "../../src/python-bridge/framing.js";
import { METHODS, NOTIFICATIONS, resultSchemas } from "../../src/python-bridge/protocol.js";
import { FIXTURES, REPO, VENV_PYTHON } from "../helpers/paths.js";

const messages = [
  { jsonrpc: "2.0", id: 1, method: "create", params: { urn: "u", provider: "p", props: Buffer.from([0, 1, 2, 255]) } },
  { jsonrpc: "2.0", method: "$/cancel", params: { id: 1 } },
  { jsonrpc: "2.0", id: 2, result: { id: "ünïcødé ✓", outs: Buffer.alloc(0), nested: [Buffer.from("a"), { b: Buffer.from("bc") }] } },
  { jsonrpc: "2.0", id: 3, error: { code: -32000, message: "boom\r\n\r\nstill boom", data: { details: "x" } } },
];

function decodeAll(bytes: Buffer, step: number): unknown[] {
  const d = new FrameDecoder();
  const out: unknown[] = [];
  for (let i = 0; i < bytes.length; i += step) out.push(...d.push(bytes.subarray(i, i + step)));
  expect(d.pending).to.equal(0);
  return out;
}

describe("worker channel framing", function () {
  const wire = Buffer.concat(messages.flatMap((m) => encodeFrame(m)));

  for (const step of [1, 7, 64, 100_000]) {
    it(`decodes what it encodes, delivered ${step} byte(s) at a time`, function () {
      expect(decodeAll(wire, step)).to.deep.equal(messages);
    });
  }

  it("decodes large frames (gathered in their own buffer) among small ones, in any chunking", function () {
    const big = (n: number, fill: number) => ({ jsonrpc: "2.0", id: n, result: { outs: Buffer.alloc((1 << 20) + 12_345 * n, fill) } });
    const mixed = [messages[0], big(1, 1), messages[1], messages[2], big(2, 2), big(3, 3), messages[3]];
    const bytes = Buffer.concat(mixed.flatMap((m) => encodeFrame(m)));
    for (const step of [65_537, 1_000_003, bytes.length]) expect(decodeAll(bytes, step), `step ${step}`).to.deep.equal(mixed);
  });

  it("carries a large binary tail without copying it into JSON", function () {
    const big = Buffer.alloc(32 * 1024 * 1024, 7);
    const parts = encodeFrame({ jsonrpc: "2.0", id: 9, result: { outs: big } });
    expect(parts[1].length).to.be.lessThan(200);
    expect(parts[2]).to.equal(big);
    const [msg] = decodeAll(Buffer.concat(parts), 1 << 20) as any[];
    expect(msg.result.outs.equals(big)).to.equal(true);
  });

  it("resolves a reference under a __proto__ key as the own property it is, never the prototype", function () {
    const json = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"$bin":[0,2]}}}');
    const frame = Buffer.concat([Buffer.from(`Content-Length: ${json.length}\r\nBinary-Length: 2\r\n\r\n`), json, Buffer.from([7, 8])]);
    const [m] = new FrameDecoder().push(frame) as any[];
    expect(Object.getPrototypeOf(m.result)).to.equal(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(m.result, "__proto__")!.value).to.deep.equal(Buffer.from([7, 8]));
  });

  it("rejects garbage with a FrameError instead of waiting forever", function () {
    expect(() => new FrameDecoder().push(Buffer.alloc(5000, 65))).to.throw(FrameError, /no frame header/);
    expect(() => new FrameDecoder().push(Buffer.from("Content-Length: x\r\n\r\n"))).to.throw(FrameError, /bad frame lengths/);
    expect(() => new FrameDecoder().push(Buffer.from("Content-Length: 3\r\n\r\n{x}"))).to.throw(FrameError, /invalid JSON/);
    expect(() => new FrameDecoder().push(Buffer.from('Content-Length: 18\r\n\r\n{"a":{"$bin":[0,9]}}'.replace("18", "20")))).to.throw(FrameError, /\$bin/);
  });

  it("Python's framing reads what TypeScript writes and writes what TypeScript reads", function () {
    const echoed = execFileSync(VENV_PYTHON, [`${FIXTURES}frame_echo.py`], { input: wire, maxBuffer: 64 * 1024 * 1024 });
    expect(decodeAll(echoed, 13)).to.deep.equal(messages);
  });
});

describe("the worker's Channel and Threads under concurrency (python-stub)", function () {
  let summary: any;
  before(function () {
    summary = JSON.parse(execFileSync(VENV_PYTHON, [`${FIXTURES}channel_threads.py`], { encoding: "utf8" }));
  });

  it("frames written by many threads at once, sent together or alone, arrive whole and in each writer's order", function () {
    expect(summary.channel).to.deep.equal({ frames: 1200, problems: [] });
  });

  it("runs calls at once up to the thread limit, queues the rest, and reuses idle threads", function () {
    expect(summary.threads).to.deep.equal({
      startedWhileBlocked: [0, 1, 2],
      finished: [0, 1, 2, 3, 4],
      threadsAfterBurst: 3,
      threadsAfterSequential: 3,
    });
  });
});

describe("worker protocol tables", function () {
  it("the TypeScript and Python method tables are the same", function () {
    const py = JSON.parse(
      execFileSync(VENV_PYTHON, ["-c", "import json, protocol; print(json.dumps({'methods': protocol.METHODS, 'notifications': protocol.NOTIFICATIONS}))"], {
        cwd: `${REPO}python-stub`,
        encoding: "utf8",
      }),
    );
    const ts = {
      methods: Object.fromEntries(Object.entries(METHODS).map(([m, s]) => [m, [s.params, s.result]])),
      notifications: NOTIFICATIONS,
    };
    expect(JSON.parse(JSON.stringify(ts))).to.deep.equal(py);
  });

  it("result schemas are strict: unknown or mistyped fields are refused", function () {
    expect(resultSchemas.create.safeParse({ id: "x", outs: Buffer.alloc(0) }).success).to.equal(true);
    expect(resultSchemas.create.safeParse({ id: "x", outs: Buffer.alloc(0), extra: 1 }).success).to.equal(false);
    expect(resultSchemas.create.safeParse({ id: 5, outs: Buffer.alloc(0) }).success).to.equal(false);
    expect(resultSchemas.diff.safeParse({ changes: "maybe", replaces: [], deleteBeforeReplace: false }).success).to.equal(false);
  });
});
