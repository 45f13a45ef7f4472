// src/cli/doctor: `doctor` and its checks: how the engine would launch the
// plugin here (plugin-launch.ts, which `conformance` asks too), the Node side
// (node-environment.ts, node-engines.ts, module-exports.ts), the Python side
// (python-probe.ts, preloaders.ts), and a stack export's resources and
// references (resource-checks.ts, reference-checks.ts). It may import src/host,
// both adapters, src/cli/install (the engine's lookup), src/cli/inspect (the
// export's reading) and the command table's usage texts (../usage.ts).
//
// `pulumi-dynamic-host doctor [--stack-export FILE] [DIR]`: what the engine
// will launch for the program in DIR and with which Node and Python, and,
// given a stack export, whether each dynamic resource's provider can be loaded
// there, and which Python preloaders of this user are running (preloaders.ts).
// Runs no provider code (see python-probe.ts for what the Python check imports;
// a Node reference's export is read from the module's source, module-exports.ts).
// One line per finding, `ok:`, `note:`, `warning:` or `problem:`, then a summary;
// the exit status is 1 when any line is a warning or a problem (a warning: the
// engine runs the plugins but prints a warning on every run, which the Quick
// start promises it will not, and which fails a check for no diagnostics).
// Outside a project (no Pulumi.yaml) what only a project needs is a note.
import { cacheRootNote, inspectCacheRoot } from "../../host/files/cache-root.js";
import { isDirectory, isExecutableFile, statOf } from "../../host/files/file-probe.js";
import { hostVersion } from "../../host/plugin/plugin-info.js";
import { resolveProjectInterpreter, type ProjectResolution } from "../../python-bridge/interpreter/project-interpreter.js";
import { readProjectPython } from "../../python-bridge/interpreter/project-python.js";
import { SECTION } from "../../host/references/provider-references.js";
import type { Interpreter } from "../../python-bridge/interpreter/interpreter.js";
import { findPulumi, resolvePlugin, type PluginPackage } from "../install/engine-lookup.js";
import { isOurLauncher, ourPlugins, sameContent, shadowAdvice } from "../install/install.js";
import { nodeRuntime, pulumiSdk, type NodeRuntime } from "./node-environment.js";
import { satisfiesEngines } from "./node-engines.js";
import { pluginLaunch, type PluginLaunch } from "./plugin-launch.js";
import { describePreloader, preloaderDirectory, preloadersIn, summarizePreloaders, type PreloaderSeen } from "./preloaders.js";
import { platformFindings, runningOn, type RunningOn } from "./platform-report.js";
import { probePython, versionText, type ProbeResult, type PythonProbe } from "./python-probe.js";
import { checkNodeReference, checkNodeReferences, checkPythonReferences, helperLabel, NODE_HELPER_ORIGIN, pythonReferenceQuestions, readDeclarations, type PythonReference } from "./reference-checks.js";
import { analyzeResources, checkResource, needsOtherPython, pythonQuestions, type Blockers, type Findings } from "./resource-checks.js";
import { InterpreterSearch, type Search } from "../../python-bridge/interpreter/interpreter-search.js";
import { COMMAND_USAGE } from "../usage.js";
import { encryptedAdvice, readStackExport, type Analysis, type DynamicResource, type Language } from "../inspect/stack-export.js";

const USAGE = COMMAND_USAGE.doctor;

export interface DoctorOptions {
  dir: string;
  stackExport?: string;
  /** Every preloader on a line of its own, not only their summary. */
  verbose?: boolean;
  env: NodeJS.ProcessEnv;
  /** The system it reports on (unset: this one; tests give Windows and macOS). */
  system?: RunningOn;
}

const stderrLine = (line: string) => void process.stderr.write(`${line}\n`);

export async function runDoctor(args: readonly string[], out: (line: string) => void, err: (line: string) => void = stderrLine): Promise<number> {
  const opts = parseArgs(args);
  if (typeof opts === "string") {
    if (opts === "help") {
      out(USAGE);
      return 0;
    }
    err(`pulumi-dynamic-host doctor: ${opts}\n${USAGE}`);
    return 2;
  }
  return doctor({ ...opts, env: process.env }, out, err);
}

