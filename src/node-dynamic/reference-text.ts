// Whether a state's `__provider` is the text a program writes when it passes
// a provider by reference (`providerReference("<module>#<export>")`,
// reference/index.cjs): the SDK serializes only the helper's object, which
// holds the reference string under the loader's marker. Read without running
// the text.
import { hasPathSeparator, samePathText, type Platform } from "../host/files/platform.js";
import type { ProviderReference } from "../host/references/provider-references.js";
import { REFERENCE_MARKER } from "./loader.js";

const HELD = new RegExp(`${REFERENCE_MARKER}: ("(?:[^"\\\\]|\\\\.)*")`, "g");

/**
 * Whether `text` is such a text for `ref`: a program passes the same reference
 * with the helper. The same reference is the same export of the same module:
 * on Windows and macOS, whose file systems ignore case, a module path in other
 * case (and on Windows with `\` for `/`) is the same module
 * (sameNodeReference).
 */
export function isReferenceText(text: string, ref: ProviderReference, platform: Platform = process.platform): boolean {
  if (!text.includes(REFERENCE_MARKER)) return false;
  for (const m of text.matchAll(HELD)) {
    let held: unknown;
    try {
      held = JSON.parse(m[1]);
    } catch {
      continue;
    }
    if (typeof held === "string" && sameNodeReference(held, ref.reference, platform)) return true;
  }
  return false;
}

/**
 * Whether two Node references "<module>#<export>" name the same export of the
 * same module on `platform`: the export exactly (JavaScript names are
 * case-sensitive everywhere); a module that is a path (`./providers`,
 * `C:\proj\providers.js`) as the file system compares it; a package name
 * exactly (npm names are lower case, and resolve through node_modules).
 */
export function sameNodeReference(a: string, b: string, platform: Platform): boolean {
  if (a === b) return true;
  const [ha, hb] = [a.lastIndexOf("#"), b.lastIndexOf("#")];
  if (ha <= 0 || hb <= 0 || a.slice(ha + 1) !== b.slice(hb + 1)) return false;
  const [ma, mb] = [a.slice(0, ha), b.slice(0, hb)];
  const isPath = (m: string) => m.startsWith(".") || hasPathSeparator(m.slice(0, 1), platform) || /^[A-Za-z]:[\\/]/.test(m);
  return isPath(ma) && isPath(mb) && samePathText(ma, mb, platform);
}
