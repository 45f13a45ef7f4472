// Loads one of the host's bundles (a CommonJS file in dist/bundle/cli, or the
// single executable's asset of that name: bundles.ts says which) with V8's code
// cache, kept under the cache directory between starts.
//
// The engine starts a plugin for every command and waits for it. Compiling
// the bundle, and then each function of the request path the first time it
// runs, was a third of the host's CPU from spawn to its first answered Create:
// 170–190 ms without the cache, 110–120 with it (docs/performance.md, "The code cache").
// Node 20 keeps no code cache for user code by itself (module.enableCompileCache
// is Node 22's), but `vm.Script` takes V8's cached data and makes it.
//
// The cache is V8's own format, checked by V8: a cache made by another V8, with
// other flags or for a source of another length is refused, and the bundle is
// compiled from source as it would be without one. The file's name carries what
// V8 does not check: the path, size, modification time and inode of the file the
// bundle comes from (host.cjs, or the single executable itself), and
// Node's version and architecture, so that a rebuilt or reinstalled bundle never
// meets the code of the one before; and the name the host was run by, so that
// each plugin's cache holds its own mode's request path. The host, not this loader, decides when to
// write it (src/host/tuning/code-cache-save.ts): once its first requests have run, so
// that their functions are in it. A write goes to a temporary file renamed into
// place, and removes the caches of earlier builds of the same bundle.
//
// PULUMI_DYNAMIC_HOST_CODE_CACHE=0 turns it off: nothing read, nothing written.
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";
import { CACHE_FILE_MODE, cacheRootNote, makeCacheDir, openCacheRoot } from "../host/files/cache-root.js";
import { statOf } from "../host/files/file-probe.js";

/** What became of the cache at load: used by V8, refused by V8, not there, or turned off. */
export type CodeCacheState = "accepted" | "rejected" | "missing" | "off";

/** The handle the host gets (src/host/tuning/code-cache-save.ts). */
export interface BundleCodeCache {
  readonly state: CodeCacheState;
  /** The cache file, where one may be read or written. */
  readonly file: string | undefined;
  /** Why there is no cache, for -v: the cache root cannot be used (src/host/files/cache-root.ts). */
  readonly note?: string;
  /** Writes the cache with every function compiled so far; returns its size in bytes. Throws on failure. */
  save(): number;
}

/**
 * How a bundle built for this loader begins (scripts/bundle.mjs, scripts/dist.mjs): its text is
 * already Node's module wrapper, a function expression, so that V8 compiles the very string that was
 * read instead of a copy of it with the wrapper around it (3 MiB less at the host's peak).
 */
export const WRAPPER_START = "(function (exports, require, module, __filename, __dirname) {";

/** The directory under the cache root. */
export const CODE_CACHE_DIR = "code-cache";

/** The cache file for the bundle in `from` (a file, as it is on disk now), run as `name`, under `root`. */
export function codeCacheFile(from: string, name: string, root: string): string {
  const st = fs.statSync(from);
  const short = (parts: unknown[]) => createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 16);
  return path.join(root, CODE_CACHE_DIR, `${short([path.resolve(from), name])}-${short([process.version, process.arch, st.size, st.mtimeMs, st.ino])}.v8`);
}

/**
 * Compiles and runs the CommonJS file `bundle` as Node would (its own
 * `require`, `module`, `__filename`), with the code cache kept for it when run
 * as `name` where there is one. Returns its exports and the cache's handle.
 */
export function loadBundle(bundle: string, name: string, env: NodeJS.ProcessEnv = process.env): LoadedBundle {
  return loadSource(fs.readFileSync(bundle, "utf8"), bundle, name, env);
}

export interface LoadedBundle {
  exports: Record<string, unknown>;
  codeCache: BundleCodeCache;
}

/**
 * loadBundle() for a bundle's `source` that comes from the file `from` (the
 * single executable's asset: the executable), run with `from` as its
 * `__filename`, `require` and stack traces' file name.
 */
export function loadSource(source: string, from: string, name: string, env: NodeJS.ProcessEnv = process.env): LoadedBundle {
  let file: string | undefined;
  let cachedData: Buffer | undefined;
  let note: string | undefined;
  if (env.PULUMI_DYNAMIC_HOST_CODE_CACHE !== "0") {
    const root = openCacheRoot(env);
    if (!root.usable) note = cacheRootNote(root, "the host runs without its code cache");
    else {
      try {
        file = codeCacheFile(from, name, root.dir);
        cachedData = fs.readFileSync(file);
      } catch {
        cachedData = undefined; // no cache yet: compiled from source
      }
    }
  }
  // Node's own module wrapper, on the bundle's first line (line numbers in stack traces stay the file's), unless built in.
  const script = new vm.Script(source.startsWith(WRAPPER_START) ? source : `${WRAPPER_START}${source}\n})`, {
    filename: from,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const state: CodeCacheState = file === undefined ? "off" : cachedData === undefined ? "missing" : script.cachedDataRejected ? "rejected" : "accepted";
  const module = { exports: {} as Record<string, unknown> };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(from), module, from, path.dirname(from));
  return {
    exports: module.exports,
    codeCache: {
      state,
      file,
      note,
      save: () => {
        if (file === undefined) throw new Error(note ?? "the code cache is turned off");
        return writeCodeCache(file, script.createCachedData());
      },
    },
  };
}

function writeCodeCache(file: string, data: Buffer): number {
  const dir = path.dirname(file);
  if (!makeCacheDir(dir)) throw new Error(`${dir} is not a directory`);
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, data, { mode: CACHE_FILE_MODE });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  // Earlier builds' caches of the same bundle and name (same first part, another second), and
  // what a write cut short by the process's end left of them a while ago.
  // Best effort: the cache is written either way.
  const samePath = `${path.basename(file).split("-")[0]}-`;
  try {
    for (const other of fs.readdirSync(dir)) {
      if (!other.startsWith(samePath) || other === path.basename(file)) continue;
      const age = Date.now() - (statOf(path.join(dir, other))?.mtimeMs ?? Date.now());
      if (other.endsWith(".v8") || (other.includes(".v8.tmp-") && age > 60_000)) fs.rmSync(path.join(dir, other), { force: true });
    }
  } catch {
    // another start pruning the same directory, or one we may not change: left for the next write
  }
  return data.length;
}
