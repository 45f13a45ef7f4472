// The single executable's main script (npm run dist, scripts/dist.mjs): loads
// the host's bundle for the name it was run by, embedded as an asset
// (host.cjs, host-nodejs.cjs, host-python.cjs), with V8's code cache kept
// between starts, as bin/launch.mjs does for the npm package
// (src/boot/launch.ts). The cache is keyed on the executable itself: its path,
// size, modification time and inode.
import { createRequire } from "node:module";
import { loadSource } from "./code-cache.js";
import { hostBundleFor, type HostMain } from "./bundles.js";

const sea = createRequire(process.execPath)("node:sea") as { getAsset(key: string, encoding: "utf8"): string };
try {
  // The name the executable was run by (src/cli/main.ts) is argv[1] here.
  const { file, cacheName } = hostBundleFor(process.argv[1] ?? "", process.env.PULUMI_DYNAMIC_HOST_SERVE);
  const { exports, codeCache } = loadSource(sea.getAsset(file, "utf8"), process.execPath, cacheName);
  (exports.main as HostMain)(process.argv, { codeCache }).catch(failed);
} catch (err) {
  failed(err);
}

/**
 * A start that failed: its message, a sentence (a cache root that cannot be used says which and what
 * to set: src/host/files/cache-root.ts); the stack only when logs were asked for (-v=N, --logtostderr).
 */
function failed(err: unknown): void {
  const verbose = process.argv.some((a) => a.startsWith("-v") || a === "--logtostderr");
  const text = err instanceof Error ? (verbose && err.stack ? err.stack : err.message) : String(err);
  console.error(`pulumi-dynamic-host: failed to start: ${text}`);
  process.exit(1);
}
