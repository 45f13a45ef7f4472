// The host's side of the worker channel against a scripted peer: the real
// worker never sends messages outside the protocol, so these cases need a fake
// one. A result is checked whole by its method's schema; a result that breaks
// it fails only its own request, a message outside the protocol stops the
// channel, and a late answer is dropped. A request that cannot have reached
// the worker is told apart from one that may have, and one it acknowledged
// ($/ack) from one it never took.
import { expect } from "chai";
import { Duplex } from "node:stream";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { ChannelBrokenError, RpcConnection, RpcError, UndeliveredError, type RequestInfo } from "../../src/python-bridge/channel/connection.js";
import { encodeFrame, FrameDecoder } from "../../src/python-bridge/channel/framing.js";

const create: RequestInfo = { method: "create", urn: "urn:pulumi:dev::p::pulumi-python:dynamic:Resource::r", operation: "Create" };

/** A connection whose peer is this test: `sent` holds what the host wrote, `answer` writes to it. */
function scripted() {
  const decoder = new FrameDecoder();
  const sent: any[] = [];
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      sent.push(...decoder.push(chunk));
      cb();
    },
  });
  const broken: Error[] = [];
  const conn = new RpcConnection(stream, () => undefined, (reason) => broken.push(reason));
  const answer = (message: unknown) => stream.push(Buffer.concat(encodeFrame(message)));
  /** Waits until the host has written `n` messages (writes leave once per event-loop turn). */
  const written = async (n: number) => {
    while (sent.length < n) await new Promise((r) => setImmediate(r));
  };
  return { conn, sent, answer, broken, written };
}

const settle = (p: Promise<unknown>): Promise<{ ok?: unknown; err?: Error }> => p.then((v) => ({ ok: v }), (e: unknown) => ({ err: e as Error }));

