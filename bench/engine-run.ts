// `npm run bench -- --engine`: what users feel. The real engine (the CLI that
// scripts/engine.sh builds) runs a TypeScript and a Python program of N dynamic
// resources through preview, up (create), up (no change), up (update all),
// refresh and destroy, once with our plugins and once with Pulumi's own, each
// installed where the engine finds it (test/e2e/harness.ts), the two taking
// turns on the same machine, several rounds. Beside them, the engine's floor:
// the same program with no dynamic resource. Prints a table of medians with
// spread and the ratio ours ÷ reference per step, and writes every sample as JSON.
// During each step the plugin processes the engine started are sampled from /proc
// (bench/plugin-processes.ts): their CPU per resource and peak RSS, the host's
// alone and its whole tree's (ours: the host and its Python workers).
//
//   node dist/bench/run.js --engine [--n 1,10,100] [--providers trivial,waiting,declared]
//                                   [--languages nodejs,python] [--rounds 3] [--skip-checkpoints] [--out <file.json>]
//
// Programs are Automation API inline programs (the language hosts are not
// served by the Go module proxy here): the Node one runs in this process, the
// Python one in bench/engine/python_engine_bench.py under the test virtualenv.
//
// The `distinct` provider is the trivial one with a closure (Node) or an
// instance (Python) of its own per resource, so every __provider text differs:
// what the host must load without keeping an unbounded number of them.
// `--ours-only` leaves out the references and the floor (the largest sizes).
//
// The `declared` provider is the trivial one declared in the program's
// Pulumi.yaml (docs/every-language.md): the program registers its type with
// plain inputs and serializes nothing. Only our plugins can serve it, so its
// reference column is Pulumi's plugin serving the `trivial` provider as the
// SDK serializes it (a closure, a pickle): what the program costs without
// declarations. A lifecycle that cannot run (a Python program pickling more
// providers than the SDK's serializer survives) is reported as such.
// The report ends with the targets, judged from this run's lifecycles
// (bench/targets.ts); `--trace` runs the whole-command trace instead (bench/trace-run.ts).
//
// Each program's provider reports which plugin ran it, and a lifecycle whose
// resources were served by another plugin than the one meant, or whose steps
// changed other than N resources, fails the run rather than giving a number.
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { E2E_BIN, E2E_ROOT, prepareEngine, prepareReferenceEngine, REFERENCE_ROOT, sandbox, type Sandbox } from "../test/e2e/harness.js";
import { REFERENCE_NODE_PLUGIN, REPO, TEST_VENV, VENV_PYTHON } from "../test/helpers/paths.js";
import { median } from "./measure.js";
import { PluginSampler, type PluginUsage } from "./plugin-processes.js";
import { formatTargets, judgeTargets, type TargetFailure } from "./targets.js";

const require = createRequire(import.meta.url);
const BENCH_DIR = fileURLToPath(new URL("../../bench/", import.meta.url));

export const STEPS = ["preview", "up-create", "up-nochange", "up-update", "refresh", "destroy"] as const;
type Step = (typeof STEPS)[number];
type Language = "nodejs" | "python";
type ProviderKind = "trivial" | "waiting" | "declared" | "distinct";
const PROVIDER_KINDS = ["trivial", "waiting", "declared", "distinct"] as const;
/** The type token the `declared` provider is declared for, in both languages' packages. */
const DECLARED_TYPE = { nodejs: "pulumi-nodejs:dynamic:BenchTrivial", python: "pulumi-python:dynamic:BenchTrivial" } as const;
/** Whose plugins serve the program; `floor` is the program with no dynamic resource. */
type Kind = "ours" | "reference" | "floor";

interface Options {
  n: number[];
  providers: ProviderKind[];
  languages: Language[];
  rounds: number;
  out: string;
  /** PULUMI_SKIP_CHECKPOINTS for every CLI run: the file backend's state writes left out, so the plugins' share shows. */
  skipCheckpoints: boolean;
  /** Ours alone (no reference lifecycles, no floor): the sizes where only the host's own cost is wanted. */
  oursOnly: boolean;
}

