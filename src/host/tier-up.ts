// Lets V8 optimize the host's request path after fewer requests.
//
// V8 moves a function from its interpreter and baseline code to optimized code
// once the function has run through its "interrupt budget" of bytecode, 66 KiB
// by default on Node 20. A server that runs for hours pays that once; a plugin
// lives for one deployment, and most deployments send it tens or hundreds of
// requests, so it spends its life, and the bench's slow workloads all their
// passes, in code that is not optimized yet. With an eighth of the budget,
// set once the port line is out (A/B in the bench, two runs each, against the
// same build without it):
//   IO-bound c=32, Python mode   1100/1114 → 1300/1211 req/s, host CPU per
//                                request 0.81–0.85 → 0.49–0.60 ms
//   IO-bound c=32, Node mode     level throughput, CPU 0.57–0.64 → 0.34–0.39 ms
//   CPU-bound c=8, Python mode   326/337 → 342/344 req/s, host 0.94–1.00 → 0.70–0.77 ms
//   cycle c=16                   Node 3596/3819 → 4385/4027, Python 1734/1884 → 2236/1998
//   start-up, trivial c=32 after 5000 warm-up requests: level; RSS +1 MiB.
// Set after the port line so that start-up runs as before (set at the
// process's first instruction, the first ms already compiled more).
//
// Not set when the user gave node a budget of their own, or on a V8 this was
// not measured on (the flag's meaning and default are V8's to change).
import v8 from "node:v8";
import { settingApplies } from "./v8-settings.js";

/** An eighth of V8 11.3's default of 66 KiB. */
export const INTERRUPT_BUDGET = 8448;

/** Whether the user or the V8 version rules the change out. */
export function tierUpSoonerApplies(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv, v8Version = process.versions.v8): boolean {
  return settingApplies(/interrupt[-_]budget/, env, execArgv, v8Version);
}

/** Lowers the interrupt budget where tierUpSoonerApplies(); returns whether it did. */
export function tierUpSooner(): boolean {
  if (!tierUpSoonerApplies()) return false;
  v8.setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  return true;
}
