// A stand-in for the engine's side of pulumirpc.Engine, built from the real
// SDK's generated stubs: it records every Log message a plugin sends, so a
// test can see what the user would be shown under a resource.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js");
const engineGrpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
const emptyPb = require("google-protobuf/google/protobuf/empty_pb");

export interface LogMessage {
  severity: number;
  urn: string;
  message: string;
}

/** pulumirpc.LogSeverity.WARNING */
export const WARNING = 2;

export class FakeEngine {
  readonly logs: LogMessage[] = [];
  private constructor(private readonly server: any, readonly address: string) {}

  /** `health`: also answer grpc.health.v1.Health/Check SERVING, as the real engine's server does. */
  static async start(opts: { health?: boolean } = {}): Promise<FakeEngine> {
    const server = new grpc.Server();
    if (opts.health) {
      // HealthCheckResponse { status: SERVING (1) }: field 1, varint 1.
      server.register("/grpc.health.v1.Health/Check", (_call: unknown, cb: (e: unknown, r: Buffer) => void) => cb(null, Buffer.from([0x08, 0x01])), (b: Buffer) => b, (b: Buffer) => b, "unary");
    }
    let engine!: FakeEngine;
    const unimplemented = (_call: unknown, cb: (e: unknown) => void) => cb({ code: grpc.status.UNIMPLEMENTED });
    server.addService(engineGrpc.EngineService, {
      log(call: any, cb: (e: unknown, r: unknown) => void) {
        const r = call.request;
        engine.logs.push({ severity: r.getSeverity(), urn: r.getUrn(), message: r.getMessage() });
        cb(null, new emptyPb.Empty());
      },
      getRootResource: unimplemented,
      setRootResource: unimplemented,
      startDebugging: unimplemented,
      requirePulumiVersion: unimplemented,
    });
    const port: number = await new Promise((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e: Error | null, p: number) => (e ? reject(e) : resolve(p))),
    );
    engine = new FakeEngine(server, `127.0.0.1:${port}`);
    return engine;
  }

  /** Waits until `cond` holds of the messages received (the plugin sends them without waiting). */
  async until(cond: (logs: LogMessage[]) => boolean, what: string, ms = 10_000): Promise<void> {
    const end = Date.now() + ms;
    while (!cond(this.logs)) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(this.logs)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  stop(): void {
    this.server.forceShutdown();
  }
}
