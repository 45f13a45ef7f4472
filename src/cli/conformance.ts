// pulumi-dynamic-host conformance: runs the conformance table (src/conformance)
// against a dynamic-provider plugin command, as the engine would run it, in the
// current project (its @pulumi/pulumi, its Python), and prints a table or JSON.
import fs from "node:fs";
import path from "node:path";
import type { Language } from "../conformance/case.js";
import { toJunit } from "../conformance/junit.js";
import { resolveInterpreter } from "../python-bridge/interpreter/interpreter.js";
import { exitCode, header, summary, toJson, verdictLines } from "../conformance/report.js";
import { resolvePayloadPython } from "../conformance/payloads-python.js";
import { pythonReferenceCommand } from "../conformance/python-reference.js";
import { CommandError, resolvePluginCommand } from "../conformance/plugin-command.js";
import { commandFromString, runConformance } from "../conformance/run.js";
import { pluginSdkVersion, RECORDED_WITH, validVersion } from "../conformance/sdk-version.js";
import { pluginLaunch } from "./doctor/plugin-launch.js";
import { usageError } from "./usage.js";


type Out = (line: string) => void;

interface Args {
  plugin: string;
  language: Language;
  reference?: string;
  only?: string;
  json: boolean;
  otherPython?: string;
  junit?: string;
  sdkVersion?: string;
}

/** What each option takes, for the message when it is missing. */
const VALUE_OF: Record<string, string> = {
  "--plugin": "a command (the plugin to run)",
  "--reference": "a command (the reference plugin)",
  "--language": "a language: nodejs or python",
  "--only": "a case id prefix or glob",
  "--other-python": "a path to a python",
  "--junit": "a file to write the JUnit XML report to",
  "--sdk-version": "a version of Pulumi's SDK (e.g. 3.248.0)",
};

function parse(args: readonly string[]): Args | string {
  const got: Partial<Args> = { json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined || v === "") throw new Error(`${flag} needs ${VALUE_OF[flag] ?? "a value"}`);
      return v;
    };
    try {
      switch (flag) {
        case "--plugin":
          got.plugin = value();
          break;
        case "--reference":
          got.reference = value();
          break;
        case "--language": {
          const l = value();
          if (l !== "nodejs" && l !== "python") return `--language must be nodejs or python, not ${JSON.stringify(l)}`;
          got.language = l;
          break;
        }
        case "--only":
          got.only = value();
          break;
        case "--json":
          got.json = true;
          break;
        case "--other-python":
          // Taken from the user's folder, as the plugin command's paths are (the plugins run elsewhere).
          got.otherPython = path.resolve(value());
          break;
        case "--junit":
          got.junit = value();
          break;
        case "--sdk-version": {
          const v = value();
          if (!validVersion(v)) return `--sdk-version must be a version like 3.248.0, not ${JSON.stringify(v)}`;
          got.sdkVersion = v;
          break;
        }
        default:
          return `unknown argument ${JSON.stringify(a)}`;
      }
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (!got.plugin) return "needs --plugin <command> (the plugin to run, as the engine would)";
  if (!got.language) return "needs --language <nodejs|python>";
  return got as Args;
}

/** The virtualenv the plugin would use for the project's program directory, absolute (undefined: none, or it would refuse). */
function projectVirtualenv(programDir: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!env.PULUMI_RUNTIME_VIRTUALENV && !env.PULUMI_RUNTIME_TOOLCHAIN) return undefined;
  const r = resolveInterpreter(programDir, env);
  return r.ok ? r.interpreter.virtualenv : undefined;
}

/** The header's second line: which SDK the expectations were recorded with, and which the plugin is judged as. */
function recordedLine(language: Language, version: string | undefined, given: boolean): string {
  const sdk = language === "nodejs" ? "@pulumi/pulumi" : "pulumi (PyPI)";
  const recorded = `expectations recorded with ${sdk} ${RECORDED_WITH[language]}`;
  if (!version) return `${recorded}; the plugin's SDK version is not known (--sdk-version names it), so cases that changed between releases are judged as ${RECORDED_WITH[language]}`;
  return `${recorded}; the plugin is judged as ${sdk} ${version} (${given ? "--sdk-version" : "the SDK it is run from"})`;
}

