// The engine-like driver of the conformance kit: starts a plugin command the
// way the engine does (cwd = the program directory, its own process group, the
// engine address as the last argument, the port read from the first stdout
// line, stdin a pipe never written to), runs the cases of a session against it,
// and judges what it answered: against the recorded expectations (one plugin)
// or against another plugin side by side.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import type { Case, CaseContext, LaunchSpec, Language, Program, RunResult, RunSpec, Session } from "./case.js";
import { loadSdk, type Sdk } from "./client.js";
import { makePayload, nodeScenario } from "./payloads.js";
import { PluginProcess, signalGroup } from "./plugin-process.js";

/** A plugin as a command line: argv[0] is run directly (as the engine runs a plugin executable). */
export interface PluginCommand {
  /** How the table names it ("ours", "reference", or the command as given). */
  label: string;
  argv: string[];
  /** Added to (undefined: removed from) the environment. */
  env?: Record<string, string | undefined>;
  /**
   * At every start, the command line and environment for that working directory and
   * environment, when they depend on them (a launcher script's choices: the Python
   * reference's interpreter and PATH follow the program's virtualenv).
   */
  prepare?(cwd: string, env: NodeJS.ProcessEnv): { argv: string[]; env: NodeJS.ProcessEnv };
  /**
   * The release of Pulumi's SDK whose plugin this is, when known (sdk-version.ts): cases that record
   * behaviour a later release brought are judged by what earlier releases answer (Case.sdk).
   */
  sdkVersion?: string;
}

/** The command line and environment `c` starts with in `cwd`, with `extra` over the kit's environment. */
function commandLine(c: PluginCommand, cwd: string, extra?: Record<string, string | undefined>): { argv: string[]; env: NodeJS.ProcessEnv } {
  const env = environment(c.env, extra);
  return c.prepare ? c.prepare(cwd, env) : { argv: c.argv, env };
}

/** A command given as one string (the CLI's --plugin): run by sh with `exec`, so the plugin itself leads the process group. */
export function shellCommand(command: string, label = command): PluginCommand {
  return { label, argv: ["/bin/sh", "-c", `exec ${command} "$@"`, "sh"] };
}

/** What a case is run against: a plugin command, the program it runs in, the SDK the kit speaks with. */
export interface Target {
  command: PluginCommand;
  program: Program;
  sdk: Sdk;
}

/** `sdk`: the SDK the kit speaks with, or the directory it resolves from (default: the kit's own, loadSdk). */
export function target(command: PluginCommand, program: Program, sdk?: string | Sdk): Target {
  return { command, program, sdk: typeof sdk === "object" ? sdk : loadSdk(sdk) };
}

/** A fake engine address: plugins never dial it unless they log. */
export const ENGINE_ADDRESS = "127.0.0.1:1";

// ---------------------------------------------------------------- processes

/** Starts `t`'s command as the engine would, in the program directory (or the spec's), with the engine address last. */
function launchPlugin(t: Target, spec: LaunchSpec = {}, engineAddress = ENGINE_ADDRESS): Promise<PluginProcess> {
  const cwd = spec.cwd ? path.resolve(t.program.programDir, spec.cwd) : t.program.programDir;
  const line = commandLine(t.command, cwd, spec.env);
  const [file, ...pre] = line.argv;
  return PluginProcess.start(t.command.label, file, [...pre, ...(spec.args ?? [engineAddress])], { cwd, env: line.env, pipeStdin: spec.pipeStdin, sdk: t.sdk });
}

/**
 * Whether `t`'s command starts as the engine starts a plugin (a port on its first stdout line), tried
 * once before any case: undefined when it does, else what went wrong, with its stderr.
 */
