// `npm run bench -- --engine --trace`: the whole-command trace. A one-resource
// Python program (bench/engine/python_engine_bench.py, the trivial provider)
// runs preview, up (create), up (no change), up (update), refresh and destroy
// under the real engine, with our Python plugin and with Pulumi's (its real
// launcher script, from the engine's release), in the environments users
// have: the virtualenv named in Pulumi.yaml's runtime options, uv, poetry,
// PULUMI_PYTHON_CMD, and NODE_EXTRA_CA_CERTS set. Rounds are interleaved
// (every environment and both plugins each round, which plugin goes first
// alternating).
//
// The instrument is bench/tracer, the same for both plugins: under the CLI's
// name it records the engine command's start and end; under the plugin's name
// it records the plugin's exec, its port line, every gRPC call going past (a
// TCP proxy reading the HTTP/2 frames: each call's request headers and the end
// of its response), the engine's SIGINT, the plugin's exit and the end of its
// stdout and stderr. bench/trace-phases.ts turns that into the phases of each
// command. What the instrument itself costs is measured in the same run: the
// first environment's lifecycles also run without it (the program's own clock
// around each command), and the difference is printed.
//
//   node dist/bench/run.js --engine --trace [--rounds 3] [--envs virtualenv,uv,poetry,python-cmd,extra-ca]
//                                           [--no-overhead] [--out <file.json>]
//   node dist/bench/run.js --engine --trace --from <file.json>   (the report of a run already written)
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { prepareEngine, sandbox, type Sandbox } from "../test/e2e/harness.js";
import { OUR_PYTHON_PLUGIN, REPO, TEST_VENV, VENV_PYTHON } from "../test/helpers/paths.js";
import { median } from "./measure.js";
import { formatTargets, judgeTargets, type TargetLifecycle } from "./targets.js";
import { MARKS, PHASES, traceCommand, type CommandTrace, type TraceEvent } from "./trace-phases.js";

const BENCH_DIR = fileURLToPath(new URL("../../bench/", import.meta.url));
const TOOLCHAINS_BIN = `${REPO}.cache/python-toolchains/bin`;
const UV = `${TOOLCHAINS_BIN}/uv`;
const uvEnv = { UV_PYTHON_DOWNLOADS: "never", UV_NO_PROGRESS: "1" };

export const TRACE_STEPS = ["preview", "up-create", "up-nochange", "up-update", "refresh", "destroy"] as const;
type Step = (typeof TRACE_STEPS)[number];
type Kind = "ours" | "reference";
/** The CLI subcommand each step runs. */
const COMMAND: Record<Step, string> = { preview: "preview", "up-create": "up", "up-nochange": "up", "up-update": "up", refresh: "refresh", destroy: "destroy" };

