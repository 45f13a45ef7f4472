// Lets V8 optimize the host's request path sooner, once the host is under
// sustained load.
//
// V8 moves a function from its interpreter and baseline code to optimized code
// once the function has run through its "interrupt budget" of bytecode, 66 KiB
// by default on Node 20. With an eighth of it, a host that serves thousands of
// requests spends less CPU on each (the RPC bench, A/B: IO-bound c=32 host CPU
// per request 0.81–0.85 → 0.49–0.60 ms in Python mode, 0.57–0.64 → 0.34–0.39
// in Node mode, the cycle and CPU-bound workloads faster).
//
// But a plugin lives for one command, and under the real engine most commands
// send it tens or hundreds of requests, one after another (the engine checks
// each registration as it arrives). Over that life the lower budget costs
// more than it saves: V8 compiles and recompiles dozens of functions that
// then run only a few hundred more times. The host's CPU per Check, called as
// the engine calls it, by request number (docs/performance.md, "The first
// hundred requests"):
//                      1–10     11–100      101–300    301–1000
//   lowered at start   3–5 ms   2.3–2.7     1.4–1.6    0.5–0.6
//   V8's default       1–3      0.8–1.3     0.8–1.1    0.6–0.96
// so the budget is lowered only once the host has served SUSTAINED_LOAD
// requests, where V8's optimizing pays back over the requests still to come.
//
// Not lowered when the user gave node a budget of their own, or on a V8 this
// was not measured on (the flag's meaning and default are V8's to change).
import { afterServed } from "./served-requests.js";
import { setV8Flag, settingApplies } from "./v8-settings.js";

/** V8 11.3's default, 66 KiB. */
const V8_DEFAULT_INTERRUPT_BUDGET = 67584;

/** An eighth of V8's default. */
export const INTERRUPT_BUDGET = V8_DEFAULT_INTERRUPT_BUDGET / 8;

/**
 * Requests served before the budget is lowered. From the table above, the
 * lowered budget's compiling costs ≈ 0.2 s of CPU over the next few hundred
 * requests and saves ≈ 0.3 ms on each after: it pays back from about a
 * thousand requests on, which a deployment of a few hundred resources never sends.
 */
export const SUSTAINED_LOAD = 1000;

/** Whether the user or the V8 version rules the change out. */
export function tierUpSoonerApplies(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv, v8Version = process.versions.v8): boolean {
  return settingApplies(/interrupt[-_]budget/, env, execArgv, v8Version);
}

/** Lowers the interrupt budget now, where tierUpSoonerApplies(); returns whether it did. */
export function tierUpSooner(): boolean {
  if (!tierUpSoonerApplies()) return false;
  setV8Flag("interrupt-budget", INTERRUPT_BUDGET, V8_DEFAULT_INTERRUPT_BUDGET);
  return true;
}

/**
 * Arms the lowering: tierUpSooner() runs once the host has answered `after`
 * more requests (served-requests.ts). Returns whether it will (false where
 * tierUpSoonerApplies() is false).
 */
export function tierUpUnderLoad(after = SUSTAINED_LOAD): boolean {
  if (!tierUpSoonerApplies()) return false;
  afterServed(after, tierUpSooner);
  return true;
}
