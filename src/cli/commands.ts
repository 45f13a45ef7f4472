// pulumi-dynamic-host: the command for people (the engine runs the plugin names).
import { modeForLanguage } from "../host/modes.js";
import { hostVersion } from "../host/plugin-info.js";

const USAGE = `usage:
  pulumi-dynamic-host install
      register both plugins with the engine next to the pulumi on PATH (no "using … from $PATH"
      warning); the plugins pulumi ships there are kept as <name>.before-pulumi-dynamic-host
  pulumi-dynamic-host install --project [DIR]
      register them for the Pulumi project in DIR (default: here) in its Pulumi.yaml plugins.providers
  pulumi-dynamic-host install --dir DIR
      put the plugin names into DIR, to put first on PATH (the engine then warns on every run)
  pulumi-dynamic-host uninstall [--project [DIR] | --dir DIR]
      undo the matching install (next to pulumi: the kept plugins are put back)
  pulumi-dynamic-host doctor [--stack-export FILE] [DIR]
      which plugins the engine will launch for the project in DIR, the Node and Python they use,
      and whether every dynamic resource of a stack export can be loaded here (runs no provider code)
  pulumi-dynamic-host inspect <stack-export.json | -> [--json]
      list the dynamic resources of a stack export and what their code references (runs nothing)
  pulumi-dynamic-host serve <nodejs|python> [--logtostderr] [-v=N] <engine-address>
      serve as pulumi-resource-pulumi-<language> (what the engine runs)
  pulumi-dynamic-host debug <nodejs|python> [--port N] [--debugger-port N] [--cwd DIR]
      serve the project's dynamic providers for the engine's attach mode (it prints the
      PULUMI_DEBUG_PROVIDERS to export) with a debugger open: the Node inspector, or debugpy in
      the Python worker (docs/debugging.md)
  pulumi-dynamic-host conformance --plugin <command> --language <nodejs|python>
                                  [--reference <command>] [--only <id prefix or glob>] [--json]
      run the conformance cases against a dynamic-provider plugin started as the engine starts it,
      with payloads made by the SDK of the project here; exit 0 only when every case passes
  pulumi-dynamic-host version
`;

type Out = (line: string) => void;
const out: Out = (line) => process.stdout.write(`${line}\n`);

function usageError(message: string): number {
  process.stderr.write(`pulumi-dynamic-host: ${message}\n${USAGE}`);
  return 2;
}

export async function runCli(args: readonly string[]): Promise<number> {
  const [cmd, ...rest] = args;
  switch (cmd) {
    case "serve": {
      const mode = modeForLanguage(rest[0] ?? "");
      if (!mode) return usageError(`serve: expected nodejs or python, got ${JSON.stringify(rest[0] ?? "")}`);
      const { servePlugin } = await import("./compose.js");
      await servePlugin(mode, rest.slice(1));
      return 0;
    }
    case "install":
    case "uninstall":
      return registration(cmd, rest);
    case "doctor": {
      const { runDoctor } = await import("./doctor.js");
      return runDoctor(rest, out);
    }
    case "inspect": {
      const { runInspect } = await import("./inspect.js");
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
    case "python-launcher": {
      // For the build (scripts/dist.mjs): the single executable's Python plugin launcher.
      const { embeddedPythonLauncher } = await import("./python-launcher.js");
      process.stdout.write(embeddedPythonLauncher());
      return 0;
    }
    case "version":
    case "--version":
      out(hostVersion());
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      return usageError(`unknown command ${JSON.stringify(cmd)}`);
  }
}

async function registration(cmd: "install" | "uninstall", rest: readonly string[]): Promise<number> {
  const install = await import("./install.js");
  const [flag, value, ...extra] = rest;
  try {
    if (flag === undefined) {
      (cmd === "install" ? install.installNextToPulumi : install.uninstallNextToPulumi)(process.env, out);
    } else if (flag === "--project" && extra.length === 0) {
      (cmd === "install" ? install.installForProject : install.uninstallForProject)(value, out);
    } else if (flag === "--dir" && value !== undefined && extra.length === 0) {
      (cmd === "install" ? install.installIntoDir : install.uninstallFromDir)(value, out);
    } else {
      return usageError(`${cmd}: expected nothing, --project [DIR] or --dir DIR, got ${JSON.stringify(rest.join(" "))}`);
    }
    return 0;
  } catch (err) {
    // InstallError says what to do; a file system error names its path and operation.
    process.stderr.write(`pulumi-dynamic-host ${cmd}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
