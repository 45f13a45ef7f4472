// Runs the conformance table against a plugin command: alone (against the
// recorded expectations) or beside a reference command (side by side), session
// by session, and returns one verdict per case.
import { createRequire } from "node:module";
import path from "node:path";
import type { Case, Language } from "./case.js";
import { CASES, selectCases } from "./cases/index.js";
import { bySession, judgeOne, judgePair, observe, SessionRun, shellCommand, target, type PluginCommand, type Target, type Verdict } from "./driver.js";
import { prepareProgram, type Program } from "./payloads.js";

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
  /** True when every case passed (a deliberate difference answered as recorded counts as passed). */
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
    const sdkFrom = opts.projectDir;
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
    ok: counts.fail === 0 && counts.notRun === 0 && verdicts.length > 0,
  };
}

async function start(c: Case, t: Target): Promise<SessionRun | Error> {
  try {
    return await SessionRun.start(c.session, t);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

async function runSession(cases: Case[], plugin: Target, reference: Target | undefined, emit: (v: Verdict) => void): Promise<void> {
  const [p, r] = await Promise.all([start(cases[0], plugin), reference ? start(cases[0], reference) : undefined]);
  try {
    const failed = p instanceof Error ? `the plugin did not start: ${p.message}` : r instanceof Error ? `the reference did not start: ${r.message}` : undefined;
    for (const c of cases) {
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
        emit({ id: c.id, title: c.title, status: "fail", doc: c.difference?.doc, message: `could not be asked: ${e instanceof Error ? e.message : String(e)}` });
      }
    }
  } finally {
    await Promise.all([p instanceof SessionRun ? p.stop() : undefined, r instanceof SessionRun ? r.stop() : undefined]);
  }
}
