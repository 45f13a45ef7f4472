// The host's own files: package.json (the version), proto/ (the wire contract),
// python-stub/ (the worker) and docs/ (what `pulumi-dynamic-host docs` prints). Two ways to be installed, one contract:
//
// - From the npm package or a checkout, they sit under the package root, four
//   folders above this module compiled (dist/src/host/files) and three above a
//   bundle (dist/bundle/cli): PACKAGE_ROOT below.
// - In the single executable (npm run dist), the build embeds them as SEA
//   assets with a manifest, `assets.json`, listing their names; the bundle is
//   built with __PDH_SEA__ defined true.
//
// Readers take text; a directory that another process must open by path (the
// Python worker's script and its modules) is extracted once per version and
// content into a cache directory, atomically: every first start writes its own
// temporary directory and renames it into place, and a start that loses the
// race uses the winner's identical copy.
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CACHE_DIR_MODE, CACHE_FILE_MODE, cacheRootNote, makeCacheDir, openCacheRoot, privateTempDirectory } from "./cache-root.js";
import { isDirectory } from "./file-probe.js";
import { log } from "../diagnostics/log.js";

declare const __PDH_SEA__: boolean | undefined;

/** True inside the single executable built by `npm run dist`. */
export const EMBEDDED = typeof __PDH_SEA__ !== "undefined" && __PDH_SEA__;

interface SeaApi {
  getAsset(key: string, encoding: "utf8"): string;
  getRawAsset(key: string): ArrayBuffer;
}

let sea: SeaApi | undefined;
function seaApi(): SeaApi {
  // node:sea exists from Node 20.12 on; only the single executable asks for it.
  return (sea ??= createRequire(process.execPath)("node:sea") as SeaApi);
}

/**
 * How far this module is below the package root: four folders compiled
 * (dist/src/host/files/assets.js), three in a bundle (dist/bundle/cli/*.cjs,
 * dist/bundle/bench/, whose import.meta.url is the bundle's own: scripts/bundle.mjs).
 */
const PACKAGE_ROOT = import.meta.url.endsWith("/src/host/files/assets.js") ? "../../../../" : "../../../";

/** The package root of an installed or checked-out host (not meaningful when EMBEDDED). */
export function packageRoot(): string {
  return fileURLToPath(new URL(PACKAGE_ROOT, import.meta.url));
}

/** A file of the host's, by its path relative to the package root ("proto/pulumirpc/provider.proto"). */
export function readAsset(name: string): string {
  if (EMBEDDED) return seaApi().getAsset(name, "utf8");
  return fs.readFileSync(path.join(packageRoot(), name), "utf8");
}

/**
 * The names of the host's files under `dir` ("docs" gives "docs/parity.md", …),
 * sorted: the manifest's in the single executable, the package's folder
 * otherwise (none when the folder is not there).
 */
export function assetNames(dir: string): string[] {
  if (EMBEDDED) return manifest().filter((n) => n.startsWith(`${dir}/`)).sort();
  const root = path.join(packageRoot(), dir);
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => fs.statSync(path.join(root, f)).isFile())
    .map((f) => `${dir}/${f.split(path.sep).join("/")}`)
    .sort();
}

/** The embedded assets' names, from the manifest the build writes. */
function manifest(): string[] {
  return JSON.parse(seaApi().getAsset("assets.json", "utf8")) as string[];
}

const extracted = new Map<string, string>();

/**
 * A directory of the host's on disk ("python-stub"): under the package root,
 * or, in the single executable, a per-version, per-content copy under the
 * cache directory ($PULUMI_DYNAMIC_HOST_CACHE_DIR, else $XDG_CACHE_HOME or
 * ~/.cache, then pulumi-dynamic-host/).
 */
export function assetDirectory(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!EMBEDDED) return path.join(packageRoot(), dir);
  const known = extracted.get(dir);
  if (known) return known;
  const files = embeddedFiles(dir);
  // <cache>/<version>-<content>/<dir>: the same last two path parts as in the package. A cache root
  // that cannot be used (cache-root.ts) leaves this process a private copy, removed at exit.
  const root = openCacheRoot(env);
  let base: string;
  if (root.usable) base = root.dir;
  else {
    base = privateTempDirectory(root);
    log(1, cacheRootNote(root, `the host's ${dir} goes to ${base} for this run instead`));
  }
  const target = path.join(extractOnce(path.join(base, extractedName(files)), dir, files), dir);
  extracted.set(dir, target);
  return target;
}

/** The name of the cache directory the single executable extracts `dir` into ("<version>-<content>"). */
export function extractedDirectoryName(dir: string): string {
  return extractedName(embeddedFiles(dir));
}

function embeddedFiles(dir: string): { rel: string; bytes: Buffer }[] {
  return manifest()
    .filter((n) => n.startsWith(`${dir}/`))
    .map((n) => ({ rel: n.slice(dir.length + 1), bytes: Buffer.from(seaApi().getRawAsset(n)) }));
}

function extractedName(files: { rel: string; bytes: Buffer }[]): string {
  return `${versionOf()}-${contentKey(files)}`;
}

function versionOf(): string {
  return String(JSON.parse(readAsset("package.json")).version);
}

function contentKey(files: { rel: string; bytes: Buffer }[]): string {
  const h = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.rel < b.rel ? -1 : 1))) h.update(f.rel).update("\0").update(f.bytes).update("\0");
  return h.digest("hex").slice(0, 12);
}

/**
 * Writes `files` to `target`/`sub` unless a complete copy is there. A copy is
 * complete once `target` is renamed into place (the rename is the commit), so
 * a reader never sees a half-written directory.
 */
export function extractOnce(target: string, sub: string, files: { rel: string; bytes: Buffer }[]): string {
  if (isDirectory(target)) return target;
  makeCacheDir(path.dirname(target));
  const tmp = fs.mkdtempSync(`${target}.tmp-`);
  try {
    for (const f of files) {
      const to = path.join(tmp, sub, f.rel);
      fs.mkdirSync(path.dirname(to), { recursive: true, mode: CACHE_DIR_MODE });
      fs.writeFileSync(to, f.bytes, { mode: CACHE_FILE_MODE });
    }
    try {
      fs.renameSync(tmp, target);
    } catch (err) {
      // Another first start renamed its identical copy into place first.
      const code = (err as NodeJS.ErrnoException).code;
      if (!((code === "ENOTEMPTY" || code === "EEXIST") && isDirectory(target))) throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}
