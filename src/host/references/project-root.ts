// Where the project is: the nearest directory at or above a start directory
// that holds Pulumi.yaml (or Pulumi.yml) as a file. The engine starts a plugin
// in the project directory, or in the directory `main:` names below it, so the
// search goes upward as the engine's own does. A folder named Pulumi.yaml, a
// dangling link or a directory that cannot be read is not a project file
// (../files/file-probe.ts: nothing here throws).
import path from "node:path";
import { findUpward, isFile } from "../files/file-probe.js";

const FILES = ["Pulumi.yaml", "Pulumi.yml"];

/** The project file in `root`, or undefined. */
export function projectFile(root: string): string | undefined {
  return FILES.map((f) => path.join(root, f)).find(isFile);
}

/** The nearest directory at or above `start` holding a project file. */
export function findProjectRoot(start: string): string | undefined {
  return findUpward(start, FILES)?.dir;
}