interface Lifecycle {
  language: Language;
  kind: Kind;
  provider: ProviderKind | "none";
  n: number;
  round: number;
  seconds: Record<Step, number>;
  /** The plugin processes the engine started during each step (bench/plugin-processes.ts). */
  usage: Record<Step, PluginUsage>;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    n: [1, 10, 100],
    providers: ["trivial", "waiting"],
    languages: ["nodejs", "python"],
    rounds: 3,
    out: path.join(BENCH_DIR, "results", "engine-latest.json"),
    skipCheckpoints: false,
    oursOnly: false,
  };
  const list = (v: string | undefined, flag: string) => {
    if (!v) throw new Error(`${flag} needs a comma-separated list`);
    return v.split(",").map((s) => s.trim()).filter(Boolean);
  };
  const oneOf = <T extends string>(values: string[], allowed: readonly T[], flag: string): T[] => {
    for (const v of values) if (!allowed.includes(v as T)) throw new Error(`${flag}: ${v} is not one of ${allowed.join(", ")}`);
    return values as T[];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--engine") continue;
    else if (a === "--n") {
      opts.n = list(argv[++i], a).map(Number);
      if (opts.n.some((n) => !Number.isInteger(n) || n < 1)) throw new Error("--n needs whole numbers of resources, at least 1");
    } else if (a === "--providers") opts.providers = oneOf(list(argv[++i], a), PROVIDER_KINDS, a);
    else if (a === "--languages") opts.languages = oneOf(list(argv[++i], a), ["nodejs", "python"] as const, a);
    else if (a === "--rounds") {
      opts.rounds = Number(argv[++i]);
      if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error("--rounds needs a whole number, at least 1");
    } else if (a === "--out") opts.out = path.resolve(argv[++i] ?? "");
    else if (a === "--skip-checkpoints") opts.skipCheckpoints = true;
    else if (a === "--ours-only") opts.oursOnly = true;
    else if (a === "--help" || a === "-h") {
      process.stdout.write(
        "usage: node dist/bench/run.js --engine [--n 1,10,100] [--providers trivial,waiting,declared,distinct] [--languages nodejs,python] [--rounds <n>] [--skip-checkpoints] [--ours-only] [--out <file.json>]\n",
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

const progress = (line: string) => process.stderr.write(`bench-engine: ${line}\n`);

/** The CLI's root and the PATH that puts its plugins first, so both of the engine's lookups find the same ones. */
function engineFor(kind: Kind): { root: string; bin: string } {
  if (kind === "reference") return { root: REFERENCE_ROOT, bin: `${REFERENCE_ROOT}/bin` };
  return { root: E2E_ROOT, bin: E2E_BIN };
}

function cliEnv(sb: Sandbox, kind: Kind): Record<string, string> {
  const { bin } = engineFor(kind);
  return { ...sb.env, PATH: `${bin}:${process.env.PATH ?? ""}` };
}

/** Who must have served the resources, as the providers report it (process.argv[1] / sys.argv[0]). */
function expectedServer(language: Language, kind: Kind): (ranBy: unknown) => boolean {
  if (language === "nodejs") {
    const want = kind === "ours" ? `${E2E_BIN}/pulumi-resource-pulumi-nodejs` : REFERENCE_NODE_PLUGIN;
    return (r) => r === want;
  }
  return kind === "ours" ? (r) => typeof r === "string" && r.endsWith("/worker.py") : (r) => typeof r === "string" && r.endsWith("/pulumi/dynamic/__main__.py");
}

/** How many resources each step must have touched (the stack itself included where the engine counts it). */
function checkChanges(step: Step, n: number, changes: Record<string, number> | undefined): string | undefined {
  const c = changes ?? {};
  const want: Partial<Record<Step, [string, number]>> = {
    preview: ["create", n + 1],
    "up-create": ["create", n + 1],
    "up-update": ["update", n],
    destroy: ["delete", n + 1],
  };
  const w = want[step];
  if (w && (c[w[0]] ?? 0) !== w[1]) return `${step}: expected ${w[1]} ${w[0]}, the engine reported ${JSON.stringify(c)}`;
  if (step === "up-nochange" && (c.create || c.update || c.delete || c.replace)) return `${step}: expected no change, the engine reported ${JSON.stringify(c)}`;
  return undefined;
}

/** One stack's life with the Node program in this process (its inline program is served from here). */
async function nodeLifecycle(sb: Sandbox, kind: Kind, provider: ProviderKind | "none", n: number, stackName: string, workDir: string) {
  const pulumi = require("@pulumi/pulumi");
  const automation = require("@pulumi/pulumi/automation");
  const providers = require(`${REPO}bench/engine/providers.cjs`);
  let generation = 1;
  const program = async () => {
    if (provider === "none") return;
    if (provider === "declared") {
      for (let i = 0; i < n; i++) new pulumi.CustomResource(DECLARED_TYPE.nodejs, `r${i}`, { name: `r${i}`, generation, ranBy: undefined });
      return;
    }
    for (let i = 0; i < n; i++) {
      // `distinct`: the trivial provider with a per-resource constant in its closure, so every __provider text differs.
      const p = provider === "distinct" ? providers.distinct(i) : providers[provider];
      new pulumi.dynamic.Resource(p, `r${i}`, { name: `r${i}`, generation });
    }
  };
  const project = "bench-engine-nodejs";
  const declarations = { providers: { [DECLARED_TYPE.nodejs]: `${REPO}bench/engine/providers.cjs#trivial` } };
  const pulumiCommand = await automation.PulumiCommand.get({ root: engineFor(kind).root, skipVersionCheck: true });
  const stack = await automation.LocalWorkspace.createOrSelectStack(
    { stackName, projectName: project, program },
    {
      workDir,
      pulumiHome: sb.home,
      envVars: cliEnv(sb, kind),
      pulumiCommand,
      projectSettings: { name: project, runtime: "nodejs", backend: { url: `file://${sb.backend}` }, "pulumi-dynamic-host": declarations },
    },
  );
  const seconds = {} as Record<Step, number>;
  const usage = {} as Record<Step, PluginUsage>;
  const changes: Record<string, Record<string, number>> = {};
  let ranBy: unknown;
  for (const step of STEPS) {
    if (step === "up-update") generation = 2;
    const sampler = new PluginSampler();
    const t0 = performance.now();
    if (step === "preview") changes[step] = (await stack.preview({})).changeSummary;
    else if (step === "refresh") changes[step] = (await stack.refresh({})).summary.resourceChanges;
    else if (step === "destroy") changes[step] = (await stack.destroy({})).summary.resourceChanges;
    else changes[step] = (await stack.up({})).summary.resourceChanges;
    seconds[step] = (performance.now() - t0) / 1000;
    usage[step] = sampler.stop();
    if (step === "up-create" && provider !== "none") {
      const deployment = await stack.exportStack();
      ranBy = (deployment.deployment.resources ?? []).find((r: any) => r.type.startsWith("pulumi-nodejs:"))?.outputs?.ranBy;
    }
  }
  await stack.workspace.removeStack(stackName);
  return { seconds, usage, changes, ranBy };
}

/**
 * One stack's life with the Python program (bench/engine/python_engine_bench.py)
 * in the test virtualenv: a process per step, as the CLI runs a program once per
 * command (the SDK's serializer cannot pickle a few hundred providers in one
 * process; see there).
 */
async function pythonLifecycle(sb: Sandbox, kind: Kind, provider: ProviderKind | "none", n: number, stackName: string, workDir: string) {
  const seconds = {} as Record<Step, number>;
  const usage = {} as Record<Step, PluginUsage>;
  const changes: Record<string, Record<string, number>> = {};
  let ranBy: unknown;
  for (const step of STEPS) {
    const settings = {
      root: engineFor(kind).root,
      backend: sb.backend,
      home: sb.home,
      env: cliEnv(sb, kind),
      venv: fs.realpathSync(TEST_VENV),
      work_dir: workDir,
      stack: stackName,
      n,
      provider,
      steps: [step],
      generation: STEPS.indexOf(step) >= STEPS.indexOf("up-update") ? 2 : 1,
      remove: step === "destroy",
    };
    const sampler = new PluginSampler();
    let doc: Awaited<ReturnType<typeof pythonStep>>;
    try {
      doc = await pythonStep(settings, `${kind}, ${provider}, n=${n}, ${step}`, workDir);
    } finally {
      usage[step] = sampler.stop();
    }
    seconds[step] = doc.seconds[step];
    changes[step] = doc.changes[step];
    if (step === "up-create") ranBy = doc.ran_by;
  }
  return { seconds, usage, changes, ranBy };
}

function pythonStep(settings: object, what: string, workDir: string): Promise<{ seconds: Record<string, number>; changes: Record<string, Record<string, number>>; ran_by: unknown }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_") && k !== "VIRTUAL_ENV"));
  return new Promise((resolve, reject) => {
    execFile(VENV_PYTHON, [`${REPO}bench/engine/python_engine_bench.py`, JSON.stringify(settings)], { cwd: workDir, env, encoding: "utf8", maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`python program (${what}): ${err.message}\n${stderr.slice(-4000)}`));
      resolve(JSON.parse(stdout.trim().split("\n").pop()!));
    });
  });
}

