// What the Python plugin's name runs, as functions of the platform, so that
// test/unit/python-entry-choice.test.ts runs the Windows branch on Linux
// (docs/platform-code.md). Used by bin/choose-python-entry.mjs (npm's
// preinstall) and bin/python-entry.mjs (the Node entry).
import path from "node:path";

export const KNOB = "PULUMI_DYNAMIC_HOST_PYTHON_ENTRY";
export const PLUGIN = "pulumi-resource-pulumi-python";

/**
 * The entry the installed copy gets: "node" (bin/python-entry.mjs, no shell
 * needed) on Windows, which has no sh for npm's shims to run the shell
 * launcher with; "sh" (the shell launcher, the worker started beside the host)
 * everywhere else. `value` is the knob's value: set, it decides alone; any
 * other value than node or sh is a problem, in a sentence.
 */
export function choosePythonEntry(platform, value) {
  const chosen = value || (platform === "win32" ? "node" : "sh");
  if (chosen !== "node" && chosen !== "sh") {
    return { problem: `${KNOB} is ${JSON.stringify(chosen)}; it must be node (the Python plugin's name runs a Node entry) or sh (the shell launcher)` };
  }
  return { entry: chosen };
}

/**
 * The plugin file the Node entry names in PULUMI_DYNAMIC_HOST_SERVE: the file
 * as run when it is the plugin's name (with the `.cmd`, `.exe` or `.ps1` a
 * Windows shim adds, in any case), else the plugin's name beside it (run as
 * `node bin/python-entry.mjs`). `paths` is path.win32 or path.posix.
 */
export function servedPluginFile(invoked, paths = path) {
  return paths.basename(invoked).replace(/\.(cmd|exe|ps1)$/i, "") === PLUGIN ? invoked : paths.join(paths.dirname(invoked), PLUGIN);
}
