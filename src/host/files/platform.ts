// What differs between the systems the host runs on, as small functions of the
// platform (a `process.platform` value) so that unit tests run the Windows and
// macOS branches on Linux (docs/platform-code.md). Nothing here looks at the
// disk or at the running process: callers pass `process.platform` (or a test's).
//
// Imports nothing of the host's (like file-probe.ts, the boot loader may bundle it).
import path from "node:path";

export type Platform = NodeJS.Platform;

/** The path functions of `platform`: path.win32 on Windows, path.posix elsewhere. */
export function pathsOf(platform: Platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

/** What separates PATH's entries: `;` on Windows, `:` elsewhere. */
export function pathListDelimiter(platform: Platform): string {
  return pathsOf(platform).delimiter;
}

/**
 * The folder of a virtualenv that holds its interpreter and scripts, and goes
 * first on PATH: `Scripts` on Windows (`python -m venv` and virtualenv both
 * make it there), `bin` elsewhere.
 */
export function virtualenvBinName(platform: Platform): string {
  return platform === "win32" ? "Scripts" : "bin";
}

/**
 * A virtualenv's interpreter: `<venv>\Scripts\python.exe` on Windows,
 * `<venv>/bin/python` elsewhere. Joined as text, not normalized: the path is
 * the one the reference's launcher names, `..` and all.
 */
export function virtualenvPython(venv: string, platform: Platform): string {
  const sep = pathsOf(platform).sep;
  return `${virtualenvBin(venv, platform)}${sep}${platform === "win32" ? "python.exe" : "python"}`;
}

/** A virtualenv's bin (Scripts) folder, joined as text. */
export function virtualenvBin(venv: string, platform: Platform): string {
  return `${venv}${pathsOf(platform).sep}${virtualenvBinName(platform)}`;
}

/** An executable's file name as it is on disk: `python3.12` is `python3.12.exe` on Windows. */
export function executableName(name: string, platform: Platform): string {
  return platform === "win32" && !/\.exe$/i.test(name) ? `${name}.exe` : name;
}

/** Whether `p` names a path rather than a command looked up on PATH: it has a separator (`\` too on Windows). */
export function hasPathSeparator(p: string, platform: Platform): boolean {
  return p.includes("/") || (platform === "win32" && p.includes("\\"));
}

/** `p` without one trailing separator (never the root's own: `/`, `C:\`). */
export function withoutTrailingSeparator(p: string, platform: Platform): string {
  const paths = pathsOf(platform);
  if (p.length > 1 && /[\\/]$/.test(p) && (platform === "win32" || p.endsWith("/")) && paths.parse(p).root !== p) return p.slice(0, -1);
  return p;
}

/**
 * The name under which `env` holds the search path. Windows' environment is
 * case-insensitive and usually spells it `Path`; a copy of process.env (a
 * plain object) is not, so setting `PATH` beside `Path` would give a child two
 * of them. Elsewhere it is `PATH`.
 */
export function pathVariable(env: NodeJS.ProcessEnv, platform: Platform): string {
  if (platform !== "win32") return "PATH";
  return Object.keys(env).find((k) => k.toUpperCase() === "PATH") ?? "PATH";
}

/** `env`'s search path with `dir` first, set under the name the environment already uses. */
export function prependToPath(env: NodeJS.ProcessEnv, dir: string, platform: Platform): NodeJS.ProcessEnv {
  const key = pathVariable(env, platform);
  return { ...env, [key]: `${dir}${pathListDelimiter(platform)}${env[key] ?? ""}` };
}

/**
 * Whether the usual file system of `platform` compares names without regard to
 * case: Windows (NTFS) and macOS (APFS and HFS+ as installed) do, Linux does
 * not. A path written in Pulumi.yaml or a provider's text in other case names
 * the same file there.
 */
export function caseInsensitiveFileNames(platform: Platform): boolean {
  return platform === "win32" || platform === "darwin";
}

/**
 * A path in the form two paths of the same file share on `platform`: resolved,
 * with Windows' separators as `\` and drive letters as written, and folded to
 * lower case where the file system ignores case. For comparing, never for opening.
 */
export function comparablePath(p: string, platform: Platform): string {
  const paths = pathsOf(platform);
  const normal = paths.normalize(platform === "win32" ? p.replace(/\//g, "\\") : p);
  const trimmed = withoutTrailingSeparator(normal, platform);
  return caseInsensitiveFileNames(platform) ? trimmed.toLowerCase() : trimmed;
}

/** Whether `a` and `b` name the same path on `platform` (by their text: see comparablePath). */
export function samePathText(a: string, b: string, platform: Platform): boolean {
  return comparablePath(a, platform) === comparablePath(b, platform);
}