/** The options, or "help", or what is wrong with the arguments. */
function parseArgs(args: readonly string[]): Omit<DoctorOptions, "env"> | string {
  let stackExport: string | undefined;
  let verbose = false;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--help" || a === "-h") return "help";
    if (a === "--stack-export") {
      if (args[i + 1] === undefined) return "--stack-export needs a FILE (a stack export, or - for stdin)";
      stackExport = args[++i];
    } else if (a.startsWith("--stack-export=")) stackExport = a.slice("--stack-export=".length);
    else if (a === "--verbose") verbose = true;
    else if (a.startsWith("-") && a !== "-") return `unknown option ${JSON.stringify(a)}`;
    else positional.push(a);
  }
  if (positional.length > 1) return `expected at most one DIR, got ${positional.map((p) => JSON.stringify(p)).join(" ")}`;
  return { dir: positional[0] ?? process.cwd(), stackExport, verbose };
}

export async function doctor(opts: DoctorOptions, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  let resources: DynamicResource[] | undefined;
  let launch: PluginLaunch;
  try {
    if (!isDirectory(opts.dir)) throw new Error(`${opts.dir} is not a directory: DIR is the program's directory`);
    if (opts.stackExport !== undefined) resources = readStackExport(opts.stackExport);
    launch = pluginLaunch(opts.dir, opts.env);
  } catch (e) {
    err(`pulumi-dynamic-host doctor: ${(e as Error).message}`);
    return 2;
  }
  const counts = { ok: 0, note: 0, warning: 0, problem: 0 };
  const f: Findings = (kind, line) => {
    counts[kind]++;
    out(`${kind}: ${line}`);
  };
  const system = opts.system ?? runningOn();
  for (const { kind, line } of platformFindings(system)) f(kind, line);
  if (launch.projectRoot) f("ok", `program directory: ${launch.cwd} (project ${launch.project ?? "without a name"} in ${launch.projectRoot})`);
  else {
    f(
      "note",
      `program directory: ${launch.cwd}: no Pulumi.yaml at or above it, so this is not a Pulumi project: the engine starts the plugins in a project's directory, ` +
        `and its Pulumi.yaml (runtime, plugins.providers, the ${SECTION} section) is not checked here; run doctor in the project's directory or give it as DIR`,
    );
  }
  // Without an export, what the project's runtime needs is a problem (and Python, for a project declaring Python
  // providers); with one, a blocked resource is, named by its URN.
  let declaresPython = false;
  // Outside a project nothing is needed: which language runs, and with which Python, is the project's to say.
  const needed = (l: Language) => !resources && launch.projectRoot !== undefined && (launch.runtime === undefined || launch.runtime === l || (l === "python" && declaresPython));
  const blockers: Blockers = {};
  const block = (languages: readonly Language[], why: string) => {
    for (const l of languages) blockers[l] ??= why;
    f(languages.some(needed) ? "problem" : "note", why);
  };

  const pulumi = findPulumi(opts.env);
  if (pulumi) f("ok", `pulumi: ${pulumi.invoked}${pulumi.real !== pulumi.invoked ? ` (${pulumi.real})` : ""}`);
  else f("note", "pulumi: not on PATH, so the engine's lookup next to pulumi is skipped here");
  for (const [language, pkg] of [["nodejs", "pulumi-nodejs"], ["python", "pulumi-python"]] as const) {
    const why = checkPlugin(pkg, launch, opts.env, pulumi?.dir, f);
    if (why) block([language], why);
  }

  const node = nodeRuntime(opts.env);
  if (node.problem) block(["nodejs", "python"], `node: ${node.problem}`);
  else f("ok", node.embedded ? `node: embedded in the single executable (${node.version})` : `node: ${node.path} ${node.version} (runs the host)`);
  // Said only when it cannot be used (a usable one is not worth a line).
  const cache = inspectCacheRoot(opts.env);
  if (!cache.usable) f("note", `cache: ${cacheRootNote(cache, "the plugins run without it, each start a little slower")}`);
  const sdk = pulumiSdk(launch.cwd);
  if (sdk) f("ok", `@pulumi/pulumi: ${sdk.version} in ${sdk.dir} (what a provider's require("@pulumi/pulumi") loads)`);
  else f("note", `@pulumi/pulumi: does not resolve from ${launch.cwd} (only providers that require it need it)`);
  if (sdk?.enginesNode !== undefined && node.version !== undefined) checkEngines(sdk.version, sdk.enginesNode, node, f);

  const declared = await readDeclarations(launch.cwd, f);
  declaresPython = declared.python.length > 0;
  checkNodeReferences(declared.nodejs, f);
  const analyses = analyzeResources(resources ?? []);
  const held = heldReferences(analyses);
  // Keyed "<language>\0<reference>": the helper references that cannot be loaded here.
  const unloadable = new Set<string>();
  for (const [reference, count] of held.nodejs) {
    const label = helperLabel("nodejs", reference, count);
    if (!checkNodeReference(label, { reference, projectDir: launch.projectRoot ?? launch.cwd, origin: NODE_HELPER_ORIGIN }, f)) unloadable.add(`nodejs\0${reference}`);
  }
  const heldPython: PythonReference[] = [...held.python].map(([reference, count]) => ({ typeToken: helperLabel("python", reference, count), reference }));
  const ask = pythonQuestions(analyses.values());
  const forReferences = pythonReferenceQuestions([...declared.python, ...heldPython]);
  ask.modules.push(...forReferences.modules);
  ask.classes.push(...forReferences.classes);
  const project = await readProjectPython(launch.cwd, true);
  const resolution = resolveProjectInterpreter(launch.cwd, launch.env, project);
  if (project?.python !== undefined && project.runtime === "python") {
    f("note", `python: ${SECTION}.python in ${project.file} is not used: in a Python project, providers run with the program's own interpreter`);
  }
  const python = await checkPython(launch, resolution, ask, (why) => block(["python"], why), f);
  checkPythonReferences(declared.python, python, f);
  for (const reference of checkPythonReferences(heldPython, python, f)) unloadable.add(`python\0${reference}`);
  reportPreloaders(preloadersIn(preloaderDirectory(opts.env, undefined, system.platform)), opts.verbose === true, f);
  const otherPythons = python?.ok && resolution.ok ? await searchOtherPythons(launch, resolution.interpreter, analyses.values(), python.probe) : undefined;
  const verdicts = { loads: 0, cannot: 0, unchecked: 0 };
  for (const r of resources ?? []) verdicts[checkResource(r, { cwd: launch.cwd, blockers, analyses, python, otherPythons, unloadable }, f)]++;

  // Ciphertext hides what a resource's provider is: when nothing could be read, nothing was checked, and that is not a pass.
  const encrypted = (resources ?? []).filter((r) => r.payload.state === "encrypted").length;
  if (encrypted > 0) f(encrypted === resources!.length ? "problem" : "note", `stack export: ${encryptedAdvice(encrypted, resources!.length, "doctor --stack-export -")}`);
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const checked = resources
    ? `${plural(resources.length, "dynamic resource")}: ${verdicts.loads} can be loaded here, ${verdicts.cannot} cannot, ${verdicts.unchecked} not checked`
    : "no stack export given, so no resource was checked";
  out(`summary: ${plural(counts.problem, "problem")}, ${plural(counts.warning, "warning")}, ${plural(counts.note, "note")}; ${checked}`);
  return counts.problem + counts.warning > 0 ? 1 : 0;
}

