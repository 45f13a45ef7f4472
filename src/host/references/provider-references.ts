// src/host/references: the project's declarations in Pulumi.yaml: where the
// project is (project-root.ts), the section's shape (declaration-schema.ts), the
// providers it names by reference (provider-references.ts), their declared types
// (declared-types.ts), the package schema made of them (package-schema.ts) and
// the check of a request's inputs against them (input-types.ts). It may import
// src/host/files, src/host/plugin (a Language), src/host/wire and
// src/host/diagnostics; never the serving path or an adapter.
//
// Providers by reference: where a project says, per dynamic type token, which
// provider in its own code serves the type, so that the host can load it when
// a request carries no `__provider` (import) or, when the project asks, in
// place of the code serialized into the state (refresh, destroy).
//
// The declaration lives in the project's Pulumi.yaml, one place for both
// languages, so a fresh checkout has it:
//
//   pulumi-dynamic-host:
//     latestCode: true                     # optional: run the project's code, not the state's
//     python: .venv                        # optional: the Python of a project whose runtime is not python
//     providers:
//       pulumi-nodejs:dynamic/files:TextFile: ./providers#textFileProvider
//       pulumi-python:dynamic:Counter:
//         provider: providers.counter:CounterProvider
//         latestCode: false                # optional: this type keeps the state's code
//
// A Node reference is "<module>#<export>" (a path relative to the directory of
// Pulumi.yaml, or a package); a Python one is "<module>:<attribute>" (dotted,
// importable with the program's sys.path). Each mode reads the entries of its
// own package. The host never writes provider code anywhere: it only reads
// this file.
import { parseYaml } from "../files/yaml-text.js";
import fs from "node:fs";
import { readProperties, type PropertyMap } from "./declared-types.js";
import type { Language } from "../plugin/modes.js";
import { findProjectRoot, projectFile } from "./project-root.js";

/** The Pulumi.yaml key that holds the declarations. */
export const SECTION = "pulumi-dynamic-host";

/** One type's provider, as declared. */
export interface ProviderReference {
  /** The dynamic resource type token it serves. */
  typeToken: string;
  /** As written: "<module>#<export>" (Node) or "<module>:<attribute>" (Python). */
  reference: string;
  /** Whether Read, Update, Delete and Diff run this code instead of the state's. */
  latestCode: boolean;
  /** The Pulumi.yaml that declares it, for messages. */
  declaredIn: string;
  /** The directory of that file: relative Node module paths start here. */
  projectDir: string;
  /** The type's description and property types, when the declaration gives them (./declared-types.ts). */
  types?: DeclaredTypes;
  /**
   * Set for a provider package's reference (src/host/packages): its folder, from which a Python
   * reference's modules are imported (put first on the worker's sys.path); a Node one resolves
   * from projectDir, which is the same folder.
   */
  packageDir?: string;
  /** A Python package's dependencies that the host installed for it, imported after its folder (src/host/packages). */
  dependencyDirs?: string[];
}

/** What a typed declaration says of its resource (docs/schema.md). */
export interface DeclaredTypes {
  description?: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
}

