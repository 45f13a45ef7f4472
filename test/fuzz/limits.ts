// The numbers the suite holds the host to, in one place. Where a limit is the
// host's to choose, the fix that sets it is named: change the number here when
// it lands, and docs/reliability.md with it.

/**
 * Nesting every mode must accept: what the Node reference accepts (1000 levels
 * of Structs; it refuses 2000). Deeper values may be refused, with an error
 * naming the method, the resource and the depth.
 * limit: set by the fix for defect 2 (the host's own limit may be higher).
 */
export const ACCEPTED_DEPTH = 1000;

/**
 * The most an error text may be, in UTF-8 bytes. grpc-js clients never see an
 * answer whose status text is over about 64 KiB (the call hangs), and the
 * engine refuses one over 16 MiB; the host's cap must be below both.
 * limit: set by the fix for defect 3 (the suite asserts only that it is under 64 KiB).
 */
export const DETAILS_CAP_BYTES = 64 * 1024 - 1024;

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
