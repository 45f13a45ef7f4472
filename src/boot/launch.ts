// What bin/launch.mjs runs: loads the host's bundle with V8's code cache
// (code-cache.ts) and runs its main with the cache's handle, which the serving
// path uses to write the cache once its first requests have run
// (src/host/tuning/code-cache-save.ts). The bundles are in dist/bundle/cli, one for
// each plugin name and one for everything else (bundles.ts).
import { fileURLToPath } from "node:url";
import { hostBundleFor, type HostMain } from "./bundles.js";
import { loadBundle } from "./code-cache.js";

export function launch(argv: readonly string[]): Promise<void> {
  const { file, cacheName } = hostBundleFor(argv[1] ?? "", process.env.PULUMI_DYNAMIC_HOST_SERVE);
  const { exports, codeCache } = loadBundle(fileURLToPath(new URL(`cli/${file}`, import.meta.url)), cacheName);
  return (exports.main as HostMain)(argv, { codeCache });
}
