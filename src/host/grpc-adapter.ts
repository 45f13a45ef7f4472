// The one place where async handlers meet grpc-js. grpc-js ignores a handler's
// returned promise, so a rejection would leave the call hanging; these wrappers
// await the handler, answer exactly once, map every failure through toStatus,
// and turn the call's cancellation into a CallSignal for the handler. A request
// whose bytes could not be decoded (request-decode.ts) never reaches a handler:
// it is answered as the bad request it is.
import * as grpc from "@grpc/grpc-js";
import { CallSignal } from "./call-signal.js";
import { CancelledError, toStatus } from "./errors.js";
import { log } from "./log.js";
import { UndecodableRequest } from "./request-decode.js";

export type UnaryHandler<Req, Res> = (request: Req, signal: CallSignal) => Promise<Res> | Res;

export function unary<Req, Res>(rpc: string, handler: UnaryHandler<Req, Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const signal = new CallSignal();
    const onCancel = () => signal.abort(new CancelledError(`${rpc} was cancelled by the engine`));
    call.once("cancelled", onCancel);
    let answered = false;
    const answer = (err: grpc.ServiceError | null, value?: Res) => {
      if (answered) return;
      answered = true;
      call.removeListener("cancelled", onCancel);
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
          log(2, `${rpc} ok in ${Date.now() - started} ms`);
          answer(null, value);
        },
        (err: unknown) => {
          const status = toStatus(err, rpc);
          log(1, `${rpc} failed in ${Date.now() - started} ms: ${grpc.status[status.code]} ${status.details}`);
          answer({ code: status.code, details: status.details, metadata: status.metadata } as grpc.ServiceError);
        },
      );
  };
}

/** A server-streaming RPC that is always refused with `err`. */
export function refusedStream(rpc: string, err: Error): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const status = toStatus(err, rpc);
    call.emit("error", { code: status.code, details: status.details, metadata: status.metadata });
  };
}
