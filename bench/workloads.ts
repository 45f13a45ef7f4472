// The benchmark's workloads (issue 5), each a set of requests built before the
// clock starts and a task that sends one unit of work through a Recorder.
// Sizes come from the run: the full bench or the --smoke one.
import { pb } from "../test/helpers/client.js";
import { propertyBag, type Language, type ProviderSet } from "./payloads.js";

/**
 * How long a workload's requests take: "fast" for cheap ones (trivial, cycle,
 * distinct), where a 500-request pass lasts 40–250 ms and the Node-based
 * plugins' JIT needs thousands of calls to settle; "slow" for those that
 * wait or compute for 5–20 ms or carry big bags, whatever the JIT does.
 */
export type Pace = "fast" | "slow";

export interface Sizes {
  /** Launches per plugin for the start-up workload (median reported), and for the first-requests workload. */
  launches: number;
  /**
   * The first-requests workload: how many Checks a fresh plugin gets, one at
   * a time, and where its ranges end (1–10, 11–100, 101–300 in full).
   */
  firstMarks: number[];
  trivial: number;
  io: number;
  cpu: number;
  /** Resources taken through the whole cycle. */
  cycle: number;
  distinct: number;
  /** Property-bag sizes of the opt-in payload workload, in bytes. */
  payloadBytes: number[];
  /** Sequential round trips per payload size. */
  payloadReps: (bytes: number) => number;
  /**
   * Unmeasured requests sent first to every freshly launched plugin (the
   * cycle warms with as many requests, the distinct workload with the trivial
   * provider): workers started, providers loaded, the JIT warm. Throughput is
   * steady-state; the start-up and first-requests workloads are where cold
   * costs show. With the Go client, the Node-based plugins' throughput still
   * rose by half between the first and last of five passes after 500
   * requests; 5000 would keep the Python reference's IO-bound run busy for
   * 28 s. The slow workloads' 1500 is past the 1000 requests after which our
   * host lowers V8's interrupt budget (src/host/tuning/tier-up.ts), so that its
   * compiling falls in the warm-up as it does for the fast workloads.
   */
  warmup: Record<Pace, number>;
  /**
   * Measured passes of each repeatable workload after the warm-up, taken in
   * turns by the plugins; the table shows the pass of median throughput. A
   * fast pass lasts 40–250 ms on this shared machine, so one pass alone moves
   * by ±20–50 %: those get more passes.
   */
  rounds: Record<Pace, number>;
  /** Time bound of each (plugin, workload) after the launch, in ms. */
  boundMs: number;
}

export const FULL: Sizes = {
  launches: 7,
  firstMarks: [10, 100, 300],
  trivial: 500,
  io: 500,
  cpu: 500,
  cycle: 200,
  distinct: 1000,
  payloadBytes: [1024, 64 * 1024, 1024 * 1024, 10 * 1024 * 1024],
  payloadReps: (bytes) => (bytes >= 10 * 1024 * 1024 ? 5 : bytes >= 1024 * 1024 ? 10 : 40),
  warmup: { fast: 5000, slow: 1500 },
  rounds: { fast: 11, slow: 5 },
  boundMs: 90_000,
};

export const SMOKE: Sizes = {
  launches: 1,
  firstMarks: [2, 6, 12],
  trivial: 24,
  io: 32,
  cpu: 8,
  cycle: 16,
  distinct: 12,
  payloadBytes: [1024, 64 * 1024],
  payloadReps: () => 3,
  warmup: { fast: 16, slow: 16 },
  rounds: { fast: 3, slow: 2 },
  boundMs: 20_000,
};

/** What a workload's requests are built from, for one plugin. */
export interface Target {
  language: Language;
  providers: ProviderSet;
}

/** One call: a method of the generated client (`create`, `diff`, …) and its request message. */
export type Step = readonly [method: string, request: any];
/** Calls sent one after another, stopping at the first that fails (a cycle's five steps, or one Create). */
export type Unit = readonly Step[];

/** Units sent with at most `concurrency` of them in flight. */
export interface Batch {
  units: Unit[];
  concurrency: number;
}

/** A workload's requests for one plugin, all built before any clock starts. */
export interface Prepared {
  /** Sent first, unmeasured: starts workers, loads the provider, warms the JIT. */
  warmup?: Batch;
  /** One measured pass (every pass sends the same units). */
  measure: Batch;
}

