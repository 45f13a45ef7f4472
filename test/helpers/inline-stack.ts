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
// so on stderr. Its events are handed to the caller's onEvent when an attempt
// ends, those of the attempt that counts only, so a recorder never holds two
// runs. Any other failure, and a second failure of the same kind, is the test's.

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

async function retried(name: string, stackName: string, run: (o?: any) => Promise<any>, o?: any): Promise<any> {
  const attempt = async () => {
    const events: unknown[] = [];
    const opts = o?.onEvent ? { ...o, onEvent: (e: unknown) => events.push(e) } : o;
    try {
      return { result: await run(opts), events };
    } catch (error) {
      return { error, events };
    }
  };
  let outcome: { result?: any; error?: unknown; events: unknown[] } = await attempt();
  if (outcome.error !== undefined && PROGRAM_CHANNEL_LOST.test(messageOf(outcome.error))) {
    process.stderr.write(`inline-stack: ${name} of stack ${stackName} lost the program's own gRPC channel (the SDK's, in this process); running it once more\n`);
    outcome = await attempt();
  }
  for (const e of outcome.events) o.onEvent(e);
  if (outcome.error !== undefined) throw outcome.error;
  return outcome.result;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.message}\n${(error as any).stderr ?? ""}` : String(error);
}
