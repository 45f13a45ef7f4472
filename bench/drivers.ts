// The clients that send a workload's units to a plugin and time the answers.
//
// - "go" (the default): bench/loadgen, a grpc-go program fed the request
//   messages as bytes (encoded here by @pulumi/pulumi's generated stubs before
//   any clock starts). It parses nothing, so it costs a fraction of the Node
//   client's CPU per request and leaves the plugins most of the two cores.
// - "node": the stubs' own grpc-js client in this process, as the bench first
//   did; kept to compare with, and for machines without Go.
//
// Either way every plugin of a run is driven by the same client with the same
// requests.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import readline from "node:readline";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Plugin } from "../test/helpers/plugin.js";
import { clientCpuMs, drive, Recorder } from "./measure.js";
import type { Batch, Prepared, Unit } from "./workloads.js";

export type ClientKind = "go" | "node";

export interface RunStats {
  wallMs: number;
  /** Units finished (answered, OK or not) before the end or the deadline. */
  done: number;
  /** Set when the deadline came first. */
  aborted?: string;
  ok: number;
  failed: number;
  /** Every call's latency in ms, ascending: the pass's percentiles, and the workload's over all its passes, come from it. */
  latencies: number[];
  firstError?: string;
  /** CPU the client side used meanwhile: the driver and this process. */
  clientCpuMs: number;
}

export interface RunOptions {
  /** An absolute performance.now() time: no unit starts after it. */
  deadline: number;
  /** Called when `done` reaches one of `marks`. */
  marks?: number[];
  onMark?: (done: number) => void;
}

/** One plugin's connection with a workload's units. */
export interface DriverSession {
  run(which: "warmup" | "measure", opts: RunOptions): Promise<RunStats>;
  close(): Promise<void>;
}

export interface Driver {
  readonly kind: ClientKind;
  /** What the JSON's meta and the table's legend say of the client. */
  readonly description: string;
  open(plugin: Plugin, prepared: Prepared): Promise<DriverSession>;
  close(): Promise<void>;
}

const batchOf = (prepared: Prepared, which: "warmup" | "measure"): Batch =>
  which === "warmup" ? (prepared.warmup ?? { units: [], concurrency: 1 }) : prepared.measure;

/** The stubs' grpc-js client in this process, through Recorder. */
class NodeDriver implements Driver {
  readonly kind = "node";
  readonly description = "@pulumi/pulumi's generated stubs on @grpc/grpc-js, in the bench's process";

  async open(plugin: Plugin, prepared: Prepared): Promise<DriverSession> {
    const raw = plugin.client.raw;
    return {
      async run(which, opts) {
        const { units, concurrency } = batchOf(prepared, which);
        const rec = new Recorder();
        const marks = new Set(opts.marks ?? []);
        const cpu0 = clientCpuMs();
        let finished = 0;
        const result = await drive(units.length, concurrency, opts.deadline, async (i) => {
          for (const [method, req] of units[i]) if (!(await rec.call(raw, method, req))) break;
          finished++;
          if (marks.has(finished)) opts.onMark?.(finished);
        });
        const stats = rec.stats();
        return { ...result, ...stats, clientCpuMs: clientCpuMs() - cpu0 };
      },
      async close() {},
    };
  }

  async close(): Promise<void> {}
}

const LOADGEN_SCRIPT = fileURLToPath(new URL("../../scripts/loadgen.sh", import.meta.url));

/** The method's full gRPC path from the generated client's name for it (`getPluginInfo` → GetPluginInfo). */
const grpcPath = (method: string) => `/pulumirpc.ResourceProvider/${method[0].toUpperCase()}${method.slice(1)}`;

interface GoRunResult {
  wallMs: number;
  done: number;
  aborted?: boolean;
  ok: number;
  failed: number;
  firstError?: string;
  latencies: number[];
  cpuMs: number;
}