describe("worker channel: what the host accepts from a worker", function () {
  it("resolves a result that fits its method, with the result alone", async function () {
    const { conn, answer, written, sent } = scripted();
    const pending = conn.request(create, { urn: create.urn, providerId: 1 });
    await written(1);
    answer({ jsonrpc: "2.0", id: sent[0].id, result: { id: "r1", outs: Buffer.from([0x0a, 0x00]) } });
    const r = await pending;
    expect(r.id).to.equal("r1");
    expect(Buffer.isBuffer(r.outs)).to.equal(true);
  });

  it("fails only the request whose result breaks its schema; the channel goes on", async function () {
    const { conn, answer, written, sent, broken } = scripted();
    const bad = settle(conn.request(create, { urn: create.urn, providerId: 1 }));
    const good = conn.request(create, { urn: create.urn, providerId: 1 });
    await written(2);
    answer({ jsonrpc: "2.0", id: sent[0].id, result: { id: 5, outs: Buffer.alloc(0) } });
    answer({ jsonrpc: "2.0", id: sent[1].id, result: { id: "fine", outs: Buffer.alloc(0) } });
    const failed = await bad;
    expect(failed.err).to.be.instanceOf(ChannelBrokenError);
    expect(failed.err!.message).to.match(/^the worker's create result is outside the protocol: /);
    expect((await good).id).to.equal("fine");
    expect(broken).to.deep.equal([]);
  });

  it("stops the channel on a message outside the protocol, failing every request in flight by name", async function () {
    const { conn, answer, written, sent, broken } = scripted();
    const a = settle(conn.request(create, { urn: create.urn, providerId: 1 }));
    const b = settle(conn.request(create, { urn: create.urn, providerId: 1 }));
    await written(2);
    answer({ jsonrpc: "2.0", id: sent[0].id, result: { id: "x", outs: Buffer.alloc(0) }, extra: true });
    for (const r of [await a, await b]) {
      expect(r.err).to.be.instanceOf(ChannelBrokenError);
      expect(r.err!.message).to.match(new RegExp(`^Create ${create.urn}: the worker sent a message outside the protocol`));
    }
    expect(broken).to.have.length(1);
    const later = await settle(conn.request(create, { urn: create.urn, providerId: 1 }));
    expect(later.err).to.be.instanceOf(ChannelBrokenError);
  });

  it("passes an error answer on as an RpcError, and drops an answer to a request no longer waited for", async function () {
    const { conn, answer, written, sent, broken } = scripted();
    const signal = new CallSignal();
    const abandoned = settle(conn.request(create, { urn: create.urn, providerId: 1 }, signal));
    const failing = settle(conn.request(create, { urn: create.urn, providerId: 1 }));
    await written(2);
    signal.abort(new Error("gave up"));
    expect((await abandoned).err!.message).to.equal("gave up");
    await written(3);
    expect(sent[2]).to.deep.equal({ jsonrpc: "2.0", method: "$/cancel", params: { id: sent[0].id } });
    answer({ jsonrpc: "2.0", id: sent[0].id, result: { id: "late", outs: Buffer.alloc(0) } });
    answer({ jsonrpc: "2.0", id: sent[1].id, error: { code: -32000, message: "user code raised" } });
    const failed = (await failing).err as RpcError;
    expect(failed).to.be.instanceOf(RpcError);
    expect(failed.code).to.equal(-32000);
    expect(conn.inFlight).to.equal(0);
    expect(broken).to.deep.equal([]);
  });
});

/** A syscall's error, as a socket write to a dead peer reports it. */
const epipe = () => Object.assign(new Error("write EPIPE"), { code: "EPIPE", errno: -32, syscall: "write" });

/** A connection whose stream fails every write: at once (in the write call), or later (after the write was queued). */
function failing(when: "at once" | "later") {
  const held: ((err?: Error) => void)[] = [];
  const stream = new Duplex({
    read() {},
    write(_chunk: Buffer, _enc, cb) {
      if (when === "at once") cb(epipe());
      else held.push(cb);
    },
  });
  stream.on("error", () => undefined);
  const broken: Error[] = [];
  const conn = new RpcConnection(stream, () => undefined, (reason) => broken.push(reason));
  return { conn, stream, broken, held };
}

describe("worker channel: requests the worker cannot have received", function () {
  it("after the channel ended, a request is refused undelivered, naming it, and nothing is written", async function () {
    const { conn, sent, broken } = scripted();
    const stream = (conn as unknown as { stream: Duplex }).stream;
    stream.push(null);
    await new Promise((r) => stream.once("end", r));
    expect(conn.usable).to.equal(false);
    expect(broken.map((b) => b.message)).to.deep.equal(["the worker closed its channel"]);
    const r = await settle(conn.request(create, { urn: create.urn, providerId: 1 }));
    expect(r.err).to.be.instanceOf(UndeliveredError);
    expect(r.err!.message).to.equal(`Create ${create.urn}: it could not be sent to the Python worker: the worker closed its channel`);
    await new Promise((r) => setImmediate(r));
    expect(sent).to.deep.equal([]);
  });

  it("a write that fails in the call that sends it reached nothing: each request of its batch is undelivered", async function () {
    const { conn } = failing("at once");
    const rs = await Promise.all([1, 2, 3].map(() => settle(conn.request(create, { urn: create.urn, providerId: 1 }))));
    for (const r of rs) {
      expect(r.err).to.be.instanceOf(UndeliveredError);
      expect(r.err!.message).to.equal(`Create ${create.urn}: it could not be sent to the Python worker: writing to its channel failed (write EPIPE)`);
    }
    expect(conn.usable).to.equal(false);
    expect(conn.inFlight).to.equal(0);
  });

  it("a write that fails after it was queued may have reached the worker: its request waits for the owner's verdict", async function () {
    const { conn, held } = failing("later");
    const r = settle(conn.request(create, { urn: create.urn, providerId: 1 }));
    while (held.length === 0) await new Promise((r) => setImmediate(r));
    held[0](epipe());
    await new Promise((r) => setImmediate(r));
    expect(conn.inFlight).to.equal(1);
    expect(conn.usable).to.equal(false);
    conn.failAll((info) => new ChannelBrokenError(`${info.operation} ${info.urn}: the worker died`));
    const settled = await r;
    expect(settled.err).to.not.be.instanceOf(UndeliveredError);
    expect(settled.err!.message).to.equal(`Create ${create.urn}: the worker died`);
  });

  it("a write refused by a stream already destroyed (an error with no syscall) never reached the socket: undelivered", async function () {
    const { conn, stream } = failing("later");
    // Destroyed in this tick: the channel's close event has not been heard yet when the request is written.
    stream.destroy();
    expect(conn.usable).to.equal(true);
    const r = await settle(conn.request(create, { urn: create.urn, providerId: 1 }));
    expect(r.err).to.be.instanceOf(UndeliveredError);
    expect(r.err!.message).to.match(new RegExp(`^Create ${create.urn}: it could not be sent to the Python worker: writing to its channel failed \\(.*destroyed.*\\)$`));
    expect(conn.inFlight).to.equal(0);
  });
});

describe("worker channel: acknowledgements ($/ack)", function () {
  /** Lets the host read what `answer` pushed. */
  const read = () => new Promise((r) => setImmediate(r));

  it("tells the owner which pending requests the worker acknowledged when it fails them", async function () {
    const { conn, answer, written, sent } = scripted();
    const a = settle(conn.request({ ...create, urn: `${create.urn}a` }, { urn: "a", providerId: 1 }));
    const b = settle(conn.request({ ...create, urn: `${create.urn}b` }, { urn: "b", providerId: 1 }));
    const c = settle(conn.request({ ...create, urn: `${create.urn}c` }, { urn: "c", providerId: 1 }));
    await written(3);
    // One batch acknowledged, an id no longer pending among them (answered or cancelled: ignored).
    answer({ jsonrpc: "2.0", method: "$/ack", params: { ids: [sent[0].id, sent[2].id, 999] } });
    await read();
    const told: [string, boolean][] = [];
    conn.failAll((info, acknowledged) => {
      told.push([info.urn.slice(-1), acknowledged]);
      return acknowledged ? new Error(`${info.urn}: died`) : new UndeliveredError(info, "never taken");
    });
    expect(told).to.deep.equal([
      ["a", true],
      ["b", false],
      ["c", true],
    ]);
    expect((await a).err).to.not.be.instanceOf(UndeliveredError);
    expect((await b).err).to.be.instanceOf(UndeliveredError);
    expect((await c).err).to.not.be.instanceOf(UndeliveredError);
  });

  it("an acknowledgement written another way than the worker writes it (keys in another order) counts the same", async function () {
    const { conn, answer, written, sent } = scripted();
    const a = settle(conn.request(create, { urn: "a", providerId: 1 }));
    await written(1);
    answer({ params: { ids: [sent[0].id] }, method: "$/ack", jsonrpc: "2.0" });
    await read();
    const acked: boolean[] = [];
    conn.failAll((_info, acknowledged) => (acked.push(acknowledged), new Error("died")));
    expect(acked).to.deep.equal([true]);
    expect((await a).err?.message).to.equal("died");
  });

  it("an acknowledgement outside the protocol stops the channel, failing the requests in flight by name", async function () {
    const { conn, answer, written, broken } = scripted();
    const a = settle(conn.request(create, { urn: "a", providerId: 1 }));
    await written(1);
    answer({ jsonrpc: "2.0", method: "$/ack", params: { ids: ["one"] } });
    await read();
    expect(broken).to.have.length(1);
    expect(broken[0].message).to.match(/^the worker sent an acknowledgement outside the protocol: /);
    const err = (await a).err!;
    expect(err).to.be.instanceOf(ChannelBrokenError);
    expect(err.message).to.match(new RegExp(`^Create ${create.urn}: the worker sent an acknowledgement outside the protocol`));
  });
});

describe("worker channel: batches (one write for the requests a busy worker has not yet taken)", function () {
  /** A connection whose stream records each write call (`calls`: the ids of the messages each carried). */
  function counted() {
    const decoder = new FrameDecoder();
    const calls: number[][] = [];
    const record = (chunks: Buffer[]) => calls.push(chunks.flatMap((c) => decoder.push(c)).map((m: any) => m.id));
    const stream = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        record([chunk]);
        cb();
      },
      writev(chunks, cb) {
        record(chunks.map((c) => c.chunk as Buffer));
        cb();
      },
    });
    const conn = new RpcConnection(stream, () => undefined, () => undefined);
    const answer = (message: unknown) => stream.push(Buffer.concat(encodeFrame(message)));
    return { conn, calls, answer };
  }
  const turn = () => new Promise((r) => setImmediate(r));
  /** Runs `steps` as callbacks of one event-loop turn, as the engine's requests arriving in separate reads. */
  const inOneTurn = (...steps: (() => void)[]) => Promise.all(steps.map((step) => new Promise<void>((r) => setImmediate(() => (step(), r())))));
  const ask = (conn: RpcConnection, urn: string) => void settle(conn.request({ ...create, urn }, { urn, providerId: 1 }));

  it("while an earlier request is untaken, the requests of one turn leave in one write", async function () {
    const { conn, calls } = counted();
    ask(conn, "a");
    await turn();
    expect(calls).to.deep.equal([[1]]);
    await inOneTurn(() => ask(conn, "b"), () => ask(conn, "c"), () => ask(conn, "d"));
    await turn();
    expect(calls).to.deep.equal([[1], [2, 3, 4]]);
  });

  it("once the worker took (or answered) every request, the next one leaves at the end of its own callback", async function () {
    const { conn, calls, answer } = counted();
    ask(conn, "a");
    ask(conn, "b");
    await turn();
    expect(calls).to.deep.equal([[1, 2]]);
    // a taken, b answered without an acknowledgement: neither is waiting for the worker.
    answer({ jsonrpc: "2.0", method: "$/ack", params: { ids: [1] } });
    answer({ jsonrpc: "2.0", id: 2, result: { id: "b", outs: Buffer.alloc(0) } });
    await turn();
    const seenByC: number[][][] = [];
    await inOneTurn(
      () => ask(conn, "c"),
      () => {
        seenByC.push(calls.map((c) => [...c]));
        ask(conn, "d");
      },
    );
    await turn();
    // c left before the next callback ran; d, behind c, at the turn's end.
    expect(seenByC).to.deep.equal([[[1, 2], [3]]]);
    expect(calls).to.deep.equal([[1, 2], [3], [4]]);
  });
});
