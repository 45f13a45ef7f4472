// What /proc says of a process, for tests that watch workers live, die and be reaped.
import { execFileSync } from "node:child_process";
import fs from "node:fs";

/** The fields of /proc/<pid>/stat after the parenthesised command (state, ppid, pgrp, …), or undefined once it is reaped. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** The process state letter ("S", "R", "Z", …), or undefined once it is reaped. */
export function processState(pid: number): string | undefined {
  return statFields(pid)?.[0];
}

/** Its parent's pid, or undefined once it is reaped. */
export function parentOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : Number(fields[1]);
}

/** The environment it started with, as NAME=value entries. */
export function environOf(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
}

/**
 * The bytes waiting unread in the receive queue of the Unix socket that `pid`
 * holds as `fd` (as `ss -x` reports it), or undefined if it holds none there.
 */
export function unixReceiveQueue(pid: number, fd: number): number | undefined {
  let inode: string;
  try {
    const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
    if (!m) return undefined;
    inode = m[1];
  } catch {
    return undefined;
  }
  // Netid State Recv-Q Send-Q Local-Address Port Peer-Address Port; a Unix socket's "port" is its inode.
  for (const line of execFileSync("ss", ["-xH"], { encoding: "utf8" }).split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[5] === inode) return Number(f[2]);
  }
  return undefined;
}
