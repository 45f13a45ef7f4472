// doctor's verdict on each dynamic resource of a stack export: can this
// machine load its `__provider` when the plugin runs in the program directory?
// Node: every module its closure requires resolves. Python: the modules its
// pickle names are found by the program's Python, a class pickled by reference
// is there, and by-value code was written by a Python of the same minor
// version, or by one the plugin would find and run it with
// (src/python-bridge/interpreter/interpreter-search.ts). Every problem line names the
// resource's URN and what to do.
import { resolveRequire, packageOf } from "./node-environment.js";
import { versionText, type ProbeResult, type PythonProbe } from "./python-probe.js";
import { analyzePayload, ENCRYPTED, type Analysis, type DynamicResource, type Language } from "../inspect/stack-export.js";
import type { GlobalRef } from "../../python-bridge/pickle/pickle-inspect.js";
import type { Search } from "../../python-bridge/interpreter/interpreter-search.js";
import { describeFound, driftMessage } from "../../python-bridge/other-pythons.js";

/**
 * One finding: ok; a note (worth knowing, nothing to fix); a warning (everything runs, but not as
 * it should: the engine prints a warning on every run); a problem (something will fail).
 */
export type Findings = (kind: "ok" | "note" | "warning" | "problem", line: string) => void;
/** Per language, why nothing of it can run here (with what to do), when so. */
export type Blockers = Partial<Record<Language, string>>;
export type Verdict = "loads" | "cannot" | "unchecked";

/** Each resource's analysis, one per distinct payload text; resources without a readable payload have none. */
export function analyzeResources(resources: readonly DynamicResource[]): Map<DynamicResource, Analysis> {
  const byText = new Map<string, Analysis>();
  const out = new Map<DynamicResource, Analysis>();
  for (const r of resources) {
    if (r.payload.state !== "text") continue;
    const key = `${r.language}\0${r.payload.text}`;
    let a = byText.get(key);
    if (!a) byText.set(key, (a = analyzePayload(r.language, r.payload.text)));
    out.set(r, a);
  }
  return out;
}

/** What the Python probe must look up for these analyses: modules by name, and classes pickled by reference. */
export function pythonQuestions(analyses: Iterable<Analysis>): { modules: string[]; classes: GlobalRef[] } {
  const modules = new Set<string>();
  const classes = new Map<string, GlobalRef>();
  for (const a of analyses) {
    if (!a.ok || a.language !== "python") continue;
    // __main__ is the worker itself when unpickling; dill pickles what was defined there by value.
    for (const m of [...a.modules, ...(a.facts.dillModule ? [a.facts.dillModule] : [])]) if (m !== "__main__" && !suppliedByHost(a, m)) modules.add(m);
    const cls = a.facts.providerClass;
    if (cls && !cls.byValue && cls.module !== "__main__" && !suppliedByHost(a, cls.module)) classes.set(`${cls.module}:${cls.name}`, { module: cls.module, name: cls.name });
  }
  return { modules: [...modules], classes: [...classes.values()] };
}

export interface CheckContext {
  /** The plugin's working directory. */
  cwd: string;
  blockers: Blockers;
  analyses: Map<DynamicResource, Analysis>;
  python?: ProbeResult;
  /**
   * For by-value code the program's Python cannot run: where the host looked
   * for that code's Python (what the plugin would do), by analysis.
   */
  otherPythons?: Map<Analysis, Search>;
  /** The reference helper's references that cannot be loaded here, "<language>\0<reference>" (each reported once, by doctor). */
  unloadable?: Set<string>;
}

const RESTORE = "run `pulumi up` from the program so the engine stores its provider anew (a refresh or destroy before that fails on it)";