export interface LoadWorkload {
  id: string;
  title: string;
  /** Units of work (a unit of the cycle is one resource: 5 requests). */
  n: number;
  concurrency: number;
  requestsPerUnit: number;
  /** False when a second pass would measure something else (providers already cached): measured once. */
  repeatable: boolean;
  pace: Pace;
  prepare(t: Target): Prepared;
}

export const STARTUP = { id: "startup", title: "spawn → port line, and spawn → GetPluginInfo, Configure, first Create answered (median of launches)" };

const typeOf = (language: Language) => (language === "python" ? "pulumi-python:dynamic:Resource" : "pulumi-nodejs:dynamic:Resource");
const urnOf = (t: Target, name: string) => `urn:pulumi:bench::bench::${typeOf(t.language)}::${name}`;
const struct = (o: Record<string, unknown>) => pb.structPb.Struct.fromJavaScript(o);

export const FIRST = {
  id: "first",
  title: "a fresh plugin's first Checks, one at a time as the engine sends them, 1 ms apart: CPU per request by request number (all launches together)",
};

/** The pause between two of the first-requests workload's Checks: the engine sends the next as the next registration arrives. */
export const FIRST_GAP_MS = 1;

/** A Check as the engine sends one for a new resource: no olds, the program's inputs as news. */
export function checkRequest(t: Target, name: string, properties: Record<string, unknown>): any {
  const req = new pb.provider.CheckRequest();
  req.setUrn(urnOf(t, name));
  req.setType(typeOf(t.language));
  req.setName(name);
  req.setOlds(struct({}));
  req.setNews(struct(properties));
  return req;
}

export function createRequest(t: Target, name: string, properties: Record<string, unknown>): any {
  const req = new pb.provider.CreateRequest();
  req.setUrn(urnOf(t, name));
  req.setType(typeOf(t.language));
  req.setName(name);
  req.setProperties(struct(properties));
  return req;
}

export function configureRequest(): any {
  const req = new pb.provider.ConfigureRequest();
  req.setArgs(struct({}));
  req.setAcceptsecrets(true);
  req.setAcceptresources(true);
  return req;
}

/** A workload's pace and the warm-up it gets for it. */
interface Pacing {
  pace: Pace;
  warm: number;
}

/** `n` Creates (after `warm` more of the same) of one provider with fixed properties. */
function creates(
  id: string,
  title: string,
  n: number,
  concurrency: number,
  { pace, warm }: Pacing,
  props: (t: Target) => Record<string, unknown>,
): LoadWorkload {
  return {
    id,
    title,
    n,
    concurrency,
    requestsPerUnit: 1,
    repeatable: true,
    pace,
    prepare(t) {
      const unit = (name: string): Unit => [["create", createRequest(t, name, props(t))]];
      return {
        warmup: { units: Array.from({ length: warm }, (_, i) => unit(`warm${i}`)), concurrency },
        measure: { units: Array.from({ length: n }, (_, i) => unit(`r${i}`)), concurrency },
      };
    },
  };
}

/** check → create → diff → update → delete for `n` resources, `concurrency` resources at a time. */
function cycle(n: number, concurrency: number, { pace, warm: warmRequests }: Pacing): LoadWorkload {
  const warm = Math.max(concurrency, Math.ceil(warmRequests / 5));
  return {
    id: `cycle-c${concurrency}`,
    title: `check → create → diff → update → delete of ${n} resources at concurrency ${concurrency}`,
    n,
    concurrency,
    requestsPerUnit: 5,
    repeatable: true,
    pace,
    prepare(t) {
      const build = (k: number): Unit => {
        const name = `r${k}`;
        const urn = urnOf(t, name);
        const id = `crud-${k}`;
        const olds = { __provider: t.providers.crud, n: k };
        const news = { __provider: t.providers.crud, n: k + 1 };
        const check = new pb.provider.CheckRequest();
        check.setUrn(urn);
        check.setName(name);
        check.setType(typeOf(t.language));
        check.setOlds(struct({}));
        check.setNews(struct(olds));
        const create = createRequest(t, name, olds);
        // Diff and Update carry the same resource and the same olds → news change.
        const change = (req: any) => {
          req.setUrn(urn);
          req.setId(id);
          req.setOlds(struct(olds));
          req.setNews(struct(news));
          req.setOldInputs(struct(olds));
          return req;
        };
        const diff = change(new pb.provider.DiffRequest());
        const update = change(new pb.provider.UpdateRequest());
        const del = new pb.provider.DeleteRequest();
        del.setUrn(urn);
        del.setId(id);
        del.setProperties(struct(news));
        del.setOldInputs(struct(news));
        return [
          ["check", check],
          ["create", create],
          ["diff", diff],
          ["update", update],
          ["delete", del],
        ];
      };
      return {
        warmup: { units: Array.from({ length: warm }, (_, i) => build(n + i)), concurrency },
        measure: { units: Array.from({ length: n }, (_, k) => build(k)), concurrency },
      };
    },
  };
}