async function lifecycle(sb: Sandbox, language: Language, kind: Kind, provider: ProviderKind | "none", n: number, round: number): Promise<Lifecycle> {
  const stackName = `${kind}-${provider}-n${n}-r${round}`;
  const workDir = `${REPO}.cache/bench-engine/${language}`;
  fs.mkdirSync(workDir, { recursive: true });
  // The declared Python provider is imported from the program's directory, as a project's own module.
  if (language === "python") fs.copyFileSync(`${REPO}bench/engine/bench_declared.py`, `${workDir}/bench_declared.py`);
  const run = language === "nodejs" ? nodeLifecycle : pythonLifecycle;
  const r = await run(sb, kind, provider, n, stackName, workDir);
  const count = provider === "none" ? 0 : n;
  for (const step of STEPS) {
    const wrong = checkChanges(step, count, r.changes[step]);
    if (wrong) throw new Error(`${language} ${kind} ${provider} n=${n}: ${wrong}`);
  }
  if (provider !== "none" && !expectedServer(language, kind)(r.ranBy)) {
    throw new Error(`${language} ${kind} ${provider} n=${n}: the resources were served by ${JSON.stringify(r.ranBy)}, not the ${kind} plugin`);
  }
  return { language, kind, provider, n, round, seconds: r.seconds, usage: r.usage };
}