const DEPENDENCIES = fs
  .readFileSync(`${REPO}test/python-requirements.txt`, "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

/** Where the program runs: its project directory's making, the PULUMI_RUNTIME_* the engine derives from Pulumi.yaml, and the CLI's environment. */
interface Environment {
  id: string;
  title: string;
  prepare?: (dir: string) => void;
  runtimeEnv: (dir: string) => Record<string, string>;
  runtimeOptions: (dir: string) => Record<string, string>;
  /** More of the CLI's (and so the plugins') environment. */
  env?: Record<string, string>;
  /** PATH entries before the engine's. */
  path?: string[];
  /** Whether NODE_EXTRA_CA_CERTS is set (to this machine's bundle); every other environment runs without it. */
  extraCa?: boolean;
}

const venv = () => fs.realpathSync(TEST_VENV);
const CA_BUNDLE = process.env.NODE_EXTRA_CA_CERTS && fs.existsSync(process.env.NODE_EXTRA_CA_CERTS) ? process.env.NODE_EXTRA_CA_CERTS : "/etc/ssl/certs/ca-certificates.crt";

export const ENVIRONMENTS: Environment[] = [
  {
    id: "virtualenv",
    title: "`virtualenv:` in Pulumi.yaml (toolchain pip)",
    runtimeEnv: () => ({ PULUMI_RUNTIME_TOOLCHAIN: "pip", PULUMI_RUNTIME_VIRTUALENV: venv() }),
    runtimeOptions: () => ({ toolchain: "pip", virtualenv: venv() }),
  },
  {
    id: "uv",
    title: "toolchain uv (.venv made by uv)",
    prepare: (dir) => {
      const opts = { cwd: dir, env: { ...process.env, ...uvEnv }, stdio: ["ignore", "ignore", "inherit"] as ("ignore" | "inherit")[] };
      execFileSync(UV, ["venv", "--quiet", "--python", VENV_PYTHON, ".venv"], opts);
      execFileSync(UV, ["pip", "install", "--quiet", "--python", ".venv/bin/python", ...DEPENDENCIES], opts);
      fs.writeFileSync(path.join(dir, "pyproject.toml"), `[project]\nname = "trace-uv"\nversion = "0.1.0"\nrequires-python = ">=3.10"\ndependencies = ${JSON.stringify(DEPENDENCIES)}\n`);
    },
    runtimeEnv: () => ({ PULUMI_RUNTIME_TOOLCHAIN: "uv" }),
    runtimeOptions: () => ({ toolchain: "uv" }),
    path: [TOOLCHAINS_BIN],
  },
  {
    id: "poetry",
    title: "toolchain poetry (in-project .venv)",
    prepare: (dir) => {
      fs.writeFileSync(
        path.join(dir, "pyproject.toml"),
        `[project]\nname = "trace-poetry"\nversion = "0.1.0"\nrequires-python = ">=3.10"\ndependencies = ${JSON.stringify(DEPENDENCIES)}\n\n[tool.poetry]\npackage-mode = false\n`,
      );
      fs.writeFileSync(path.join(dir, "poetry.toml"), "[virtualenvs]\nin-project = true\n");
      // Filled by uv from the package index, as the e2e tests do (poetry's installer reads PyPI's JSON API).
      const opts = { cwd: dir, env: { ...process.env, ...uvEnv }, stdio: ["ignore", "ignore", "inherit"] as ("ignore" | "inherit")[] };
      execFileSync(UV, ["venv", "--quiet", "--python", VENV_PYTHON, ".venv"], opts);
      execFileSync(UV, ["pip", "install", "--quiet", "--python", ".venv/bin/python", ...DEPENDENCIES], opts);
      const found = execFileSync(`${TOOLCHAINS_BIN}/poetry`, ["env", "info", "--path"], { cwd: dir, encoding: "utf8" }).trim();
      if (found !== path.join(dir, ".venv")) throw new Error(`poetry names ${found} as the project's virtualenv, not ${dir}/.venv`);
    },
    runtimeEnv: () => ({ PULUMI_RUNTIME_TOOLCHAIN: "poetry" }),
    runtimeOptions: () => ({ toolchain: "poetry" }),
    path: [TOOLCHAINS_BIN],
  },
  {
    id: "python-cmd",
    title: "PULUMI_PYTHON_CMD (no virtualenv)",
    runtimeEnv: () => ({ PULUMI_RUNTIME_TOOLCHAIN: "pip" }),
    runtimeOptions: () => ({ toolchain: "pip" }),
    env: { PULUMI_PYTHON_CMD: VENV_PYTHON },
  },
  {
    id: "extra-ca",
    title: "`virtualenv:` and NODE_EXTRA_CA_CERTS set",
    runtimeEnv: () => ({ PULUMI_RUNTIME_TOOLCHAIN: "pip", PULUMI_RUNTIME_VIRTUALENV: venv() }),
    runtimeOptions: () => ({ toolchain: "pip", virtualenv: venv() }),
    extraCa: true,
  },
];

interface Options {
  /** Print the report of a run already written (its JSON) instead of running. */
  from?: string;
  rounds: number;
  envs: Environment[];
  overhead: boolean;
  out: string;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { rounds: 3, envs: ENVIRONMENTS, overhead: true, out: path.join(BENCH_DIR, "results", "trace-latest.json") };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--engine" || a === "--trace") continue;
    if (a === "--rounds") {
      opts.rounds = Number(argv[++i]);
      if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error("--rounds needs a whole number, at least 1");
    } else if (a === "--envs") {
      const names = (argv[++i] ?? "").split(",").map((s) => s.trim()).filter(Boolean);
      opts.envs = names.map((n) => {
        const e = ENVIRONMENTS.find((x) => x.id === n);
        if (!e) throw new Error(`--envs: ${n} is not one of ${ENVIRONMENTS.map((x) => x.id).join(", ")}`);
        return e;
      });
      if (opts.envs.length === 0) throw new Error("--envs needs a comma-separated list");
    } else if (a === "--no-overhead") opts.overhead = false;
    else if (a === "--from") opts.from = path.resolve(argv[++i] ?? "");
    else if (a === "--out") opts.out = path.resolve(argv[++i] ?? "");
    else if (a === "--help" || a === "-h") {
      process.stdout.write(`usage: node dist/bench/run.js --engine --trace [--rounds <n>] [--envs ${ENVIRONMENTS.map((e) => e.id).join(",")}] [--no-overhead] [--out <file.json>] | --from <file.json>\n`);
      process.exit(0);
    } else throw new Error(`unknown argument ${a} (the trace takes --rounds, --envs, --no-overhead, --out)`);
  }
  return opts;
}

