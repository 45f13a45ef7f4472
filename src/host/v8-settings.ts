// What the host's V8 settings (young-generation.ts, old-generation.ts,
// tier-up.ts) have in common: each was measured on one V8, and each stands
// aside when the user set the same thing themselves.

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
