// Keeps V8's old generation closer to what the host really holds.
//
// After each full GC V8 lets the old generation grow to a multiple of what
// survived before the next one, up to 4× for a heap this small when its GCs
// are quick. A plugin holds little for long (its providers, the requests in
// flight), so most of that headroom is garbage waiting for the next full GC,
// and resident memory. `--heap-growing-percent=50` makes the multiple 1.5.
// Measured in the bench (Node mode, A/B against the same build, two runs
// each): peak RSS of the cycle 98.7/101.3 → 79.9/79.5 MiB and of the
// CPU-bound workload 92.4 → 81.3/82.2 MiB, throughput within the runs'
// spread (cycle 3580/4070 vs 3288/4216 req/s, CPU-bound 140/135 vs 135/147);
// property bags, one run: 1 MiB p50 57 → 35 ms and 134 → 113 MiB, 10 MiB
// 469 → 489 ms and 414 → 265 MiB (Python mode's bags level). Python mode, one
// run with this code: host + worker on the trivial and cycle workloads
// 162–164 → 131–132 MiB.
//
// V8 reads the flag each time it sets the next limit, so setting it at run
// time works and costs no start-up. Not set when the user chose a growth of
// their own, or on a V8 this was not measured on.
import { setV8Flag, settingApplies } from "./v8-settings.js";

export const HEAP_GROWING_PERCENT = 50;

/** V8 11.3's default: its own rule for the multiple. */
const V8_DEFAULT_HEAP_GROWING_PERCENT = 0;

/** Whether the user or the V8 version rules the change out. */
export function oldGenerationGrowthApplies(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv, v8Version = process.versions.v8): boolean {
  return settingApplies(/heap[-_]growing[-_]percent/, env, execArgv, v8Version);
}

/** Sets the old generation's growth where oldGenerationGrowthApplies(); returns whether it did. */
export function limitOldGenerationGrowth(): boolean {
  if (!oldGenerationGrowthApplies()) return false;
  setV8Flag("heap-growing-percent", HEAP_GROWING_PERCENT, V8_DEFAULT_HEAP_GROWING_PERCENT);
  return true;
}