export async function runConformanceCommand(args: readonly string[], out: Out): Promise<number> {
  const parsed = parse(args);
  if (typeof parsed === "string") {
    return usageError("conformance", parsed);
  }
  if (parsed.language === "python") {
    // As the engine starts a plugin: the project's runtime.options (virtualenv, toolchain) become PULUMI_RUNTIME_*.
    const launch = pluginLaunch(process.cwd(), process.env);
    Object.assign(process.env, launch.runtimeEnv);
    // The plugins run in a folder the kit makes inside the project: a virtualenv the options name relative
    // to the program (`virtualenv: venv` of `pulumi new`, uv's `.venv`) is the project's, named absolutely.
    const venv = projectVirtualenv(launch.cwd, process.env);
    if (venv) process.env.PULUMI_RUNTIME_VIRTUALENV = venv;
    // Every case needs payloads: an interpreter without pulumi or dill is said once, before any plugin starts.
    try {
      resolvePayloadPython(process.cwd(), process.env);
    } catch (e) {
      process.stderr.write(`pulumi-dynamic-host ${(e as Error).message}\n`);
      return 2;
    }
  }
  // The commands as the user typed them in this folder: their relative paths are this folder's, checked now.
  const cwd = process.cwd();
  let resolved: { plugin: string; reference?: string };
  try {
    const resolve = (text: string, option: string) => (text === "reference" && parsed.language === "python" ? text : resolvePluginCommand(text, option, cwd).command);
    resolved = { plugin: resolve(parsed.plugin, "--plugin"), reference: parsed.reference ? resolve(parsed.reference, "--reference") : undefined };
  } catch (e) {
    if (e instanceof CommandError) return usageError("conformance", e.message);
    throw e;
  }
  const command = (text: string, label: string) =>
    text === "reference" && parsed.language === "python"
      ? pythonReferenceCommand("reference (python -m pulumi.dynamic)", undefined, () => resolvePayloadPython(process.cwd(), process.env).interpreter.python)
      : commandFromString(text, label);
  const plugin = command(resolved.plugin, parsed.plugin);
  const reference = resolved.reference && parsed.reference ? command(resolved.reference, parsed.reference) : undefined;
  // The SDK release the plugin's behaviour follows, where it can be known (version-dependent cases are judged by it).
  const payloadPython = () => (parsed.language === "python" ? resolvePayloadPython(cwd, process.env).interpreter.python : undefined);
  plugin.sdkVersion = parsed.sdkVersion ?? pluginSdkVersion(parsed.language, resolved.plugin, cwd, payloadPython);
  if (reference) reference.sdkVersion = pluginSdkVersion(parsed.language, resolved.reference!, cwd, payloadPython);
  if (!parsed.json) {
    out(header({ language: parsed.language, plugin: plugin.label, reference: reference?.label }));
    out(recordedLine(parsed.language, plugin.sdkVersion, parsed.sdkVersion !== undefined));
  }
  let report;
  try {
    report = await runConformance({
      language: parsed.language,
      plugin,
      reference,
      only: parsed.only,
      otherPython: parsed.otherPython,
      projectDir: process.cwd(),
      onVerdict: parsed.json ? undefined : (v) => verdictLines(v).forEach(out),
    });
  } catch (e) {
    process.stderr.write(`pulumi-dynamic-host conformance: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  if (report.verdicts.length === 0) {
    process.stderr.write(`pulumi-dynamic-host conformance: no ${parsed.language} case matches ${JSON.stringify(parsed.only ?? "")}\n`);
    return 2;
  }
  out(parsed.json ? toJson(report) : summary(report));
  if (parsed.junit) {
    try {
      fs.writeFileSync(parsed.junit, toJunit(report));
    } catch (e) {
      process.stderr.write(`pulumi-dynamic-host conformance: cannot write the JUnit report to ${parsed.junit}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  return exitCode(report);
}