export function checkResource(r: DynamicResource, ctx: CheckContext, f: Findings): Verdict {
  const p = r.payload;
  if (p.state === "encrypted") {
    f("note", `${r.urn}: not checked: its __provider is ${ENCRYPTED}`);
    return "unchecked";
  }
  const problems: string[] = [];
  const a = ctx.analyses.get(r);
  if (p.state === "missing") problems.push(`it has no __provider in its outputs or inputs, so no plugin can run it: ${RESTORE}`);
  else if (p.state === "invalid") problems.push(`its __provider is ${p.why}: ${RESTORE}`);
  else if (a && !a.ok) problems.push(`${a.problem}: ${RESTORE}`);
  if (p.state === "text" && ctx.blockers[r.language]) problems.push(`cannot be loaded here: ${ctx.blockers[r.language]}`);
  const reference = a?.ok ? a.reference : undefined;
  if (reference !== undefined && ctx.unloadable?.has(`${r.language}\0${reference}`)) {
    problems.push(`its provider is the reference "${reference}", which cannot be loaded here (see the line about that reference above)`);
  }
  const byReference = reference !== undefined ? `; the provider reference ${reference}` : "";
  if (a?.ok && a.language === "nodejs") {
    for (const id of a.requires) {
      const resolved = resolveRequire(ctx.cwd, id);
      if (resolved.ok) continue;
      const pkg = packageOf(id);
      const fix = pkg ? `install ${pkg} in the program (\`npm install ${pkg}\` in ${ctx.cwd} or a directory above it)` : `the path is taken from ${ctx.cwd}: put the file there`;
      problems.push(`its provider requires "${id}", which does not resolve from ${ctx.cwd} (${resolved.why}): ${fix}`);
    }
    if (a.dynamicRequires > 0) f("note", `${r.urn}: its provider calls require() with ${a.dynamicRequires} computed name(s), which cannot be checked without running it`);
    if (problems.length === 0) f("ok", `${r.urn}: loads here (nodejs; requires ${a.requires.length ? a.requires.join(", ") : "nothing"}${byReference})`);
  } else if (a?.ok && a.language === "python" && ctx.python?.ok) {
    const other = ctx.otherPythons?.get(a);
    problems.push(...pythonProblems(a, ctx.python.probe, ctx.cwd, other));
    if (problems.length === 0) {
      const cls = a.facts.providerClass;
      const what = cls ? `${cls.module}.${cls.name} ${cls.byValue ? "by value" : "by reference"}` : "provider";
      const where = other?.found ? `, run by ${describeFound(other.found)}, not the program's Python` : "";
      f("ok", `${r.urn}: loads here (python; ${what}${a.facts.code ? `, code of ${a.facts.code.describe}` : ""}${where}; modules ${a.modules.join(", ") || "none"}${byReference})`);
    }
  }
  for (const problem of problems) f("problem", `${r.urn}: ${problem}`);
  return problems.length > 0 ? "cannot" : "loads";
}

/** The reference helper's module: the worker puts its own copy on sys.path, so a pickle of the helper's object always finds it. */
const HELPER_MODULE = "pulumi_dynamic_host.reference";

function suppliedByHost(a: Analysis, module: string): boolean {
  return a.ok && a.reference !== undefined && (module === HELPER_MODULE || module === "pulumi_dynamic_host");
}

/** Whether the program's Python (`probe`) cannot run the by-value code `a` holds: the host then looks for another. */
export function needsOtherPython(a: Analysis, probe: PythonProbe): boolean {
  const code = a.ok && a.language === "python" ? a.facts.code : undefined;
  return code !== undefined && !code.accepts([probe.version[0], probe.version[1]]);
}

function pythonProblems(a: Extract<Analysis, { language: "python" }>, probe: PythonProbe, cwd: string, other: Search | undefined): string[] {
  const problems: string[] = [];
  const python = `${probe.executable} ${versionText(probe)}`;
  const cls = a.facts.providerClass;
  const clsName = cls ? ` ${cls.module}.${cls.name}` : "";
  const code = a.facts.code;
  if (code && needsOtherPython(a, probe) && !other?.found) {
    problems.push(
      driftMessage({
        subject: `its provider${clsName}`,
        origin: code,
        dill: a.facts.dillModule === "dill.dill" ? "dill 0.2" : "dill ≥ 0.3",
        mine: python,
        search: other,
      }),
    );
  }
  const missing = (m: string) => {
    const l = probe.modules[m];
    return l && "error" in l ? l.error : undefined;
  };
  if (cls && !cls.byValue && !suppliedByHost(a, cls.module)) {
    const why = missing(cls.module);
    const found = probe.classes[`${cls.module}:${cls.name}`];
    if (why) {
      problems.push(
        `its provider class${clsName} is pickled by reference, and ${probe.executable} cannot find module ${cls.module} from ${cwd} (${why}): ` +
          `put ${cls.module.replace(/\./g, "/")}.py in ${cwd} (the program directory, first on sys.path) or install the package that provides it into that Python`,
      );
    } else if (typeof found === "string") {
      problems.push(`its provider class${clsName} is pickled by reference and cannot be loaded: ${found}: restore the class under that name, or run \`pulumi up\` from the program after moving it`);
    }
  }
  const dill = a.facts.dillModule ? [a.facts.dillModule] : [];
  for (const m of [...a.modules, ...dill]) {
    if ((m === cls?.module && !cls.byValue) || suppliedByHost(a, m)) continue;
    const why = m === "__main__" ? undefined : missing(m);
    if (why) problems.push(`its pickled provider uses module ${m}, which ${python} cannot find from ${cwd} (${why}): install the package that provides it into that Python`);
  }
  return problems;
}
