// Parameterize's two forms (docs/provider-packages.md):
//
// - arguments, from `pulumi package add <plugin> <args…>`: today one local
//   folder, relative to the project directory (where the engine starts the
//   plugin) or absolute;
// - a value, which the engine sends on every later run, from what the SDK that
//   `pulumi package add` generated embeds (and the state of the package's
//   provider keeps): the bytes this host answered the arguments with, restored
//   to the same package.
//
// The value is JSON, so that it reads plainly where it is kept (Pulumi.yaml's
// SDK lock file, the state): the format's marker, the source (its kind and the
// folder as the arguments gave it, relative paths kept relative so that the
// project can move), and the package's name and version, checked on restore.
import path from "node:path";

/** The key of the value's format marker, and its version. */
const FORMAT_KEY = "pulumi-dynamic-host";
const FORMAT = 1;

/** Where a package comes from: today a folder on this machine. */
export interface PackageSource {
  kind: "folder";
  /** As the arguments gave it: relative to the project directory, or absolute. */
  path: string;
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

/** The source `pulumi package add <plugin> <args…>` names. */
export function sourceOfArgs(args: readonly string[], binary: string): PackageSource {
  const usage = `pulumi package add <path to ${binary}> <folder of the provider package>`;
  if (args.length !== 1) {
    throw new ParameterError(
      `${binary} takes one parameter, the folder of a provider package (${usage}); it was given ${args.length}` +
        (args.length ? `: ${args.map((a) => JSON.stringify(a)).join(" ")}` : ""),
    );
  }
  const given = args[0];
  if (given.trim() === "") throw new ParameterError(`the provider package's folder is empty; ${usage}`);
  return { kind: "folder", path: toPortable(given) };
}

/** The folder a source names, absolute: a relative one is relative to `projectDir`. */
export function folderOf(source: PackageSource, projectDir: string): string {
  return path.resolve(projectDir, source.path);
}

export function encodeValue(value: PackageValue): Buffer {
  const { source, name, version } = value;
  return Buffer.from(JSON.stringify({ [FORMAT_KEY]: FORMAT, source: { kind: source.kind, path: source.path }, name, version }), "utf8");
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
  const source = v.source && typeof v.source === "object" ? (v.source as Record<string, unknown>) : {};
  if (source.kind !== "folder" || typeof source.path !== "string" || source.path === "") {
    throw new ParameterError(`the parameter value's source ${preview(JSON.stringify(v.source ?? null))} is not a folder this host can restore`);
  }
  if (typeof v.name !== "string" || typeof v.version !== "string") throw new ParameterError(`the parameter value has no package name and version: ${preview(text)}`);
  return { source: { kind: "folder", path: source.path }, name: v.name, version: v.version };
}

/** Forward slashes, so that a value written on Windows restores elsewhere (and back). */
function toPortable(p: string): string {
  return p.replace(/\\/g, "/");
}

function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