const progress = (line: string) => process.stderr.write(`bench-trace: ${line}\n`);

/** The launcher Pulumi's release ships as pulumi-resource-pulumi-python (the engine's version, from its module sources). */
function referenceLauncher(engineDir: string): string {
  const modcache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
  const version = path.basename(path.dirname(engineDir)).replace(/^engine-/, "");
  const launcher = `${modcache}/github.com/pulumi/pulumi/sdk/v3@${version}/python/dist/pulumi-resource-pulumi-python`;
  if (!fs.existsSync(launcher)) throw new Error(`the reference launcher is not at ${launcher} (scripts/engine.sh fetches the engine's module sources)`);
  return launcher;
}

/**
 * The CLI roots of one plugin: `traced` runs the CLI and the plugin through the
 * tracer, `plain` runs them as the engine bench does. Layout of a traced root:
 * bin/pulumi (the real CLI, hard-linked, so that "next to pulumi" and $PATH find
 * the same plugin), bin/pulumi-resource-pulumi-python (the tracer), bin/real/
 * (the real plugin under its name, events.jsonl), cli/bin/pulumi (the tracer,
 * the root the program is given), cli/bin/real/pulumi (→ bin/pulumi).
 */
interface Roots {
  traced: string;
  plain: string;
  pluginEvents: string;
  cliEvents: string;
}

function layOut(kind: Kind, engineDir: string, tracer: string, plugin: string): Roots {
  const base = `${REPO}.cache/bench-trace/${kind}`;
  fs.rmSync(base, { recursive: true, force: true });
  const put = (from: string, to: string, how: "link" | "copy" | "symlink") => {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (how === "symlink") return fs.symlinkSync(from, to);
    if (how === "link") {
      try {
        return fs.linkSync(from, to);
      } catch {
        // another file system: copied below
      }
    }
    fs.copyFileSync(from, to);
    fs.chmodSync(to, 0o755);
  };
  const cli = path.join(engineDir, "pulumi");
  const traced = `${base}/traced`;
  put(cli, `${traced}/bin/pulumi`, "link");
  put(tracer, `${traced}/bin/pulumi-resource-pulumi-python`, "copy");
  put(plugin, `${traced}/bin/real/pulumi-resource-pulumi-python`, kind === "ours" ? "symlink" : "copy");
  put(tracer, `${traced}/cli/bin/pulumi`, "copy");
  put(`${traced}/bin/pulumi`, `${traced}/cli/bin/real/pulumi`, "symlink");
  const plain = `${base}/plain`;
  put(cli, `${plain}/bin/pulumi`, "link");
  put(plugin, `${plain}/bin/pulumi-resource-pulumi-python`, kind === "ours" ? "symlink" : "copy");
  return { traced, plain, pluginEvents: `${traced}/bin/real/events.jsonl`, cliEvents: `${traced}/cli/bin/real/events.jsonl` };
}

function readEvents(file: string): TraceEvent[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TraceEvent);
}

export interface StepTrace {
  environment: string;
  kind: Kind;
  traced: boolean;
  round: number;
  step: Step;
  /** The program's clock around the command (the Automation API's run of the CLI), s. */
  seconds: number;
  trace?: CommandTrace;
  /** Every event of the step, where a mark is missing. */
  events?: TraceEvent[];
}

