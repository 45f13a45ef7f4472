// Keeps V8's young generation near a size that suits a plugin serving many
// small requests.
//
// Left alone, V8 doubles the young generation under a steady allocation rate up
// to 2 × 16 MiB, and a plugin answering thousands of requests a second reaches
// that cap: measured in the bench, our host's RSS went from ~74 to ~115 MiB,
// its p99 at c=32 rose above the Node reference's, and the CPU-bound Node
// workload was slower (a young generation bigger than the caches). Capped at
// 2 × 1 MiB, it loses a third of its throughput on 64 KiB–1 MiB property bags,
// whose objects then live through several scavenges. 2 × 4 MiB keeps both.
//
// The cap cannot be a command-line flag: `--max-semi-space-size` on node's
// command line costs 20–30 ms of start-up here (the port line is the
// engine's wait), and V8 reads it only when the heap is made. What V8 reads
// every time it grows the young generation is its growth factor. So after
// each GC the young generation's size is looked at: at the cap the factor is
// 1 (no more growth), below it the default 2 (V8 may have shrunk it while
// idle, and may grow it again).
//
// Not installed when the user chose a young-generation size themselves
// (NODE_OPTIONS or node's own flags), or on a V8 this was not measured on:
// an unknown flag would be written to stderr, which the engine shows.
import v8 from "node:v8";
import { PerformanceObserver } from "node:perf_hooks";

/** Both semi-spaces together: V8's `new_space` in getHeapSpaceStatistics(). */
export const YOUNG_GENERATION_CAP = 8 * 1024 * 1024;
const DEFAULT_GROWTH_FACTOR = 2;
/** V8 majors the flag is known to exist and be read at run time in: Node 20 (11.3) through 24 (13.6). */
const KNOWN_V8 = [11, 13] as const;

/** Whether the user or the V8 version rules the cap out. */
export function youngGenerationCapApplies(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv, v8Version = process.versions.v8): boolean {
  const chosen = /semi[-_]space/;
  if (chosen.test(env.NODE_OPTIONS ?? "") || execArgv.some((a) => chosen.test(a))) return false;
  const major = Number(v8Version.split(".")[0]);
  return major >= KNOWN_V8[0] && major <= KNOWN_V8[1];
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
    v8.setFlagsFromString(`--semi-space-growth-factor=${f}`);
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
