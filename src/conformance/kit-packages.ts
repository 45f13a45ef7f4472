// The packages the Node provider scenarios require besides @pulumi/pulumi
// (sleep-promise: row 73's package from node_modules, and the default scenario's
// sleep; ms: the moved-paths cases), which the kit brings itself: the build copies
// them, pinned, from the repository's node_modules (scripts/bundle.mjs,
// copyKitPackages) into the npm package, and embeds them in the single executable
// (scripts/dist.mjs). A run puts them in the node_modules of the program folder it
// makes in the user's project, so the scenarios and the plugins resolve them there
// first, as a program's own dependencies, and the user installs only the SDK.
import fs from "node:fs";
import path from "node:path";
import { assetDirectory } from "../host/files/assets.js";

/** Where the build puts them, relative to the package root (an asset folder of the single executable). */
export const KIT_PACKAGES_DIR = "dist/bundle/conformance-packages";

/** Copies the kit's packages into `<programDir>/node_modules`; throws, naming the folder, when the build left none. */
export function installKitPackages(programDir: string): string[] {
  const from = assetDirectory(KIT_PACKAGES_DIR);
  const names = fs.existsSync(from) ? fs.readdirSync(from) : [];
  if (names.length === 0) throw new Error(`the conformance kit's own packages are missing (${from}): in a checkout, run npm run build`);
  for (const name of names) fs.cpSync(path.join(from, name), path.join(programDir, "node_modules", name), { recursive: true });
  return names;
}
