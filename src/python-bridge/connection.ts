// JSON-RPC 2.0 over one worker's channel: requests correlated by id, many in
// flight, each answered exactly once. Every pending request is explicit state:
// when the channel breaks or the worker exits, each one is rejected with an
// error built for it (naming its resource and method); a failed write rejects
// only the request it carried; a cancelled request is forgotten at once and the
// worker is told, so no caller ever waits forever.
import type { Duplex } from "node:stream";
import type { CallSignal } from "../host/call-signal.js";
import { WorkerDiedError } from "../host/errors.js";
import { encodeFrame, FrameDecoder } from "./framing.js";
import { incomingMessage, responseChecks, resultSchemas, type Method } from "./protocol.js";

/** What a request was for, so failures can name it. */
export interface RequestInfo {
  method: Method;
  urn: string;
  operation: string;
}

/** "Create urn:…", or just "Configure" for a request about no resource. */
export function describeRequest(info: RequestInfo): string {
  return info.urn ? `${info.operation} ${info.urn}` : info.operation;
}

/** A JSON-RPC error answer from the worker. */
export class RpcError extends Error {
  override name = "RpcError";
  constructor(readonly code: number, message: string, readonly data: unknown) {
    super(message);
  }
}

/**
 * The worker sent something the protocol does not allow, or its channel
 * failed: it can no longer be trusted, so it is stopped and replaced.
 */
export class ChannelBrokenError extends WorkerDiedError {
  override name = "ChannelBrokenError";
}

interface Pending {
  info: RequestInfo;
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

export class RpcConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly decoder = new FrameDecoder();
  private broken?: (info: RequestInfo) => Error;
  private corked = false;

  /**
   * `onBroken` hears of a protocol violation (pending requests have already
   * failed with it) or of the channel closing (`closed`: requests still pend;
   * the owner fails them once it knows how the worker ended).
   */
  constructor(
    private readonly stream: Duplex,
    private readonly onNotification: (method: string, params: Record<string, unknown>) => void,
    private readonly onBroken: (reason: Error, closed: boolean) => void,
  ) {
    stream.on("data", (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = this.decoder.push(chunk);
      } catch (e) {
        this.breakChannel(new ChannelBrokenError(`the worker wrote an unreadable frame: ${(e as Error).message}`));
        return;
      }
      for (const m of messages) this.dispatch(m);
    });
    // A socket error or close is how a dying worker looks from here: the owner learns how it ended.
    stream.on("error", (e) => {
      if (!this.broken) this.onBroken(new ChannelBrokenError(`the worker channel failed: ${e.message}`), true);
    });
    stream.on("close", () => {
      if (!this.broken) this.onBroken(new ChannelBrokenError("the worker closed its channel"), true);
    });
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Sends a request; settles with its result, its error, or the failure that ended the channel. */
  request(info: RequestInfo, params: Record<string, unknown>, signal?: CallSignal): Promise<Record<string, unknown>> {
    if (this.broken) return Promise.reject(this.broken(info));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (reason: Error) => {
        if (!this.pending.delete(id)) return;
        this.notify("$/cancel", { id });
        reject(reason);
      };
      if (!signal) {
        this.pending.set(id, { info, resolve, reject });
      } else {
        if (signal.aborted) return reject(signal.reason);
        const off = signal.onAbort(onAbort);
        this.pending.set(id, {
          info,
          resolve: (v) => {
            off();
            resolve(v);
          },
          reject: (e) => {
            off();
            reject(e);
          },
        });
      }
      this.write({ jsonrpc: "2.0", id, method: info.method, params }, (err) => {
        if (!err) return;
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        p.reject(new ChannelBrokenError(`could not send ${info.method} to the worker: ${err.message}`));
      });
    });
  }

  /** Asks the worker to cancel every request in flight; their answers (errors or results) still arrive. */
  cancelAll(): void {
    for (const id of this.pending.keys()) this.notify("$/cancel", { id });
  }

  notify(method: string, params: Record<string, unknown>): void {
    if (!this.broken) this.write({ jsonrpc: "2.0", method, params }, () => undefined);
  }

  /** Rejects every pending request with an error made for it; later requests fail the same way. */
  failAll(makeError: (info: RequestInfo) => Error): void {
    this.broken ??= makeError;
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(makeError(p.info));
  }

  /**
   * One socket write per frame, or per large tail part (encodeFrame). Frames
   * written while one callback and the promise jobs it started run leave
   * together (corked until process.nextTick, which runs once those jobs are
   * done, then one writev): the requests of one read from the engine reach the
   * worker in one batch, so under load it wakes once per batch instead of once
   * per request. Order is kept. (Uncorking at setImmediate batched more, across
   * every callback of a loop turn, but held each request for the rest of that
   * turn: ≈ 1 ms at p50 under IO-bound load.)
   */
  private write(message: unknown, done: (err?: Error | null) => void): void {
    const parts = encodeFrame(message);
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      process.nextTick(() => {
        this.corked = false;
        this.stream.uncork();
      });
    }
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) this.stream.write(parts[i]);
    this.stream.write(parts[last], done);
  }

  private breakChannel(reason: Error): void {
    if (this.broken) return;
    this.failAll((info) => new ChannelBrokenError(`${describeRequest(info)}: ${reason.message}; the worker was stopped and the next request starts a fresh one`));
    this.onBroken(reason, false);
    this.stream.destroy();
  }

  private dispatch(raw: unknown): void {
    // The common message, a result for a request in flight, is checked whole for its method.
    const id = raw !== null && typeof raw === "object" && "result" in raw ? (raw as { id?: unknown }).id : undefined;
    const waiting = typeof id === "number" ? this.pending.get(id) : undefined;
    if (waiting) {
      const result = responseChecks[waiting.info.method](raw);
      if (result) {
        this.pending.delete(id as number);
        waiting.resolve(result);
        return;
      }
      // Outside the protocol: the checks below say how (the message, or only this result).
    }
    const parsed = incomingMessage.safeParse(raw);
    if (!parsed.success) {
      this.breakChannel(new ChannelBrokenError(`the worker sent a message outside the protocol: ${parsed.error.message}`));
      return;
    }
    const msg = parsed.data;
    if ("method" in msg) {
      this.onNotification(msg.method, msg.params);
      return;
    }
    if (msg.id === null) {
      this.breakChannel(new ChannelBrokenError(`the worker could not read a request: ${"error" in msg ? msg.error.message : ""}`));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return; // cancelled or timed out here already: the late answer is dropped
    this.pending.delete(msg.id);
    if ("error" in msg) {
      p.reject(new RpcError(msg.error.code, msg.error.message, msg.error.data));
      return;
    }
    const result = resultSchemas[p.info.method].safeParse(msg.result);
    if (!result.success) {
      p.reject(new ChannelBrokenError(`the worker's ${p.info.method} result is outside the protocol: ${result.error.message}`));
      return;
    }
    p.resolve(result.data);
  }
}