/** bench/loadgen, one process for the whole bench, told what to do one JSON line at a time. */
class GoDriver implements Driver {
  readonly kind = "go";
  readonly description = "bench/loadgen, grpc-go in its own process (one P), sending requests pre-encoded by @pulumi/pulumi's stubs as bytes";
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly replies: { resolve: (v: any) => void; reject: (e: Error) => void; onMark?: (done: number) => void }[] = [];
  private stderr = "";
  private exited?: string;
  private nextId = 0;

  constructor() {
    const binary = execFileSync("bash", [LOADGEN_SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
    // One P: with two, Go's scheduler spins a second thread looking for work at every wake-up, about 25 % more CPU per
    // request (measured: 0.14 → 0.11 ms against the Python reference at c=32) for no more throughput.
    this.child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, GOMAXPROCS: "1" } });
    this.child.stderr.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.child.once("exit", (code, signal) => {
      this.exited = `the load driver exited (${signal ?? code})${this.stderr ? `: ${this.stderr.trim()}` : ""}`;
      for (const r of this.replies.splice(0)) r.reject(new Error(this.exited));
    });
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => this.receive(line));
  }

  private receive(line: string): void {
    const msg = JSON.parse(line);
    const head = this.replies[0];
    if (!head) throw new Error(`the load driver said ${line.slice(0, 200)} unasked`);
    if (typeof msg.mark === "number") {
      head.onMark?.(msg.mark);
      return;
    }
    this.replies.shift();
    if (typeof msg.error === "string") head.reject(new Error(`load driver: ${msg.error}`));
    else head.resolve(msg);
  }

  private ask<T>(command: Record<string, unknown>, onMark?: (done: number) => void): Promise<T> {
    if (this.exited) return Promise.reject(new Error(this.exited));
    return new Promise<T>((resolve, reject) => {
      this.replies.push({ resolve, reject, onMark });
      this.child.stdin.write(`${JSON.stringify(command)}\n`);
    });
  }

  async open(plugin: Plugin, prepared: Prepared): Promise<DriverSession> {
    const id = `s${this.nextId++}`;
    // Every distinct request message is encoded once: the payload workload sends one message again and again.
    const index = new Map<unknown, number>();
    const requests: { method: string; body: string }[] = [];
    const encode = (units: Unit[]) =>
      units.map((unit) =>
        unit.map(([method, req]) => {
          let i = index.get(req);
          if (i === undefined) {
            i = requests.length;
            index.set(req, i);
            requests.push({ method: grpcPath(method), body: Buffer.from(req.serializeBinary()).toString("base64") });
          }
          return i;
        }),
      );
    const measured = encode(prepared.measure.units);
    const warm = encode(batchOf(prepared, "warmup").units);
    await this.ask({ op: "set", set: id, requests, units: [...measured, ...warm] });
    await this.ask({ op: "connect", conn: id, addr: `127.0.0.1:${plugin.port}` });
    return {
      run: async (which, opts) => {
        const warmup = which === "warmup";
        const n = warmup ? warm.length : measured.length;
        const { concurrency } = batchOf(prepared, which);
        const cpu0 = clientCpuMs();
        const boundMs = Math.max(0, opts.deadline - performance.now());
        const r = await this.ask<GoRunResult>(
          { op: "run", conn: id, set: id, offset: warmup ? measured.length : 0, n, concurrency, boundMs, marks: opts.marks ?? [] },
          opts.onMark,
        );
        return {
          wallMs: r.wallMs,
          done: r.done,
          ...(r.aborted ? { aborted: `time bound reached after ${r.done} of ${n}` } : {}),
          ok: r.ok,
          failed: r.failed,
          latencies: r.latencies.sort((a, b) => a - b),
          firstError: r.firstError,
          clientCpuMs: r.cpuMs + (clientCpuMs() - cpu0),
        };
      },
      close: async () => {
        await this.ask({ op: "close", conn: id });
        await this.ask({ op: "drop", set: id });
      },
    };
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    await exited;
  }
}

export function makeDriver(kind: ClientKind): Driver {
  return kind === "go" ? new GoDriver() : new NodeDriver();
}
