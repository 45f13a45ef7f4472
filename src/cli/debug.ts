// `pulumi-dynamic-host debug <nodejs|python>`: the host run by a person, for
// the engine's attach mode. The engine does not start a plugin when
// PULUMI_DEBUG_PROVIDERS names it (pulumi-nodejs:<port>): it dials that port,
// sends Handshake, then Attach with its own address (pkg/resource/plugin
// GetProviderAttachPort / NewProvider). So this command serves on a port it
// prints, answers Attach, and opens a debugger where the providers run: the
// Node inspector in this process (Node providers run here), or debugpy in the
// one Python worker (python-stub/debugging.py). Steps for VS Code: docs/debugging.md.
//
// What the engine gives a plugin it starts and not one it attaches to
// (shared/engine.md §1.10): the environment (PULUMI_PROJECT, the runtime
// options of Pulumi.yaml, PULUMI_CONFIG) and the working directory. The
// project directory is this command's (or --cwd), and the variables are
// derived from its Pulumi.yaml as the engine would set them; stack config
// arrives with Configure as always.
import { execFileSync } from "node:child_process";
import { readText } from "../host/files/file-probe.js";
import inspector from "node:inspector";
import path from "node:path";
import YAML from "yaml";
import { modeForLanguage, type Mode } from "../host/plugin/modes.js";
import { pluginVersion } from "../host/plugin/plugin-info.js";
import { resolveProjectInterpreter } from "../python-bridge/interpreter/project-interpreter.js";
import { usageError } from "./usage.js";
import { readProjectPython } from "../python-bridge/interpreter/project-python.js";

type Out = (line: string) => void;

interface DebugArgs {
  mode: Mode;
  cwd: string;
  port: number;
  debuggerPort: number;
}

const DEFAULT_DEBUGGER_PORT = { nodejs: 9229, python: 5678 } as const;

function parse(args: readonly string[]): DebugArgs | string {
  const [language, ...rest] = args;
  const mode = modeForLanguage(language ?? "");
  if (!mode) return language === undefined ? "needs a language: nodejs or python" : `the language must be nodejs or python, not ${JSON.stringify(language)}`;
  const parsed: DebugArgs = { mode, cwd: process.cwd(), port: 0, debuggerPort: DEFAULT_DEBUGGER_PORT[mode.language] };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    const value = rest[i + 1];
    if (flag !== "--cwd" && flag !== "--port" && flag !== "--debugger-port") return `unknown option ${JSON.stringify(flag)}`;
    if (value === undefined) return `${flag} needs ${flag === "--cwd" ? "a folder (DIR)" : "a port number (N)"}`;
    i++;
    if (flag === "--cwd") parsed.cwd = path.resolve(value);
    else if (flag === "--port" || flag === "--debugger-port") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > 65535) return `${flag} must be a port number (0 for any free one), got ${JSON.stringify(value)}`;
      if (flag === "--port") parsed.port = n;
      else parsed.debuggerPort = n;
    }
  }
  return parsed;
}

