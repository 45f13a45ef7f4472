// One Python worker process: spawned with execa in the user's interpreter, cwd
// = the program directory. fd 1 is the host's stdout (user prints reach the
// engine unchanged, as under the reference); fd 2 is forwarded to the host's
// stderr byte for byte while its last lines are kept for error messages; fd 3
// is the JSON-RPC channel. When the process exits, every request in flight on
// it fails at once with an error that names the resource, the method, how the
// worker ended and what it last printed.
//
// Lifecycle: usable (takes requests) → ending (its channel ended, it exited, or
// the host is stopping it: it takes no new request, and one sent to it fails
// undelivered so the pool can send it elsewhere) → exited (its requests in
// flight have failed). Death is taken from the first sign of it: the channel's
// end, error or close, or the process's exit event, never only from the end of
// its stdio, which a process the worker started may hold open for any time.
//
// Of the requests in flight when it exits, those it acknowledged (../channel/connection.ts)
// fail with how it ended: they may have run. Those it never acknowledged never
// ran, and fail undelivered, so the pool sends them to another worker (once) —
// unless the worker never got as far as serving (it died starting, or its
// interpreter cannot run it), where a fresh worker would fare no better.
import type { Readable } from "node:stream";
import { BoundedCache } from "../../host/limits/bounded-cache.js";
import { CallSignal } from "../../host/limits/call-signal.js";
import { WorkerDiedError } from "../../host/errors.js";
import { log } from "../../host/diagnostics/log.js";
import { describeRequest, RpcConnection, UndeliveredError, type RequestInfo } from "../channel/connection.js";
import { loadSchema, logSchema, PROTOCOL_VERSION, readySchema, unusableSchema } from "../channel/protocol.js";
import { InterpreterUnusableError } from "../interpreter/unusable-interpreter.js";
import type { WorkerChild } from "./spawn.js";
import { handleOf, type WorkerHandle } from "./worker-handle.js";
import { workerSettings } from "./worker-settings.js";

const STDERR_LINES_KEPT = 20;

/**
 * How many provider texts a worker is kept told of (the host's ids of them,
 * and the worker's providers): as many as the host's other caches by text keep
 * (src/host/limits/bounded-cache.ts).
 */
export const SENT_TEXTS_LIMIT = 1000;

/**
 * After the process exits, how long its stderr and channel may take to
 * deliver what it wrote last (its final answers, its last stderr lines) before
 * its requests in flight fail. Both normally end at once; a process the worker
 * started that inherited stderr keeps it open, and must not keep requests waiting.
 */
const DRAIN_AFTER_EXIT_MS = 500;

/**
 * How long a request that could not be sent waits for the worker's exit, to
 * fail with how it ended: a closed channel gets the worker killed within 1 s.
 */
const FAILURE_WAIT_MS = 2000;

export interface WorkerExit {
  code: number | null;
  signal: string | null;
}

export interface ReadyInfo {
  python: string;
  pulumi: string;
  dill: string;
  pid: number;
}

/** A $/load report is current for this long; after it, the worker counts as idle. */
const LOAD_REPORT_TTL_MS = 1000;

export class WorkerProcess {
  readonly conn: RpcConnection;
  readonly exited: Promise<WorkerExit>;
  readonly pid: number;
  ready?: ReadyInfo;
  /** Settles with the worker's versions once it reported ready, or fails if it exits first. */
  readonly started: Promise<ReadyInfo>;
  private onStarted!: { resolve(info: ReadyInfo): void; reject(err: Error): void };
  private readonly child: WorkerHandle;
  private stderrTail: string[] = [];
  private partialLine = "";
  private exit?: WorkerExit;
  /** Why the host stopped this worker (hung, or speaks another protocol): what its failed requests say. */
  private stopReason?: string;
  /** Stopped by the host (stop()): its exit is logged as routine. */
  private stopping = false;
  /** Set when the worker said its interpreter cannot import what it needs ($/unusable), before it exited. */
  private unusable?: { python: string; module: string; error: string };
  /** Set at the first sign that this worker is going away: why it takes no new request. */
  private ending?: string;
  private pinging = false;
  private readonly healthTimer: NodeJS.Timeout;
  private load = { cpuPermille: 0, at: 0 };
  /**
   * Provider texts this worker has been sent, and the id each was sent with:
   * the most recently used `textsLimit`. The worker keeps a provider for each
   * (python-stub/serving.py); one pushed out is named to it in $/forget, and
   * sent again, with a new id, if it is needed again (the worker then loads and
   * configures it again). Ids are never reused.
   */
  private readonly providerIds: BoundedCache<string, number>;
  private nextProviderId = 1;

