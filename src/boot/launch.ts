// What bin/launch.mjs runs: loads the host's bundle with V8's code cache
// (code-cache.ts) and runs its main with the cache's handle, which the serving
// path uses to write the cache once its first requests have run
// (src/host/code-cache-save.ts). The bundles are in dist/bundle/cli, one for
// each plugin name and one for everything else (bundles.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleFor, type HostMain } from "./bundles.js";
import { loadBundle } from "./code-cache.js";

export function launch(argv: readonly string[]): Promise<void> {
  const served = process.env.PULUMI_DYNAMIC_HOST_SERVE;
  const file = bundleFor(argv[1] ?? "", served);
  // The cache is kept per name the host was run by: each plugin's holds its own request path.
  const name = path.basename(served || argv[1] || "");
  const { exports, codeCache } = loadBundle(fileURLToPath(new URL(`cli/${file}`, import.meta.url)), name);
  return (exports.main as HostMain)(argv, { codeCache });
}
