// src/host/limits: the time and size limits of a call: its deadline of any
// length (deadline.ts), the signal that abandons it (call-signal.ts) and the
// bound of every error text sent (error-text.ts). Leaves: it imports nothing of
// the host, and the serving path and the adapters import it.
//
// A deadline of any length. Node's timers take at most 2^31-1 ms (≈ 24.9
// days): a longer delay is replaced by 1 ms, with a TimeoutOverflowWarning on
// stderr. A resource's customTimeouts may be longer (`720h` is 30 days, and the
// request's `timeout` is a double of seconds with no upper bound), so the
// deadline is reached in steps no longer than that, each re-armed from the
// clock until the time is up.

/** The longest delay Node's setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The clock and timers a deadline uses; tests give a fake one. */
export interface Scheduler {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Calls `fn` once after `ms` (≤ MAX_TIMER_MS); the handle is for `clear`. */
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/**
 * performance.now (not Date.now: a wall clock set back would stretch the
 * deadline) and unref'd timers: a deadline guards a call, it never keeps the
 * process alive on its own (the server does, while there is one).
 */
export const systemScheduler: Scheduler = {
  now: () => performance.now(),
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Calls `onExpire` once, `ms` milliseconds from now. Returns the function that
 * disarms it (harmless after it fired, or when called twice). A delay that is
 * not a positive finite number arms nothing: no limit.
 */
export function armDeadline(ms: number, onExpire: () => void, scheduler: Scheduler = systemScheduler): () => void {
  if (!(ms > 0) || !Number.isFinite(ms)) return noop;
  const due = scheduler.now() + ms;
  let handle: unknown;
  let armed = true;
  const step = () => {
    if (!armed) return;
    const left = due - scheduler.now();
    if (left <= 0) {
      armed = false;
      onExpire();
      return;
    }
    handle = scheduler.set(step, Math.min(left, MAX_TIMER_MS));
  };
  handle = scheduler.set(step, Math.min(ms, MAX_TIMER_MS));
  return () => {
    if (!armed) return;
    armed = false;
    scheduler.clear(handle);
  };
}

function noop(): void {}
