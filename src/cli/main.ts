// Entry point of every name the host is installed under. The invoked name picks
// what runs: pulumi-resource-pulumi-nodejs and pulumi-resource-pulumi-python are
// what the engine launches; pulumi-dynamic-host is the command for people.
//
// The invoked name is argv[1]: the script's path as run under node (npm's links
// keep the name they were called by), and argv[0] as exec'd in the single
// executable (a copy, hard link or symlink of it under each name). The Python
// plugin's launcher (bin/pulumi-resource-pulumi-python, a shell script that
// starts the worker first) runs the host under another name and puts its own
// path, as the engine ran it, in PULUMI_DYNAMIC_HOST_SERVE, whose file name
// picks the mode; it is removed here so that neither providers nor workers see it.
import path from "node:path";
import { modeForBinary } from "../host/modes.js";
import type { Boot } from "../host/serve.js";

/** `boot`: what the bundle's loader hands over (src/boot/launch.ts), for the serving path. */
export async function main(argv: readonly string[] = process.argv, boot?: Boot): Promise<void> {
  const invoked = path.basename(argv[1] ?? "");
  const served = process.env.PULUMI_DYNAMIC_HOST_SERVE;
  delete process.env.PULUMI_DYNAMIC_HOST_SERVE;
  // Moved aside by the launcher so that Node started without reading them (python-stub/launch.sh);
  // everything the host starts gets the variable back.
  const caCerts = process.env.PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS;
  delete process.env.PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS;
  if (caCerts !== undefined) process.env.NODE_EXTRA_CA_CERTS = caCerts;
  const mode = (served ? modeForBinary(path.basename(served)) : undefined) ?? modeForBinary(invoked);
  if (mode) {
    const { servePlugin } = await import("./compose.js");
    return servePlugin(mode, argv.slice(2), boot);
  }
  const { runCli } = await import("./commands.js");
  process.exitCode = await runCli(argv.slice(2));
}
