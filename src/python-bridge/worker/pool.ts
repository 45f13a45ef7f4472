// src/python-bridge/worker: the Python workers: how one is started (spawn.ts,
// with worker-settings.ts; or taken from the launcher, prestarted.ts, whose
// stdout worker-stdout.ts forwards), one worker process and its channel
// (worker-process.ts, worker-handle.ts), and the pool of them (pool.ts). It may
// import src/python-bridge/channel and src/python-bridge/interpreter, the
// serving path's errors and src/host's folders; the adapter (../runtime.ts) and
// the other Pythons' pools (../other-pythons.ts) are above it.
//
// The Python workers of one host: a few processes so CPU-bound providers use
// more than one core, while each process runs many requests at once on threads
// so the engine's parallelism, not ours, is the limit.
//
// Routing: the live worker with the fewest requests in flight (lowest index on
// a tie). A new worker is started only when the pool is not full and every live
// worker is held to one core by its interpreter lock: it has two or more
// requests in hand and its last $/load report says its process used at least
// 80 % of a core. Waiting requests (IO, sleeps, the engine's parallelism) never
// start one: threads serve them in one process, so a deployment costs one
// worker's memory unless its providers are CPU-bound. Sequential requests all
// reach worker 0, which keeps the reference's "configure once per provider" for
// ordinary programs; under CPU-bound load a provider is loaded and configured
// once in each worker that serves it.
//
// Workers the pool starts itself are spawned with execa (spawn.ts), loaded the
// first time the pool needs a new worker: a host whose first worker the Python
// launcher started (prestarted.ts) answers its first requests without it.
//
// A worker that is going away (WorkerProcess.usable is false) is never picked;
// its slot gets a fresh worker, and the old one is kept in `leaving` until it
// has exited. A request that never started in the worker it was given to
// (UndeliveredError: not written to it, or never acknowledged by it before it
// died) is sent once more, to a live or fresh worker; one the worker
// acknowledged fails with the worker's own error.
import { availableParallelism } from "node:os";
import type { CallSignal } from "../../host/limits/call-signal.js";
import { describeRequest, UndeliveredError, type RequestInfo } from "../channel/connection.js";
import { log } from "../../host/diagnostics/log.js";
import type { Interpreter } from "../interpreter/interpreter.js";
import type { WorkerChild } from "./spawn.js";
import type { WorkerHandle } from "./worker-handle.js";
import { workerSettings } from "./worker-settings.js";
import { WorkerProcess, type ReadyInfo } from "./worker-process.js";

export interface PoolOptions {
  interpreter: Interpreter;
  cwd: string;
  /** How many worker processes at most. */
  size: number;
}

/** A worker at or above this CPU (thousandths of one core) is limited by its interpreter lock. */
const SATURATED_PERMILLE = 800;

/** PULUMI_DYNAMIC_HOST_PYTHON_WORKERS, else one per core, at most 8. */
export function defaultPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.PULUMI_DYNAMIC_HOST_PYTHON_WORKERS);
  if (Number.isInteger(configured) && configured >= 1) return configured;
  return Math.max(1, Math.min(availableParallelism(), 8));
}

interface Slot {
  worker: WorkerProcess;
  /**
   * Set while the worker is being given the current config: settles (never
   * rejects) once that is over, and requests wait for it. If configuring failed
   * because the worker died, each waiting request fails naming its own resource.
   */
  configuring?: Promise<void>;
  inFlight: number;
}

/** How many times a request is sent at most: once, and once more if it was not delivered. */
const SENDS = 2;

export class WorkerPool {
  private readonly slots: (Slot | undefined)[];
  /** Workers replaced in their slot while still running: stopped with the pool. */
  private readonly leaving = new Set<WorkerProcess>();
  private config?: Buffer;
  private closed = false;
  private spawner?: typeof import("./spawn.js");
  private spawnerLoading?: Promise<typeof import("./spawn.js")>;

  constructor(private readonly opts: PoolOptions) {
    this.slots = new Array(opts.size).fill(undefined);
  }

  /** The interpreter this pool's workers run. */
  get interpreter(): Interpreter {
    return this.opts.interpreter;
  }

  /**
   * Starts worker 0 now, so the first request does not pay for `import pulumi`;
   * `child` is one the host already spawned for it.
   */
  warm(child?: WorkerChild | WorkerHandle): void {
    if (child) this.slot(0, child);
    else void this.ensure(0).catch(() => undefined);
  }

  /** Stores the stack config and hands it to every live worker. */
  async configure(args: Buffer | undefined): Promise<void> {
    this.config = args;
    const live = this.slots.filter((s): s is Slot => s !== undefined && s.worker.usable);
    await Promise.all(live.map((s) => this.configureSlot(s, args)));
  }

