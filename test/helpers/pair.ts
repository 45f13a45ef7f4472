// Our plugin and a reference side by side: one request, two answers.
import type { Outcome, ProviderClient } from "./client.js";
import { launchPair, type Plugin } from "./plugin.js";

export interface Pair {
  ours: Plugin;
  ref: Plugin;
}

/** Sends the same request to both plugins' clients; resolves with [ours, reference]. */
export async function both(pair: Pair, send: (c: ProviderClient) => Promise<Outcome>): Promise<[Outcome, Outcome]> {
  const [o, r] = await Promise.all([send(pair.ours.client), send(pair.ref.client)]);
  return [o, r];
}

/** Runs `f` on both plugins at once; resolves with [ours, reference]. */
export function onBoth<T>(ours: Plugin, ref: Plugin, f: (p: Plugin) => Promise<T>): Promise<[T, T]> {
  return Promise.all([f(ours), f(ref)]);
}

/**
 * A pair started before the enclosing mocha `describe` and stopped after it
 * (the object is filled in when the hook runs).
 */
export function usePair(launch: () => Promise<Pair> = () => launchPair()): Pair {
  const pair = {} as Pair;
  before(async function () {
    Object.assign(pair, await launch());
  });
  after(async function () {
    await Promise.all([pair.ours?.stop(), pair.ref?.stop()]);
  });
  return pair;
}
