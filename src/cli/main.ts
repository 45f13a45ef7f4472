// src/cli: the host's entry (main.ts), the command table (commands.ts) and
// every command's usage (usage.ts), and the commands without helpers of their
// own (conformance.ts, debug.ts, docs.ts, schema.ts). Each command with helpers
// is a folder (doctor/, install/, inspect/) and what runs as a plugin is
// compose/; those folders take nothing from here but usage.ts. This level may
// import everything under src/; nothing else under src/ imports it.
//
// Entry point of every name the host is installed under. The invoked name picks
// what runs: pulumi-resource-pulumi-nodejs and pulumi-resource-pulumi-python are
// what the engine launches; pulumi-dynamic-host is the command for people;
// any other pulumi-resource-<package> serves a package of the project's own
// name (compose/own-package.ts).
//
// The invoked name is argv[1]: the script's path as run under node (npm's links
// keep the name they were called by), and argv[0] as exec'd in the single
// executable (a copy, hard link or symlink of it under each name). The Python
// plugin's launcher (bin/pulumi-resource-pulumi-python, a shell script that
// starts the worker first) runs the host under another name and puts its own
// path, as the engine ran it, in PULUMI_DYNAMIC_HOST_SERVE, whose file name
// picks the mode; it is removed here so that neither providers nor workers see it.
// Each plugin name also has a bundle of its own, which the loader picks by the
// same rule (src/boot/launch.ts) and which starts at compose/plugin-nodejs.ts or
// compose/plugin-python.ts instead; this entry is the one for people, and for any other way in.
import path from "node:path";
import { modeOfProcess, ownPackageOfBinary } from "../host/plugin/modes.js";
import type { Boot } from "../host/serve.js";
import { takeLauncherEnvironment } from "./compose/launcher-environment.js";

/** `boot`: what the bundle's loader hands over (src/boot/launch.ts), for the serving path. */
export async function main(argv: readonly string[] = process.argv, boot?: Boot): Promise<void> {
  const mode = modeOfProcess(argv[1] ?? "", takeLauncherEnvironment());
  if (mode) {
    const { servePlugin } = await import("./compose/compose.js");
    return servePlugin(mode, argv.slice(2), boot);
  }
  // Any other plugin name: a package of the project's own name (install --package, docs/schema.md).
  const own = ownPackageOfBinary(path.basename(argv[1] ?? ""));
  if (own) {
    const { serveOwnPackage } = await import("./compose/own-package.js");
    return serveOwnPackage(own, argv.slice(2), boot);
  }
  const { runCli } = await import("./commands.js");
  process.exitCode = await runCli(argv.slice(2));
}
