// The host's plugin names in the engine's plugin cache ($PULUMI_HOME/plugins),
// so that `pulumi package add pulumi-nodejs <package>` (and pulumi-python)
// finds the plugin by name: the CLI resolves a plugin name from that cache
// (else from Pulumi's registry, which does not know these plugins), and never
// from the copy next to pulumi (docs/provider-packages.md §5). `install` next
// to pulumi adds one entry per plugin, `resource-<name>-v<host version>/`,
// holding a symlink to the plugin it placed there; `uninstall` removes what it
// added. Every other run still finds the plugin next to pulumi first, so the
// entry only serves the by-name lookup. On Windows, whose symlinks need an
// administrator, no entry is made: the plugin is given by its path there.
import fs from "node:fs";
import path from "node:path";
import { lstatOf } from "../../host/files/file-probe.js";
import type { Platform } from "../../host/files/platform.js";
import { MODES } from "../../host/plugin/modes.js";
import { pulumiHome } from "../../host/plugin/plugin-lookup.js";

/** Adds the entries; answers the folders made (for the install record). `pluginsDir`: where the plugins were placed. */
export function addToPluginCache(pluginsDir: string, version: string, env: NodeJS.ProcessEnv, out: (line: string) => void, platform: Platform): string[] {
  if (platform === "win32") return [];
  const added: string[] = [];
  for (const mode of MODES) {
    const entry = path.join(pulumiHome(env), "plugins", `resource-${mode.package}-v${version}`);
    const file = path.join(entry, mode.binary);
    const target = path.join(pluginsDir, mode.binary);
    const existing = lstatOf(file);
    if (existing && !existing.isSymbolicLink()) {
      out(`left ${file} alone: it is not a link pulumi-dynamic-host made; pulumi package add ${mode.package} may not find this host by name`);
      continue;
    }
    try {
      fs.mkdirSync(entry, { recursive: true });
      fs.rmSync(file, { force: true });
      fs.symlinkSync(target, file);
    } catch (err) {
      out(`note: ${file} could not be made (${(err as Error).message}); pulumi package add takes the plugin by its path instead`);
      continue;
    }
    added.push(entry);
    out(`${file} -> ${target} (the plugin cache, where pulumi package add ${mode.package} <package> finds it by name)`);
  }
  return added;
}

/** Removes entries an install added (a folder holding only our link), saying so. */
export function removeFromPluginCache(entries: readonly string[], out: (line: string) => void): void {
  for (const entry of entries) {
    const mode = MODES.find((m) => path.basename(entry).startsWith(`resource-${m.package}-v`));
    if (!mode) continue;
    const file = path.join(entry, mode.binary);
    if (!lstatOf(file)?.isSymbolicLink()) continue;
    fs.rmSync(file, { force: true });
    try {
      fs.rmdirSync(entry);
    } catch {
      // not empty: something else was put there since
    }
    out(`removed ${file}`);
  }
}
