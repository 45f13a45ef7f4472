// Where the project is: the nearest directory at or above a start directory
// that holds Pulumi.yaml (or Pulumi.yml). The engine starts a plugin in the
// project directory, or in the directory `main:` names below it, so the
// search goes upward as the engine's own does.
import fs from "node:fs";
import path from "node:path";

const FILES = ["Pulumi.yaml", "Pulumi.yml"];

/** The project file in `root`, or undefined. */
export function projectFile(root: string): string | undefined {
  return FILES.map((f) => path.join(root, f)).find((f) => fs.existsSync(f));
}

/** The nearest directory at or above `start` holding a project file. */
export function findProjectRoot(start: string): string | undefined {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (projectFile(dir)) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}
