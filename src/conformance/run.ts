// Runs the conformance table against a plugin command: alone (against the
// recorded expectations) or beside a reference command (side by side), session
// by session, and returns one verdict per case.
import { createRequire } from "node:module";
import path from "node:path";
import { Needs, type Case, type CaseContext, type Language, type Program } from "./case.js";
import { CASES, selectCases } from "./cases/index.js";
import { bySession, judgeOne, judgePair, observe, SessionRun, shellCommand, startFailure, target, type PluginCommand, type Target, type Verdict } from "./driver.js";
import { loadOwnSdk, loadSdk, projectHasSdk, type Sdk } from "./client.js";
import { prepareProgram } from "./payloads.js";
import { compareVersions, RECORDED_WITH } from "./sdk-version.js";

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
  /** The SDK release the table's answers were recorded with. */
  recordedWith: string;
  /** The SDK release the plugin was judged as, when known. */
  pluginSdk?: string;
  verdicts: Verdict[];
  counts: Record<"pass" | "fail" | "deliberate" | "notRun", number>;
  /**
   * True when no case failed and at least one ran: a deliberate difference answered as recorded
   * counts as passed; a case not run (it needs what the machine lacks) is not a failure.
   */
  ok: boolean;
}

/** The command line of `--plugin` / `--reference`, run as the engine runs a plugin executable (through sh -c 'exec …'). */
export function commandFromString(command: string, label = command): PluginCommand {
  return shellCommand(command, label);
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
    // A command that does not start at all is said once, not once per case.
    const [pf, rf] = await Promise.all([startFailure(plugin), reference ? startFailure(reference) : undefined]);
    if (cases.length > 0 && (pf !== undefined || rf !== undefined)) {
      const who = pf !== undefined ? "plugin" : "reference";
      emit({
        id: `${opts.language}/start`,
        title: `the ${who} starts as the engine starts it (its command, then the engine address; its port on the first stdout line)`,
        status: "fail",
        message: `the ${who} did not start, so no case was run: ${pf ?? rf}`,
      });
      return report(opts, verdicts);
    }
    const startFailures = new Map<string, string>();
    for (const list of bySession(cases).values()) {
      const runnable: Case[] = [];
      for (const c of list) {
        const missing = missingPackages(c, program.programDir);
        if (missing.length > 0) {
          emit({ id: c.id, title: c.title, status: "not run", message: `needs ${missing.join(", ")} installed in the project (npm install ${missing.join(" ")})` });
        } else runnable.push(c);
      }
      if (runnable.length > 0) await runSession(runnable, plugin, reference, emit, startFailures);
    }
  } finally {
    program.cleanup();
  }
  return report(opts, verdicts);
}

function report(opts: RunOptions, verdicts: Verdict[]): Report {
  const counts = { pass: 0, fail: 0, deliberate: 0, notRun: 0 };
  for (const v of verdicts) {
    if (v.status === "not run") counts.notRun++;
    else counts[v.status]++;
  }
  return {
    language: opts.language,
    plugin: opts.plugin.label,
    reference: opts.reference?.label,
    recordedWith: RECORDED_WITH[opts.language],
    pluginSdk: opts.plugin.sdkVersion,
    verdicts,
    counts,
    ok: counts.fail === 0 && counts.pass + counts.deliberate > 0,
  };
}

/** The SDK name of a language, as its users know it. */
export const SDK_NAME: Record<Language, string> = { nodejs: "@pulumi/pulumi", python: "pulumi" };

/** The plugin's release, when it is known and before the release whose answer `c` records. */
function older(c: Case, t: Target): string | undefined {
  const v = t.command.sdkVersion;
  return c.sdk && v !== undefined && compareVersions(v, c.sdk.since) < 0 ? v : undefined;
}

/** `c` judged for `t`: by its release's answer when that is older than the recorded one, else as recorded. */
function judgeAt(c: Case, obs: unknown, ctx: CaseContext, t: Target): Verdict {
  const version = older(c, t);
  if (!version) return judgeOne(c, obs, ctx);
  const base = { id: c.id, title: c.title, doc: c.difference?.doc };
  const since = `${SDK_NAME[c.language]} ${c.sdk!.since}`;
  if (!c.sdk!.before) {
    return { ...base, status: "not run", message: `needs a plugin of ${since} or later: the case records what that release changed, and ${t.command.label} is from ${version}` };
  }
  try {
    c.sdk!.before(obs, ctx);
  } catch (e) {
    return { ...base, status: "fail", message: `judged as releases before ${since} answer (the plugin is from ${version}): ${e instanceof Error ? e.message : String(e)}` };
  }
  const note = `answered as releases before ${since} do (the plugin is from ${version}); ${since} and later answer as recorded`;
  return c.difference ? { ...base, status: "deliberate", side: "reference", message: note } : { ...base, status: "pass", message: note };
}

/** A failed case that records a later release's answer, for a plugin of unknown release: say so. */
function sdkHint(c: Case, v: Verdict, t: Target): Verdict {
  if (v.status !== "fail" || !c.sdk || t.command.sdkVersion !== undefined) return v;
  return {
    ...v,
    message: `${v.message}\n(this case records the answer of ${SDK_NAME[c.language]} ${c.sdk.since} and later; a plugin of an earlier release answers otherwise: name its release with --sdk-version)`,
  };
}

async function start(c: Case, t: Target): Promise<SessionRun | Error> {
  try {
    return await SessionRun.start(c.session, t);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

async function runSession(cases: Case[], plugin: Target, reference: Target | undefined, emitVerdict: (v: Verdict) => void, startFailures: Map<string, string>): Promise<void> {
  const [p, r] = await Promise.all([start(cases[0], plugin), reference ? start(cases[0], reference) : undefined]);
  try {
    const needs = p instanceof Needs ? p : r instanceof Needs ? r : undefined;
    let failed = p instanceof Error ? `the plugin did not start: ${p.message}` : r instanceof Error ? `the reference did not start: ${r.message}` : undefined;
    // The same start-up failure as an earlier session's is named, not repeated.
    if (failed !== undefined) {
      const first = startFailures.get(failed);
      if (first === undefined) startFailures.set(failed, cases[0].id);
      else failed = `${failed.slice(0, failed.indexOf(":"))} (as for ${first}, above)`;
    }
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
        if (older(c, pr.target) || (rr && c.only !== "plugin" && older(c, rr.target))) {
          // A release before the one the case records: each side judged by its own release's answer.
          const a = await observe(c, pr);
          const va = judgeAt(c, a.obs, a.ctx, pr.target);
          if (rr && c.only !== "plugin" && va.status !== "fail") {
            const b = await observe(c, rr);
            const vb = judgeAt(c, b.obs, b.ctx, rr.target);
            if (vb.status === "fail") {
              emit({ ...vb, message: `the reference: ${vb.message}` });
              continue;
            }
          }
          emit(va);
        } else if (!rr || c.only === "plugin") {
          const o = await observe(c, pr);
          emit(sdkHint(c, judgeOne(c, o.obs, o.ctx), pr.target));
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
