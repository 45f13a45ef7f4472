// The entry of pulumi-resource-pulumi-nodejs's own bundle
// (dist/bundle/cli/host-nodejs.cjs, and the single executable's asset of that
// name), which the loader picks for that name (src/boot/launch.ts): ../main.ts's
// serving path for this one mode, without the other language's adapter or the
// commands for people, so that the plugin holds less source in memory.
import { modeForLanguage } from "../../host/plugin/modes.js";
import { serve, type Boot } from "../../host/serve.js";
import { nodeRuntime } from "./compose-nodejs.js";
import { takeLauncherEnvironment } from "./launcher-environment.js";

export function main(argv: readonly string[], boot?: Boot): Promise<void> {
  takeLauncherEnvironment();
  return serve(modeForLanguage("nodejs")!, argv.slice(2), (_mode, cwd) => nodeRuntime(cwd), boot);
}
