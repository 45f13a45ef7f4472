// What a loaded Node provider is, and how a failure to load one is named: the
// two things the closure loader (./loader.ts) and the loader of providers by
// reference (./module-reference.ts) share, in a module of their own so that
// neither imports the other for them.
import type { Config } from "./config.js";

/** What the closure's handler() must give back: an object whose methods the host calls. */
export type NodeProvider = Record<string, unknown> & {
  configure?: (req: { config: Config }) => unknown;
};

/** An error's name and message ("TypeError: x is not a function"), or the thrown value's text. */
export function describe(e: unknown): string {
  if (e && typeof e === "object" && "message" in e) {
    const err = e as { name?: unknown; message?: unknown };
    return `${String(err.name ?? "Error")}: ${String(err.message)}`;
  }
  return String(e);
}
