// The performance targets of issue "Python mode ahead of the Python reference
// on every command, and 10,000 resources", judged from a run's own
// measurements. Pure: the benchmarks (bench/run.ts, bench/engine-run.ts,
// bench/trace-run.ts) hand in what they measured, and a target whose
// measurement the run did not take is "not measured", never assumed.
import { median } from "./measure.js";

export const ENGINE_STEPS = ["preview", "up-create", "up-nochange", "up-update", "refresh", "destroy"] as const;
export type EngineStep = (typeof ENGINE_STEPS)[number];

/** One lifecycle of the engine benchmark, as far as the targets read it. */
export interface TargetLifecycle {
  language: "nodejs" | "python";
  kind: "ours" | "reference" | "floor";
  provider: string;
  n: number;
  seconds: Partial<Record<EngineStep, number>>;
  usage?: Partial<Record<EngineStep, { peakHostRssMiB: number; peakRssMiB: number }>>;
  /** Where the program ran, when a run has several (the trace's environments). */
  environment?: string;
}

/** A lifecycle that could not run. */
export interface TargetFailure {
  language: "nodejs" | "python";
  kind: "ours" | "reference" | "floor";
  provider: string;
  n: number;
  why: string;
}

export interface TargetInputs {
  /** The RPC benchmark's start-up workload: median spawn → first Create, ms. */
  startup?: { oursPython?: number; pythonReference?: number };
  /** The engine benchmark's lifecycles (absent: not run). */
  lifecycles?: TargetLifecycle[];
  failures?: TargetFailure[];
  /** Whether the engine's CLI ran with PULUMI_SKIP_CHECKPOINTS=true. */
  skipCheckpoints?: boolean;
}

export type Verdict = "holds" | "misses" | "not measured";

export interface TargetResult {
  id: "python-first-create" | "python-commands" | "node-commands" | "scale-1000" | "scale-10000";
  target: string;
  measured: string;
  verdict: Verdict;
}

export const BOUNDS = {
  pythonFirstCreate: 0.8,
  pythonCommands: 0.9,
  nodeCommands: 0.8,
  scale1000: 0.7,
  scale10000RssMiB: 300,
} as const;

/** The reference lifecycles a provider's are compared with: the declared type's reference serves the trivial provider serialized. */
const againstOf = (provider: string) => (provider === "declared" ? "trivial" : provider);

/** Median ours ÷ median reference per step, for one language, provider, N and environment; undefined where either is missing. */
function ratios(all: TargetLifecycle[], language: string, provider: string, n: number, environment: string | undefined) {
  const pick = (kind: string, p: string) => all.filter((l) => l.language === language && l.kind === kind && l.provider === p && l.n === n && l.environment === environment);
  const ours = pick("ours", provider);
  const ref = pick("reference", againstOf(provider));
  if (ours.length === 0 || ref.length === 0) return undefined;
  const out: Partial<Record<EngineStep, number>> = {};
  for (const step of ENGINE_STEPS) {
    const o = ours.map((l) => l.seconds[step]).filter((v): v is number => typeof v === "number");
    const r = ref.map((l) => l.seconds[step]).filter((v): v is number => typeof v === "number");
    if (o.length && r.length && median(r) > 0) out[step] = median(o) / median(r);
  }
  return out;
}

/** "ratio per command" targets: every step of every (provider, environment) measured at `n` ≤ bound. */
function commandTarget(inputs: TargetInputs, language: "nodejs" | "python", n: number, bound: number, filter: (provider: string) => boolean) {
  const all = inputs.lifecycles ?? [];
  const groups = new Map<string, { provider: string; environment?: string }>();
  for (const l of all) {
    if (l.language !== language || l.kind !== "ours" || l.n !== n || !filter(l.provider)) continue;
    groups.set(`${l.provider}\0${l.environment ?? ""}`, { provider: l.provider, environment: l.environment });
  }
  const parts: string[] = [];
  let measured = 0;
  let missed = 0;
  for (const { provider, environment } of groups.values()) {
    const r = ratios(all, language, provider, n, environment);
    if (!r || Object.keys(r).length === 0) continue;
    const cells = ENGINE_STEPS.filter((s) => r[s] !== undefined).map((s) => {
      measured++;
      const over = r[s]! > bound;
      if (over) missed++;
      return `${s} ${r[s]!.toFixed(2)}${over ? " ✗" : ""}`;
    });
    parts.push(`${[provider, environment].filter(Boolean).join(", ")}: ${cells.join(", ")}`);
  }
  if (measured === 0) return { measured: "not measured in this run", verdict: "not measured" as Verdict };
  return { measured: parts.join("; "), verdict: (missed ? "misses" : "holds") as Verdict };
}

