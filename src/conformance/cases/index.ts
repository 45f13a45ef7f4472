// The conformance table: every case, in the order its sessions run. The Node
// cases are in node/, the Python cases in python/, those of both languages here.
import type { Case, Language } from "../case.js";
import { depthAndWire } from "./depth-and-wire.js";
import { nodeCheckDiffCreate } from "./node/node-check-diff-create.js";
import { nodeConfigRuntime } from "./node/node-config-runtime.js";
import { nodeMovedPaths } from "./node/node-moved-paths.js";
import { nodeStartup } from "./node/node-startup.js";
import { nodeValuesReadUpdateDelete } from "./node/node-values-read-update-delete.js";
import { pythonStartCheckDiffCreate } from "./python/python-start-check-diff-create.js";
import { pythonLoadErrors } from "./python/python-load-errors.js";
import { pythonProgramPaths } from "./python/python-program-paths.js";
import { pythonValuesRudConfig } from "./python/python-values-rud-config.js";
import { pythonVersionDrift } from "./python/python-version-drift.js";
import { secretRedaction, secretsOut } from "./secrets.js";

export const CASES: readonly Case[] = [
  ...nodeStartup,
  ...nodeCheckDiffCreate,
  ...nodeValuesReadUpdateDelete,
  ...nodeConfigRuntime,
  ...nodeMovedPaths,
  ...pythonStartCheckDiffCreate,
  ...pythonValuesRudConfig,
  ...pythonLoadErrors,
  ...pythonProgramPaths,
  ...pythonVersionDrift,
  ...secretRedaction,
  ...secretsOut,
  ...depthAndWire,
];

/** The cases of `language` whose id starts with `only` or matches it as a glob (`*` any run of characters). */
export function selectCases(language: Language, only?: string, table: readonly Case[] = CASES): Case[] {
  const ids = new Set<string>();
  const out = table.filter((c) => c.language === language && (only === undefined || idMatches(c.id, only)));
  for (const c of out) {
    if (ids.has(c.id)) throw new Error(`two conformance cases have the id ${c.id}`);
    ids.add(c.id);
  }
  return out;
}

export function idMatches(id: string, pattern: string): boolean {
  if (!pattern.includes("*")) return id.startsWith(pattern);
  const re = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return re.test(id);
}