/** The preloaders of this user: one line for all of them, and with --verbose one for each. */
function reportPreloaders(seen: readonly PreloaderSeen[], verbose: boolean, f: Findings): void {
  if (seen.length === 0) return;
  f("ok", `python preloaders: ${summarizePreloaders(seen)}${verbose ? "" : "; `doctor --verbose` lists each"}`);
  if (verbose) for (const p of seen) f("ok", `python preloader: ${describePreloader(p)}`);
}

/** The project's @pulumi/pulumi's `engines.node` against the Node that runs the host, and so its providers. */
function checkEngines(sdkVersion: string, range: string, node: NodeRuntime, f: Findings): void {
  const runs = node.embedded ? `Node ${node.version}, embedded in the single executable,` : `${node.path} ${node.version}`;
  const wants = `@pulumi/pulumi ${sdkVersion} asks for Node ${range} (its package.json engines.node)`;
  const verdict = satisfiesEngines(node.version!, range);
  if (verdict === "satisfied") f("ok", `node: ${wants}; ${runs} runs the host and its providers`);
  else if (verdict === "unmet") {
    const fix = node.embedded ? "use the npm package of this host with a newer node first on PATH" : "put a node that matches first on PATH";
    f("note", `node: ${wants}, and ${runs} runs the host and its providers: a provider that requires @pulumi/pulumi may fail there; ${fix}`);
  } else f("note", `node: ${wants}; whether ${node.version} matches that range could not be told`);
}

