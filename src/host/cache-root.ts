// Where the host keeps what it makes once and reuses across starts: the single
// executable's extracted worker (assets.ts) and V8's code cache of the bundle
// (src/boot/code-cache.ts). Imports nothing of the host's: the boot loader
// bundles it before the host is loaded.
import os from "node:os";
import path from "node:path";

/** $PULUMI_DYNAMIC_HOST_CACHE_DIR, else $XDG_CACHE_HOME (when absolute) or ~/.cache, then pulumi-dynamic-host/. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PULUMI_DYNAMIC_HOST_CACHE_DIR) return path.resolve(env.PULUMI_DYNAMIC_HOST_CACHE_DIR);
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), ".cache");
  return path.join(base, "pulumi-dynamic-host");
}