const NODE_REFERENCE = /^[^#\s]+#[A-Za-z_$][\w$]*$/;
const PYTHON_REFERENCE = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;

/** What a reference looks like in each language, for messages. */
export const REFERENCE_SYNTAX: Record<Language, { pattern: RegExp; shape: string; example: string }> = {
  nodejs: { pattern: NODE_REFERENCE, shape: '"<module>#<export>"', example: "./providers#textFileProvider" },
  python: { pattern: PYTHON_REFERENCE, shape: '"<module>:<attribute>"', example: "providers.counter:CounterProvider" },
};

/** The package each language's dynamic resources belong to. */
const DYNAMIC_PACKAGE: Record<Language, string> = { nodejs: "pulumi-nodejs", python: "pulumi-python" };

/** A declaration that cannot be used: the file, the key and what is wrong. */
export class DeclarationError extends Error {
  override name = "DeclarationError";
}

/** The declarations of one project for one language, read once. */
export class ProviderReferences {
  constructor(
    readonly language: Language,
    /** The Pulumi.yaml looked at, or undefined when none was found above the start directory. */
    readonly file: string | undefined,
    private readonly entries: Map<string, ProviderReference>,
    /** Set when the section could not be read: every lookup then fails with it. */
    private readonly problem?: string,
  ) {}

  /**
   * Reads the section of the project file at or above `start` (the plugin's
   * working directory). A file without the section costs one read and no
   * YAML parse.
   */
  static async load(start: string, language: Language, pkg: string = DYNAMIC_PACKAGE[language]): Promise<ProviderReferences> {
    return fromSection(await readSection(start), language, pkg);
  }

  /**
   * The language of the providers the project declares for `pkg`, a package of
   * its own name (docs/schema.md), told by their references' shapes; or what
   * keeps it from being served: no project, no such type, or types of both
   * languages.
   */
  static async languageOf(start: string, pkg: string): Promise<{ language: Language; file: string } | { problem: string }> {
    return languageIn(await readSection(start), start, pkg);
  }

  /**
   * Every package the project declares types of, each read as its plugin reads
   * it (for the commands for people: schema, doctor); a problem of one package
   * is thrown as a DeclarationError when `all()` of it is asked for.
   */
  static async loadAll(start: string): Promise<{ file?: string; packages: Map<string, ProviderReferences> }> {
    // The file is read and parsed once, for every package.
    const read = await readSection(start);
    const packages = new Map<string, ProviderReferences>();
    if (read.problem) {
      packages.set("", new ProviderReferences("nodejs", read.file, new Map(), read.problem));
      return { packages };
    }
    const names = [...new Set(Object.keys(rawProviders(read)).map((t) => t.slice(0, Math.max(0, t.indexOf(":")))))];
    for (const pkg of names) {
      const dynamic = (Object.keys(DYNAMIC_PACKAGE) as Language[]).find((l) => DYNAMIC_PACKAGE[l] === pkg);
      const own = dynamic ? undefined : languageIn(read, start, pkg);
      if (own && "problem" in own) packages.set(pkg, new ProviderReferences("nodejs", read.file, new Map(), own.problem));
      else packages.set(pkg, await fromSection(read, dynamic ?? own!.language, pkg));
    }
    return { file: read.file, packages };
  }

  /**
   * The declarations of a provider package (src/host/packages, docs/provider-packages.md):
   * `file` holds the section as a project's Pulumi.yaml does, `dir` (the package's folder) is
   * where its relative module paths start. The package's name is its type tokens' first
   * part, which they must share; its language is told by their references' shapes.
   */
  static async loadPackageFile(
    file: string,
    dir: string,
  ): Promise<{ name: string; language: Language; references: ProviderReferences } | { problem: string }> {
    const read = await readSectionOf(dir, file);
    if (read.problem) return { problem: read.problem };
    if (read.section === undefined || read.section === null) {
      return { problem: `${file} has no ${SECTION} section: a provider package declares its types there, as a project's Pulumi.yaml does` };
    }
    const names = [...new Set(Object.keys(rawProviders(read)).map((t) => t.slice(0, Math.max(0, t.indexOf(":")))))];
    if (names.length === 0) return { problem: `${file} declares no types: declare them under ${SECTION}.providers as <package>:<module>:<Type>` };
    if (names.length > 1 || names[0] === "") {
      return {
        problem:
          `${file} declares types of ${names.map((n) => JSON.stringify(n)).join(" and ")}; a provider package's type tokens ` +
          `all begin with its one package name (<package>:<module>:<Type>)`,
      };
    }
    const name = names[0];
    if (Object.values(DYNAMIC_PACKAGE).includes(name)) {
      return { problem: `${file} declares types of ${name}, the dynamic plugin's own package; a provider package names its types after a package of its own (files:index:TextFile)` };
    }
    const found = languageIn(read, dir, name);
    if ("problem" in found) return found;
    const references = await fromSection(read, found.language, name);
    for (const entry of references.entries.values()) entry.packageDir = dir;
    return { name, language: found.language, references };
  }

  /** The declaration for `typeToken`, or undefined; throws when the project's section is malformed. */
  lookup(typeToken: string): ProviderReference | undefined {
    if (this.problem) throw new DeclarationError(this.problem);
    return this.entries.get(typeToken);
  }

  /** Every declaration of this language, in the file's order; throws when the section is malformed. */
  all(): ProviderReference[] {
    if (this.problem) throw new DeclarationError(this.problem);
    return [...this.entries.values()];
  }

  /** What to add where so that `typeToken` is served by reference: a message's second half. */
  howToDeclare(typeToken: string): string {
    const syntax = REFERENCE_SYNTAX[this.language];
    const where = this.file ?? "the project's Pulumi.yaml";
    return (
      `declare where its provider lives in ${where}:\n` +
      `  ${SECTION}:\n    providers:\n      ${typeToken}: ${syntax.example}\n` +
      `(a ${syntax.shape} reference to the provider in the project's code; docs/import-and-repair.md, pulumi-dynamic-host docs import-and-repair)`
    );
  }
}

/** The project file at or above a start directory, read once: its section as parsed YAML, or why it cannot be read. */
interface ProjectSection {
  root?: string;
  file?: string;
  /** The section's value; undefined when the file has none. */
  section?: unknown;
  problem?: string;
}

/**
 * Reads the project file at or above `start`. A file without the section
 * costs one read and no YAML parse: yaml is imported only for a project that
 * uses the section, so the serving path stays light.
 */
async function readSection(start: string): Promise<ProjectSection> {
  const root = findProjectRoot(start);
  const file = root && projectFile(root);
  if (!root || !file) return {};
  return readSectionOf(root, file);
}

/** The section of the YAML file `file` (a project's Pulumi.yaml, or a provider package's declarations), whose paths start at `root`. */
async function readSectionOf(root: string, file: string): Promise<ProjectSection> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    return { root, file, problem: `${file} could not be read: ${(e as Error).message}` };
  }
  if (!text.includes(SECTION)) return { root, file };
  let doc: unknown;
  try {
    doc = await parseYaml(text);
  } catch (e) {
    return { root, file, problem: `${file} is not valid YAML: ${(e as Error).message}` };
  }
  return { root, file, section: doc && typeof doc === "object" ? (doc as Record<string, unknown>)[SECTION] : undefined };
}

