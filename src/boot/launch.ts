// What bin/launch.mjs runs: loads the host's bundle (cli/host.cjs beside this
// file, in dist/bundle) with V8's code cache, and runs its main with the
// cache's handle, which the serving path uses to write the cache once its
// first requests have run (src/host/code-cache-save.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle } from "./code-cache.js";

export function launch(argv: readonly string[]): Promise<void> {
  // The name the host was run by (src/cli/main.ts): the Python plugin's launcher names it in PULUMI_DYNAMIC_HOST_SERVE.
  const name = path.basename(process.env.PULUMI_DYNAMIC_HOST_SERVE || argv[1] || "");
  const { exports, codeCache } = loadBundle(fileURLToPath(new URL("cli/host.cjs", import.meta.url)), name);
  const main = exports.main as (argv: readonly string[], boot: { codeCache: typeof codeCache }) => Promise<void>;
  return main(argv, { codeCache });
}