interface Cell {
  median: number;
  /** Half the range of the samples over their median. */
  spread: number;
  samples: number[];
}

function cell(samples: number[]): Cell | undefined {
  if (samples.length === 0) return undefined;
  const m = median(samples);
  return { median: m, spread: m > 0 ? (Math.max(...samples) - Math.min(...samples)) / 2 / m : 0, samples };
}

function pick(all: Lifecycle[], language: Language, kind: Kind, provider: string, n: number | undefined, step: Step): Cell | undefined {
  return cell(all.filter((l) => l.language === language && l.kind === kind && l.provider === provider && (n === undefined || l.n === n)).map((l) => l.seconds[step]));
}

function pickUsage(all: Lifecycle[], language: Language, kind: Kind, provider: string, n: number, step: Step, field: keyof PluginUsage): number | undefined {
  const values = all
    .filter((l) => l.language === language && l.kind === kind && l.provider === provider && l.n === n && l.usage?.[step])
    .map((l) => l.usage[step][field]);
  return values.length ? median(values) : undefined;
}

export function formatEngineReport(all: Lifecycle[], opts: Pick<Options, "languages" | "providers" | "n" | "rounds">): string {
  const fmt = (c: Cell | undefined) => (c ? `${c.median.toFixed(2)} s ±${Math.round(c.spread * 100)}%` : "—");
  const ms = (v: number | undefined, n: number) => (v === undefined ? "—" : ((v * 1000) / n).toFixed(2));
  const mib = (v: number | undefined) => (v === undefined ? "—" : v.toFixed(0));
  const sec = (v: number | undefined) => (v === undefined ? "—" : v.toFixed(2));
  const lines: string[] = [];
  for (const language of opts.languages) {
    for (const provider of opts.providers) {
      for (const n of opts.n) {
        const against = provider === "declared" ? "trivial" : provider;
        const heading = provider === "declared" ? "declared provider (reference: the trivial provider serialized)" : `${provider} provider`;
        lines.push("", `### ${language}, ${heading}, N = ${n} (${opts.rounds} round${opts.rounds > 1 ? "s" : ""}, medians)`, "");
        lines.push(
          "| step | floor | ours | reference | ours ÷ reference | above the floor: ours ÷ reference | plugin CPU ms/resource: ours | reference | host CPU ms/resource: ours | reference | peak RSS MiB, host: ours | reference | peak RSS MiB, all plugin processes: ours | reference | host waiting for a CPU s: ours | reference | engine CPU s: ours | reference |",
        );
        lines.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (const step of STEPS) {
          const floor = pick(all, language, "floor", "none", undefined, step);
          const ours = pick(all, language, "ours", provider, n, step);
          const ref = pick(all, language, "reference", against, n, step);
          const ratio = ours && ref ? (ours.median / ref.median).toFixed(2) : "—";
          const above = ours && ref && floor && ref.median - floor.median > 0.05 ? ((ours.median - floor.median) / (ref.median - floor.median)).toFixed(2) : "—";
          const u = (kind: Kind, field: keyof PluginUsage) => pickUsage(all, language, kind, kind === "ours" ? provider : against, n, step, field);
          lines.push(
            `| ${step} | ${fmt(floor)} | ${fmt(ours)} | ${fmt(ref)} | ${ratio} | ${above} | ` +
              `${ms(u("ours", "cpuSeconds"), n)} | ${ms(u("reference", "cpuSeconds"), n)} | ${ms(u("ours", "hostCpuSeconds"), n)} | ${ms(u("reference", "hostCpuSeconds"), n)} | ` +
              `${mib(u("ours", "peakHostRssMiB"))} | ${mib(u("reference", "peakHostRssMiB"))} | ${mib(u("ours", "peakRssMiB"))} | ${mib(u("reference", "peakRssMiB"))} | ` +
              `${sec(u("ours", "hostRunQueueSeconds"))} | ${sec(u("reference", "hostRunQueueSeconds"))} | ${sec(u("ours", "engineCpuSeconds"))} | ${sec(u("reference", "engineCpuSeconds"))} |`,
          );
        }
      }
    }
  }
  return lines.join("\n");
}

