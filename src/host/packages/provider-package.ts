// src/host/packages: provider packages, served through the engine's
// parameterization (docs/provider-packages.md): what a package folder is
// (provider-package.ts), the two forms of Parameterize's parameters and the
// value a generated SDK embeds (parameters.ts), and the packages one plugin
// process serves (served-packages.ts). It may import src/host/references (the
// declarations' format), src/host/files, src/host/plugin and
// src/host/diagnostics; never the serving path or an adapter.
//
// A provider package is a folder that is an ordinary package of its language:
// an npm package (package.json) for Node providers, a Python project
// (pyproject.toml) for Python ones. Beside the manifest, pulumi-provider.yaml
// holds the `pulumi-dynamic-host` section in the form a project's Pulumi.yaml
// uses, so a section moves from a project into a package unchanged. The
// package's Pulumi name is its type tokens' first part; its version is the
// manifest's, so the version a team publishes is the version the engine and
// the state see.
import path from "node:path";
import { readText } from "../files/file-probe.js";
import type { Language } from "../plugin/modes.js";
import { ProviderReferences, SECTION } from "../references/provider-references.js";

/** The file at a package's root that holds its declarations. */
export const DECLARATIONS_FILE = "pulumi-provider.yaml";

/** Each language's manifest: where the package's own name and version are read. */
export const MANIFEST: Record<Language, string> = { nodejs: "package.json", python: "pyproject.toml" };

/** A package folder that cannot be served: the folder, the file and what is wrong. */
export class PackageError extends Error {
  override name = "PackageError";
}

export interface ProviderPackage {
  /** The Pulumi package name: the first part of its type tokens (files:index:TextFile → files). */
  name: string;
  /** The manifest's version, a semantic version. */
  version: string;
  language: Language;
  /** The package's folder, absolute: its relative module paths, and its require()s, start here. */
  dir: string;
  /** The manifest's own name (npm or PyPI distribution name), for messages. */
  distribution: string;
  references: ProviderReferences;
}

/** Semantic versions as semver.org defines them (no leading v, no leading zeros). */
const NUMBER = "(?:0|[1-9]\\d*)";
const PRE = "(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)";
const SEMVER = new RegExp(`^${NUMBER}\\.${NUMBER}\\.${NUMBER}(?:-${PRE}(?:\\.${PRE})*)?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$`);

export function isSemver(v: string): boolean {
  return SEMVER.test(v);
}

/** Where an installed package keeps what a folder has at its top (./registry-install.ts's Installed). */
export interface InstalledLayout {
  /** Its pulumi-provider.yaml, when not at the top of the folder (a Python distribution carries it among its modules). */
  declarations?: string;
  /** Its name and version, when the folder has no manifest (a Python distribution's are in its METADATA). */
  manifest?: { name: string; version: string };
}

/** Reads the package in `dir` (absolute); throws a PackageError naming what keeps it from being served. */
export async function readProviderPackage(dir: string, layout: InstalledLayout = {}): Promise<ProviderPackage> {
  const file = layout.declarations ?? path.join(dir, DECLARATIONS_FILE);
  if (readText(file) === undefined) {
    throw new PackageError(
      `${dir} is not a provider package: it has no ${DECLARATIONS_FILE}, the file that declares the package's types ` +
        `under ${SECTION}.providers (docs/provider-packages.md)`,
    );
  }
  const declared = await ProviderReferences.loadPackageFile(file, dir);
  if ("problem" in declared) throw new PackageError(declared.problem);
  // A malformed entry is found now, when the package is added or restored, not at its first request.
  try {
    declared.references.all();
  } catch (e) {
    throw new PackageError((e as Error).message);
  }
  const manifest = layout.manifest ?? readManifest(dir, declared.language);
  return { name: declared.name, version: manifest.version, language: declared.language, dir, distribution: manifest.name, references: declared.references };
}

/** The manifest's name and version. */
function readManifest(dir: string, language: Language): { name: string; version: string } {
  const file = path.join(dir, MANIFEST[language]);
  const text = readText(file);
  const kind = language === "nodejs" ? "Node" : "Python";
  if (text === undefined) {
    throw new PackageError(
      `${dir}: its providers are ${kind} ones, and the folder has no ${MANIFEST[language]}; a ${kind} provider package is ` +
        `${language === "nodejs" ? "an npm package" : "a Python project"} whose ${MANIFEST[language]} gives its version`,
    );
  }
  const found = language === "nodejs" ? fromPackageJson(text, file) : fromPyproject(text, file);
  if (!isSemver(found.version)) {
    throw new PackageError(
      `${file}: the version ${JSON.stringify(found.version)} is not a semantic version (major.minor.patch, e.g. 1.2.0), ` +
        `which the engine requires of a package's version`,
    );
  }
  return found;
}

function fromPackageJson(text: string, file: string): { name: string; version: string } {
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch (e) {
    throw new PackageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  const fields = pkg && typeof pkg === "object" ? (pkg as Record<string, unknown>) : {};
  if (typeof fields.version !== "string" || fields.version === "") throw new PackageError(`${file} gives no "version"; a provider package's version is its package.json version`);
  return { name: typeof fields.name === "string" ? fields.name : "", version: fields.version };
}

/**
 * The `[project]` table's name and version: only the static forms, a basic or
 * literal string on a line of its own, which is how pyproject.toml states them;
 * a dynamic version is refused, since the version must be known without building.
 */
function fromPyproject(text: string, file: string): { name: string; version: string } {
  let table = "";
  const found: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+/, "");
    const header = /^\[([^\][]+)\]\s*(#.*)?$/.exec(line);
    if (header) {
      table = header[1].trim();
      continue;
    }
    if (table !== "project") continue;
    const entry = /^(name|version)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(#.*)?$/.exec(line);
    if (entry) found[entry[1]] = entry[2] ?? entry[3];
    if (/^dynamic\s*=.*["']version["']/.test(line)) {
      throw new PackageError(`${file}: [project] has a dynamic version; a provider package states its version in [project] version = "1.2.0"`);
    }
  }
  if (found.version === undefined) throw new PackageError(`${file} gives no [project] version; a provider package's version is its pyproject.toml version`);
  return { name: found.name ?? "", version: found.version };
}

/**
 * A Python package folder's `[project] dependencies`, as pyproject.toml states them (an array of
 * strings, on one line or several); undefined when there is no pyproject.toml or no such array.
 */
export function pythonDependencies(dir: string): string[] | undefined {
  const text = readText(path.join(dir, MANIFEST.python));
  if (text === undefined) return undefined;
  let table = "";
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/^\s+/, "");
    const header = /^\[([^\][]+)\]\s*(#.*)?$/.exec(line);
    if (header) {
      table = header[1].trim();
      continue;
    }
    if (table !== "project" || !/^dependencies\s*=/.test(line)) continue;
    // The array, to its closing bracket (outside a string), across lines.
    let rest = line.replace(/^dependencies\s*=\s*/, "");
    while (!closes(rest) && i + 1 < lines.length) rest += `\n${lines[++i]}`;
    const out: string[] = [];
    for (const m of rest.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)) out.push(m[1] ?? m[2]);
    return out;
  }
  return undefined;
}

/** Whether an array's text has its closing bracket, outside strings and comments. */
function closes(text: string): boolean {
  const bare = text.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, "").replace(/#[^\n]*/g, "");
  return bare.includes("]");
}
