// Entry point of every name the host is installed under. The invoked name picks
// what runs: pulumi-resource-pulumi-nodejs and pulumi-resource-pulumi-python are
// what the engine launches; pulumi-dynamic-host is the command for people.
//
// The invoked name is argv[1]: the script's path as run under node (npm's links
// keep the name they were called by), and argv[0] as exec'd in the single
// executable (a copy, hard link or symlink of it under each name).
import path from "node:path";
import { modeForBinary } from "../host/modes.js";

export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const invoked = path.basename(argv[1] ?? "");
  const mode = modeForBinary(invoked);
  if (mode) {
    const { servePlugin } = await import("./compose.js");
    return servePlugin(mode, argv.slice(2));
  }
  const { runCli } = await import("./commands.js");
  process.exitCode = await runCli(argv.slice(2));
}
