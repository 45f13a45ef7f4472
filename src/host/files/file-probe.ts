// src/host/files: the host's files on disk: the one module that asks about the
// user's file system without throwing (file-probe.ts), the checked cache
// directory (cache-root.ts) and the host's own assets, read from the package or
// the single executable (assets.ts). It may import src/host/diagnostics only.
//
// Looking at the user's file system without ever throwing. Every place that
// asks what is on the user's disk (which interpreter, which virtualenv, where
// Pulumi.yaml is, which module a moved path means, what `doctor` reports, where
// the cache goes) asks here, because a layout is not the host's to choose: a
// file where a folder is expected (`<project>/Pulumi.dev.yaml/bin/python3` is
// ENOTDIR, which `statSync(…, {throwIfNoEntry: false})` still throws), a
// dangling or looping symlink, a folder that may not be read, a name with
// spaces or bytes that are not UTF-8, a path longer than PATH_MAX. Each of
// these is an answer here ("not a file", "no entries", undefined), never an
// exception: a question about a layout has no internal error to report.
//
// Imports nothing of the host's: the boot loader bundles it before the host is
// loaded (src/boot/code-cache.ts), and both the adapters and src/cli use it.
import fs from "node:fs";
import path from "node:path";

/** What a path is, following symlinks: "missing" covers dangling and looping links and paths that cannot be looked up. */
export type PathKind = "file" | "directory" | "other" | "missing" | "unreadable";

/** The stat of `p` (following symlinks), or undefined for any reason it cannot be had. */
export function statOf(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p, { throwIfNoEntry: false }) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The lstat of `p` (the link itself when it is one), or undefined. */
export function lstatOf(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false }) ?? undefined;
  } catch {
    return undefined;
  }
}

/** What `p` is (see PathKind). */
export function kindOf(p: string): PathKind {
  try {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return "missing";
    return st.isFile() ? "file" : st.isDirectory() ? "directory" : "other";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "EACCES" || code === "EPERM" ? "unreadable" : "missing";
  }
}

export function isFile(p: string): boolean {
  return kindOf(p) === "file";
}

export function isDirectory(p: string): boolean {
  return kindOf(p) === "directory";
}

/** Whether anything is at `p`, a dangling symlink included. */
export function exists(p: string): boolean {
  return lstatOf(p) !== undefined;
}

/** A regular file this process may execute. */
export function isExecutableFile(p: string): boolean {
  if (!isFile(p)) return false;
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The names in directory `p`, sorted; none when it is not a readable
 * directory. A name whose bytes are not UTF-8 is left out: a path made from
 * its decoded text would name another file (or none).
 */
export function listDirectory(p: string): string[] {
  let raw: Buffer[];
  try {
    raw = fs.readdirSync(p, { encoding: "buffer" });
  } catch {
    return [];
  }
  const names: string[] = [];
  for (const b of raw) {
    const name = b.toString("utf8");
    if (Buffer.from(name, "utf8").equals(b)) names.push(name);
  }
  return names.sort();
}

/** The text of regular file `p` (at most `maxBytes`, when given: larger files give undefined), or undefined. */
export function readText(p: string, maxBytes?: number): string | undefined {
  const st = statOf(p);
  if (!st?.isFile() || (maxBytes !== undefined && st.size > maxBytes)) return undefined;
  try {
    return fs.readFileSync(p, "utf8");
  } catch {
    return undefined;
  }
}

/** `p` with every symlink resolved, or undefined when it cannot be (missing, looping, too long). */
export function realPath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/** Whether `a` and `b` are the same file (device and inode); false when either cannot be looked at. */
export function sameFile(a: string, b: string): boolean {
  const [sa, sb] = [statOf(a), statOf(b)];
  return sa !== undefined && sb !== undefined && sa.dev === sb.dev && sa.ino === sb.ino;
}

/** The nearest directory at or above `start` holding a file (not a folder) named one of `names`, or undefined. */
export function findUpward(start: string, names: readonly string[]): { dir: string; file: string } | undefined {
  let dir: string;
  try {
    dir = path.resolve(start);
  } catch {
    return undefined;
  }
  for (;;) {
    for (const n of names) {
      const file = path.join(dir, n);
      if (isFile(file)) return { dir, file };
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
