// The fuzz suite's only source of randomness: a seeded PRNG (mulberry32), so a
// case is a pure function of its 32-bit seed and can be replayed from the seed
// printed in its failure message. Nothing in test/fuzz may call Math.random.

/** A deterministic stream of numbers; fork() gives an independent sub-stream. */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error("Rng.pick from an empty list");
    return xs[this.int(0, xs.length - 1)];
  }

  /** `n` random bytes. */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(0, 255);
    return out;
  }

  /** A short lower-case hex tag, for values that must be recognisable in an error text. */
  tag(): string {
    return this.int(0, 0xffffffff).toString(16).padStart(8, "0");
  }

  /** An independent stream whose seed depends on this one's seed and `label`. */
  fork(label: string): Rng {
    return new Rng(mix(this.seed, label));
  }
}

/** A 32-bit hash of a seed and a label or index (FNV-1a over the label, then a murmur3 finaliser). */
export function mix(seed: number, label: string | number): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (const ch of String(label)) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export const hex = (seed: number): string => `0x${(seed >>> 0).toString(16).padStart(8, "0")}`;

/** The CI seed: fixed, so every run of the suite sends the same cases unless told otherwise. */
export const DEFAULT_BASE_SEED = 0x1ad22c0d;
/** Cases per mode in `npm test` (any run without PULUMI_DYNAMIC_HOST_FUZZ_CASES): 13 s per mode for ours, 1.5 min with the references. */
export const DEFAULT_CASES = 320;

export interface FuzzSettings {
  /** Where the case seeds are drawn from. */
  base: number;
  /** How many cases per mode. */
  cases: number;
  /** Set when PULUMI_DYNAMIC_HOST_FUZZ_SEED names one case to replay: then only that case runs. */
  only?: number;
}

/**
 * PULUMI_DYNAMIC_HOST_FUZZ_SEED=0x…  replays the one case with that seed (as printed in a failure);
 * PULUMI_DYNAMIC_HOST_FUZZ_CASES=N   runs N cases per mode instead of the default.
 */
export function fuzzSettings(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const cases = env.PULUMI_DYNAMIC_HOST_FUZZ_CASES ? Number(env.PULUMI_DYNAMIC_HOST_FUZZ_CASES) : DEFAULT_CASES;
  if (!Number.isInteger(cases) || cases < 0) throw new Error(`PULUMI_DYNAMIC_HOST_FUZZ_CASES must be a whole number, not ${env.PULUMI_DYNAMIC_HOST_FUZZ_CASES}`);
  const seed = env.PULUMI_DYNAMIC_HOST_FUZZ_SEED;
  if (seed === undefined || seed === "") return { base: DEFAULT_BASE_SEED, cases };
  const only = Number(seed);
  if (!Number.isInteger(only) || only < 0 || only > 0xffffffff) throw new Error(`PULUMI_DYNAMIC_HOST_FUZZ_SEED must be a 32-bit number (0x… or decimal), not ${seed}`);
  return { base: DEFAULT_BASE_SEED, cases: 1, only };
}

/**
 * The seeds of a run: case i's seed is drawn from the base seed, then moved to
 * the residue i mod `slots`, so that a run of at least `slots` cases visits
 * every slot of the schedule (every shape) and a seed alone says which slot it is.
 */
export function caseSeeds(s: FuzzSettings, slots: number): number[] {
  if (s.only !== undefined) return [s.only];
  const out: number[] = [];
  for (let i = 0; i < s.cases; i++) {
    const h = mix(s.base, i);
    const moved = h - (h % slots) + (i % slots);
    out.push((moved > 0xffffffff ? moved - slots : moved) >>> 0);
  }
  return out;
}
