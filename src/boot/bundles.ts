// Which of the host's bundles a process loads (bin/launch.mjs through
// launch.ts; the single executable through sea.ts): each plugin name has one of
// its own (host-nodejs.cjs, host-python.cjs: one mode, no commands for people),
// picked by the rule src/cli/main.ts picks the mode by; everything else runs
// host.cjs.
import path from "node:path";
import { modeOfProcess } from "../host/plugin/modes.js";
import type { BundleCodeCache } from "./code-cache.js";

/** The bundle a process run as `invoked` (with the Python launcher's `served`) loads, by file name. */
export function bundleFor(invoked: string, served: string | undefined): string {
  const mode = modeOfProcess(invoked, served);
  return mode ? `host-${mode.language}.cjs` : "host.cjs";
}

/**
 * What a process run as `invoked` (argv[1]) loads: the bundle's file name, and
 * the name its code cache is kept under (the name run as, the Python
 * launcher's first: each plugin's cache holds its own request path).
 */
export function hostBundleFor(invoked: string, served: string | undefined): { file: string; cacheName: string } {
  return { file: bundleFor(invoked, served), cacheName: path.basename(served || invoked) };
}

/** Every bundle's main. */
export type HostMain = (argv: readonly string[], boot: { codeCache: BundleCodeCache }) => Promise<void>;
