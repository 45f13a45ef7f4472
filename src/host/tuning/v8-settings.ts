// src/host/tuning: V8 self-tuning (docs/v8-settings.md): the one way a V8 flag
// is set (v8-settings.ts), the young and old generation's sizes, the interrupt
// budget under load (tier-up.ts), the code cache written once warm
// (code-cache-save.ts) and the count of answered requests they wait on
// (served-requests.ts). It may import src/host/diagnostics only.
//
// What the host's V8 settings (young-generation.ts, old-generation.ts,
// tier-up.ts) have in common: each was measured on one V8, and each stands
// aside when the user set the same thing themselves.
import v8 from "node:v8";

/** The V8 major the settings were measured on: Node 20's (11.3). */
export const MEASURED_V8_MAJOR = 11;

/**
 * Whether a setting may be applied: the running V8 is the one it was measured
 * on (elsewhere its flag may be gone, and an unknown flag is written to
 * stderr, which the engine shows), and no flag matching `chosen` was given,
 * in NODE_OPTIONS or on node's command line.
 */
export function settingApplies(chosen: RegExp, env: NodeJS.ProcessEnv, execArgv: readonly string[], v8Version: string): boolean {
  if (chosen.test(env.NODE_OPTIONS ?? "") || execArgv.some((a) => chosen.test(a))) return false;
  return Number(v8Version.split(".")[0]) === MEASURED_V8_MAJOR;
}

/** Each flag a setting changed at run time: its value now, and V8's default (its value in a fresh process). */
const changedFlags = new Map<string, { value: number; v8Default: number }>();

/**
 * Sets V8 flag `--name=value` at run time, remembering `v8Default` so that
 * withV8Defaults() can put the flag back for a moment.
 */
export function setV8Flag(name: string, value: number, v8Default: number): void {
  v8.setFlagsFromString(`--${name}=${value}`);
  if (value === v8Default) changedFlags.delete(name);
  else changedFlags.set(name, { value, v8Default });
}

/**
 * Runs `fn` with every flag setV8Flag() changed back at V8's default, then
 * sets them again. V8 stamps a code cache with a hash of its flags and refuses
 * the cache in a process whose flags hash otherwise, and the host's next start
 * reads its code cache before any setting has run (src/boot/code-cache.ts).
 */
export function withV8Defaults<T>(fn: () => T): T {
  const changed = [...changedFlags];
  for (const [name, { v8Default }] of changed) v8.setFlagsFromString(`--${name}=${v8Default}`);
  try {
    return fn();
  } finally {
    for (const [name, { value }] of changed) v8.setFlagsFromString(`--${name}=${value}`);
  }
}
