// The one place where async handlers meet grpc-js. grpc-js ignores a handler's
// returned promise, so a rejection would leave the call hanging; these wrappers
// await the handler, answer exactly once, map every failure through toStatus
// (with the secrets of the request kept out of its text), and turn the call's
// cancellation into a CallSignal for the handler. A request whose bytes could
// not be decoded (request-decode.ts) never reaches a handler: it is answered
// as the bad request it is.
import * as grpc from "@grpc/grpc-js";
import { CallSignal } from "./limits/call-signal.js";
import { CancelledError, toStatus } from "./errors.js";
import { log } from "./diagnostics/log.js";
import type { Redaction } from "./secrets/redaction.js";
import { UndecodableRequest } from "./request-decode.js";
import { requestServed } from "./tuning/served-requests.js";

export type UnaryHandler<Req, Res> = (request: Req, signal: CallSignal) => Promise<Res> | Res;

/** unary() for a server whose error texts are kept free of the secrets `redaction` knows. */
export function redactingUnary(redaction: Redaction) {
  return <Req, Res>(rpc: string, handler: UnaryHandler<Req, Res>) => unary(rpc, handler, redaction);
}

export function unary<Req, Res>(rpc: string, handler: UnaryHandler<Req, Res>, redaction?: Redaction): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const signal = new CallSignal();
    const onCancel = () => signal.abort(new CancelledError(`${rpc} was cancelled by the engine`));
    call.once("cancelled", onCancel);
    let answered = false;
    const answer = (err: grpc.ServiceError | null, value?: Res) => {
      if (answered) return;
      answered = true;
      call.removeListener("cancelled", onCancel);
      requestServed();
      if (err) callback(err);
      else callback(null, value);
    };
    const started = Date.now();
    Promise.resolve()
      .then(() => {
        const request: unknown = call.request;
        if (request instanceof UndecodableRequest) throw request.error(rpc);
        return handler(call.request, signal);
      })
      .then(
        (value) => {
          log(3, `${rpc} ok in ${Date.now() - started} ms`);
          answer(null, value);
        },
        (err: unknown) => {
          const status = failureStatus(err, rpc, call.request, redaction);
          // UNIMPLEMENTED is routine (the engine asks Handshake and CheckConfig of every plugin): with every request, at 3.
          log(status.code === grpc.status.UNIMPLEMENTED ? 3 : 2, `${rpc} failed in ${Date.now() - started} ms: ${grpc.status[status.code]} ${status.details}`);
          answer({ code: status.code, details: status.details, metadata: status.metadata } as grpc.ServiceError);
        },
      );
  };
}

/**
 * toStatus with the request's secrets; if working that out throws (it walks
 * what the client sent), the call is still answered, with a text that
 * carries nothing of the request.
 */
function failureStatus(err: unknown, rpc: string, request: unknown, redaction?: Redaction): ReturnType<typeof toStatus> {
  try {
    const urn = (request as { urn?: unknown } | null)?.urn;
    return toStatus(err, rpc, {
      urn: typeof urn === "string" ? urn : undefined,
      secrets: redaction ? redaction.secretsFor(rpc, request) : [],
    });
  } catch (e) {
    return toStatus(new Error(`${rpc} failed, and its error could not be prepared for sending: ${(e as Error)?.message}`), rpc);
  }
}

/** A server-streaming RPC that is always refused with `err`. */
export function refusedStream(rpc: string, err: Error): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const status = toStatus(err, rpc);
    call.emit("error", { code: status.code, details: status.details, metadata: status.metadata });
  };
}
