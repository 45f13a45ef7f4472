// pulumi-dynamic-host: the command for people (the engine uses the plugin names).
//   pulumi-dynamic-host serve <nodejs|python> [plugin args…]   run as that plugin
//   pulumi-dynamic-host install <dir>                          put both plugin names in <dir>
//   pulumi-dynamic-host version
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MODES, modeForLanguage } from "./modes.js";
import { hostVersion } from "./plugin-info.js";

const USAGE = `usage:
  pulumi-dynamic-host serve <nodejs|python> [--logtostderr] [-v=N] <engine-address>
      serve as pulumi-resource-pulumi-<language> (what the engine runs)
  pulumi-dynamic-host install <dir>
      link pulumi-resource-pulumi-nodejs and pulumi-resource-pulumi-python into <dir>;
      put <dir> first on PATH (or next to the pulumi binary) so that pulumi up uses them
  pulumi-dynamic-host version
`;

/** The executable script every name points at. */
export const ENTRY = fileURLToPath(new URL("../../../bin/pulumi-dynamic-host", import.meta.url));

export async function runCli(args: readonly string[]): Promise<number> {
  const [cmd, ...rest] = args;
  switch (cmd) {
    case "serve": {
      const mode = modeForLanguage(rest[0] ?? "");
      if (!mode) {
        process.stderr.write(`pulumi-dynamic-host serve: expected nodejs or python, got ${JSON.stringify(rest[0] ?? "")}\n${USAGE}`);
        return 2;
      }
      const { serve } = await import("./main.js");
      await serve(mode, rest.slice(1));
      return 0;
    }
    case "install": {
      if (rest.length !== 1) {
        process.stderr.write(`pulumi-dynamic-host install: expected one directory\n${USAGE}`);
        return 2;
      }
      const dir = path.resolve(rest[0]);
      mkdirSync(dir, { recursive: true });
      for (const m of MODES) {
        const link = path.join(dir, m.binary);
        rmSync(link, { force: true });
        symlinkSync(ENTRY, link);
        process.stdout.write(`${link} -> ${ENTRY}\n`);
      }
      return 0;
    }
    case "version":
    case "--version":
      process.stdout.write(`${hostVersion()}\n`);
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      process.stderr.write(`pulumi-dynamic-host: unknown command ${JSON.stringify(cmd)}\n${USAGE}`);
      return 2;
  }
}