/** The references the reference helper's objects hold, by language, each with how many resources hold it. */
function heldReferences(analyses: Map<DynamicResource, Analysis>): Record<Language, Map<string, number>> {
  const held = { nodejs: new Map<string, number>(), python: new Map<string, number>() };
  for (const a of analyses.values()) {
    if (a.ok && a.reference !== undefined) held[a.language].set(a.reference, (held[a.language].get(a.reference) ?? 0) + 1);
  }
  return held;
}

const SOURCES = { project: "Pulumi.yaml plugins.providers", path: "$PATH", bundled: "next to pulumi", cache: "the plugin cache" };

/** Reports what the engine launches for `pkg`; returns why nothing can run, when so. */
function checkPlugin(pkg: PluginPackage, launch: PluginLaunch, env: NodeJS.ProcessEnv, pulumiDir: string | undefined, f: Findings): string | undefined {
  const r = resolvePlugin(pkg, { env, projectRoot: launch.projectRoot, pulumiDir });
  if (!r.chosen) {
    return `plugin ${r.binary}: the engine finds none (Pulumi.yaml plugins.providers, $PATH, next to pulumi, the plugin cache): run \`pulumi-dynamic-host install\``;
  }
  const chosen = r.chosen.path;
  // The engine takes a project's plugin path as written, without looking: a wrong one fails every run.
  if (!isExecutable(chosen)) return `plugin ${r.binary}: ${chosen} (${SOURCES[r.chosen.source]}) is not an executable file: fix the path, or run \`pulumi-dynamic-host install --project\``;
  const where = `${chosen} (${r.candidates.filter((c) => c.path === chosen).map((c) => SOURCES[c.source]).join(", ")})`;
  // When the plugin next to pulumi is this host (`install` ran), running install again changes nothing: the PATH order does.
  const bundled = r.candidates.find((c) => c.source === "bundled")?.path;
  const installed = bundled !== undefined && bundled !== chosen && isThisHost(bundled, r.binary);
  if (isThisHost(r.chosen.path, r.binary)) f("ok", `plugin ${r.binary}: ${where}, this host ${hostVersion()}`);
  else if (installed) f("note", `plugin ${r.binary}: ${where} is not this host, so the checks below may not match what it does; this host is installed next to pulumi (${bundled}) but is not the one the engine runs`);
  else f("note", `plugin ${r.binary}: ${where} is not this host, so the checks below may not match what it does; \`pulumi-dynamic-host install\` registers this host`);
  if (r.warning && pulumiDir !== undefined) {
    const first = installed ? "" : " First `pulumi-dynamic-host install` puts this host next to pulumi.";
    f("warning", `plugin ${r.binary}: ${shadowAdvice(chosen, r.warning, pulumiDir)}${first}`);
  } else if (r.warning) {
    f("warning", `plugin ${r.binary}: the engine prints "${r.warning}" on every run: put pulumi on PATH and run \`pulumi-dynamic-host install\`, or register per project with \`install --project\``);
  }
  return undefined;
}

function isExecutable(p: string): boolean {
  return isExecutableFile(p);
}

/**
 * The file is this host: the same file as one of its entries (hard links included), or, for the
 * single executable, a copy of it (a wheel's scripts are copies: pip keeps no hard links). A copy of
 * the npm package's bin/ script is not: it runs only from the package.
 */
function isThisHost(file: string, binary: string): boolean {
  if (isOurLauncher(file, binary)) return true;
  const ours = ourPlugins();
  const id = (p: string) => {
    const st = statOf(p);
    return st ? `${st.dev}:${st.ino}` : undefined;
  };
  const target = id(file);
  if (target === undefined) return false;
  return [ours.fileFor(binary), ours.fileFor("pulumi-dynamic-host")].some((p) => id(p) === target || (ours.embedded && id(p) !== undefined && sameContent(file, p)));
}