  /** `child`: the worker's process, spawned by `spawnWorker` or started by the launcher (prestarted.ts). */
  constructor(
    readonly index: number,
    child: WorkerChild | WorkerHandle,
    settings = workerSettings(),
    textsLimit = SENT_TEXTS_LIMIT,
  ) {
    // Told in the frame after the request whose text pushed it out; frames arrive in order, so every
    // request that named the id was read by the worker before it hears the id is gone.
    this.providerIds = new BoundedCache(textsLimit, (_text, id) => this.conn.notify("$/forget", { ids: [id] }));
    this.started = new Promise<ReadyInfo>((resolve, reject) => (this.onStarted = { resolve, reject }));
    this.started.catch(() => undefined);
    this.child = "onExit" in child ? child : handleOf(child);
    this.pid = this.child.pid;
    this.child.stderr.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.keepStderr(chunk.toString("utf8"));
    });
    const channel = this.child.channel;
    this.conn = new RpcConnection(
      channel,
      (method, params) => this.onNotification(method, params),
      (reason, closed) => {
        // A closed channel usually means the process is ending: its exit fails the pending requests
        // with how it ended. A worker that closed the channel but lives on is stopped.
        this.ending ??= reason.message;
        log(this.stopping ? 2 : 1, `python worker ${this.index} (pid ${this.pid}): ${reason.message}; stopping it`);
        if (closed) setTimeout(() => this.kill(), 1000).unref();
        else this.kill();
      },
    );
    if (this.child.programPaths !== undefined) this.conn.notify("$/program-path", { paths: this.child.programPaths });
    // spawnWorker leaves both paused so nothing is lost before these listeners exist.
    this.child.stderr.resume();
    channel.resume();
    this.healthTimer = setInterval(() => void this.healthCheck(settings.pingTimeoutMs), settings.pingIntervalMs);
    this.healthTimer.unref();
    this.exited = new Promise<WorkerExit>((resolve) => {
      const exited = (exit: WorkerExit) => {
        if (this.exit) return;
        this.exit = exit;
        this.ending ??= describeExit(exit);
        clearInterval(this.healthTimer);
        void drained([this.child.stderr, channel], DRAIN_AFTER_EXIT_MS).then(() => {
          // At the host's own stop (its shutdown) the end is routine; any other is a problem.
          log(this.stopping ? 2 : 1, `python worker ${this.index} (pid ${this.pid}) exited: ${describeExit(exit)}`);
          this.conn.failAll((info, acknowledged) =>
            acknowledged || !this.ready || this.unusable
              ? this.diedError(info)
              : new UndeliveredError(info, `the worker (pid ${this.pid}) ${describeExit(exit)} before it took the request`),
          );
          this.onStarted.reject(this.diedError({ method: "ping", urn: "", operation: "Starting" }));
          resolve(exit);
        });
      };
      this.child.onExit(exited);
    });
  }

  /** Until the process exited (its requests may still be failing, see `exited`). */
  get alive(): boolean {
    return this.exit === undefined;
  }

  /** Takes new requests: running, channel open, not being stopped. */
  get usable(): boolean {
    return this.ending === undefined && this.conn.usable;
  }

  /**
   * What a request that could not be sent to this worker (an UndeliveredError)
   * should fail with when it is not sent elsewhere: the worker's own "died"
   * error once it has exited (waiting a short while for that), else `undelivered`.
   */
  async failure(info: RequestInfo, undelivered: UndeliveredError): Promise<Error> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, FAILURE_WAIT_MS)));
    await Promise.race([this.exited, waited]).finally(() => clearTimeout(timer));
    return this.exit ? this.diedError(info) : undelivered;
  }

  /** The worker's CPU over its last reported interval (thousandths of one core); 0 once that report is stale. */
  cpuPermille(now = Date.now()): number {
    return now - this.load.at <= LOAD_REPORT_TTL_MS ? this.load.cpuPermille : 0;
  }

  /**
   * Sends a request. A provider's text goes to this worker once, with an id;
   * later requests name it by the id alone (python-stub/protocol.py), so a
   * large pickle is not re-sent, re-parsed and re-hashed on every request.
   * `params` is left as it is (the frame is a copy with `providerId` set, and
   * `provider` cleared once this worker has the text), so a request that could
   * not be delivered here can be sent to another worker as it came.
   *
   * A worker that is going away takes nothing: the request fails undelivered.
   */
  request(info: RequestInfo, params: Record<string, unknown>, signal?: CallSignal): Promise<Record<string, unknown>> {
    if (this.ending !== undefined) return Promise.reject(new UndeliveredError(info, `the worker (pid ${this.pid}) is going away: ${this.ending}`));
    const text = params.provider;
    // An aborted request is never written: its text must not count as sent.
    if (typeof text !== "string" || signal?.aborted) return this.conn.request(info, params, signal);
    let providerId = this.providerIds.get(text);
    const sent: Record<string, unknown> = { ...params, providerId };
    if (providerId !== undefined) {
      sent.provider = undefined; // left out of the frame
      return this.conn.request(info, sent, signal);
    }
    providerId = sent.providerId = this.nextProviderId++;
    const answer = this.conn.request(info, sent, signal);
    this.providerIds.set(text, providerId); // after the request's frame: a $/forget it causes goes after it
    return answer;
  }

  /** The host's own stop (its shutdown, the pool closing): SIGKILL, its end routine. */
  stop(): void {
    this.stopping = true;
    this.kill();
  }

  /** SIGKILL: the worker holds no state that outlives it. */
  kill(): void {
    this.ending ??= "the host stopped it";
    if (this.alive) this.child.kill("SIGKILL");
  }

  /**
   * While requests are in flight, the worker's reading thread must still
   * answer a ping: if it does not within `timeoutMs`, the worker is stuck
   * (not merely running slow user code) and is killed, failing its requests.
   */
  private async healthCheck(timeoutMs: number): Promise<void> {
    if (!this.alive || this.conn.inFlight === 0 || this.stopReason !== undefined || this.pinging) return;
    this.pinging = true;
    const abort = new CallSignal();
    const timer = setTimeout(() => abort.abort(new Error("no answer")), timeoutMs);
    try {
      await this.conn.request({ method: "ping", urn: "", operation: "health check" }, {}, abort);
    } catch {
      if (abort.aborted && this.alive) {
        this.stopReason = `stopped answering (no reply to a health check within ${timeoutMs} ms) and was killed`;
        log(1, `python worker ${this.index} (pid ${this.pid}) ${this.stopReason}`);
        this.kill();
      }
    } finally {
      clearTimeout(timer);
      this.pinging = false;
    }
  }

  private onNotification(method: string, params: Record<string, unknown>): void {
    if (method === "$/log") {
      const line = logSchema.safeParse(params);
      if (!line.success) return;
      const { id, stream, severity, text } = line.data;
      // A request already answered (a coroutine it left running printed): its stream, as without capture.
      const output = this.conn.infoOf(id)?.output;
      if (output) output.write(stream, severity, text);
      else (stream === "stdout" ? process.stdout : process.stderr).write(text);
      return;
    }
    if (method === "$/load") {
      const load = loadSchema.safeParse(params);
      if (load.success) {
        this.load = { cpuPermille: load.data.cpu as number, at: Date.now() };
        log(3, `python worker ${this.index}: CPU ${this.load.cpuPermille / 10}% over the last interval, ${load.data.active} requests in hand`);
      }
      return;
    }
    if (method === "$/unusable") {
      const unusable = unusableSchema.safeParse(params);
      if (unusable.success) {
        this.unusable = unusable.data as { python: string; module: string; error: string };
        log(1, `python worker ${this.index} (pid ${this.pid}): ${this.unusable.python} cannot import ${this.unusable.module}: ${this.unusable.error}`);
      }
      return;
    }
    if (method === "$/ready") {
      const ready = readySchema.safeParse(params);
      if (ready.success && ready.data.protocol !== PROTOCOL_VERSION) {
        // Its requests would be misread: stop it before it answers any (its $/ready comes first on the channel).
        this.stopReason =
          `speaks channel protocol ${ready.data.protocol}, but this host speaks ${PROTOCOL_VERSION} ` +
          `(the worker script ${workerSettings().script} and the host come from different installs), so it was stopped`;
        log(1, `python worker ${this.index} (pid ${this.pid}) ${this.stopReason}`);
        this.kill();
        return;
      }
      if (ready.success) {
        this.ready = ready.data as unknown as ReadyInfo;
        this.onStarted.resolve(this.ready);
        log(2, `python worker ${this.index} ready: pid ${this.ready.pid}, python ${this.ready.python}, pulumi ${this.ready.pulumi}, dill ${this.ready.dill}`);
      }
    }
  }

  private keepStderr(text: string): void {
    const lines = (this.partialLine + text).split("\n");
    this.partialLine = lines.pop() ?? "";
    this.stderrTail.push(...lines);
    if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.splice(0, this.stderrTail.length - STDERR_LINES_KEPT);
  }

  private diedError(info: RequestInfo): WorkerDiedError {
    if (this.unusable) {
      const { python, module, error } = this.unusable;
      return new InterpreterUnusableError(`${describeRequest(info)}: ${python} cannot import ${module} (${error})`, python, module, error);
    }
    const tail = [...this.stderrTail, this.partialLine].filter((l) => l !== "");
    const started = this.ready ? "" : " before it finished starting";
    return new WorkerDiedError(
      `${describeRequest(info)}: the Python worker running it (pid ${this.pid}) ${this.stopReason ?? describeExit(this.exit!)}${started}` +
        (tail.length > 0 ? `; its last stderr lines:\n${tail.join("\n")}` : "; it wrote nothing to stderr") +
        `\nThe next request starts a fresh worker.`,
    );
  }
}

/** Resolves once every stream has ended or closed, or after `ms`, whichever is first. */
function drained(streams: Readable[], ms: number): Promise<void> {
  const ends = streams.map(
    (s) =>
      new Promise<void>((resolve) => {
        if (s.readableEnded || s.destroyed) return resolve();
        s.once("end", resolve);
        s.once("close", resolve);
      }),
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([Promise.all(ends).then(() => undefined), late]).finally(() => clearTimeout(timer));
}

function describeExit(exit: WorkerExit): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code}`;
}
