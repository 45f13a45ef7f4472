// Parameterize's two forms (docs/provider-packages.md):
//
// - arguments, from `pulumi package add <plugin> <args…>`: one local folder,
//   relative to the project directory (where the engine starts the plugin) or
//   absolute; or a registry spec of the plugin's language (npm for the Node
//   plugin, PyPI for the Python one), installed into the host's cache
//   (./registry-install.ts);
// - a value, which the engine sends on every later run, from what the SDK that
//   `pulumi package add` generated embeds (and the state of the package's
//   provider keeps): the bytes this host answered the arguments with, restored
//   to the same package.
//
// The value is JSON, so that it reads plainly where it is kept (Pulumi.yaml's
// SDK lock file, the state): the format's marker, the source (a folder as the
// arguments gave it, relative paths kept relative so that the project can
// move; or a registry package pinned by its name, exact version and
// integrity, so that a restore installs the very same bytes), and the
// package's name and version, checked on restore.
import path from "node:path";

/** The key of the value's format marker, and its version. */
const FORMAT_KEY = "pulumi-dynamic-host";
const FORMAT = 1;

/** Where a package comes from: a folder on this machine, or a registry package pinned to its bytes. */
export type PackageSource = FolderSource | RegistrySource;

export interface FolderSource {
  kind: "folder";
  /** As the arguments gave it: relative to the project directory, or absolute. */
  path: string;
}

/** The registries: npm's for Node packages, a Python package index for Python ones. */
export type RegistryKind = "npm" | "pypi";

export interface RegistrySource {
  kind: RegistryKind;
  /** The spec as `pulumi package add` was given it (`@acme/files@^1.2.0`, `acme-files==1.2.0`): for messages. */
  spec: string;
  /** The registry's own name of the package (`@acme/files`, `acme-files`). */
  package: string;
  /** The exact version the spec resolved to when added. */
  version: string;
  /** What the registry published for that version: npm's `integrity` (sha512-…), or `sha256:<hex>` of the Python distribution file. */
  integrity: string;
}

/** What a value holds. */
export interface PackageValue {
  source: PackageSource;
  name: string;
  version: string;
}

/** Parameters that cannot be used: what was given and what is wrong. */
export class ParameterError extends Error {
  override name = "ParameterError";
}

/** What `pulumi package add <plugin> <args…>` was given: a folder, or a spec for the plugin's registry. */
export type GivenSource = { kind: "folder"; path: string } | { kind: "registry"; spec: string };

/** The source `pulumi package add <plugin> <args…>` names; `isFolder` says whether a bare word names an existing folder. */
export function sourceOfArgs(args: readonly string[], binary: string, registry: RegistryKind, isFolder: (given: string) => boolean): GivenSource {
  const example = registry === "npm" ? "@acme/files@1.2.0" : "acme-files==1.2.0";
  const usage = `pulumi package add <path to ${binary}> <folder of the provider package, or ${registry === "npm" ? "an npm" : "a PyPI"} spec such as ${example}>`;
  if (args.length !== 1) {
    throw new ParameterError(
      `${binary} takes one parameter, the provider package (${usage}); it was given ${args.length}` +
        (args.length ? `: ${args.map((a) => JSON.stringify(a)).join(" ")}` : ""),
    );
  }
  const given = args[0];
  if (given.trim() === "") throw new ParameterError(`the provider package given is empty; ${usage}`);
  if (looksLikePath(given) || isFolder(given)) return { kind: "folder", path: toPortable(given) };
  return { kind: "registry", spec: given };
}

/** A path by its form: ./x, ../x, /x, ~/x, C:\x, or a bare "." or "..". */
function looksLikePath(given: string): boolean {
  return /^(\.{1,2}([\\/]|$)|[\\/]|~[\\/]|[A-Za-z]:[\\/])/.test(given);
}

/** The folder a source names, absolute: a relative one is relative to `projectDir`. */
export function folderOf(source: FolderSource, projectDir: string): string {
  return path.resolve(projectDir, source.path);
}

export function encodeValue(value: PackageValue): Buffer {
  const { source, name, version } = value;
  const kept =
    source.kind === "folder"
      ? { kind: source.kind, path: source.path }
      : { kind: source.kind, spec: source.spec, package: source.package, version: source.version, integrity: source.integrity };
  return Buffer.from(JSON.stringify({ [FORMAT_KEY]: FORMAT, source: kept, name, version }), "utf8");
}

/** The value's contents; a value of another plugin, of a newer format, or damaged, is a ParameterError saying which. */
export function decodeValue(bytes: Uint8Array): PackageValue {
  const text = Buffer.from(bytes).toString("utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ParameterError(`the parameter value is not one this host wrote (not JSON: ${preview(text)})`);
  }
  const v = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  if (v[FORMAT_KEY] === undefined) throw new ParameterError(`the parameter value is not one this host wrote (no "${FORMAT_KEY}" key: ${preview(text)})`);
  if (v[FORMAT_KEY] !== FORMAT) {
    throw new ParameterError(`the parameter value is of format ${JSON.stringify(v[FORMAT_KEY])}, which this version of the host does not read (it reads ${FORMAT}); install a newer pulumi-dynamic-host`);
  }
  if (typeof v.name !== "string" || typeof v.version !== "string") throw new ParameterError(`the parameter value has no package name and version: ${preview(text)}`);
  return { source: sourceOfValue(v.source), name: v.name, version: v.version };
}

function sourceOfValue(raw: unknown): PackageSource {
  const source = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const refuse = () => new ParameterError(`the parameter value's source ${preview(JSON.stringify(raw ?? null))} is not a folder or a registry package this host can restore`);
  if (source.kind === "folder") {
    if (typeof source.path !== "string" || source.path === "") throw refuse();
    return { kind: "folder", path: source.path };
  }
  if (source.kind === "npm" || source.kind === "pypi") {
    const fields = ["spec", "package", "version", "integrity"] as const;
    if (!fields.every((f) => typeof source[f] === "string" && source[f] !== "")) throw refuse();
    const [spec, pkg, version, integrity] = fields.map((f) => source[f] as string);
    return { kind: source.kind, spec, package: pkg, version, integrity };
  }
  throw refuse();
}

/** Forward slashes, so that a value written on Windows restores elsewhere (and back). */
function toPortable(p: string): string {
  return p.replace(/\\/g, "/");
}

function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
