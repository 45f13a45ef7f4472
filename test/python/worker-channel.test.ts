// The real worker (python-stub/worker.py) spoken to directly over its channel,
// below the host: what the protocol promises about provider texts and ids, and
// that each request is acknowledged before anything of it runs.
import { expect } from "chai";
import type { Duplex } from "node:stream";
import { messageType } from "../../src/host/wire/proto.js";
import { encodeStruct, jsToStruct, stringField, type WireStruct } from "../../src/host/wire/wire.js";
import { RpcConnection, RpcError, type RequestInfo } from "../../src/python-bridge/channel/connection.js";
import { FrameDecoder } from "../../src/python-bridge/channel/framing.js";
import { ErrorCodes } from "../../src/python-bridge/channel/protocol.js";
import { spawnWorker, type WorkerChild } from "../../src/python-bridge/worker/spawn.js";
import { workerScript } from "../../src/python-bridge/worker/worker-settings.js";
import { PYTHON_PROGRAM, VENV_PYTHON } from "../helpers/paths.js";
import { pythonProvider } from "../helpers/payloads.js";

const StructType = messageType("google.protobuf.Struct");
const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const create = (name: string): RequestInfo => ({ method: "create", urn: urn(name), operation: "Create" });

describe("the Python worker's channel", function () {
  let child: WorkerChild;
  let conn: RpcConnection;
  /** Every message the worker sent, in order, as the host read them. */
  const heard: any[] = [];
  const text = pythonProvider("minimal");
  const props = encodeStruct(jsToStruct({ __provider: text }))!;

  before(function () {
    child = spawnWorker({ python: VENV_PYTHON, env: { ...process.env } }, PYTHON_PROGRAM, workerScript());
    const channel = child.stdio[3] as unknown as Duplex;
    const decoder = new FrameDecoder();
    channel.on("data", (chunk: Buffer) => heard.push(...decoder.push(chunk)));
    conn = new RpcConnection(channel, () => undefined, () => undefined);
    child.stderr!.resume();
    channel.resume();
  });
  after(async function () {
    child.kill("SIGKILL");
    await child.catch(() => undefined);
  });

  it("refuses a provider id it was never sent a text for, naming the method and the id", async function () {
    const err = await conn.request(create("unknown"), { urn: urn("unknown"), providerId: 7, props }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(RpcError);
    expect((err as RpcError).code).to.equal(ErrorCodes.InvalidParams);
    expect((err as RpcError).message).to.equal("create params: providerId 7 names no provider sent to this worker");
  });

  it("keeps a text sent once with its id, and later requests name it by the id alone", async function () {
    const first = await conn.request(create("first"), { urn: urn("first"), provider: text, providerId: 7, props });
    const again = await conn.request(create("again"), { urn: urn("again"), providerId: 7, props });
    expect(first.id).to.equal("minimal");
    expect(again.id).to.equal("minimal");
    const outs = StructType.decode(again.outs as Buffer) as unknown as WireStruct;
    expect(stringField(outs, "__provider")).to.equal(text);
  });

  it("acknowledges each request once, before anything it runs prints and before its answer", async function () {
    const announcer = pythonProvider("announcer", "python_ack_providers.py");
    const from = heard.length;
    const names = Array.from({ length: 8 }, (_, i) => `acked${i}`);
    // Sent in one tick: they leave in one write. The announcer writes a line (captured: logs) as its first act.
    const answers = await Promise.all(
      names.map((name, i) =>
        conn.request(create(name), { urn: urn(name), provider: i === 0 ? announcer : undefined, providerId: 9, logs: true, props: encodeStruct(jsToStruct({ name }))! }),
      ),
    );
    expect(answers.map((a) => a.id)).to.deep.equal(new Array(names.length).fill("announced"));
    const seen = heard.slice(from);
    const ids = [...new Set(seen.filter((m) => m.method === "$/log").map((m) => m.params.id as number))];
    expect(ids, "requests that printed").to.have.length(names.length);
    for (const id of ids) {
      const acked = seen.flatMap((m, at) => (m.method === "$/ack" && m.params.ids.includes(id) ? [at] : []));
      expect(acked, `request ${id}: its acknowledgements`).to.have.length(1);
      const printed = seen.findIndex((m) => m.method === "$/log" && m.params.id === id);
      const answered = seen.findIndex((m) => m.id === id);
      expect(acked[0], `request ${id}: acknowledged before it printed`).to.be.below(printed);
      expect(printed).to.be.below(answered);
    }
  });
});
