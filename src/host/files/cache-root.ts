// Where the host keeps what it makes once and reuses across starts: the single
// executable's extracted worker (assets.ts), V8's code cache of the bundle
// (src/boot/code-cache.ts) and the worker's compiled code (python-stub/bytecode.py,
// which applies the same rules on its side). Imports nothing of the host's but
// file-probe.ts: the boot loader bundles it before the host is loaded.
//
// A cache must never hurt a start. So the root is checked once per process
// before anything is read from it or written to it:
//   - it is made if missing (0700, as every folder under it; files are 0600);
//   - it must be a directory this user owns and may write;
//   - a directory other users may write is refused, as ssh refuses a loose
//     key: what is in it could be anyone's code, and the host would run it;
// and a root that fails any of these is not used: the code cache is then off
// and the single executable's worker goes to a private temporary directory
// removed at exit (privateTempDirectory), each said at -v, never a stack trace.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { lstatOf, statOf } from "./file-probe.js";

/** Folders under the cache root are made owner-only, files too. */
export const CACHE_DIR_MODE = 0o700;
export const CACHE_FILE_MODE = 0o600;

/** The variable that names the cache root. */
export const CACHE_DIR_VARIABLE = "PULUMI_DYNAMIC_HOST_CACHE_DIR";

/** $PULUMI_DYNAMIC_HOST_CACHE_DIR, else $XDG_CACHE_HOME (when absolute) or ~/.cache, then pulumi-dynamic-host/. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env[CACHE_DIR_VARIABLE]) return path.resolve(env[CACHE_DIR_VARIABLE]);
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), ".cache");
  return path.join(base, "pulumi-dynamic-host");
}

/** The cache root as checked: usable, or why not (a clause after the path: "is not a directory"). */
export type CacheRootState = { usable: true; dir: string } | { usable: false; dir: string; why: string };

const checked = new Map<string, CacheRootState>();

/** The cache root for `env`, made if missing and checked (see above); once per process and root. Never throws. */
export function openCacheRoot(env: NodeJS.ProcessEnv = process.env): CacheRootState {
  let dir: string;
  try {
    dir = cacheRoot(env);
  } catch (err) {
    // os.homedir() with no home entry for this user.
    return { usable: false, dir: "~/.cache/pulumi-dynamic-host", why: `cannot be found (${reason(err)})` };
  }
  let state = checked.get(dir);
  if (!state) {
    state = check(dir);
    checked.set(dir, state);
  }
  return state;
}

/**
 * The same checks without making anything (doctor): a root that is missing but could be made is
 * reported usable with `missing` set.
 */
export function inspectCacheRoot(env: NodeJS.ProcessEnv = process.env): CacheRootState & { missing?: boolean } {
  let dir: string;
  try {
    dir = cacheRoot(env);
  } catch (err) {
    return { usable: false, dir: "~/.cache/pulumi-dynamic-host", why: `cannot be found (${reason(err)})` };
  }
  if (lstatOf(dir) !== undefined) return check(dir, false);
  // The nearest existing folder above it must be one this user may write into.
  let above = path.dirname(dir);
  while (statOf(above) === undefined && path.dirname(above) !== above) above = path.dirname(above);
  const st = statOf(above);
  if (!st?.isDirectory()) return { usable: false, dir, why: `cannot be made (${above} is not a directory)` };
  try {
    fs.accessSync(above, fs.constants.W_OK | fs.constants.X_OK);
  } catch (err) {
    return { usable: false, dir, why: `cannot be made (${above}: ${reason(err)})` };
  }
  return { usable: true, dir, missing: true };
}

function check(dir: string, make = true): CacheRootState {
  const no = (why: string): CacheRootState => ({ usable: false, dir, why });
  if (make && statOf(dir) === undefined) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: CACHE_DIR_MODE });
    } catch (err) {
      return no(`cannot be made (${reason(err)})`);
    }
  }
  const st = statOf(dir);
  if (!st) return no("cannot be looked at");
  if (!st.isDirectory()) return no("is not a directory");
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return no(`belongs to another user (uid ${st.uid}), so what is in it could be anyone's`);
  // Windows reports no owner and write bits for everyone: its ACLs are not read here, so nothing is refused there.
  if (process.platform !== "win32" && (st.mode & 0o022) !== 0) {
    return no(`can be written by other users (mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}), so what is in it could be anyone's; \`chmod go-w\` it to use it`);
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (err) {
    return no(`is not writable (${reason(err)})`);
  }
  return { usable: true, dir };
}

/** "the cache directory /x is not writable (EROFS); <consequence>. Set PULUMI_DYNAMIC_HOST_CACHE_DIR to …" */
export function cacheRootNote(state: CacheRootState & { usable: false }, consequence: string): string {
  return `the cache directory ${state.dir} ${state.why}; ${consequence}. Set ${CACHE_DIR_VARIABLE} to a directory only you can write to keep the cache`;
}

/** Makes `dir` (and its parents below a usable root) owner-only; true when it is a directory afterwards. */
export function makeCacheDir(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: CACHE_DIR_MODE });
  } catch {
    // checked below: another start may have made it
  }
  return statOf(dir)?.isDirectory() ?? false;
}

let privateTemp: string | undefined;

/**
 * A directory of this process's own under the system's temporary directory
 * (0700, made by mkdtemp), removed when the process exits: where the single
 * executable puts its worker when the cache root cannot be used. Throws an
 * Error whose message is a sentence when even that cannot be made.
 */
export function privateTempDirectory(root: CacheRootState & { usable: false }): string {
  if (privateTemp) return privateTemp;
  const tmp = os.tmpdir();
  pruneDeadTemps(tmp);
  try {
    privateTemp = fs.mkdtempSync(path.join(tmp, `${TEMP_PREFIX}${process.pid}-`));
  } catch (err) {
    throw new Error(
      `the cache directory ${root.dir} ${root.why}, and no private directory could be made under ${tmp} either (${reason(err)}): ` +
        `set ${CACHE_DIR_VARIABLE} to a directory only you can write`,
    );
  }
  const made = privateTemp;
  process.once("exit", () => fs.rmSync(made, { recursive: true, force: true }));
  return made;
}

const TEMP_PREFIX = "pulumi-dynamic-host-";

/**
 * Removes the private directories of this user's hosts that have ended: one
 * that dies of a signal (as the engine stops a plugin) runs no exit handler.
 * Each is named with its host's process id; a live process keeps its own.
 */
function pruneDeadTemps(tmp: string): void {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^pulumi-dynamic-host-(\d+)-\w{6}$/.exec(name)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    const p = path.join(tmp, name);
    const st = lstatOf(p);
    if (!st?.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    try {
      fs.rmSync(p, { recursive: true, force: true });
    } catch {
      // another start removing it too, or one we may not remove: left
    }
  }
}

/** Whether a process with this pid runs (this user's or another's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ?? (e instanceof Error ? e.message : String(err));
}
