// When the host writes V8's code cache of its bundle (the cache and its
// loader: src/boot/code-cache.ts): once it has answered its first few
// requests, so that the functions of the request path (the gRPC server's, the
// wire's, the mode's runtime's) are compiled and go into the cache, and on a
// turn of its own after the answer, not before it. Only when the start found
// no cache V8 would take; a start that used one leaves it be.
//
// The write costs a few milliseconds once per build and machine. It happens
// with V8's flags at their defaults (v8-settings.ts, withV8Defaults): V8 stamps
// the cache with its flags, and the next start reads it before any setting
// of the host's has run. A failure (no home, a read-only disk) only means the
// next start compiles from source; it is logged at -v=3, never shown otherwise.
import { log } from "../diagnostics/log.js";
import { afterServed } from "./served-requests.js";
import { withV8Defaults } from "./v8-settings.js";

/** What the loader hands the host (src/boot/code-cache.ts, BundleCodeCache). */
export interface CodeCacheHandle {
  readonly state: "accepted" | "rejected" | "missing" | "off";
  readonly file: string | undefined;
  /** Why there is none: the cache root cannot be used (../files/cache-root.ts). */
  readonly note?: string;
  save(): number;
}

/** Answered requests before the cache is written: GetPluginInfo, Configure and the first Check, as the engine sends them. */
export const CODE_CACHE_AFTER = 3;

/** After the request that arranges the write: long enough for the answer to have gone out first. */
const WRITE_DELAY_MS = 5;

/** Arranges the write; returns whether one is arranged. */
export function saveCodeCacheWhenWarm(cache: CodeCacheHandle | undefined, after = CODE_CACHE_AFTER): boolean {
  if (cache?.note) log(1, cache.note);
  if (cache?.state === "accepted") log(3, `code cache used (${cache.file})`);
  if (cache === undefined || cache.state === "accepted" || cache.state === "off") return false;
  log(3, `code cache ${cache.state} (${cache.file}); writing it after ${after} answered requests`);
  afterServed(after, () => {
    setTimeout(() => {
      const started = Date.now();
      try {
        const bytes = withV8Defaults(() => cache.save());
        log(3, `code cache written: ${bytes} bytes in ${Date.now() - started} ms`);
      } catch (err) {
        log(3, `code cache not written: ${err instanceof Error ? err.message : String(err)}`);
      }
    }, WRITE_DELAY_MS).unref();
  });
  return true;
}
