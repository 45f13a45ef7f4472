// Runs the conformance table against a plugin command: alone (against the
// recorded expectations) or beside a reference command (side by side), session
// by session, and returns one verdict per case.
import { createRequire } from "node:module";
import path from "node:path";
import { Needs, type Case, type Language, type Program } from "./case.js";
import { CASES, selectCases } from "./cases/index.js";
import { bySession, judgeOne, judgePair, observe, SessionRun, shellCommand, target, type PluginCommand, type Target, type Verdict } from "./driver.js";
import { loadOwnSdk, loadSdk, projectHasSdk, type Sdk } from "./client.js";
import { prepareProgram } from "./payloads.js";

export interface RunOptions {
  language: Language;
  plugin: PluginCommand;
  reference?: PluginCommand;
  /** An id prefix or glob (`*`). */
  only?: string;
  /** The project whose SDK makes the payloads and speaks to the plugins; its folder gets the program the plugins run in. */
  projectDir?: string;
  /** A program made already (the tests: the scenarios in place). */
  program?: Program;
  /** A Python of another CPython minor with pulumi and dill, for the version-drift case (else it is searched for). */
  otherPython?: string;
  /** Called with each verdict as it is made. */
  onVerdict?: (v: Verdict) => void;
  table?: readonly Case[];
}

export interface Report {
  language: Language;
  plugin: string;
  reference?: string;
  verdicts: Verdict[];
  counts: Record<"pass" | "fail" | "deliberate" | "notRun", number>;
  /**
   * True when no case failed and at least one ran: a deliberate difference answered as recorded
   * counts as passed; a case not run (it needs what the machine lacks) is not a failure.
   */
  ok: boolean;
}

/** The command line of `--plugin` / `--reference`, run as the engine runs a plugin executable (through sh -c 'exec …'). */
export function commandFromString(command: string): PluginCommand {
  return shellCommand(command);
}

/** Packages a case needs that do not resolve from the program directory. */
function missingPackages(c: Case, programDir: string): string[] {
  const req = createRequire(path.join(programDir, "noop.js"));
  return (c.needs ?? []).filter((p) => {
    try {
      req.resolve(`${p}/package.json`);
      return false;
    } catch {
      try {
        req.resolve(p);
        return false;
      } catch {
        return true;
      }
    }
  });
}

/**
 * What the kit speaks with: the project's @pulumi/pulumi when it has one (a Node
 * project must: its serializer makes the payloads), else, for Python, the kit's own
 * copy of the stubs; without a project, the kit's own (loadSdk()).
 */
async function sdkFor(language: Language, projectDir: string | undefined): Promise<string | Sdk | undefined> {
  if (projectDir === undefined || projectHasSdk(projectDir)) return projectDir;
  if (language === "python") return loadOwnSdk();
  return loadSdk(projectDir);
}

export async function runConformance(opts: RunOptions): Promise<Report> {
  const cases = selectCases(opts.language, opts.only, opts.table ?? CASES);
  const program = opts.program ?? prepareProgram(opts.language, opts.projectDir);
  if (opts.otherPython) program.otherPython = opts.otherPython;
  const verdicts: Verdict[] = [];
  const emit = (v: Verdict) => {
    verdicts.push(v);
    opts.onVerdict?.(v);
  };
  try {
    const sdkFrom = await sdkFor(opts.language, opts.projectDir);
    const plugin = target(opts.plugin, program, sdkFrom);
    const reference = opts.reference ? target(opts.reference, program, sdkFrom) : undefined;
    for (const list of bySession(cases).values()) {
      const runnable: Case[] = [];
      for (const c of list) {
        const missing = missingPackages(c, program.programDir);
        if (missing.length > 0) {
          emit({ id: c.id, title: c.title, status: "not run", message: `needs ${missing.join(", ")} installed in the project (npm install ${missing.join(" ")})` });
        } else runnable.push(c);
      }
      if (runnable.length > 0) await runSession(runnable, plugin, reference, emit);
    }
  } finally {
    program.cleanup();
  }
  const counts = { pass: 0, fail: 0, deliberate: 0, notRun: 0 };
  for (const v of verdicts) {
    if (v.status === "not run") counts.notRun++;
    else counts[v.status]++;
  }
  return {
    language: opts.language,
    plugin: opts.plugin.label,
    reference: opts.reference?.label,
    verdicts,
    counts,
    ok: counts.fail === 0 && counts.pass + counts.deliberate > 0,
  };
}

async function start(c: Case, t: Target): Promise<SessionRun | Error> {
  try {
    return await SessionRun.start(c.session, t);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

async function runSession(cases: Case[], plugin: Target, reference: Target | undefined, emitVerdict: (v: Verdict) => void): Promise<void> {
  const [p, r] = await Promise.all([start(cases[0], plugin), reference ? start(cases[0], reference) : undefined]);
  try {
    const needs = p instanceof Needs ? p : r instanceof Needs ? r : undefined;
    const failed = p instanceof Error ? `the plugin did not start: ${p.message}` : r instanceof Error ? `the reference did not start: ${r.message}` : undefined;
    for (const c of cases) {
      const started = performance.now();
      const emit = (v: Verdict) => emitVerdict({ ...v, seconds: (performance.now() - started) / 1000 });
      if (needs) {
        emit({ id: c.id, title: c.title, status: "not run", doc: c.difference?.doc, message: needs.message });
        continue;
      }
      if (failed) {
        emit({ id: c.id, title: c.title, status: "fail", doc: c.difference?.doc, message: failed });
        continue;
      }
      const pr = p as SessionRun;
      const rr = r as SessionRun | undefined;
      try {
        if (!rr || c.only === "plugin") {
          const o = await observe(c, pr);
          emit(judgeOne(c, o.obs, o.ctx));
        } else if (c.sequential) {
          const b = await observe(c, rr);
          const a = await observe(c, pr);
          emit(judgePair(c, a, b));
        } else {
          const [a, b] = await Promise.all([observe(c, pr), observe(c, rr)]);
          emit(judgePair(c, a, b));
        }
      } catch (e) {
        if (e instanceof Needs) emit({ id: c.id, title: c.title, status: "not run", doc: c.difference?.doc, message: e.message });
        else emit({ id: c.id, title: c.title, status: "fail", doc: c.difference?.doc, message: `could not be asked: ${e instanceof Error ? e.message : String(e)}` });
      }
    }
  } finally {
    await Promise.all([p instanceof SessionRun ? p.stop() : undefined, r instanceof SessionRun ? r.stop() : undefined]);
  }
}
