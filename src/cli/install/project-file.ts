// A project's Pulumi.yaml, as far as plugin registration goes: its
// `plugins.providers` list of { name, path } (path a directory, relative to
// the project root or absolute), read as the engine reads it and edited in
// place with comments and layout kept (the yaml package's document API).
import fs from "node:fs";
import path from "node:path";
import { isMap, isSeq, parseDocument, YAMLMap, YAMLSeq, type Document } from "yaml";
import { pathsOf, samePathText, type Platform } from "../../host/files/platform.js";
import { projectPluginsOf, type ProjectPlugin } from "../../host/plugin/plugin-lookup.js";
import { projectFile } from "../../host/references/project-root.js";

export type { ProjectPlugin };

function load(file: string): Document {
  const doc = parseDocument(fs.readFileSync(file, "utf8"));
  if (doc.errors.length > 0) throw new Error(`${file} is not valid YAML: ${doc.errors[0].message}`);
  return doc;
}

/**
 * Writes `doc` back to `file` with the line breaks the file had: the YAML
 * library writes \n, and a Pulumi.yaml saved on Windows with \r\n keeps them
 * rather than have every line change.
 */
function save(file: string, doc: Document): void {
  fs.writeFileSync(file, withLineBreaksOf(fs.readFileSync(file, "utf8"), doc.toString()));
}

/** `text` (with \n line breaks) with those of `original`: \r\n when its first line break is one. */
export function withLineBreaksOf(original: string, text: string): string {
  const first = original.indexOf("\n");
  return first > 0 && original[first - 1] === "\r" ? text.replace(/\r?\n/g, "\r\n") : text;
}

export function readProjectPlugins(root: string): ProjectPlugin[] {
  const file = projectFile(root);
  return file ? projectPluginsOf(load(file).toJS(), root) : [];
}

export interface ProjectEdit {
  file: string;
  /** What changed, one line per plugin, for the user. */
  changes: string[];
}

/**
 * Points each named plugin at `dir` (written relative to the root when it lies
 * inside the project, so a checkout elsewhere still finds it), replacing an
 * entry of the same name.
 */
export function registerProjectPlugins(root: string, names: readonly string[], dir: string): ProjectEdit {
  const file = requireProjectFile(root);
  const doc = load(file);
  const written = writtenPath(root, dir);
  let providers = doc.getIn(["plugins", "providers"]);
  if (!isSeq(providers)) {
    providers = new YAMLSeq();
    if (!isMap(doc.get("plugins"))) doc.set("plugins", new YAMLMap());
    doc.setIn(["plugins", "providers"], providers);
  }
  const seq = providers as YAMLSeq;
  const changes: string[] = [];
  for (const name of names) {
    const i = seq.items.findIndex((it) => isMap(it) && it.get("name") === name);
    const entry = doc.createNode({ name, path: written });
    if (i >= 0) {
      const before = (seq.items[i] as YAMLMap).get("path");
      seq.items[i] = entry;
      changes.push(`${name}: path ${JSON.stringify(before)} -> ${JSON.stringify(written)}`);
    } else {
      seq.items.push(entry);
      changes.push(`${name}: path ${JSON.stringify(written)}`);
    }
  }
  save(file, doc);
  return { file, changes };
}

/** Removes the entries of the named plugins that point at `dir`; entries pointing elsewhere are left and reported. */
export function unregisterProjectPlugins(root: string, names: readonly string[], dir: string): ProjectEdit {
  const file = requireProjectFile(root);
  const doc = load(file);
  const providers = doc.getIn(["plugins", "providers"]);
  const changes: string[] = [];
  if (isSeq(providers)) {
    providers.items = providers.items.filter((it) => {
      if (!isMap(it) || !names.includes(String(it.get("name")))) return true;
      const p = String(it.get("path"));
      if (!sameProjectPluginDir(root, p, dir, process.platform)) {
        changes.push(`${it.get("name")}: left alone, its path ${JSON.stringify(p)} is not this host's ${dir}`);
        return true;
      }
      changes.push(`${it.get("name")}: removed (path ${JSON.stringify(p)})`);
      return false;
    });
    if (providers.items.length === 0) {
      doc.deleteIn(["plugins", "providers"]);
      const plugins = doc.get("plugins");
      if (isMap(plugins) && plugins.items.length === 0) doc.delete("plugins");
    }
  }
  save(file, doc);
  return { file, changes };
}

function requireProjectFile(root: string): string {
  const file = projectFile(root);
  if (!file) throw new Error(`no Pulumi.yaml in ${root}: --project takes the directory of a Pulumi project`);
  return file;
}

function writtenPath(root: string, dir: string): string {
  return projectPluginPath(fs.realpathSync(root), fs.realpathSync(dir), process.platform);
}

/**
 * What `install --project` writes as a plugin's path in Pulumi.yaml, for the
 * plugin directory `dir` of the project at `root` (both real paths): relative
 * to the root when it lies inside it, so that another checkout finds it, else
 * absolute; always with `/` between names, which the engine (Go's filepath)
 * reads on Windows too, so the file reads the same on every system and no `\`
 * needs escaping in YAML. A path on another drive than the project's
 * (Windows) is absolute. The YAML document quotes the value where plain
 * text would not read back as it is (`#`, `: `, a leading `-` or quote).
 */
export function projectPluginPath(root: string, dir: string, platform: Platform): string {
  const paths = pathsOf(platform);
  const rel = paths.relative(root, dir);
  const inside = rel !== "" && rel !== ".." && !rel.startsWith(`..${paths.sep}`) && !paths.isAbsolute(rel);
  const chosen = inside ? rel : paths.resolve(dir);
  return platform === "win32" ? chosen.replace(/\\/g, "/") : chosen;
}

/**
 * Whether an entry's path (as written, relative to `root` or absolute) is the
 * directory `dir`: resolved against the root, and compared as the platform's
 * file system compares names (case-insensitive on Windows and macOS; `/` and
 * `\` alike on Windows).
 */
export function sameProjectPluginDir(root: string, written: string, dir: string, platform: Platform): boolean {
  const paths = pathsOf(platform);
  return samePathText(paths.resolve(root, written), paths.resolve(dir), platform);
}