/** One Create for each of `n` distinct providers (each loaded and cached once). */
function distinct(n: number, concurrency: number, { pace, warm }: Pacing): LoadWorkload {
  return {
    id: "distinct",
    title: `${n} distinct providers (distinct payloads), one Create each, concurrency ${concurrency}`,
    n,
    concurrency,
    requestsPerUnit: 1,
    repeatable: false,
    pace,
    prepare(t) {
      // The ceiling ignores __provider: it gets the Node texts.
      const units = t.providers.distinct.map((text, i): Unit => [["create", createRequest(t, `d${i}`, { __provider: text })]]);
      // Warm with another provider: workers up and the SDK loaded, no distinct provider cached yet.
      const warmUnits = Array.from({ length: warm }, (_, i): Unit => [["create", createRequest(t, `warm${i}`, { __provider: t.providers.trivial })]]);
      return { warmup: { units: warmUnits, concurrency }, measure: { units, concurrency } };
    },
  };
}

export function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)}MiB` : `${bytes / 1024}KiB`;
}

/** Sequential Creates of an echoing provider with a property bag of `bytes`: it travels both ways. */
function payload(bytes: number, reps: number, { pace, warm }: Pacing): LoadWorkload {
  return {
    id: `payload-${sizeLabel(bytes)}`,
    title: `${reps} Creates (concurrency 1) of an echoing provider with a ${sizeLabel(bytes)} property bag, echoed back`,
    n: reps,
    concurrency: 1,
    requestsPerUnit: 1,
    repeatable: true,
    pace,
    prepare(t) {
      const bag = propertyBag(bytes);
      // One request message sent every time: the drivers encode it once.
      const unit: Unit = [["create", createRequest(t, "big", { __provider: t.providers.echo, ...bag })]];
      return {
        warmup: { units: Array(Math.max(1, Math.min(warm, reps))).fill(unit), concurrency: 1 },
        measure: { units: Array(reps).fill(unit), concurrency: 1 },
      };
    },
  };
}

/** The workloads of issue 5 in order, then the opt-in payload-size ones (run with --only payload). */
export function loadWorkloads(s: Sizes): { standard: LoadWorkload[]; optIn: LoadWorkload[] } {
  const trivial = (t: Target) => ({ __provider: t.providers.trivial });
  const fast: Pacing = { pace: "fast", warm: s.warmup.fast };
  const slow: Pacing = { pace: "slow", warm: s.warmup.slow };
  return {
    standard: [
      ...[1, 8, 32].map((c) => creates(`trivial-c${c}`, `${s.trivial} trivial Creates at concurrency ${c}`, s.trivial, c, fast, trivial)),
      creates("io-c32", `${s.io} IO-bound Creates (each waits 20 ms) at concurrency 32`, s.io, 32, slow, (t) => ({
        __provider: t.providers.io,
        seconds: 0.02,
      })),
      creates("cpu-c8", `${s.cpu} CPU-bound Creates (each hashes for 5 ms) at concurrency 8`, s.cpu, 8, slow, (t) => ({
        __provider: t.providers.cpu,
        seconds: 0.005,
      })),
      cycle(s.cycle, 16, fast),
      distinct(s.distinct, 8, fast),
    ],
    optIn: s.payloadBytes.map((b) => payload(b, s.payloadReps(b), slow)),
  };
}