export async function startFailure(t: Target): Promise<string | undefined> {
  try {
    const p = await launchPlugin(t);
    await p.stop();
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

function environment(...layers: (Record<string, string | undefined> | undefined)[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const layer of layers) for (const [k, v] of Object.entries(layer ?? {})) if (v === undefined) delete env[k];
  else env[k] = v;
  return env;
}

/** Runs the command with `args` to its end; killed (with its group) after `ms`. */
function runToExit(t: Target, args: string[], spec: RunSpec = {}): Promise<RunResult> {
  const cwd = spec.cwd ? path.resolve(t.program.programDir, spec.cwd) : t.program.programDir;
  const line = commandLine(t.command, cwd, spec.env);
  const [file, ...pre] = line.argv;
  return new Promise((resolve) => {
    const child = spawn(file, [...pre, ...args], { cwd, env: line.env, detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      if (spec.stopAtPort && stdout.includes("\n")) signalGroup(child.pid!, "SIGKILL");
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => signalGroup(child.pid!, "SIGKILL"), spec.ms ?? 30_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ status: null, signal: null, stdout, stderr: stderr + String(e) });
    });
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

// ---------------------------------------------------------------- the engine's Log, when a session asks for it

class LogSink {
  readonly logs: { severity: number; urn: string; message: string }[] = [];
  private constructor(private readonly server: any, readonly address: string) {}

  static async start(sdk: Sdk): Promise<LogSink> {
    const server = new sdk.grpc.Server();
    let sink!: LogSink;
    const unimplemented = (_call: unknown, cb: (e: unknown) => void) => cb({ code: sdk.grpc.status.UNIMPLEMENTED });
    server.addService(sdk.engineGrpc.EngineService, {
      log(call: any, cb: (e: unknown, r: unknown) => void) {
        const r = call.request;
        sink.logs.push({ severity: r.getSeverity(), urn: r.getUrn(), message: r.getMessage() });
        cb(null, new sdk.emptyPb.Empty());
      },
      getRootResource: unimplemented,
      setRootResource: unimplemented,
      startDebugging: unimplemented,
      requirePulumiVersion: unimplemented,
    });
    const port: number = await new Promise((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", sdk.grpc.ServerCredentials.createInsecure(), (e: Error | null, p: number) => (e ? reject(e) : resolve(p))),
    );
    sink = new LogSink(server, `127.0.0.1:${port}`);
    return sink;
  }

  stop(): void {
    this.server.forceShutdown();
  }
}

// ---------------------------------------------------------------- sessions

let barriers = 0;

/** One session's plugin process under one target, and the context its cases get. */
export class SessionRun {
  plugin?: PluginProcess;
  private sink?: LogSink;

  private constructor(readonly session: Session, readonly target: Target) {}

  static async start(session: Session, t: Target): Promise<SessionRun> {
    if (session.language !== t.program.language) throw new Error(`session ${session.id} is ${session.language}, the target runs ${t.program.language}`);
    const run = new SessionRun(session, t);
    try {
      if (session.launch?.engine) run.sink = await LogSink.start(t.sdk);
      run.plugin = await launchPlugin(t, session.launch, run.sink?.address);
      if (session.setup) {
        const ctx = run.context();
        try {
          await session.setup(ctx.ctx);
        } finally {
          await ctx.finish();
        }
      }
    } catch (e) {
      await run.stop();
      throw e;
    }
    return run;
  }

  async stop(): Promise<void> {
    await this.plugin?.stop();
    this.sink?.stop();
  }

  /** A fresh context for one case: what it launches or defers is undone by finish(). */
  context(): { ctx: CaseContext; finish(): Promise<void> } {
    const t = this.target;
    const plugin = this.plugin!;
    const language: Language = this.session.language;
    const cleanups: (() => void | Promise<void>)[] = [];
    const urn = (name: string, type = language === "nodejs" ? "pulumi-nodejs:dynamic:Resource" : "pulumi-python:dynamic:Resource") =>
      `urn:pulumi:dev::proj::${type}::${name}`;
    const ctx: CaseContext = {
      language,
      client: plugin.client,
      plugin,
      program: t.program,
      programDir: t.program.programDir,
      payload: (name, scenario) => makePayload(t.program, name, scenario),
      scenarioModule: (scenario) => nodeScenario(t.program, scenario),
      urn,
      mark: () => plugin.stderr.length,
      stderrSince: (mark) => stderrBarrier(ctx, plugin, mark),
      userStdout: () => plugin.userStdout,
      stderr: () => plugin.stderr,
      logs: () => this.sink?.logs ?? [],
      launch: async (spec) => {
        const p = await launchPlugin(t, spec);
        cleanups.push(() => p.stop().then(() => undefined));
        return p;
      },
      run: (args, spec) => runToExit(t, args, spec),
      defer: (f) => void cleanups.push(f),
    };
    return {
      ctx,
      finish: async () => {
        for (const f of cleanups.reverse()) await f();
      },
    };
  }
}

/**
 * A request whose provider prints a unique marker to stderr, sent and awaited:
 * a plugin writes its stderr in order, so whatever earlier requests printed lies
 * before the marker. Node: a Check that throws (the plugin echoes `${e}: ${e.stack}`);
 * Python: a Create whose provider prints (scenario python_providers, provider scripted).
 */
async function stderrBarrier(ctx: CaseContext, plugin: PluginProcess, from: number): Promise<string> {
  const marker = `stderr-barrier-${++barriers}`;
  const scripted = await ctx.payload("scripted");
  let echo: string;
  if (ctx.language === "nodejs") {
    const o = await plugin.client.check({ urn: ctx.urn("barrier"), news: { __provider: scripted, act: "throw", msg: marker } });
    if (o.code !== 2 || o.details !== marker) throw new Error(`the stderr barrier Check answered ${JSON.stringify(o)}, not UNKNOWN ${marker}`);
    echo = `Error: ${marker}: `;
  } else {
    const o = await plugin.client.create({ urn: ctx.urn("barrier"), properties: { __provider: scripted, act: "print", msg: marker } });
    if (o.code !== 0) throw new Error(`the stderr barrier Create failed: ${o.details}`);
    echo = `stderr from create ${marker}\n`;
  }
  await plugin.until(() => plugin.stderr.indexOf(echo, from) >= 0, `the stderr barrier ${marker}`);
  return plugin.stderr.slice(from, plugin.stderr.indexOf(echo, from));
}

// ---------------------------------------------------------------- judging

/** "not run": the case needs something the machine or project lacks (Needs, a package); it is not a failure. */
export type Status = "pass" | "fail" | "deliberate" | "not run";

export interface Verdict {
  id: string;
  title: string;
  status: Status;
  /** For "deliberate": which recorded side the plugin answered as ("ours" or "reference"). */
  side?: "ours" | "reference";
  /** Where the deliberate difference is documented. */
  doc?: string;
  /** For "fail": what differed; for "not run": what it needs. */
  message?: string;
  /** How long asking and judging it took (the kit's run; JUnit's time). */
  seconds?: number;
}

/** Runs a case's ask in a fresh context of `run`; the context's launches and cleanups are undone after. */
export async function observe<O>(c: Case<O>, run: SessionRun, ms = c.timeoutMs ?? 300_000): Promise<{ obs: O; ctx: CaseContext }> {
  const { ctx, finish } = run.context();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${run.target.command.label}: no answer within ${ms / 1000} s`)), ms);
    });
    const obs = await Promise.race([c.ask(ctx), timeout]);
    return { obs, ctx };
  } finally {
    clearTimeout(timer);
    await finish();
  }
}

function attempt(f: () => void): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * One plugin against the recorded expectations: `expect`, and for a deliberate difference
 * the answer of either side as recorded (reported with the side it matched).
 */
export function judgeOne<O>(c: Case<O>, obs: O, ctx: CaseContext): Verdict {
  const base = { id: c.id, title: c.title };
  const common = c.expect ? attempt(() => c.expect!(obs, ctx)) : undefined;
  if (common !== undefined) return { ...base, status: "fail", doc: c.difference?.doc, message: common };
  if (c.difference) {
    const d = c.difference;
    const asOurs = attempt(() => d.ours(obs, ctx));
    const asRef = attempt(() => d.reference(obs, ctx));
    // An answer both records allow (e.g. printing nothing where ours may print) shows no difference.
    if (asOurs === undefined && asRef === undefined) return { ...base, status: "pass", doc: d.doc };
    if (asOurs === undefined) return { ...base, status: "deliberate", side: "ours", doc: d.doc };
    if (asRef === undefined) return { ...base, status: "deliberate", side: "reference", doc: d.doc };
    return { ...base, status: "fail", doc: d.doc, message: `neither recorded answer: as ours: ${asOurs}\nas the reference: ${asRef}` };
  }
  return { ...base, status: "pass" };
}

/**
 * Two plugins side by side. Both must meet `expect`. Without a difference they must also
 * answer alike (`compare`); with one, `b` (the reference) must answer as the reference
 * recorded, and `a` as ours recorded, or, unless `strict`, as the reference too.
 */
export function judgePair<O>(c: Case<O>, a: { obs: O; ctx: CaseContext }, b: { obs: O; ctx: CaseContext }, strict = false): Verdict {
  const base = { id: c.id, title: c.title };
  if (c.expect) {
    for (const [side, x] of [["plugin", a], ["reference", b]] as const) {
      const failed = attempt(() => c.expect!(x.obs, x.ctx));
      if (failed !== undefined) return { ...base, status: "fail", doc: c.difference?.doc, message: `${side}: ${failed}` };
    }
  }
  if (c.difference) {
    const d = c.difference;
    // A difference may still have a part both must share (given as an explicit compare).
    if (typeof c.compare === "function") {
      const pick = c.compare;
      const differs = attempt(() => deepEqual(pick(a.obs), pick(b.obs)));
      if (differs !== undefined) return { ...base, status: "fail", doc: d.doc, message: `the two plugins answered differently where they must not: ${differs}` };
    }
    const refFails = attempt(() => d.reference(b.obs, b.ctx));
    if (refFails !== undefined) return { ...base, status: "fail", doc: d.doc, message: `the reference plugin did not answer as recorded: ${refFails}` };
    const asOurs = attempt(() => d.ours(a.obs, a.ctx));
    if (asOurs === undefined) {
      // With a difference, a relation says how our recorded answer stands to the reference's.
      const unrelated = c.relate ? attempt(() => c.relate!(a.obs, b.obs)) : undefined;
      if (unrelated !== undefined) return { ...base, status: "fail", doc: d.doc, message: `the plugin beside the reference: ${unrelated}` };
      return { ...base, status: "deliberate", side: "ours", doc: d.doc };
    }
    if (!strict && attempt(() => d.reference(a.obs, a.ctx)) === undefined) return { ...base, status: "deliberate", side: "reference", doc: d.doc };
    return { ...base, status: "fail", doc: d.doc, message: `the plugin did not answer as recorded: ${asOurs}` };
  }
  if (c.compare !== false) {
    const pick = c.compare ?? ((o: O) => o);
    const differs = attempt(() => deepEqual(pick(a.obs), pick(b.obs)));
    if (differs !== undefined) return { ...base, status: "fail", message: `the two plugins answered differently: ${differs}` };
  }
  if (c.relate) {
    const unrelated = attempt(() => c.relate!(a.obs, b.obs));
    if (unrelated !== undefined) return { ...base, status: "fail", message: `the plugin beside the reference: ${unrelated}` };
  }
  return { ...base, status: "pass" };
}

/** node:assert's diff shows the plugin's answer as "actual", the reference's as "expected". */
function deepEqual(a: unknown, b: unknown): void {
  assert.deepStrictEqual(a, b);
}

/** Groups cases by session, keeping table order (a session's cases run in the order they were declared). */
export function bySession(cases: readonly Case[]): Map<Session, Case[]> {
  const out = new Map<Session, Case[]>();
  for (const c of cases) {
    const key = [...out.keys()].find((s) => s.id === c.session.id) ?? c.session;
    out.set(key, [...(out.get(key) ?? []), c]);
  }
  return out;
}