/** Judges every target from `inputs`; in the order of the issue. */
export function judgeTargets(inputs: TargetInputs): TargetResult[] {
  const results: TargetResult[] = [];

  const s = inputs.startup;
  if (s?.oursPython !== undefined && s.pythonReference !== undefined && s.pythonReference > 0) {
    const r = s.oursPython / s.pythonReference;
    results.push({
      id: "python-first-create",
      target: `Python mode's first Create after spawn ≤ ${BOUNDS.pythonFirstCreate}× the Python reference's`,
      measured: `${s.oursPython.toFixed(1)} / ${s.pythonReference.toFixed(1)} ms = ${r.toFixed(2)}×`,
      verdict: r <= BOUNDS.pythonFirstCreate ? "holds" : "misses",
    });
  } else {
    results.push({
      id: "python-first-create",
      target: `Python mode's first Create after spawn ≤ ${BOUNDS.pythonFirstCreate}× the Python reference's`,
      measured: "not measured in this run (the RPC benchmark's startup workload: npm run bench -- --only startup)",
      verdict: "not measured",
    });
  }

  const notServedByReference = (p: string) => p !== "declared" && p !== "none";
  results.push({
    id: "python-commands",
    target: `every engine command of a one-resource Python program ≤ ${BOUNDS.pythonCommands}× the reference's`,
    ...commandTarget(inputs, "python", 1, BOUNDS.pythonCommands, notServedByReference),
  });
  results.push({
    id: "node-commands",
    target: `Node mode: every engine command of a one-resource program ≤ ${BOUNDS.nodeCommands}× the Node reference's`,
    ...commandTarget(inputs, "nodejs", 1, BOUNDS.nodeCommands, notServedByReference),
  });

  // 1,000 resources: each language where ours ran at N = 1,000; the reference's failure to run is said, not judged.
  const scaleTarget = `1,000 resources ≤ ${BOUNDS.scale1000}× the references' wall time (PULUMI_SKIP_CHECKPOINTS=true), where they can run`;
  const at1000 = (inputs.lifecycles ?? []).filter((l) => l.n === 1000 && l.kind === "ours");
  if (at1000.length === 0) {
    results.push({ id: "scale-1000", target: scaleTarget, measured: "not measured in this run (--n 1000 --skip-checkpoints)", verdict: "not measured" });
  } else if (!inputs.skipCheckpoints) {
    results.push({ id: "scale-1000", target: scaleTarget, measured: "not measured: N = 1,000 ran without --skip-checkpoints", verdict: "not measured" });
  } else {
    const parts: string[] = [];
    let judged = 0;
    let missed = 0;
    for (const language of ["nodejs", "python"] as const) {
      for (const provider of [...new Set(at1000.filter((l) => l.language === language).map((l) => l.provider))]) {
        const r = ratios(inputs.lifecycles!, language, provider, 1000, undefined);
        if (!r || Object.keys(r).length === 0) {
          const failed = (inputs.failures ?? []).find((f) => f.language === language && f.kind === "reference" && f.n === 1000 && f.provider === againstOf(provider));
          parts.push(`${language} ${provider}: ${failed ? `the reference could not run (${failed.why.slice(0, 120)})` : "no reference lifecycle in this run"}`);
          continue;
        }
        const cells = ENGINE_STEPS.filter((st) => r[st] !== undefined).map((st) => {
          judged++;
          const over = r[st]! > BOUNDS.scale1000;
          if (over) missed++;
          return `${st} ${r[st]!.toFixed(2)}${over ? " ✗" : ""}`;
        });
        parts.push(`${language} ${provider}: ${cells.join(", ")}`);
      }
    }
    results.push({ id: "scale-1000", target: scaleTarget, measured: parts.join("; "), verdict: judged === 0 ? "not measured" : missed ? "misses" : "holds" });
  }

  const rssTarget = `10,000 resources complete with the host's peak RSS ≤ ${BOUNDS.scale10000RssMiB} MiB`;
  const at10000 = (inputs.lifecycles ?? []).filter((l) => l.n === 10000 && l.kind === "ours");
  const failed10000 = (inputs.failures ?? []).filter((f) => f.n === 10000 && f.kind === "ours");
  if (at10000.length === 0 && failed10000.length === 0) {
    results.push({ id: "scale-10000", target: rssTarget, measured: "not measured in this run (--n 10000 --ours-only)", verdict: "not measured" });
  } else {
    const parts: string[] = [];
    let over = false;
    for (const l of at10000) {
      const peaks = ENGINE_STEPS.map((st) => l.usage?.[st]?.peakHostRssMiB).filter((v): v is number => typeof v === "number");
      const done = ENGINE_STEPS.every((st) => typeof l.seconds[st] === "number");
      const peak = peaks.length ? Math.max(...peaks) : undefined;
      if (!done || peak === undefined || peak > BOUNDS.scale10000RssMiB) over = true;
      parts.push(`${l.language} ${l.provider}: ${done ? "completed" : "incomplete"}, host peak ${peak === undefined ? "not sampled" : `${peak.toFixed(0)} MiB`}`);
    }
    for (const f of failed10000) parts.push(`${f.language} ${f.provider}: could not run (${f.why.slice(0, 120)})`);
    results.push({ id: "scale-10000", target: rssTarget, measured: parts.join("; "), verdict: over || failed10000.length ? "misses" : "holds" });
  }
  return results;
}

/** The "Targets" table a benchmark's report ends with. */
export function formatTargets(results: TargetResult[]): string {
  const lines = ["", "## Targets", "", "| target | measured (ours ÷ reference per command; ✗ above the bound) | verdict |", "|---|---|---|"];
  for (const r of results) lines.push(`| ${r.target} | ${r.measured} | ${r.verdict} |`);
  return lines.join("\n");
}