interface Context {
  sb: Sandbox;
  roots: Record<Kind, Roots>;
  workDirs: Map<string, string>;
}

/** One stack's six commands in one environment with one plugin, each in a process of its own, as the CLI runs a program. */
async function lifecycle(ctx: Context, env: Environment, kind: Kind, traced: boolean, round: number): Promise<StepTrace[]> {
  const roots = ctx.roots[kind];
  const root = traced ? `${roots.traced}/cli` : roots.plain;
  const bin = traced ? `${roots.traced}/bin` : `${roots.plain}/bin`;
  const workDir = ctx.workDirs.get(env.id)!;
  const stack = `${kind}-${env.id}-r${round}-${traced ? "t" : "p"}`;
  const cliEnv: Record<string, string> = {
    ...ctx.sb.env,
    ...env.env,
    PATH: [bin, ...(env.path ?? []), process.env.PATH ?? ""].join(":"),
    ...(env.extraCa ? { NODE_EXTRA_CA_CERTS: CA_BUNDLE } : {}),
  };
  const out: StepTrace[] = [];
  for (const step of TRACE_STEPS) {
    const settings = {
      root,
      backend: ctx.sb.backend,
      home: ctx.sb.home,
      env: cliEnv,
      venv: venv(),
      work_dir: workDir,
      stack,
      n: 1,
      provider: "trivial",
      steps: [step],
      generation: TRACE_STEPS.indexOf(step) >= TRACE_STEPS.indexOf("up-update") ? 2 : 1,
      remove: step === "destroy",
      runtime_env: env.runtimeEnv(workDir),
      runtime_options: env.runtimeOptions(workDir),
      declare: false,
    };
    if (traced && step === TRACE_STEPS[0]) for (const f of [roots.pluginEvents, roots.cliEvents]) fs.writeFileSync(f, "");
    const doc = await pythonStep(settings, env, `${env.id} ${kind} ${step}`, workDir);
    const changes = doc.changes[step] ?? {};
    const want: Partial<Record<Step, [string, number]>> = { preview: ["create", 2], "up-create": ["create", 2], "up-update": ["update", 1], destroy: ["delete", 2] };
    const w = want[step];
    if (w && (changes[w[0]] ?? 0) !== w[1]) throw new Error(`${env.id} ${kind} ${step}: expected ${w[1]} ${w[0]}, the engine reported ${JSON.stringify(changes)}`);
    if (step === "up-create") {
      const ok = kind === "ours" ? String(doc.ran_by).endsWith("/worker.py") : String(doc.ran_by).endsWith("/pulumi/dynamic/__main__.py");
      if (!ok) throw new Error(`${env.id} ${kind}: the resource was served by ${JSON.stringify(doc.ran_by)}, not the ${kind} plugin`);
    }
    out.push({ environment: env.id, kind, traced, round, step, seconds: doc.seconds[step] });
  }
  if (traced) {
    // Read once the lifecycle is over, so that what a plugin notes after its command's end is seen (each
    // command's part told apart by its CLI run's pid); a plugin still running gets up to 6 s to finish.
    const finished = () => {
      const events = readEvents(roots.pluginEvents);
      const started = new Set(events.filter((e) => e.ev === "exec").map((e) => e.pid));
      return [...started].every((pid) => events.some((e) => e.pid === pid && e.ev === "done"));
    };
    for (let waited = 0; !finished() && waited < 6000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    const cliEvents = readEvents(roots.cliEvents);
    const pluginEvents = readEvents(roots.pluginEvents);
    const starts = cliEvents.filter((e) => e.ev === "cli_start" && COMMAND_NAMES.has(e.args?.find((a) => !a.startsWith("-")) ?? ""));
    if (starts.length !== TRACE_STEPS.length) throw new Error(`${env.id} ${kind}: the instrument saw ${starts.length} engine commands, not ${TRACE_STEPS.length}`);
    for (const [i, s] of out.entries()) {
      // This command's CLI run alone (the steps run the same subcommand three times), and every plugin event.
      const own = cliEvents.filter((e) => e.pid === starts[i].pid);
      const events = [...own, ...pluginEvents].sort((a, b) => a.t - b.t);
      s.trace = traceCommand(events, COMMAND[s.step]);
      if (s.trace.launches !== 1) throw new Error(`${env.id} ${kind} ${s.step}: the engine started ${s.trace.launches} plugin processes, not one`);
      // A command the instrument saw only in part keeps its plugin's events in the JSON, to see why.
      if (MARKS.some((m) => s.trace!.marks[m] === undefined)) s.events = events.filter((e) => e.role === "cli" || e.t >= (starts[i].at ?? starts[i].t));
    }
  }
  return out;
}

const COMMAND_NAMES = new Set(Object.values(COMMAND));

function pythonStep(settings: object, env: Environment, what: string, workDir: string): Promise<{ seconds: Record<string, number>; changes: Record<string, Record<string, number>>; ran_by: unknown }> {
  // The program's own environment: no PULUMI_* or virtualenv of this process's, and the CA bundle only where the environment sets it.
  const own = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_") && k !== "VIRTUAL_ENV" && k !== "NODE_EXTRA_CA_CERTS")) as Record<string, string>;
  if (env.extraCa) own.NODE_EXTRA_CA_CERTS = CA_BUNDLE;
  return new Promise((resolve, reject) => {
    execFile(VENV_PYTHON, [`${REPO}bench/engine/python_engine_bench.py`, JSON.stringify(settings)], { cwd: workDir, env: own, encoding: "utf8", maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`python program (${what}): ${err.message}\n${stderr.slice(-4000)}`));
      resolve(JSON.parse(stdout.trim().split("\n").pop()!));
    });
  });
}

