// Keeps V8's young generation near a size that suits a plugin serving many
// small requests.
//
// Left alone, V8 doubles the young generation under a steady allocation rate up
// to 2 × 16 MiB, and a plugin answering thousands of requests a second reaches
// that cap: a young generation bigger than the CPU's caches, and most of the
// host's growth in RSS. Measured in the bench (A/B, two runs each, Node mode),
// 2 × 2 MiB against 2 × 4 MiB against V8's default:
//   trivial c=32   76 / 91 / 115 MiB,  5741–5987 / 5407–5732 / 5614–5806 req/s
//   CPU-bound      93 / 98–105 / 145–149 MiB,  168–175 / 136–154 / 129–142 req/s
//   cycle          97–99 / 104–107 / 116–120 MiB,  4833–5058 / 4575–4718 / 4617–4869 req/s
// The price is paid by large property bags, whose objects live through
// several scavenges while one request is decoded: against 2 × 4 MiB, 64 KiB
// to 10 MiB bags are 22–30 % slower with 2 × 2 MiB (1 MiB: 33 → 43 ms a
// Create; still a quarter of the Node reference's time), and 2 × 1 MiB loses a
// third. 2 × 2 MiB is the cap: requests are small far more often than not.
//
// The cap cannot be a command-line flag: `--max-semi-space-size` on node's
// command line costs 20–30 ms of start-up here (the port line is the
// engine's wait), and V8 reads it only when the heap is made. What V8 reads
// every time it grows the young generation is its growth factor. So after
// each GC the young generation's size is looked at: at the cap the factor is
// 1 (no more growth), below it the default 2 (V8 may have shrunk it while
// idle, and may grow it again). The look comes once the event-loop turn the
// GC happened in is over, so one long turn (a large bag decoded) can grow it
// a step or two past the cap, where it then stays: what large bags want.
//
// Not installed when the user chose a young-generation size themselves
// (NODE_OPTIONS or node's own flags), or on a V8 this was not measured on:
// there the flag may be gone (an unknown flag is written to stderr, which the
// engine shows) or held at 2 or more by V8 itself.
import v8 from "node:v8";
import { PerformanceObserver } from "node:perf_hooks";
import { setV8Flag, settingApplies } from "./v8-settings.js";

/** Both semi-spaces together: V8's `new_space` in getHeapSpaceStatistics(). */
export const YOUNG_GENERATION_CAP = 4 * 1024 * 1024;
const DEFAULT_GROWTH_FACTOR = 2;

/** Whether the user or the V8 version rules the cap out. */
export function youngGenerationCapApplies(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv, v8Version = process.versions.v8): boolean {
  return settingApplies(/semi[-_]space/, env, execArgv, v8Version);
}

/**
 * Installs the cap; returns a function that removes it (and gives V8 its
 * default growth back). A no-op where youngGenerationCapApplies() says no.
 */
export function capYoungGeneration(capBytes = YOUNG_GENERATION_CAP): () => void {
  if (!youngGenerationCapApplies()) return () => undefined;
  let factor = DEFAULT_GROWTH_FACTOR;
  const setFactor = (f: number) => {
    if (f === factor) return;
    factor = f;
    setV8Flag("semi-space-growth-factor", f, DEFAULT_GROWTH_FACTOR);
  };
  const check = () => {
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    if (young) setFactor(young.space_size >= capBytes ? 1 : DEFAULT_GROWTH_FACTOR);
  };
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ["gc"] });
  check();
  return () => {
    observer.disconnect();
    setFactor(DEFAULT_GROWTH_FACTOR);
  };
}
