// The Python worker's own modules, read from its entry point: python-stub/worker.py loads each
// of its siblings by path (`_load_sibling("<name>")`), from the compiled code kept between starts.
import fs from "node:fs";
import { REPO } from "./paths.js";

/**
 * The file names (e.g. "operations.py") of the python-stub modules worker.py loads, worker.py first; not
 * the helper it loads by path. preloader.py among them, which it loads only as a preloader (docs/preloader.md).
 */
export function workerModules(): string[] {
  const source = fs.readFileSync(`${REPO}python-stub/worker.py`, "utf8");
  const names = [...source.matchAll(/_load_sibling\("(\w+)"\)/g)].map((m) => `${m[1]}.py`);
  if (names.length === 0) throw new Error("python-stub/worker.py loads no sibling with _load_sibling(\"<name>\"): has its loader changed?");
  return ["worker.py", ...new Set(names)];
}
