// The real worker (python-stub/worker.py) spoken to directly over its channel,
// below the host: what the protocol promises about provider texts and ids.
import { expect } from "chai";
import type { Duplex } from "node:stream";
import { messageType } from "../src/host/proto.js";
import { encodeStruct, jsToStruct, stringField, type WireStruct } from "../src/host/wire.js";
import { RpcConnection, RpcError, type RequestInfo } from "../src/python-bridge/connection.js";
import { ErrorCodes } from "../src/python-bridge/protocol.js";
import { spawnWorker, type WorkerChild } from "../src/python-bridge/spawn.js";
import { workerScript } from "../src/python-bridge/worker-settings.js";
import { PYTHON_PROGRAM, VENV_PYTHON } from "./helpers/paths.js";
import { pythonProvider } from "./helpers/payloads.js";

const StructType = messageType("google.protobuf.Struct");
const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const create = (name: string): RequestInfo => ({ method: "create", urn: urn(name), operation: "Create" });

describe("the Python worker's channel", function () {
  let child: WorkerChild;
  let conn: RpcConnection;
  const text = pythonProvider("minimal");
  const props = encodeStruct(jsToStruct({ __provider: text }))!;

  before(function () {
    child = spawnWorker({ python: VENV_PYTHON, env: { ...process.env } }, PYTHON_PROGRAM, workerScript());
    const channel = child.stdio[3] as unknown as Duplex;
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
});
