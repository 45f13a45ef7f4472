// What a project's Pulumi.yaml says about the Python that runs its Python
// providers: its runtime (a Python project keeps the reference launcher's
// rules, interpreter.ts; any other runtime gets project-interpreter.ts's) and
// the `python:` key of the pulumi-dynamic-host section.
//
// Read once, by the composition root and by doctor, before the interpreter is
// resolved (which is synchronous). The Python plugin reads it before its port
// line, so the common cases cost one file read and no YAML parser: a top-level
// `runtime: <name>` line decides alone when the runtime is python or the file
// has no section. Anything else is parsed.
import { parseYaml } from "../../host/files/yaml-text.js";
import fs from "node:fs";
import { findProjectRoot, projectFile } from "../../host/references/project-root.js";
import { SECTION } from "../../host/references/provider-references.js";

export interface ProjectPython {
  /** The project's Pulumi.yaml. */
  file: string;
  /** Its directory: relative `python:` paths and the .venv / venv rule start here. */
  root: string;
  /** The runtime's name (`runtime: nodejs`, or `runtime: {name: nodejs}`); undefined when it cannot be read. */
  runtime?: string;
  /** The section's `python:`, as written, when it is a non-empty string. */
  python?: string;
  /** What is wrong with a `python:` that is set but not a non-empty string. */
  problem?: string;
}

/** A plain top-level `runtime:` scalar, quoted or not, with an optional comment. */
const RUNTIME_LINE = /^runtime:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#"'{[][^\s#]*))[ \t]*(?:#.*)?$/m;

/**
 * The project at or above `cwd`, or undefined when there is none (the rules are then the reference launcher's).
 * A Python project's `python:`, which its rules ignore, is read only when `whole` (doctor, which says so).
 */
export async function readProjectPython(cwd: string, whole = false): Promise<ProjectPython | undefined> {
  const root = findProjectRoot(cwd);
  const file = root && projectFile(root);
  if (!root || !file) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return { file, root };
  }
  const line = RUNTIME_LINE.exec(text);
  const scalar = line ? (line[1] ?? line[2] ?? line[3]) : undefined;
  const hasSection = text.includes(SECTION);
  if (scalar !== undefined && (!hasSection || (scalar === "python" && !whole))) return { file, root, runtime: scalar };
  let doc: unknown;
  try {
    doc = await parseYaml(text);
  } catch {
    // The engine refuses such a file before any plugin runs; the core names the problem if asked.
    return { file, root };
  }
  return fromDocument(doc, file, root);
}

/** The runtime and `python:` of a parsed Pulumi.yaml. */
export function fromDocument(doc: unknown, file: string, root: string): ProjectPython {
  const project = isRecord(doc) ? doc : {};
  const runtime = project.runtime;
  const name = typeof runtime === "string" ? runtime : isRecord(runtime) && typeof runtime.name === "string" ? runtime.name : undefined;
  const out: ProjectPython = { file, root, runtime: name };
  const section = project[SECTION];
  const python = isRecord(section) ? section.python : undefined;
  if (typeof python === "string" && python !== "") out.python = python;
  else if (python !== undefined && python !== null) {
    out.problem = `${SECTION}.python in ${file} is ${JSON.stringify(python)}: it takes a path to a python executable or a virtualenv, or a command name`;
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