const fmtMs = (v: number | undefined) => (v === undefined ? "—" : v.toFixed(1));
const fmtGap = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? "—" : `${a - b >= 0 ? "+" : ""}${(a - b).toFixed(1)}`);

/** A phase of a traced command; the sums from its marks where a run's JSON predates them. */
function phaseOf(t: StepTrace, id: string): number | undefined {
  const tr = t.trace!;
  if (tr.phases[id] !== undefined) return tr.phases[id];
  const span = (a: keyof CommandTrace["marks"], b: keyof CommandTrace["marks"]) => (tr.marks[a] !== undefined && tr.marks[b] !== undefined ? tr.marks[b]! - tr.marks[a]! : undefined);
  if (id === "ready") return span("exec", "configured");
  if (id === "life") return span("exec", "pipesClosed");
  return undefined;
}

function med(traces: StepTrace[], get: (t: StepTrace) => number | undefined): number | undefined {
  const v = traces.map(get).filter((x): x is number => typeof x === "number");
  return v.length ? median(v) : undefined;
}

/** Median ms per phase, ours / reference (gap), one table per environment; then the instrument's overhead. */
export function formatTraceReport(all: StepTrace[], envs: string[], rounds: number): string {
  const lines: string[] = [];
  const phaseRows = [
    ...PHASES.map((p) => ({ id: p.id, label: p.label })),
    { id: "whole", label: "**whole command** (CLI start → end)" },
    { id: "ready", label: "(sum) plugin exec'd → Configure answered" },
    { id: "life", label: "(sum) plugin exec'd → pipes closed" },
  ];
  for (const env of envs) {
    const title = ENVIRONMENTS.find((e) => e.id === env)?.title ?? env;
    lines.push("", `### ${title} (${rounds} round${rounds > 1 ? "s" : ""}, median ms: ours / reference (ours − reference))`, "");
    lines.push(`| phase | ${TRACE_STEPS.join(" | ")} |`, `|---|${TRACE_STEPS.map(() => "---:").join("|")}|`);
    const of = (kind: Kind, step: Step) => all.filter((t) => t.environment === env && t.kind === kind && t.step === step && t.traced && t.trace);
    for (const row of phaseRows) {
      const cells = TRACE_STEPS.map((step) => {
        const o = med(of("ours", step), (t) => phaseOf(t, row.id));
        const r = med(of("reference", step), (t) => phaseOf(t, row.id));
        return `${fmtMs(o)} / ${fmtMs(r)} (${fmtGap(o, r)})`;
      });
      lines.push(`| ${row.label} | ${cells.join(" | ")} |`);
    }
    const sig = TRACE_STEPS.map((step) => {
      const o = med(of("ours", step), (t) => (t.trace!.sigintMs !== undefined && t.trace!.marks.shutdown !== undefined ? t.trace!.sigintMs - t.trace!.marks.shutdown : undefined));
      const r = med(of("reference", step), (t) => (t.trace!.sigintMs !== undefined && t.trace!.marks.shutdown !== undefined ? t.trace!.sigintMs - t.trace!.marks.shutdown : undefined));
      return `${fmtMs(o)} / ${fmtMs(r)}`;
    });
    lines.push(`| (the engine's SIGINT, after its Cancel; — if the plugin had gone) | ${sig.join(" | ")} |`);
    // The engine waits for the plugin's exit and pipes before it ends (engine.md §1.11); say where it did not.
    for (const kind of ["ours", "reference"] as const) {
      const outlived = all.filter((t) => t.environment === env && t.kind === kind && t.traced && t.trace && (t.trace.marks.pipesClosed === undefined || t.trace.marks.end === undefined || t.trace.marks.pipesClosed > t.trace.marks.end));
      if (outlived.length) lines.push("", `${kind}: in ${outlived.length} command(s) (${outlived.map((t) => `round ${t.round} ${t.step}`).join(", ")}) the command ended before the plugin had exited and closed its pipes, or the instrument did not see them close.`);
    }
  }
  // Where the gap goes, all environments side by side: each phase's gap (median ours − median reference), its median over the six commands.
  if (envs.length > 1) {
    lines.push("", "### The gap by phase and environment: ours − reference, ms (median over the six commands of each command's gap of medians)", "");
    lines.push(`| phase | ${envs.join(" | ")} |`, `|---|${envs.map(() => "---:").join("|")}|`);
    for (const row of phaseRows) {
      const cells = envs.map((env) => {
        const gaps = TRACE_STEPS.map((step) => {
          const of = (kind: Kind) => all.filter((t) => t.environment === env && t.kind === kind && t.step === step && t.traced && t.trace);
          const o = med(of("ours"), (t) => phaseOf(t, row.id));
          const r = med(of("reference"), (t) => phaseOf(t, row.id));
          return o !== undefined && r !== undefined ? o - r : undefined;
        }).filter((g): g is number => g !== undefined);
        return gaps.length ? `${median(gaps) >= 0 ? "+" : ""}${median(gaps).toFixed(1)}` : "—";
      });
      lines.push(`| ${row.label} | ${cells.join(" | ")} |`);
    }
  }
  // The instrument's cost on the plugin's path, from its own events: its start to the real plugin's, and its port line after the real one.
  const traced = all.filter((t) => t.traced && t.trace?.instrument);
  if (traced.length) {
    const spawn = med(traced, (t) => t.trace!.instrument!.spawnMs);
    const port = med(traced, (t) => t.trace!.instrument!.portMs);
    lines.push("", `The instrument on the plugin's path (median over ${traced.length} traced commands): ${fmtMs(spawn)} ms from its own start to the real plugin's exec, ${fmtMs(port)} ms from the real port line to its own; each call crosses one more loopback connection.`);
  }
  // The instrument's cost: the program's clock around each command, with and without the tracer.
  const overheadEnvs = [...new Set(all.filter((t) => !t.traced).map((t) => t.environment))];
  for (const env of overheadEnvs) {
    lines.push("", `### The instrument's own cost (${env}): the program's clock around each command, traced − untraced, median ms`, "");
    lines.push(`| plugin | ${TRACE_STEPS.join(" | ")} |`, `|---|${TRACE_STEPS.map(() => "---:").join("|")}|`);
    for (const kind of ["ours", "reference"] as const) {
      const cells = TRACE_STEPS.map((step) => {
        const pick = (traced: boolean) => med(all.filter((t) => t.environment === env && t.kind === kind && t.step === step && t.traced === traced), (t) => t.seconds * 1000);
        const a = pick(true);
        const b = pick(false);
        return `${fmtGap(a, b)} (${fmtMs(a)} / ${fmtMs(b)})`;
      });
      lines.push(`| ${kind} | ${cells.join(" | ")} |`);
    }
  }
  return lines.join("\n");
}

