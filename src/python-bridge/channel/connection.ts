// src/python-bridge/channel: the host's end of a worker's channel: frames on
// the wire (framing.ts), the method table and the checks of every message the
// worker sends (protocol.ts), and the JSON-RPC connection over them
// (connection.ts). It may import the serving path's errors and src/host's
// folders (engine, limits); nothing else of the bridge: which Python, and the
// worker processes that own a channel, are above it.
//
// JSON-RPC 2.0 over one worker's channel: requests correlated by id, many in
// flight, each answered exactly once. Every pending request is explicit state:
// when the channel breaks or the worker exits, each one is rejected with an
// error built for it (naming its resource and method); a request the worker
// cannot have received (the channel had ended before it was written, or its
// write failed before any of it reached the worker) is rejected at once with an
// UndeliveredError, which the pool may send elsewhere; a cancelled request is
// forgotten at once and the worker is told, so no caller ever waits forever.
//
// Acknowledge-before-run: the worker acknowledges each request it takes ($/ack)
// before any user code runs for it, and the acknowledgement is on the socket
// before the request starts. So when the worker dies, a request still pending
// that was never acknowledged never ran there, whatever became of its bytes
// (unread in the socket, read but not started): its owner may fail it as
// undelivered, to be sent elsewhere (failAll's `acknowledged`).
import type { Duplex } from "node:stream";
import type { CallOutput } from "../../host/engine/call-output.js";
import type { CallSignal } from "../../host/limits/call-signal.js";
import { WorkerDiedError } from "../../host/errors.js";
import { encodeFrame, FrameDecoder } from "./framing.js";
import { ackSchema, fastAckIds, incomingMessage, responseChecks, resultSchemas, type Method } from "./protocol.js";

/** What a request was for, so failures can name it. */
export interface RequestInfo {
  method: Method;
  urn: string;
  operation: string;
  /** Where the worker's $/log notifications for this request go (src/host/engine/call-output.ts). */
  output?: CallOutput;
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

/**
 * A request that never started in the worker: its channel had already ended or
 * broken, the write failed with none of the request's bytes handed to the
 * worker's socket, or the worker died without acknowledging it. Its operation
 * never ran, so it is safe to send again.
 */
export class UndeliveredError extends ChannelBrokenError {
  override name = "UndeliveredError";
  constructor(readonly info: RequestInfo, readonly reason: string) {
    super(`${describeRequest(info)}: it could not be sent to the Python worker: ${reason}`);
  }
}

interface Pending {
  info: RequestInfo;
  /** Set when the worker acknowledged it ($/ack): from then on it may have run. */
  acknowledged?: boolean;
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

/** One cork-to-uncork batch of writes (see write). */
interface Batch {
  /**
   * Set once the batch left: true when all of it went to the socket in the
   * uncork call itself, or failed there with nothing written; false when some
   * of it is still queued then (behind an earlier write, or after a partial one).
   */
  whole?: boolean;
}

export class RpcConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly decoder = new FrameDecoder();
  private broken?: true;
  /** Why nothing more can be sent: the channel ended, failed or closed. */
  private ended?: string;
  private endReported = false;
  private batch?: Batch;
  /** Requests written whose $/ack has not come: the worker has not yet taken them. */
  private unacked = 0;

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
    // The end of the stream, a socket error or a close is how a dying worker looks from here, and
    // the first of them is reported at once: nothing is written after it, and the owner learns how
    // the worker ended. Answers read before the end have been dispatched by then.
    stream.on("end", () => this.channelEnded("the worker closed its channel"));
    stream.on("error", (e) => this.channelEnded(`the worker channel failed: ${e.message}`));
    stream.on("close", () => this.channelEnded("the worker closed its channel"));
  }