/** The section's providers as written (unvalidated), for telling packages and languages apart. */
function rawProviders(read: ProjectSection): Record<string, unknown> {
  const providers = read.section && typeof read.section === "object" ? (read.section as Record<string, unknown>).providers : undefined;
  return providers && typeof providers === "object" && !Array.isArray(providers) ? (providers as Record<string, unknown>) : {};
}

/** The language of the providers `read` declares for the package `pkg` (ProviderReferences.languageOf). */
function languageIn(read: ProjectSection, start: string, pkg: string): { language: Language; file: string } | { problem: string } {
  if (read.problem) return { problem: read.problem };
  const file = read.file;
  if (!file) return { problem: `no Pulumi.yaml at or above ${start}: a plugin of the package ${pkg} serves the types a project declares` };
  const found = new Map<Language, string[]>();
  for (const [token, entry] of Object.entries(rawProviders(read))) {
    if (!token.startsWith(`${pkg}:`)) continue;
    const reference = typeof entry === "string" ? entry : (entry as { provider?: unknown } | null)?.provider;
    const language = (Object.keys(REFERENCE_SYNTAX) as Language[]).find((l) => typeof reference === "string" && REFERENCE_SYNTAX[l].pattern.test(reference));
    if (!language) {
      return { problem: `${file}: ${SECTION}.providers["${token}"] names no provider reference (Node "<module>#<export>" or Python "<module>:<attribute>")` };
    }
    found.set(language, [...(found.get(language) ?? []), token]);
  }
  if (found.size === 0) {
    return { problem: `${file} declares no type of the package ${pkg}: declare its types under ${SECTION}.providers as ${pkg}:<module>:<Type> (docs/schema.md)` };
  }
  if (found.size > 1) {
    return {
      problem:
        `${file} declares types of the package ${pkg} with Node providers (${found.get("nodejs")!.join(", ")}) and with Python ` +
        `providers (${found.get("python")!.join(", ")}); one package is served by one plugin process in one language: give each language a package of its own`,
    };
  }
  return { language: [...found.keys()][0], file };
}

