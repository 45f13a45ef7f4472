// Counts the requests the host has answered, for what should happen only once
// it has served some: V8's lower interrupt budget under sustained load
// (tier-up.ts), the code cache written once the request path has run
// (code-cache-save.ts). ../grpc-adapter.ts calls requestServed() once per answer.

let served = 0;
/** Waiting callbacks, by the count they run at, lowest first. */
const waiting: { at: number; run: () => void }[] = [];

/** Counts one answered request and runs what was waiting for this count. */
export function requestServed(): void {
  served++;
  while (waiting.length > 0 && waiting[0]!.at <= served) waiting.shift()!.run();
}

/** Runs `run` once `after` more requests (at least 1) have been answered. */
export function afterServed(after: number, run: () => void): void {
  const at = served + Math.max(1, Math.floor(after));
  let i = waiting.length;
  while (i > 0 && waiting[i - 1]!.at > at) i--;
  waiting.splice(i, 0, { at, run });
}
