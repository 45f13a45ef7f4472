// What /proc says of a process, for tests that watch workers live, die and be reaped.
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