/** Runs until SIGINT/SIGTERM; returns the exit code when it cannot start. */
export async function runDebug(args: readonly string[], out: Out): Promise<number> {
  const parsed = parse(args);
  if (typeof parsed === "string") {
    return usageError("debug", parsed);
  }
  const { mode, cwd } = parsed;
  const project = readProject(cwd);
  if (!project) {
    process.stderr.write(`pulumi-dynamic-host debug: no Pulumi.yaml in ${cwd}; run it in the project directory, or pass --cwd DIR\n`);
    return 2;
  }
  setEngineEnvironment(mode, project);

  let debuggerLine: string;
  if (mode.language === "nodejs") {
    inspector.open(parsed.debuggerPort, "127.0.0.1", false);
    const url = inspector.url();
    if (!url) {
      process.stderr.write(`pulumi-dynamic-host debug: the Node inspector could not listen on 127.0.0.1:${parsed.debuggerPort}\n`);
      return 1;
    }
    debuggerLine = `Node inspector: ${url} (attach to 127.0.0.1:${new URL(url).port})`;
  } else {
    const resolved = resolveProjectInterpreter(cwd, process.env, await readProjectPython(cwd));
    if (!resolved.ok && "unusable" in resolved) {
      const { problem, choice } = resolved.unusable;
      process.stderr.write(`pulumi-dynamic-host debug: no usable python for this ${choice.runtime} project: ${problem} (chosen by ${choice.why})\n`);
      return 1;
    }
    if (!resolved.ok) {
      process.stderr.write(resolved.stderr.map((l) => `${l}\n`).join(""));
      return resolved.exitCode;
    }
    const missing = debugpyMissing(resolved.interpreter.python, resolved.interpreter.env);
    if (missing) {
      process.stderr.write(
        `pulumi-dynamic-host debug: debugpy is not installed for ${resolved.interpreter.python} (${missing}); ` +
          `recent pulumi SDKs require it, older ones do not.\n` +
          `Install it in the program's environment:\n    ${resolved.interpreter.python} -m pip install debugpy\n`,
      );
      return 1;
    }
    // One worker, so that one debugger sees every call; it listens as soon as it starts (python-stub/debugging.py).
    process.env.PULUMI_DYNAMIC_HOST_PYTHON_WORKERS = "1";
    // debugpy's warning about frozen stdlib modules concerns breakpoints in the standard library only.
    process.env.PYDEVD_DISABLE_FILE_VALIDATION ??= "1";
    process.env.PULUMI_DYNAMIC_HOST_DEBUGPY = `127.0.0.1:${parsed.debuggerPort}`;
    debuggerLine = `debugpy: the Python worker listens on 127.0.0.1:${parsed.debuggerPort} (attach once it says so below)`;
  }

  const { runtimeFor } = await import("./compose/compose.js");
  const { runtime, afterPort, registry } = await runtimeFor(mode, cwd);
  const { startServer } = await import("../host/server.js");
  let version: string | undefined;
  const { server, port } = await startServer({
    mode,
    runtime,
    cwd,
    attachable: true,
    port: parsed.port,
    registry,
    pluginVersion: () => (version ??= pluginVersion(mode, cwd)),
  });
  out(`pulumi-dynamic-host debug: serving ${mode.package} dynamic providers of ${cwd} on 127.0.0.1:${port}`);
  out(debuggerLine);
  out(`In the shell where you run pulumi (this project's directory), export:`);
  out(`    export PULUMI_DEBUG_PROVIDERS=${mode.package}:${port}`);
  out(`then run pulumi up (or preview, refresh, destroy) as usual; stop this with Ctrl-C.`);
  afterPort?.();

  // `on`, not `once`: execa's signal-exit (Python mode) re-raises a signal no listener is left for.
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  server.forceShutdown();
  await runtime.close().catch(() => undefined);
  if (mode.language === "nodejs") inspector.close();
  return 0;
}

interface Project {
  name: string;
  options: Record<string, unknown>;
}

function readProject(cwd: string): Project | undefined {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
    const full = path.join(cwd, file);
    const text = readText(full);
    if (text === undefined) continue;
    const doc = YAML.parse(text) ?? {};
    const runtime = doc.runtime;
    const options = runtime !== null && typeof runtime === "object" && runtime.options && typeof runtime.options === "object" ? runtime.options : {};
    return { name: typeof doc.name === "string" ? doc.name : "", options };
  }
  return undefined;
}

/** The variables the engine sets for a plugin it starts (shared/engine.md §1.4), where the user has not set them. */
function setEngineEnvironment(mode: Mode, project: Project): void {
  const set = (k: string, v: string) => {
    if (process.env[k] === undefined) process.env[k] = v;
  };
  if (project.name) {
    set("PULUMI_PROJECT", project.name);
    if (mode.language === "nodejs") set("PULUMI_NODEJS_PROJECT", project.name);
  }
  for (const [k, v] of Object.entries(project.options)) set(`PULUMI_RUNTIME_${k.toUpperCase()}`, String(v));
}

/** Why `python` cannot import debugpy, or undefined when it can. */
function debugpyMissing(python: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    execFileSync(python, ["-c", "import debugpy"], { env, stdio: ["ignore", "ignore", "pipe"] });
    return undefined;
  } catch (e) {
    const stderr = String((e as { stderr?: Buffer }).stderr ?? "").trim().split("\n").pop();
    return stderr || String(e);
  }
}
