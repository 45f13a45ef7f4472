// src/cli/compose: what runs as a plugin: the composition root (compose.ts,
// each adapter's half in compose-nodejs.ts and compose-python.ts), each
// plugin's own bundle entry (plugin-nodejs.ts, plugin-python.ts), a package of
// the project's own name (own-package.ts), and the launcher's environment taken
// back first (launcher-environment.ts). It may import src/host and its
// folders and both language adapters; nothing else of src/cli: main.ts and the
// commands (debug) are above it.
//
// The composition root: the one place that knows both language adapters and
// hands the serving path (src/host/serve.ts) the runtime for its mode. Each
// adapter's half is a module of its own (compose-nodejs.ts, compose-python.ts),
// which each plugin's own bundle holds alone (plugin-nodejs.ts, plugin-python.ts).
import type { Mode } from "../../host/plugin/modes.js";
import { serve, type Boot, type ServedRuntime } from "../../host/serve.js";
import { nodeRuntime } from "./compose-nodejs.js";
import { pythonRuntime } from "./compose-python.js";

/** Runs as the plugin `mode` names, with the engine's argv (flags, then its address). */
export function servePlugin(mode: Mode, argv: readonly string[], boot?: Boot): Promise<void> {
  return serve(mode, argv, runtimeFor, boot);
}

/** The runtime serving `mode` for the program in `cwd` (also the debug command's, src/cli/debug.ts). */
export function runtimeFor(mode: Mode, cwd: string): Promise<ServedRuntime> {
  return mode.language === "nodejs" ? nodeRuntime(cwd) : pythonRuntime(cwd);
}
