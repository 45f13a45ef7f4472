// The single executable's main script (npm run dist, scripts/dist.mjs): loads
// the host's bundle for the name it was run by, embedded as an asset
// (host.cjs, host-nodejs.cjs, host-python.cjs), with V8's code cache kept
// between starts, as bin/launch.mjs does for the npm package
// (src/boot/launch.ts). The cache is keyed on the executable itself: its path,
// size, modification time and inode.
import { createRequire } from "node:module";
import path from "node:path";
import { loadSource } from "./code-cache.js";
import { bundleFor, type HostMain } from "./bundles.js";

const sea = createRequire(process.execPath)("node:sea") as { getAsset(key: string, encoding: "utf8"): string };
// The name the executable was run by (src/cli/main.ts): argv[1] here; the Python launcher's in PULUMI_DYNAMIC_HOST_SERVE.
const served = process.env.PULUMI_DYNAMIC_HOST_SERVE;
const name = path.basename(served || process.argv[1] || "");
try {
  const { exports, codeCache } = loadSource(sea.getAsset(bundleFor(process.argv[1] ?? "", served), "utf8"), process.execPath, name);
  (exports.main as HostMain)(process.argv, { codeCache }).catch(failed);
} catch (err) {
  failed(err);
}

function failed(err: unknown): void {
  console.error(`pulumi-dynamic-host: failed to start: ${err instanceof Error && err.stack ? err.stack : String(err)}`);
  process.exit(1);
}
