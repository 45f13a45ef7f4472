// GetPluginInfo's version. Node mode reports the program's @pulumi/pulumi
// version, as the Node reference does by running inside that SDK; without one
// it falls back to ours. Python mode reports the Python reference's fixed 0.1.0.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { readAsset } from "../files/assets.js";
import type { Mode } from "./modes.js";

export function hostVersion(): string {
  const pkg = JSON.parse(readAsset("package.json"));
  return String(pkg.version);
}

export function pluginVersion(mode: Mode, cwd: string): string {
  if (mode.language === "python") return "0.1.0";
  try {
    const req = createRequire(path.join(cwd, "[pulumi dynamic provider]"));
    const version = JSON.parse(readFileSync(req.resolve("@pulumi/pulumi/package.json"), "utf8")).version;
    if (typeof version === "string" && version !== "") return version;
  } catch {
    // no @pulumi/pulumi reachable from the program directory
  }
  return hostVersion();
}
