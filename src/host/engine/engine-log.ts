// src/host/engine: the host as a client of the engine: its Log service
// (engine-log.ts) and a call's output routed to it under the resource
// (call-output.ts). It may import src/host/wire, src/host/secrets (what is
// sent is redacted) and src/host/diagnostics.
//
// Messages from the host to the user, through the engine: pulumirpc.Engine's
// Log, at the address the engine passes as the plugin's last argument. A
// message sent this way is shown under the resource its URN names (a warning
// in the update's diagnostics, a debug line with --debug or -v), where a line
// on stderr would be an anonymous `info#err` on the stack.
//
// Sending is best effort: the host never waits on it, and a failure (no
// address, an engine that is gone) is dropped, written to stderr only when
// the engine asked for logs.
import * as grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { log } from "../diagnostics/log.js";
import { finish } from "../wire/proto.js";

export type Severity = "debug" | "info" | "warning" | "error";

/** pulumirpc.LogSeverity */
const SEVERITY: Record<Severity, number> = { debug: 0, info: 1, warning: 2, error: 3 };

export interface EngineLog {
  /** Sends `message` about the resource `urn` (or the stack, for ""); never throws, never waits. */
  log(severity: Severity, urn: string, message: string): void;
  /**
   * Sends `message` and settles once the engine answered: true when it took
   * it, false when it could not be sent (the caller then shows it some other
   * way). Never rejects. Callers that need order send one after another: the
   * engine serves each Log call on its own, so calls in flight together may
   * be shown in any order.
   */
  send(severity: Severity, urn: string, message: string): Promise<boolean>;
  /**
   * Whether an engine answers at the address: asked once (its gRPC health
   * service, which serves pulumirpc.Engine), then remembered. False with no
   * address, or when nothing answers within a few seconds.
   */
  reachable(): Promise<boolean>;
  /** Waits for the messages sent so far (tests), then releases the connection. */
  close(): Promise<void>;
}

/** Drops everything: no engine address, or a core run outside the engine. */
export const NO_ENGINE_LOG: EngineLog = { log() {}, send: async () => false, reachable: async () => false, close: async () => {} };

/** How long a Log call may take before its message is shown another way. */
const SEND_DEADLINE_MS = 10_000;
/** How long the engine's health service may take to answer the first question. */
const PROBE_DEADLINE_MS = 5_000;

/** grpc.health.v1.HealthCheckRequest{service = 1}. */
function encodeHealthRequest(service: string): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(10).string(service);
  return finish(w);
}

/** grpc.health.v1.HealthCheckResponse: status = 1 (SERVING = 1). */
function decodeHealthStatus(bytes: Buffer): number {
  const r = protobuf.Reader.create(bytes);
  let status = 0;
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === 0) status = r.int32();
    else r.skipType(tag & 7);
  }
  return status;
}

/** pulumirpc.LogRequest: severity = 1, message = 2, urn = 3 (streamId = 4 and ephemeral = 5 are left unset). */
function encodeLogRequest(req: { severity: number; message: string; urn: string }): Buffer {
  const w = protobuf.Writer.create();
  if (req.severity !== 0) w.uint32(8).int32(req.severity);
  if (req.message !== "") w.uint32(18).string(req.message);
  if (req.urn !== "") w.uint32(26).string(req.urn);
  return finish(w);
}

export function engineLog(address: string | undefined): EngineLog {
  if (!address) return NO_ENGINE_LOG;
  let client: grpc.Client | undefined;
  let probe: Promise<boolean> | undefined;
  const pending = new Set<Promise<void>>();
  const connect = () => (client ??= new grpc.Client(address, grpc.credentials.createInsecure()));
  return {
    log(severity, urn, message) {
      const sent = new Promise<void>((resolve) => {
        connect().makeUnaryRequest(
          "/pulumirpc.Engine/Log",
          encodeLogRequest,
          () => undefined,
          { severity: SEVERITY[severity], message, urn },
          (err) => {
            if (err) log(1, `could not send a ${severity} message to the engine at ${address}: ${err.message}`);
            resolve();
          },
        );
      });
      pending.add(sent);
      void sent.then(() => pending.delete(sent));
    },
    send(severity, urn, message) {
      return new Promise<boolean>((resolve) => {
        connect().makeUnaryRequest(
          "/pulumirpc.Engine/Log",
          encodeLogRequest,
          () => undefined,
          { severity: SEVERITY[severity], message, urn },
          { deadline: Date.now() + SEND_DEADLINE_MS },
          (err) => {
            if (err) log(1, `could not send a ${severity} message to the engine at ${address}: ${err.message}`);
            resolve(!err);
          },
        );
      });
    },
    reachable() {
      return (probe ??= new Promise<boolean>((resolve) => {
        connect().makeUnaryRequest(
          "/grpc.health.v1.Health/Check",
          encodeHealthRequest,
          decodeHealthStatus,
          "pulumirpc.Engine",
          { deadline: Date.now() + PROBE_DEADLINE_MS },
          (err, status) => {
            if (err) log(1, `no engine answers at ${address} (${err.message}); provider output goes to stdout and stderr`);
            resolve(!err && status === 1);
          },
        );
      }));
    },
    async close() {
      await Promise.all(pending);
      client?.close();
    },
  };
}
