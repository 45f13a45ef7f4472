// The worker channel: framing in TypeScript and Python agree byte for byte,
// decoding survives any chunking, and the two method tables are the same.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { encodeFrame, FrameDecoder, FrameError } from "../../src/python-bridge/channel/framing.js";
import { METHODS, NOTIFICATIONS, responseChecks, responseSchemas, resultSchemas, type Method } from "../../src/python-bridge/channel/protocol.js";
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
    expect(parts).to.have.length(2);
    expect(parts[0].length).to.be.lessThan(200);
    expect(parts[1]).to.equal(big);
    const [msg] = decodeAll(Buffer.concat(parts), 1 << 20) as any[];
    expect(msg.result.outs.equals(big)).to.equal(true);
  });

  it("writes header, JSON and small tail parts as one buffer, large parts as they are", function () {
    const small = (n: number, fill: number) => Buffer.alloc(n, fill);
    const large = Buffer.alloc(64 * 1024 + 1, 9);
    const message = { jsonrpc: "2.0", id: 3, params: { a: small(10, 1), b: large, c: small(20, 2), d: [small(30, 3), large], e: "ü" } };
    const parts = encodeFrame(message);
    expect(parts.map((p) => p.length > 64 * 1024)).to.deep.equal([false, true, false, true]);
    expect(parts[1]).to.equal(large);
    expect(parts[3]).to.equal(large);
    expect(parts[2].equals(Buffer.concat([small(20, 2), small(30, 3)]))).to.equal(true);
    expect(parts[0].subarray(parts[0].length - 10).equals(small(10, 1))).to.equal(true);
    expect(decodeAll(Buffer.concat(parts), 4096)).to.deep.equal([message]);
    const one = encodeFrame({ jsonrpc: "2.0", id: 4, result: { outs: small(100, 5) } });
    expect(one).to.have.length(1);
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

describe("the answer check without zod accepts exactly what the zod schemas accept", function () {
  // Values of every kind and of none, for each field in turn; the envelope mutated too.
  const pool: unknown[] = [
    "s", "", "some", "none", "unknown", 0, 7, -3, 1.5, 2 ** 60, NaN, true, false, null, undefined,
    Buffer.from("x"), Buffer.alloc(0), new Uint8Array(2), [], ["a", "b"], ["a", 1],
    [{ property: "p", reason: "r" }], [{ property: "p", reason: "r", extra: 1 }], [{ property: "p" }], [null], {}, { a: 1 },
  ];
  const valid: Record<string, unknown> = {
    str: "x", bool: false, int: 12, bin: Buffer.from("bytes"), changes: "some", replaces: ["a"], failures: [{ property: "p", reason: "r" }], any: 1,
  };
  const agree = (method: Method, raw: unknown, label: string) => {
    const fast = responseChecks[method](raw);
    const zod = responseSchemas[method].safeParse(raw);
    expect(fast !== undefined, `${method}: ${label}: fast ${fast !== undefined}, zod ${zod.success}`).to.equal(zod.success);
    if (zod.success) expect(fast).to.deep.equal(zod.data.result);
  };
  for (const method of Object.keys(METHODS) as Method[]) {
    it(`${method}: every field of every kind, extra and missing fields, and the envelope`, function () {
      const spec = METHODS[method].result as readonly (readonly [string, string, boolean])[];
      const base = () => Object.fromEntries(spec.filter(([, , req]) => req).map(([n, k]) => [n, valid[k]]));
      const envelope = (result: unknown) => ({ jsonrpc: "2.0", id: 4, result });
      agree(method, envelope(base()), "the required fields");
      agree(method, envelope({ ...base(), ...Object.fromEntries(spec.map(([n, k]) => [n, valid[k]])) }), "every field");
      for (const [name] of spec) {
        for (const [i, v] of pool.entries()) agree(method, envelope({ ...base(), [name]: v }), `${name} = pool[${i}]`);
        const without = base();
        delete without[name];
        agree(method, envelope(without), `without ${name}`);
      }
      agree(method, envelope({ ...base(), extra: 1 }), "an extra field");
      agree(method, envelope(JSON.parse(`{"__proto__": 1}`)), "a __proto__ field");
      for (const [i, v] of pool.entries()) {
        agree(method, { jsonrpc: "2.0", id: v, result: base() }, `id = pool[${i}]`);
        agree(method, { jsonrpc: v, id: 1, result: base() }, `jsonrpc = pool[${i}]`);
        agree(method, { jsonrpc: "2.0", id: 1, result: v }, `result = pool[${i}]`);
        agree(method, v, `the message = pool[${i}]`);
      }
      agree(method, { ...envelope(base()), error: { code: 1, message: "m" } }, "result and error");
      agree(method, { jsonrpc: "2.0", result: base() }, "no id");
      agree(method, { ...envelope(base()), extra: 1 }, "an extra envelope field");
    });
  }
});

describe("the worker's Channel refuses malformed frames with the error that says what is wrong (python-stub)", function () {
  const frame = (json: string, tail = "", header?: string) =>
    (header ?? `Content-Length: ${Buffer.byteLength(json, "latin1")}\r\nBinary-Length: ${tail.length}\r\n\r\n`) + json + tail;
  const PARSE_ERROR = -32700;
  const INVALID_REQUEST = -32600;
  const cases: Array<[string, string, { messages?: unknown[]; error?: [number, RegExp] }]> = [
    ["a frame with a tail", frame('{"a":{"$bin":[1,2]},"b":[{"$bin":[0,0]}]}', "xyz"), { messages: [{ a: { bytes: "yz" }, b: [{ bytes: "" }] }] }],
    ["a header spelled another way", frame('{"a":1}', "", "content-length:7\r\n\r\n"), { messages: [{ a: 1 }] }],
    ["whitespace around the JSON", frame(' {"a":1}\n'), { messages: [{ a: 1 }] }],
    ["an object with $bin and other keys is not a reference", frame('{"$bin":[0,1],"x":1}', "t"), { messages: [{ $bin: [0, 1], x: 1 }] }],
    ["not JSON", frame("{x}"), { error: [PARSE_ERROR, /invalid JSON: Expecting property name/] }],
    ["JSON followed by more", frame('{"a":1}{"b":2}'), { error: [PARSE_ERROR, /invalid JSON: Extra data/] }],
    ["JSON that is not UTF-8", frame('{"a":"\xff"}'), { error: [PARSE_ERROR, /invalid JSON: .*utf-8/] }],
    ["a reference past the tail", frame('{"a":{"$bin":[2,2]}}', "xyz"), { error: [INVALID_REQUEST, /\$bin reference outside the frame/] }],
    ["a negative reference", frame('{"a":{"$bin":[-1,1]}}', "xyz"), { error: [INVALID_REQUEST, /\$bin reference outside the frame/] }],
    ["a reference of one number", frame('{"a":{"$bin":[0]}}', "xyz"), { error: [INVALID_REQUEST, /malformed \$bin reference/] }],
    ["a reference of booleans", frame('{"a":{"$bin":[true,false]}}', "xyz"), { error: [INVALID_REQUEST, /malformed \$bin reference/] }],
    ["a header line without a colon", "Content-Length 7\r\n\r\n{\"a\":1}", { error: [PARSE_ERROR, /bad frame header line/] }],
    ["a negative length", frame('{"a":1}', "", "Content-Length: -7\r\n\r\n"), { error: [PARSE_ERROR, /bad frame headers/] }],
    ["no length", frame('{"a":1}', "", "Binary-Length: 0\r\n\r\n"), { error: [PARSE_ERROR, /bad frame headers/] }],
    ["a header that never ends", "Content-Length: 7\r\n" + "X".repeat(5000), { error: [PARSE_ERROR, /frame header too long or missing/] }],
    ["the stream ends inside a header", "Content-Length: 7\r\n", { error: [PARSE_ERROR, /stream ended inside a frame header/] }],
    ["the stream ends inside a frame", frame('{"a":1}', "xyz").slice(0, -1), { error: [PARSE_ERROR, /stream ended inside a frame$/] }],
    ["a good frame, then a bad one", frame('{"a":1}') + frame("[1,"), { messages: [{ a: 1 }], error: [PARSE_ERROR, /invalid JSON/] }],
  ];
  for (const chunking of ["whole", "bytes"]) {
    let results: Array<{ messages: unknown[]; error?: [number, string] }>;
    before(function () {
      results = JSON.parse(execFileSync(VENV_PYTHON, [`${FIXTURES}frame_errors.py`, chunking], { input: JSON.stringify(cases.map((c) => c[1])), encoding: "utf8" }));
    });
    cases.forEach(([name, , want], i) => {
      it(`${name} (${chunking === "whole" ? "sent whole" : "one byte at a time"})`, function () {
        const got = results[i];
        expect(got.messages, "messages read first").to.deep.equal(want.messages ?? []);
        if (want.error) {
          expect(got.error, "error").to.be.an("array");
          expect(got.error![0]).to.equal(want.error[0]);
          expect(got.error![1]).to.match(want.error[1]);
        } else {
          expect(got.error).to.equal(undefined);
        }
      });
    });
  }
});
