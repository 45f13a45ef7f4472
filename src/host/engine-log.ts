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
import { log } from "./log.js";
import { finish } from "./proto.js";

export type Severity = "debug" | "info" | "warning" | "error";

/** pulumirpc.LogSeverity */
const SEVERITY: Record<Severity, number> = { debug: 0, info: 1, warning: 2, error: 3 };

export interface EngineLog {
  /** Sends `message` about the resource `urn` (or the stack, for ""); never throws, never waits. */
  log(severity: Severity, urn: string, message: string): void;
  /** Waits for the messages sent so far (tests), then releases the connection. */
  close(): Promise<void>;
}

/** Drops everything: no engine address, or a core run outside the engine. */
export const NO_ENGINE_LOG: EngineLog = { log() {}, close: async () => {} };

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
  const pending = new Set<Promise<void>>();
  return {
    log(severity, urn, message) {
      client ??= new grpc.Client(address, grpc.credentials.createInsecure());
      const sent = new Promise<void>((resolve) => {
        client!.makeUnaryRequest(
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
    async close() {
      await Promise.all(pending);
      client?.close();
    },
  };
}