/** The declarations of `language` for `pkg` in `read`, checked against the section's shape (zod, imported only here). */
async function fromSection(read: ProjectSection, language: Language, pkg: string): Promise<ProviderReferences> {
  const { root, file } = read;
  if (!root || !file) return new ProviderReferences(language, undefined, new Map());
  if (read.problem) return new ProviderReferences(language, file, new Map(), read.problem);
  const raw = read.section;
  if (raw === undefined || raw === null) return new ProviderReferences(language, file, new Map());
  const { sectionSchema } = await import("./declaration-schema.js");
  const parsed = sectionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = [SECTION, ...issue.path.map(String)].join(".");
    return new ProviderReferences(language, file, new Map(), `${file}: ${at}: ${issue.message}; ${sectionShape(language)}`);
  }
  const syntax = REFERENCE_SYNTAX[language];
  const entries = new Map<string, ProviderReference>();
  for (const [typeToken, entry] of Object.entries(parsed.data.providers ?? {})) {
    if (!typeToken.startsWith(`${pkg}:`)) continue;
    const reference = typeof entry === "string" ? entry : entry.provider;
    if (!syntax.pattern.test(reference)) {
      return new ProviderReferences(
        language,
        file,
        new Map(),
        `${file}: ${SECTION}.providers["${typeToken}"] is ${JSON.stringify(reference)}, which is not a provider reference: ` +
          `a ${language === "nodejs" ? "Node" : "Python"} reference is ${syntax.shape}, e.g. ${syntax.example}`,
      );
    }
    const latestCode = (typeof entry === "string" ? undefined : entry.latestCode) ?? parsed.data.latestCode ?? false;
    const declared: ProviderReference = { typeToken, reference, latestCode, declaredIn: file, projectDir: root };
    if (typeof entry !== "string" && (entry.inputs !== undefined || entry.outputs !== undefined || entry.description !== undefined)) {
      const types = readTypes(entry, `${SECTION}.providers["${typeToken}"]`);
      if (typeof types === "string") return new ProviderReferences(language, file, new Map(), `${file}: ${types}`);
      declared.types = types;
    }
    entries.set(typeToken, declared);
  }
  return new ProviderReferences(language, file, entries);
}

/** A typed entry's types, or the first problem as "<where>: <what>" (docs/schema.md). */
function readTypes(entry: { description?: string; inputs?: unknown; outputs?: unknown }, at: string): DeclaredTypes | string {
  const read = (field: "inputs" | "outputs"): PropertyMap | string => {
    if (entry[field] === undefined || entry[field] === null) return new Map();
    const map = readProperties(entry[field], `${at}.${field}`);
    return map instanceof Map ? map : `${map.at}: ${map.message} (docs/schema.md, pulumi-dynamic-host docs schema)`;
  };
  const inputs = read("inputs");
  if (typeof inputs === "string") return inputs;
  const outputs = read("outputs");
  if (typeof outputs === "string") return outputs;
  return { inputs, outputs, ...(entry.description !== undefined ? { description: entry.description } : {}) };
}

function sectionShape(language: Language): string {
  const syntax = REFERENCE_SYNTAX[language];
  return (
    `the section is { latestCode?: boolean, python?: <path or command>, providers?: { <type token>: ${syntax.shape} | ` +
    `{ provider: ${syntax.shape}, latestCode?: boolean, description?: string, inputs?: {…}, outputs?: {…} } } }`
  );
}
