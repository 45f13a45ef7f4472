// Serving a package of the project's own name (docs/schema.md): run as
// pulumi-resource-<package> (install --package), the host serves the types
// the project's Pulumi.yaml declares as <package>:<module>:<Type>, in the
// language their references are written in, exactly as the two dynamic
// plugins serve their declared types. What keeps it from serving (no
// project, no such type, both languages) is said on stderr, which the engine
// shows, and the plugin exits 1 before any port line.
import path from "node:path";
import { packageMode } from "../../host/plugin/modes.js";
import { ProviderReferences } from "../../host/references/provider-references.js";
import type { Boot } from "../../host/serve.js";
import { servePlugin } from "./compose.js";

export async function serveOwnPackage(pkg: string, argv: readonly string[], boot?: Boot): Promise<void> {
  const found = await ProviderReferences.languageOf(process.cwd(), pkg);
  if ("problem" in found) {
    process.stderr.write(`${path.basename(process.argv[1] ?? `pulumi-resource-${pkg}`)}: ${found.problem}\n`);
    process.exit(1);
  }
  return servePlugin(packageMode(pkg, found.language), argv, boot);
}
