// pulumi-dynamic-host: the command for people (the engine runs the plugin names).
import { modeForLanguage } from "../host/plugin/modes.js";
import { hostVersion } from "../host/plugin/plugin-info.js";
import { asksForHelp, globalUsage, isCommand, printUsage, registrationChoices, usageError } from "./usage.js";

type Out = (line: string) => void;
const out: Out = (line) => process.stdout.write(`${line}\n`);

/** The exit code; usage and usage errors as usage.ts says. */
export async function runCli(args: readonly string[]): Promise<number> {
  const [cmd, ...rest] = args;
  // A reader that stops early (`… | head`) closes the pipe: a command for people then ends quietly, as
  // Unix tools do, rather than with Node's unhandled EPIPE and its stack. `serve` is the plugin: its
  // stdout is the engine's, and stays as it is.
  if (cmd !== "serve") process.stdout.on("error", endOnClosedPipe);
  if (isCommand(cmd) && asksForHelp(rest)) return printUsage(cmd);
  switch (cmd) {
    case "serve": {
      const mode = modeForLanguage(rest[0] ?? "");
      if (!mode) {
        return usageError("serve", rest[0] === undefined ? "needs a language: nodejs or python" : `the language must be nodejs or python, not ${JSON.stringify(rest[0])}`);
      }
      const { servePlugin } = await import("./compose/compose.js");
      await servePlugin(mode, rest.slice(1));
      return 0;
    }
    case "install":
    case "uninstall":
      return registration(cmd, rest);
    case "doctor": {
      const { runDoctor } = await import("./doctor/doctor.js");
      return runDoctor(rest, out);
    }
    case "inspect": {
      const { runInspect } = await import("./inspect/inspect.js");
      return runInspect(rest, out);
    }
    case "conformance": {
      const { runConformanceCommand } = await import("./conformance.js");
      return runConformanceCommand(rest, out);
    }
    case "debug": {
      const { runDebug } = await import("./debug.js");
      return runDebug(rest, out);
    }
    case "schema": {
      const { runSchema } = await import("./schema.js");
      return runSchema(rest, out);
    }
    case "docs": {
      const { runDocs } = await import("./docs.js");
      return runDocs(rest, out);
    }
    case "python-launcher": {
      // For the build (scripts/dist.mjs): the single executable's Python plugin launcher.
      const { embeddedPythonLauncher } = await import("./install/python-launcher.js");
      process.stdout.write(embeddedPythonLauncher());
      return 0;
    }
    case "version":
      if (rest.length > 0) return usageError("version", `takes no arguments, got ${JSON.stringify(rest.join(" "))}`);
      out(hostVersion());
      return 0;
    case "--version":
      out(hostVersion());
      return 0;
    case "help":
      if (rest.length === 0) return helpAll();
      if (isCommand(rest[0]) && rest.length === 1) return printUsage(rest[0]);
      return usageError("help", `no command ${JSON.stringify(rest.join(" "))}`);
    case "--help":
    case "-h":
      return helpAll();
    case undefined:
      // No command: the usage, on stderr, as a usage error.
      process.stderr.write(globalUsage());
      return 2;
    default:
      process.stderr.write(`pulumi-dynamic-host: unknown command ${JSON.stringify(cmd)}\n\n${globalUsage()}`);
      return 2;
  }
}

function helpAll(): number {
  process.stdout.write(globalUsage());
  return 0;
}

async function registration(cmd: "install" | "uninstall", rest: readonly string[]): Promise<number> {
  const install = await import("./install/install.js");
  const at = rest.indexOf("--package");
  const action = at >= 0 ? packageAction(cmd, install, rest[at + 1], [...rest.slice(0, at), ...rest.slice(at + 2)]) : pluginsAction(cmd, install, rest);
  if (typeof action === "number") return action;
  try {
    action();
    return 0;
  } catch (err) {
    // InstallError says what to do; a file system error names its path and operation.
    process.stderr.write(`pulumi-dynamic-host ${cmd}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

type Install = typeof import("./install/install.js");

/** What `install`/`uninstall` of the two plugin names does, or the exit code of a usage error. */
function pluginsAction(cmd: "install" | "uninstall", install: Install, rest: readonly string[]): (() => void) | number {
  const [flag, value, ...extra] = rest;
  if (flag === undefined) return () => (cmd === "install" ? install.installNextToPulumi : install.uninstallNextToPulumi)(process.env, out);
  if (flag === "--project") {
    if (extra.length > 0 || value?.startsWith("-")) return usageError(cmd, `--project takes at most one folder (DIR), got ${JSON.stringify(rest.slice(1).join(" "))}`);
    return () => (cmd === "install" ? install.installForProject : install.uninstallForProject)(value, out);
  }
  if (flag === "--dir") {
    if (value === undefined || value === "" || value.startsWith("-")) return usageError(cmd, "--dir needs a folder (DIR)");
    if (extra.length > 0) return usageError(cmd, `--dir takes one folder, got also ${JSON.stringify(extra.join(" "))}`);
    return () => (cmd === "install" ? install.installIntoDir : install.uninstallFromDir)(value, out);
  }
  return usageError(cmd, `unknown argument ${JSON.stringify(flag)}: expected ${registrationChoices()}`);
}

/** `--package NAME …`: the host under a package of the project's own name (docs/schema.md); or a usage error's exit code. */
function packageAction(cmd: "install" | "uninstall", install: Install, pkg: string | undefined, rest: readonly string[]): (() => void) | number {
  if (pkg === undefined || pkg.startsWith("-")) return usageError(cmd, "--package needs a package name (NAME), e.g. --package files");
  const [flag, value, ...extra] = rest;
  let where: { dir?: string; project?: string | null };
  if (flag === "--project" && extra.length === 0 && !value?.startsWith("-")) where = { project: value ?? null };
  else if (flag === "--dir" && value && !value.startsWith("-") && extra.length === 0) where = { dir: value };
  else {
    return usageError(
      cmd,
      `--package takes --project [DIR] or --dir DIR${flag === undefined ? "" : `, got ${JSON.stringify(rest.join(" "))}`}: ` +
        `the engine finds another package's plugin next to pulumi only as it finds one on PATH, with a warning on every run`,
    );
  }
  return () => (cmd === "install" ? install.installPackage : install.uninstallPackage)(pkg, where, out);
}

/** A write to a closed stdout: the reader has gone, and so does the command; any other error is raised. */
function endOnClosedPipe(e: NodeJS.ErrnoException): void {
  if (e.code !== "EPIPE") throw e;
  process.exit(process.exitCode ?? 0);
}
