// The entry of pulumi-resource-pulumi-python's own bundle
// (dist/bundle/cli/host-python.cjs, and the single executable's asset of that
// name), which the loader picks for that name (src/boot/launch.ts): ../main.ts's
// serving path for this one mode, without the other language's adapter or the
// commands for people, so that the plugin holds less source in memory.
import { modeForLanguage } from "../../host/plugin/modes.js";
import { serve, type Boot } from "../../host/serve.js";
import { pythonRuntime } from "./compose-python.js";
import { takeLauncherEnvironment } from "./launcher-environment.js";

export function main(argv: readonly string[], boot?: Boot): Promise<void> {
  takeLauncherEnvironment();
  return serve(modeForLanguage("python")!, argv.slice(2), (_mode, cwd) => pythonRuntime(cwd), boot);
}
