// The Node side of a program directory as the host's Node adapter sees it: the
// Node the host runs on, and how `require` in a provider's closure resolves,
// the way src/node-dynamic/loader.ts resolves it (createRequire at a file in
// the program directory: its node_modules and those of its parents).
import { execFileSync } from "node:child_process";
import { readText, realPath } from "../../host/files/file-probe.js";
import { createRequire, isBuiltin } from "node:module";
import path from "node:path";
import { EMBEDDED } from "../../host/files/assets.js";
import { lookPath } from "../install/engine-lookup.js";

export const MIN_NODE_MAJOR = 20;

export interface NodeRuntime {
  embedded: boolean;
  /** The `node` on PATH that runs the npm-installed host (its bin scripts start with `#!/usr/bin/env node`). */
  path?: string;
  version?: string;
  /** Why the host cannot start with it. */
  problem?: string;
}

export function nodeRuntime(env: NodeJS.ProcessEnv): NodeRuntime {
  if (EMBEDDED) return { embedded: true, version: process.version };
  const node = lookPath("node", env);
  if (!node) return { embedded: false, problem: `there is no node on PATH, and the host's scripts run with \`#!/usr/bin/env node\`: install Node.js ${MIN_NODE_MAJOR} or later` };
  let version: string;
  try {
    version = (realPath(node) ?? node) === realPath(process.execPath) ? process.version : execFileSync(node, ["--version"], { encoding: "utf8", timeout: 15_000, env }).trim();
  } catch (e) {
    return { embedded: false, path: node, problem: `${node} --version failed (${(e as Error).message.split("\n")[0]}): the host cannot start with it` };
  }
  const major = Number(/^v(\d+)\./.exec(version)?.[1]);
  if (!(major >= MIN_NODE_MAJOR)) {
    return { embedded: false, path: node, version, problem: `${node} is Node ${version}, and the host needs Node ${MIN_NODE_MAJOR} or later: put a newer node first on PATH` };
  }
  return { embedded: false, path: node, version };
}

function requireFrom(dir: string): NodeJS.Require {
  return createRequire(path.join(dir, "x"));
}

export type Resolved = { ok: true; path: string } | { ok: false; why: string };

/** Where `require(id)` in a provider's closure goes when the plugin runs in `dir`. Built-in modules always resolve. */
export function resolveRequire(dir: string, id: string): Resolved {
  if (isBuiltin(id)) return { ok: true, path: "built-in" };
  try {
    return { ok: true, path: requireFrom(dir).resolve(id) };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return { ok: false, why: err.code === "MODULE_NOT_FOUND" ? "not found" : `${err.code ?? "error"}: ${String(err.message).split("\n")[0]}` };
  }
}

/** The `@pulumi/pulumi` a provider's `require("@pulumi/pulumi")` would load from `dir`. */
export function pulumiSdk(dir: string): { version: string; dir: string; enginesNode?: string } | undefined {
  const req = requireFrom(dir);
  let manifest: string | undefined;
  try {
    manifest = req.resolve("@pulumi/pulumi/package.json");
  } catch {
    // A package whose "exports" hides package.json: walk up from its entry point.
    try {
      for (let d = path.dirname(req.resolve("@pulumi/pulumi")); path.dirname(d) !== d; d = path.dirname(d)) {
        const candidate = path.join(d, "package.json");
        if (JSON.parse(readText(candidate, 1 << 20) ?? "{}").name === "@pulumi/pulumi") {
          manifest = candidate;
          break;
        }
      }
    } catch {
      return undefined;
    }
  }
  if (!manifest) return undefined;
  let json: { version?: unknown; engines?: { node?: unknown } };
  try {
    json = JSON.parse(readText(manifest, 1 << 20) ?? "{}");
  } catch {
    json = {};
  }
  const { version, engines } = json;
  const enginesNode = typeof engines?.node === "string" ? engines.node : undefined;
  return { version: typeof version === "string" ? version : "unknown", dir: path.dirname(manifest), enginesNode };
}

/** The npm package a require id installs from ("@scope/pkg/sub" → "@scope/pkg"), or undefined for a path. */
export function packageOf(id: string): string | undefined {
  if (id.startsWith(".") || path.isAbsolute(id)) return undefined;
  const parts = id.split("/");
  return id.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}
