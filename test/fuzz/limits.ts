// The numbers the suite holds the host to, in one place: the limits the host
// documents (docs/reliability.md, "Limits the host enforces"), written down
// here on their own so that a change to the host's limits shows up as a
// failing case, not as a judge that moved with it.
import type { Language } from "./cases.js";

/**
 * The deepest property values each mode carries (objects and lists within one
 * another; a number, string or null is 0 levels): Node mode 1500, past what
 * the Node reference takes (1090); Python mode 490, what the Python SDK takes,
 * a level of lists counting as 1.5 (the SDK recurses deeper through lists: it
 * carries 326 levels of them). A value within the limit must go through; a
 * deeper one must be refused with INVALID_ARGUMENT naming the property and
 * its depth.
 */
export const MAX_DEPTH: Record<Language, number> = { nodejs: 1500, python: 490 };
export const LIST_LEVEL_COST: Record<Language, number> = { nodejs: 1, python: 1.5 };

/**
 * The most an error text may be, in UTF-8 bytes: the host's documented cap,
 * 8 KiB (grpc-js clients never see an answer whose status text is over about
 * 64 KiB, and the engine refuses one over 16 MiB).
 */
export const DETAILS_CAP_BYTES = 8 * 1024;

const fromEnv = (name: string, fallback: number): number => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};

/**
 * How long a case may wait for our plugin's answer before it counts as a hang
 * (PULUMI_DYNAMIC_HOST_FUZZ_BOUND_MS). Every case is small enough that a
 * healthy host answers in well under a second; the bound is generous because
 * the machine is shared, and short because a hang costs the whole bound.
 */
export const ANSWER_BOUND_MS = fromEnv("PULUMI_DYNAMIC_HOST_FUZZ_BOUND_MS", 10_000);

/** The same for the reference plugins, whose answers are recorded, not asserted. */
export const REFERENCE_BOUND_MS = fromEnv("PULUMI_DYNAMIC_HOST_FUZZ_REFERENCE_BOUND_MS", 5_000);

/** gRPC status codes the suite names. */
export const CODE = {
  OK: 0, CANCELLED: 1, UNKNOWN: 2, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, INTERNAL: 13, UNAVAILABLE: 14, UNIMPLEMENTED: 12,
} as const;