  /**
   * Sends a request to the least busy usable worker; if it could not be
   * delivered there, once more to another (the first pick no longer qualifies).
   * `params` is not changed, so it can be sent again.
   */
  async request(info: RequestInfo, params: Record<string, unknown>, signal?: CallSignal): Promise<Record<string, unknown>> {
    for (let send = 1; ; send++) {
      if (this.closed) throw new Error(`${describeRequest(info)}: the Python worker pool is shut down`);
      const picked = this.pick();
      const slot = typeof picked === "number" ? await this.ensure(picked) : picked;
      slot.inFlight++;
      try {
        if (slot.configuring) await slot.configuring;
        return await slot.worker.request(info, params, signal);
      } catch (e) {
        if (!(e instanceof UndeliveredError)) throw e;
        if (signal?.aborted) throw signal.reason;
        if (send >= SENDS || this.closed) throw await slot.worker.failure(info, e);
        log(1, `${e.message}; sending it to another worker`);
      } finally {
        slot.inFlight--;
      }
    }
  }

  /**
   * The versions a worker of this pool runs (worker 0's, started if need be),
   * or undefined when it does not report them in time or fails to start: the
   * request that follows then fails on its own, naming itself.
   */
  workerInfo(waitMs = workerSettings().pingTimeoutMs): Promise<ReadyInfo | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    const started = this.ensure(0).then((s) => s.worker.started);
    return Promise.race([started.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
  }

  cancelAll(): void {
    for (const s of this.slots) if (s && s.worker.usable) s.worker.conn.cancelAll();
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.slots.filter((s): s is Slot => s !== undefined).map((s) => s.worker), ...this.leaving];
    for (const w of all) w.stop();
    await Promise.all(all.map((w) => w.exited));
  }

  /** The slot to send to, or the index of one that needs a new worker (`ensure`). */
  private pick(): Slot | number {
    const now = Date.now();
    let best: Slot | undefined;
    let free = -1;
    let allSaturated = true;
    for (let i = 0; i < this.slots.length; i++) {
      const s = this.slots[i];
      if (!s || !s.worker.usable) {
        if (free < 0) free = i;
        continue;
      }
      if (!best || s.inFlight < best.inFlight) best = s;
      if (s.inFlight < 2 || s.worker.cpuPermille(now) < SATURATED_PERMILLE) allSaturated = false;
    }
    if (!best) return free >= 0 ? free : 0;
    if (allSaturated && free >= 0) {
      // Until spawning is loaded, the busy workers keep the requests (not for long: loading starts now).
      if (!this.spawner) {
        void this.loadSpawner().catch(() => undefined);
        return best;
      }
      log(2, `starting python worker ${free}: every live worker has requests queued behind a busy interpreter (${this.describeLoad(now)})`);
      return this.slot(free);
    }
    return best;
  }

  private describeLoad(now: number): string {
    return this.slots
      .map((s, i) => (s && s.worker.usable ? `worker ${i}: ${s.inFlight} in flight, CPU ${s.worker.cpuPermille(now) / 10}%` : undefined))
      .filter((d) => d !== undefined)
      .join("; ");
  }

  /** The slot at `i`, with a worker spawned there if it has none usable. */
  private async ensure(i: number): Promise<Slot> {
    const existing = this.slots[i];
    if (existing && existing.worker.usable) return existing;
    await this.loadSpawner();
    return this.slot(i);
  }

  private loadSpawner(): Promise<typeof import("./spawn.js")> {
    this.spawnerLoading ??= import("./spawn.js").then((m) => (this.spawner = m));
    return this.spawnerLoading;
  }

  /**
   * The slot at `i`, starting a worker there if it has none or its worker is
   * going away: `child`, or one spawned (the spawner must be loaded).
   */
  private slot(i: number, child?: WorkerChild | WorkerHandle): Slot {
    const existing = this.slots[i];
    if (existing && existing.worker.usable) return existing;
    if (!child && !this.spawner) throw new Error(`internal: python worker ${i} needed before spawning was loaded`);
    if (existing) {
      const old = existing.worker;
      this.leaving.add(old);
      void old.exited.then(() => this.leaving.delete(old));
    }
    const worker = new WorkerProcess(i, child ?? this.spawner!.spawnWorker(this.opts.interpreter, this.opts.cwd, workerSettings().script));
    const slot: Slot = { worker, inFlight: 0 };
    this.slots[i] = slot;
    // Nobody awaits this one but the requests (through `configuring`): it must not go unobserved.
    if (this.config !== undefined) this.configureSlot(slot, this.config).catch(() => undefined);
    return slot;
  }

  /** Sends `args` to the slot's worker; its requests wait until that is over. */
  private configureSlot(slot: Slot, args: Buffer | undefined): Promise<void> {
    const sent = slot.worker.request({ method: "configure", urn: "", operation: "Configure" }, { args });
    const over = sent.then(
      () => undefined,
      () => undefined,
    );
    slot.configuring = over;
    void over.then(() => {
      if (slot.configuring === over) slot.configuring = undefined;
    });
    return sent.then(() => undefined);
  }
}