/** The line of a failed lifecycle's error that says why: its last naming an error, else its last. */
function whyNot(e: unknown): string {
  const lines = String(e instanceof Error ? e.message : e).split("\n").map((l) => l.trim()).filter((l) => l && !/^(stdout|stderr|code):/.test(l));
  return [...lines].reverse().find((l) => /\b\w*(Error|Exception)\b/.test(l)) ?? lines.pop() ?? "";
}

/** The lifecycles that could not run, one line each, under the table. */
export function formatFailures(failures: string[]): string {
  return failures.length ? ["", "Could not run:", ...failures.map((f) => `- ${f}`)].join("\n") : "";
}

export async function runEngineBench(argv: string[]): Promise<void> {
  // The whole-command trace (bench/trace-run.ts) is a run of its own.
  if (argv.includes("--trace")) return (await import("./trace-run.js")).runTraceBench(argv);
  const opts = parseArgs(argv);
  prepareEngine();
  prepareReferenceEngine();
  const sb = sandbox("bench-engine");
  if (opts.skipCheckpoints) sb.env.PULUMI_SKIP_CHECKPOINTS = "true";
  const all: Lifecycle[] = [];
  const failures: string[] = [];
  const failed: TargetFailure[] = [];
  const started = new Date();
  const t0 = performance.now();
  // Written after every lifecycle too, so a long run that is stopped keeps what it measured.
  const write = () => {
    fs.mkdirSync(path.dirname(opts.out), { recursive: true });
    fs.writeFileSync(
      opts.out,
      JSON.stringify(
        {
          started: started.toISOString(),
          minutes: (performance.now() - t0) / 60000,
          machine: { cpus: os.cpus().length, loadavg: os.loadavg(), node: process.version },
          options: opts,
          lifecycles: all,
          failures,
        },
        null,
        2,
      ),
    );
  };
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      for (const language of opts.languages) {
        if (!opts.oursOnly) all.push(await lifecycle(sb, language, "floor", "none", 0, round));
        for (const provider of opts.providers) {
          for (const n of opts.n) {
            // Taking turns: which plugin goes first alternates from round to round. Only ours serves a declared type.
            const order: Kind[] = provider === "declared" || opts.oursOnly ? ["ours"] : round % 2 === 1 ? ["ours", "reference"] : ["reference", "ours"];
            for (const kind of order) {
              let l: Lifecycle;
              try {
                l = await lifecycle(sb, language, kind, provider, n, round);
              } catch (e) {
                const why = whyNot(e);
                failures.push(`round ${round}: ${language} ${kind} ${provider} n=${n}: ${why.slice(0, 300)}`);
                failed.push({ language, kind, provider, n, why });
                progress(`round ${round}: ${language} ${kind} ${provider} n=${n}: could not run: ${why.slice(0, 300)}`);
                continue;
              }
              all.push(l);
              progress(
                `round ${round}: ${language} ${kind} ${provider} n=${n}: ` +
                  STEPS.map(
                    (s) =>
                      `${s} ${l.seconds[s].toFixed(2)}s (plugin CPU ${l.usage[s].cpuSeconds.toFixed(2)}s, host waiting for a CPU ${l.usage[s].hostRunQueueSeconds.toFixed(2)}s, ` +
                      `engine CPU ${l.usage[s].engineCpuSeconds.toFixed(2)}s, peak RSS host ${l.usage[s].peakHostRssMiB.toFixed(0)} / all ${l.usage[s].peakRssMiB.toFixed(0)} MiB)`,
                  ).join(", "),
              );
              write();
            }
          }
        }
      }
    }
  } finally {
    sb.cleanup();
  }
  write();
  // The targets, judged from this run's own lifecycles (bench/targets.ts).
  const targets = formatTargets(judgeTargets({ lifecycles: all, failures: failed, skipCheckpoints: opts.skipCheckpoints }));
  const table = formatEngineReport(all, opts) + formatFailures(failures) + "\n" + targets;
  process.stdout.write(`${table}\n`);
  progress(`wrote ${opts.out}`);
}
