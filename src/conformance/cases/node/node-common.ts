// What the Node cases share: the texts our host writes where we deliberately
// differ (docs/parity.md), and small projections of stderr.
import { equal, type CaseContext } from "../../case.js";
import type { Outcome } from "../../client.js";
import { noProviderMessage as providerMessage } from "../project-file.js";

export const firstLine = (s: string) => s.split("\n")[0];

/** The V8 text of `${e}: ${e.stack}`'s first line for an error whose string form is `text`. */
export const echoed = (text: string) => `${text}: ${text}`;

/** Ours' message for a request without a usable `__provider` (docs/parity.md); `dir`: the program folder the plugin runs in (../project-file.ts). */
export function noProviderMessage(op: string, urn: string, bag: string, problem = "has no", dir?: string): string {
  return providerMessage("nodejs", op, urn, bag, problem, dir);
}

/** Ours' message for a method that returned no object (docs/parity.md, Node). */
export function noObjectMessage(op: string, urn: string, method: string, got: string, shape: string): string {
  return `${op} ${urn}: the dynamic provider's ${method} returned ${got}; it must return an object (${shape})`;
}

export const INIT_FAILED_TYPE_URL = "type.googleapis.com/pulumirpc.ErrorResourceInitFailed";

/** An answer and what the plugin printed on stderr while giving it (up to the stderr barrier). */
export interface Echoed {
  o: Outcome;
  err: string;
}

/** Sends one request and reads the stderr it caused. */
export async function withStderr(ctx: CaseContext, send: () => Promise<Outcome>): Promise<Echoed> {
  const since = ctx.mark();
  const o = await send();
  return { o, err: await ctx.stderrSince(since) };
}

/** Each answer with the request's `mode` shown in the failure message. */
export function eachEqual<T>(list: { what: string; got: T; want: T }[]): void {
  for (const { what, got, want } of list) equal(got, want, what);
}