  /** What the request `id` in flight is for; undefined once it was answered, cancelled or failed. */
  infoOf(id: number): RequestInfo | undefined {
    return this.pending.get(id)?.info;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** False once the channel ended, failed or broke: a request now would be refused undelivered. */
  get usable(): boolean {
    return this.broken === undefined && this.ended === undefined;
  }

  /**
   * Sends a request; settles with its result, its error, or the failure that
   * ended the channel. A request that cannot have reached the worker fails
   * with an UndeliveredError (see its class).
   */
  request(info: RequestInfo, params: Record<string, unknown>, signal?: CallSignal): Promise<Record<string, unknown>> {
    if (this.broken || this.ended) return Promise.reject(new UndeliveredError(info, this.ended ?? "its channel was stopped"));
    const id = this.nextId++;
    const behind = this.unacked > 0;
    return new Promise((resolve, reject) => {
      const onAbort = (reason: Error) => {
        if (!this.take(id)) return;
        this.notify("$/cancel", { id });
        reject(reason);
      };
      if (!signal) {
        this.track(id, { info, resolve, reject });
      } else {
        if (signal.aborted) return reject(signal.reason);
        const off = signal.onAbort(onAbort);
        this.track(id, {
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
      this.write({ jsonrpc: "2.0", id, method: info.method, params }, behind, (err, whole) => {
        if (!err) return;
        this.ended ??= `writing to its channel failed: ${err.message}`;
        const p = this.pending.get(id);
        if (!p) return;
        // An error with no syscall never reached the socket (the stream had ended or was destroyed); a
        // batch that left whole in the uncork call wrote nothing when it failed there. A batch still
        // queued after its uncork (behind a slow write, or partly written) may have had frames read
        // by the worker before it died, and one that never left gets the same error as the write
        // that failed ahead of it, so neither can be told apart here: the request stays pending, and
        // the worker's exit fails it, as undelivered if the worker never acknowledged it.
        if (whole || (err as NodeJS.ErrnoException).syscall === undefined) {
          this.take(id);
          p.reject(new UndeliveredError(info, `writing to its channel failed (${err.message})`));
        }
      });
    });
  }

  /** Asks the worker to cancel every request in flight; their answers (errors or results) still arrive. */
  cancelAll(): void {
    for (const id of this.pending.keys()) this.notify("$/cancel", { id });
  }

  notify(method: string, params: Record<string, unknown>): void {
    if (this.usable) this.write({ jsonrpc: "2.0", method, params }, false, () => undefined);
  }

  /**
   * Rejects every pending request with an error made for it, told whether the
   * worker acknowledged it (if not, it never ran there); nothing more is sent.
   */
  failAll(makeError: (info: RequestInfo, acknowledged: boolean) => Error): void {
    this.broken ??= true;
    const all = [...this.pending.values()];
    this.pending.clear();
    this.unacked = 0;
    for (const p of all) p.reject(makeError(p.info, p.acknowledged === true));
  }

  /**
   * One socket write per frame, or per large tail part (encodeFrame), and
   * frames leave in batches (one writev), in order:
   * - while the worker has taken every request sent before (acknowledged it),
   *   the frames written while one callback and the promise jobs it started
   *   run leave together at process.nextTick, once those jobs are done: the
   *   requests of one read from the engine reach the worker in one batch, and
   *   none waits longer than its own callback;
   * - while an earlier request is still untaken (`behind`: the worker is busy
   *   and will not read this one sooner), they leave at setImmediate, with
   *   every request of the rest of that event-loop turn: the worker wakes once
   *   for all of them. Waiting for the turn's end then costs no request
   *   anything, which it did when every batch waited for it (≈ 1 ms at p50
   *   under IO-bound load, when the worker reads each request at once).
   *   Measured side by side (docs/performance.md, "The worker channel batches
   *   while the worker is behind"): 6–24 % more trivial Creates a second, the
   *   host's CPU per request lower, IO-bound level.
   *
   * `done` learns whether the frame's batch left whole (Batch.whole): a
   * stream's write callbacks run after the uncork that sent them, so it is
   * known by then.
   */
  private write(message: unknown, behind: boolean, done: (err: Error | null | undefined, whole: boolean) => void): void {
    const parts = encodeFrame(message);
    let batch = this.batch;
    if (!batch) {
      const opened: Batch = (batch = this.batch = {});
      this.stream.cork();
      const uncork = () => {
        this.batch = undefined;
        this.stream.uncork();
        opened.whole = this.stream.writableLength === 0;
      };
      if (behind) setImmediate(uncork);
      else process.nextTick(uncork);
    }
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) this.stream.write(parts[i]);
    this.stream.write(parts[last], (err) => done(err, batch.whole === true));
  }

  /** The channel ended, failed or closed: nothing more is written; the owner hears of it once. */
  private channelEnded(why: string): void {
    this.ended ??= why;
    if (this.broken || this.endReported) return;
    this.endReported = true;
    this.onBroken(new ChannelBrokenError(why), true);
  }

  private breakChannel(reason: Error): void {
    if (this.broken) return;
    this.failAll((info) => new ChannelBrokenError(`${describeRequest(info)}: ${reason.message}; the worker was stopped and the next request starts a fresh one`));
    this.onBroken(reason, false);
    this.stream.destroy();
  }

  /** $/ack: marks the requests named as taken by the worker (ids no longer pending are ones answered or cancelled here). */
  private acknowledge(params: Record<string, unknown>): void {
    const ack = ackSchema.safeParse(params);
    if (!ack.success) {
      this.breakChannel(new ChannelBrokenError(`the worker sent an acknowledgement outside the protocol: ${ack.error.message}`));
      return;
    }
    this.markAcknowledged(ack.data.ids as number[]);
  }

  private markAcknowledged(ids: number[]): void {
    for (const id of ids) {
      const p = this.pending.get(id);
      if (p && !p.acknowledged) {
        p.acknowledged = true;
        this.unacked--;
      }
    }
  }

  /** Adds request `id` to those in flight, not yet taken by the worker; take() is its inverse. */
  private track(id: number, p: Pending): void {
    this.pending.set(id, p);
    this.unacked++;
  }

  /** Removes request `id` from those in flight (answered, cancelled or failed here); what it was, if it was. */
  private take(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    if (!p.acknowledged) this.unacked--;
    return p;
  }

  private dispatch(raw: unknown): void {
    // The common message, a result for a request in flight, is checked whole for its method.
    const id = raw !== null && typeof raw === "object" && "result" in raw ? (raw as { id?: unknown }).id : undefined;
    const waiting = typeof id === "number" ? this.pending.get(id) : undefined;
    if (id === undefined) {
      const acked = fastAckIds(raw);
      if (acked) return this.markAcknowledged(acked);
    }
    if (waiting) {
      const result = responseChecks[waiting.info.method](raw);
      if (result) {
        this.take(id as number);
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
      if (msg.method === "$/ack") this.acknowledge(msg.params);
      else this.onNotification(msg.method, msg.params);
      return;
    }
    if (msg.id === null) {
      this.breakChannel(new ChannelBrokenError(`the worker could not read a request: ${"error" in msg ? msg.error.message : ""}`));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return; // cancelled or timed out here already: the late answer is dropped
    this.take(msg.id);
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