/** The interpreter the Python plugin would use, asked about its packages and the stack's modules. */
/** As the plugin would: for by-value code of another Python, an interpreter of that minor with pulumi and dill. */
async function searchOtherPythons(launch: PluginLaunch, interpreter: Interpreter, analyses: Iterable<Analysis>, probe: PythonProbe): Promise<Map<Analysis, Search>> {
  const found = new Map<Analysis, Search>();
  const search = new InterpreterSearch(interpreter, launch.cwd);
  for (const a of analyses) {
    if (!needsOtherPython(a, probe) || !a.ok || a.language !== "python" || !a.facts.code?.minors) continue;
    found.set(a, await search.find(a.facts.code.minors));
  }
  return found;
}

async function checkPython(
  launch: PluginLaunch,
  resolution: ProjectResolution,
  ask: ReturnType<typeof pythonQuestions>,
  block: (why: string) => void,
  f: Findings,
): Promise<ProbeResult | undefined> {
  if (!resolution.ok && "unusable" in resolution) {
    const { problem, choice } = resolution.unusable;
    block(
      `python: no usable interpreter for this ${choice.runtime} project's Python providers: ${problem} (chosen by ${choice.why}); ` +
        `set \`python:\` in the ${SECTION} section of ${choice.file} to a python or a virtualenv with pulumi, or create .venv beside it`,
    );
    return undefined;
  }
  if (!resolution.ok) {
    // The launcher's own message, then its numbered commands to create the virtualenv.
    const steps = resolution.stderr.slice(2, 5).map((l) => l.trim().replace(/^\d\. /, ""));
    block(`python: ${resolution.stderr[0]} Create it: ${steps.join("; ")}`);
    return undefined;
  }
  const interpreter = resolution.interpreter;
  const fromProject = (v: string) => (launch.runtimeEnv[v] !== undefined ? ` (Pulumi.yaml runtime.options.${v.slice("PULUMI_RUNTIME_".length).toLowerCase()})` : "");
  const chosenBy = interpreter.choice
    ? `for this ${interpreter.choice.runtime} project's Python providers, chosen by ${interpreter.choice.why}`
    : interpreter.virtualenv
    ? `the virtualenv ${interpreter.virtualenv}, from ${
        launch.env.PULUMI_RUNTIME_VIRTUALENV
          ? `PULUMI_RUNTIME_VIRTUALENV${fromProject("PULUMI_RUNTIME_VIRTUALENV")}`
          : `the ${launch.env.PULUMI_RUNTIME_TOOLCHAIN} toolchain${fromProject("PULUMI_RUNTIME_TOOLCHAIN")}`
      }`
    : launch.env.PULUMI_PYTHON_CMD
      ? "PULUMI_PYTHON_CMD"
      : "no virtualenv set: python3 on PATH";
  const result = await probePython(interpreter, launch.cwd, ask);
  if (!result.ok) {
    block(`python: ${result.problem} (chosen by ${chosenBy})`);
    return result;
  }
  const probe = result.probe;
  f("ok", `python: ${probe.executable} ${versionText(probe)} (${chosenBy})`);
  for (const name of ["pulumi", "dill"] as const) {
    const p = probe[name];
    if ("version" in p) f("ok", `python: ${name} ${p.version}`);
    else block(`python: ${name} does not import in ${probe.executable} (${p.error}): ${installAdvice(name, probe, launch)}`);
  }
  return result;
}

/**
 * How to get `name` (pulumi or dill) into the providers' Python: with its pip in a virtualenv; for a
 * system Python a virtualenv first, since Debian's and Ubuntu's pip refuse to install into the
 * system's (PEP 668, "externally-managed-environment"), named where the plugin will find it.
 */
export function installAdvice(name: string, probe: Pick<PythonProbe, "executable" | "virtualenv">, launch: Pick<PluginLaunch, "runtime">): string {
  if (probe.virtualenv) return `install it there: ${probe.executable} -m pip install ${name}`;
  // pulumi brings dill with it.
  if (launch.runtime === "python") {
    return (
      `${probe.executable} is not a virtualenv's, and a system Python's pip may refuse to install (PEP 668): in the project's folder, ` +
      `\`python3 -m venv venv && venv/bin/pip install pulumi\`, and name it in Pulumi.yaml: \`runtime: {name: python, options: {virtualenv: venv}}\``
    );
  }
  return (
    `${probe.executable} is not a virtualenv's, and a system Python's pip may refuse to install (PEP 668): beside Pulumi.yaml, where the plugin looks for one, ` +
    `\`python3 -m venv .venv && .venv/bin/pip install pulumi\``
  );
}