/** The traced commands' wall time (the CLI's start to its end) as lifecycles the targets read, one per environment, kind and round. */
export function traceLifecycles(all: StepTrace[]): TargetLifecycle[] {
  const out = new Map<string, TargetLifecycle>();
  for (const t of all) {
    if (!t.traced || t.trace?.marks.end === undefined) continue;
    const key = `${t.environment}/${t.kind}/${t.round}`;
    const l = out.get(key) ?? { language: "python", kind: t.kind, provider: "trivial", n: 1, seconds: {}, environment: t.environment };
    l.seconds[t.step] = t.trace.marks.end / 1000;
    out.set(key, l);
  }
  return [...out.values()];
}

/** The printed report: the tables, the targets, and the load average. */
function report(all: StepTrace[], envs: string[], rounds: number, loads: { loadavg: number[] }[], out: string): string {
  const tables = formatTraceReport(all, envs, rounds);
  const targets = formatTargets(judgeTargets({ lifecycles: traceLifecycles(all) }));
  const load = loads.map((l) => l.loadavg[0].toFixed(2)).join(", ");
  return `${tables}\n${targets}\n\nLoad average (1 min) at each round's start and at the end: ${load}.\nJSON: ${out}\n`;
}

export async function runTraceBench(argv: string[]): Promise<void> {
  const opts = parseArgs(argv);
  if (opts.from) {
    const doc = JSON.parse(fs.readFileSync(opts.from, "utf8"));
    process.stdout.write(report(doc.steps, doc.options.envs, doc.options.rounds, doc.loads, opts.from));
    return;
  }
  const engineDir = prepareEngine();
  const tracer = execFileSync("bash", [`${REPO}scripts/tracer.sh`], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
  const roots: Record<Kind, Roots> = {
    ours: layOut("ours", engineDir, tracer, OUR_PYTHON_PLUGIN),
    reference: layOut("reference", engineDir, tracer, referenceLauncher(engineDir)),
  };
  const sb = sandbox("bench-trace");
  const workDirs = new Map<string, string>();
  for (const env of opts.envs) {
    const dir = path.join(sb.dir, `project-${env.id}`);
    fs.mkdirSync(dir, { recursive: true });
    progress(`preparing ${env.id}`);
    env.prepare?.(dir);
    workDirs.set(env.id, dir);
  }
  const ctx: Context = { sb, roots, workDirs };
  const all: StepTrace[] = [];
  const loads: { round: number; loadavg: number[] }[] = [];
  const started = new Date();
  const write = () => {
    fs.mkdirSync(path.dirname(opts.out), { recursive: true });
    fs.writeFileSync(
      opts.out,
      JSON.stringify({ started: started.toISOString(), machine: { cpus: os.cpus().length, node: process.version }, loads, options: { ...opts, envs: opts.envs.map((e) => e.id) }, marks: MARKS, phases: PHASES, steps: all }, null, 2),
    );
  };
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      loads.push({ round, loadavg: os.loadavg() });
      progress(`round ${round}/${opts.rounds}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
      for (const [i, env] of opts.envs.entries()) {
        const order: Kind[] = (round + i) % 2 === 1 ? ["ours", "reference"] : ["reference", "ours"];
        const runs: { kind: Kind; traced: boolean }[] = order.map((kind) => ({ kind, traced: true }));
        if (opts.overhead && i === 0) runs.push(...order.map((kind) => ({ kind, traced: false })));
        for (const { kind, traced } of runs) {
          const steps = await lifecycle(ctx, env, kind, traced, round);
          all.push(...steps);
          progress(`round ${round}: ${env.id} ${kind}${traced ? "" : " (untraced)"}: ${steps.map((s) => `${s.step} ${(s.trace?.marks.end ?? s.seconds * 1000).toFixed(0)} ms`).join(", ")}`);
          write();
        }
      }
    }
  } finally {
    sb.cleanup();
  }
  loads.push({ round: opts.rounds + 1, loadavg: os.loadavg() });
  write();
  process.stdout.write(
    report(
      all,
      opts.envs.map((e) => e.id),
      opts.rounds,
      loads,
      opts.out,
    ),
  );
}
