// Stacks of Automation API inline programs, for the end-to-end suites.
//
// An inline program runs inside this test process: the SDK's language server
// here receives the engine's Run, and the program's gRPC client registers
// resources with the engine's monitor. That client is the SDK's, in this
// process; the plugin under test is another process, which the engine talks to.
// While a run is in progress the SDK counts every unhandled rejection of the
// whole process as the program's, and once in a long CI run (seen on a clean
// machine after 2 068 passing tests) a run failed with the SDK's own
// "One or more errors occurred: 14 UNAVAILABLE: No connection established",
// the program's channel, never the plugin's (an error of the plugin reaches the
// program as the engine's diagnostic on the resource, not as this).
//
// So an operation that fails with exactly that text is run once more, and says
// so on stderr. The first attempt may have got far: steps it completed are in
// the state, and the second attempt finds them unchanged ("same"). What the
// caller sees is therefore the two attempts as one operation:
// - onEvent gets the first attempt's events, without its own failure (the
//   channel's error diagnostic and its summary), then the second attempt's;
// - the result's resourceChanges count each resource at the step it took in
//   the attempt that did the work: a resource the first attempt updated is an
//   update, not a "same" of the second.
// Any other failure, and a second failure of the same kind, is the test's.

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const automation = require("@pulumi/pulumi/automation");

const PROGRAM_CHANNEL_LOST = /One or more errors occurred: 14 UNAVAILABLE: No connection established/;


const OPERATIONS = ["up", "preview", "refresh", "destroy"] as const;

/** createOrSelectStack, with the one retry above on each operation. */
export async function inlineStack(args: object, opts: object): Promise<any> {
  const stack: any = await automation.LocalWorkspace.createOrSelectStack(args, opts);
  for (const name of OPERATIONS) {
    const run = (stack[name] as (o?: any) => Promise<any>).bind(stack);
    (stack as any)[name] = (o?: any) => retried(name, stack.name, run, o);
  }
  return stack;
}

export async function retried(name: string, stackName: string, run: (o?: any) => Promise<any>, o?: any): Promise<any> {
  const attempt = async () => {
    const events: any[] = [];
    const opts = { ...o, onEvent: (e: unknown) => events.push(e) };
    try {
      return { result: await run(opts), events };
    } catch (error) {
      return { error, events };
    }
  };
  let outcome: { result?: any; error?: unknown; events: any[] } = await attempt();
  if (outcome.error !== undefined && PROGRAM_CHANNEL_LOST.test(messageOf(outcome.error))) {
    process.stderr.write(`inline-stack: ${name} of stack ${stackName} lost the program's own gRPC channel (the SDK's, in this process); running it once more\n`);
    const first = outcome.events;
    outcome = await attempt();
    if (outcome.result?.summary) outcome.result.summary.resourceChanges = mergedChanges(first, outcome.events, outcome.result.summary.resourceChanges);
    outcome.events = [...first.filter((e) => !isOwnFailure(e)), ...outcome.events];
  }
  for (const e of outcome.events) o?.onEvent?.(e);
  if (outcome.error !== undefined) throw outcome.error;
  return outcome.result;
}

/** The failed attempt's own end: the channel's error and its summary. */
function isOwnFailure(e: any): boolean {
  if (e.summaryEvent) return true;
  const d = e.diagnosticEvent;
  return d?.severity === "error" && PROGRAM_CHANNEL_LOST.test(d.message ?? "");
}

/**
 * The second attempt's counts, with each resource the first attempt changed counted at that change:
 * instead of the "same" the second attempt found it at, or added when the second attempt had no step
 * for it (the first deleted it). Steps come from the engine's resource-outputs events (one per
 * completed step).
 */
export function mergedChanges(first: any[], second: any[], counts: Record<string, number> | undefined): Record<string, number> {
  const merged: Record<string, number> = { ...(counts ?? {}) };
  const stepOf = (events: any[]) => {
    const ops = new Map<string, string>();
    for (const e of events) {
      const m = e.resOutputsEvent?.metadata;
      if (m?.urn && m.op) ops.set(m.urn, m.op);
    }
    return ops;
  };
  const before = stepOf(first);
  const after = stepOf(second);
  for (const [urn, earlier] of before) {
    if (earlier === "same") continue;
    const op = after.get(urn);
    if (op === "same") {
      merged.same = (merged.same ?? 1) - 1;
      if (merged.same <= 0) delete merged.same;
    } else if (op !== undefined) continue; // the second attempt did work on it too: its own step counts
    // Absent from the second attempt: the first one's step (a delete, say) was its last.
    merged[earlier] = (merged[earlier] ?? 0) + 1;
  }
  return merged;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.message}\n${(error as any).stderr ?? ""}` : String(error);
}
