// A secret input a provider prints, redacted in what reaches the engine's Log
// (src/host/engine/call-output.ts). The host answers Configure with acceptSecrets
// true, so the engine's requests mark secret inputs (the real engine:
// test/e2e/secret-inputs.test.ts); the provider sees them unwrapped
// (src/host/secrets/secret-inputs.ts). Here the requests mark them as the engine
// does, and an engine of our own (the two RPCs the
// host calls: grpc.health.v1.Health/Check and pulumirpc.Engine/Log, decoded
// with @pulumi/pulumi's generated messages) records what it is sent. Beside
// it, what the provider writes to the file descriptors itself stays on the
// plugin's stdout as written: nothing can attribute it.
import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { createRequire } from "node:module";
import { pythonProvider, SECRET_SIG, SIG } from "../helpers/payloads.js";
import { REPO } from "../helpers/paths.js";
import { Plugin } from "../helpers/plugin.js";

const require = createRequire(import.meta.url);
const enginePb = require("@pulumi/pulumi/proto/engine_pb");
const { serializeProvider } = require(`${REPO}test/fixtures/serialize.cjs`);

const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
const PLAINTEXT = "hunter2-input-value";

interface Logged {
  severity: number;
  urn: string;
  message: string;
}

/** An engine that answers the health check and records every Log call. */
async function fakeEngine(): Promise<{ address: string; logged: Logged[]; stop(): void }> {
  const logged: Logged[] = [];
  const server = new grpc.Server();
  const raw = (b: Buffer) => b;
  server.addService(
    {
      Check: {
        path: "/grpc.health.v1.Health/Check",
        requestStream: false,
        responseStream: false,
        requestSerialize: raw,
        requestDeserialize: raw,
        // HealthCheckResponse{status: SERVING}
        responseSerialize: () => Buffer.from([8, 1]),
        responseDeserialize: raw,
      },
      Log: {
        path: "/pulumirpc.Engine/Log",
        requestStream: false,
        responseStream: false,
        requestSerialize: raw,
        requestDeserialize: (b: Buffer) => enginePb.LogRequest.deserializeBinary(new Uint8Array(b)),
        responseSerialize: () => Buffer.alloc(0),
        responseDeserialize: raw,
      },
    } as grpc.ServiceDefinition,
    {
      Check: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, {}),
      Log: (call: grpc.ServerUnaryCall<any, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        logged.push({ severity: call.request.getSeverity(), urn: call.request.getUrn(), message: call.request.getMessage() });
        cb(null, {});
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, logged, stop: () => server.forceShutdown() };
}

describe("a secret input the provider prints is redacted in what the engine's Log receives", function () {
  this.timeout(120_000);

  it("Node: console.log of a secret-marked input reaches Log as [secret], under the resource", async function () {
    const engine = await fakeEngine();
    const printing = await serializeProvider({
      async create(props: any) {
        console.log(`the password is ${props.password}`);
        console.warn(`still ${props.password}`);
        return { id: "printed", outs: {} };
      },
    });
    const p = await Plugin.launch("ours", { args: [engine.address] });
    try {
      const urn = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::printer";
      const o = await p.client.create({ urn, properties: { __provider: printing, password: secret(PLAINTEXT) } });
      expect(o.code, o.details).to.equal(0);
      expect(engine.logged).to.deep.equal([
        { severity: 1, urn, message: "the password is [secret]" },
        { severity: 2, urn, message: "still [secret]" },
      ]);
      expect(p.stdout.slice(1)).to.deep.equal([]);
    } finally {
      await p.stop();
      engine.stop();
    }
  });

  it("Python: print, sys.stdout and sys.stderr of a secret-marked input reach Log as [secret]; fd 1 writes and a child stay on stdout as written", async function () {
    const engine = await fakeEngine();
    const p = await Plugin.launch("ours", { language: "python", args: [engine.address] });
    try {
      const urn = "urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::printer";
      const o = await p.client.create({ urn, properties: { __provider: pythonProvider("scripted"), act: "print", msg: secret(PLAINTEXT) } });
      expect(o.code, o.details).to.equal(0);
      expect(engine.logged.filter((l) => l.severity !== 1 || l.urn !== urn)).to.deep.equal([]);
      // The provider gets the secret unwrapped, the plain string (as the reference's provider under the engine).
      const lines = engine.logged.flatMap((l) => l.message.split("\n"));
      expect(lines).to.deep.equal(["print from create [secret]", "sys.stdout.write from create [secret]", "stderr from create [secret]"]);
      await p.until(() => p.stdout.some((l) => l.startsWith("child process from create")), "the child's line");
      // (The child is `sh -c "echo …"`, which drops the quotes.)
      expect(p.stdout.slice(1).map((l) => [l.split(" from create ")[0], l.includes(PLAINTEXT)])).to.deep.equal([
        ["os.write(1)", true],
        ["child process", true],
      ]);
    } finally {
      await p.stop();
      engine.stop();
    }
  });

  it("a check failure's reason quoting a secret input is [secret] (the engine shows it as an error of the resource)", async function () {
    const refusing = await serializeProvider({
      async check(olds: any, news: any) {
        return { inputs: news, failures: [{ property: "password", reason: `${news.password} is too short` }] };
      },
    });
    const p = await Plugin.launch("ours");
    try {
      const urn = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::refused";
      const o = await p.client.check({ urn, news: { __provider: refusing, password: secret(PLAINTEXT) } });
      expect(o.code, o.details).to.equal(0);
      expect(o.view.failures).to.deep.equal([{ property: "password", reason: "[secret] is too short" }]);
      // The inputs go back with the secret where it was.
      expect(o.view.inputs.password).to.deep.equal(secret(PLAINTEXT));
    } finally {
      await p.stop();
    }
  });
});
