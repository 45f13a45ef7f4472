// When a new serialized provider is the same provider: the one place that
// decides it, for both languages. A provider's text is its code as the SDK
// serialized it (Node: CommonJS text; Python: base64 of a pickle). Any change
// to it, a reformatted line included, makes the engine see a change of inputs
// and run Update. Two texts that differ only in line endings (CRLF or CR
// against LF) or in whitespace at the ends of lines are the same code, save
// inside a multi-line string or template literal that keeps such whitespace;
// a checkout on Windows and one on Linux, or an editor that trims lines, then
// make no update.
import { PROVIDER_KEY, sameBagsExcept, stringField, type AnyStruct } from "./wire/wire.js";

/** Spaces, tabs, CR, VT and FF: what an editor trims at a line's end. */
const TRAILING_BLANKS = /[ \t\r\v\f]+$/;

/** `text` with every line ending made LF and each line's trailing whitespace dropped. */
export function providerLayout(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) lines[i] = lines[i].replace(TRAILING_BLANKS, "");
  return lines.join("\n");
}

/** Whether two provider texts differ at most in line endings and trailing whitespace on lines. */
export function sameProviderCode(a: string, b: string): boolean {
  return a === b || providerLayout(a) === providerLayout(b);
}

/**
 * Whether going from `oldInputs` to `newInputs` changes nothing but the layout
 * of `__provider`: both hold it as a string, the texts are the same code, and
 * every other input is equal. False when either bag is unset, or anything else
 * differs (an unknown value included): the engine then compares the inputs.
 */
export function onlyProviderLayoutChanged(oldInputs: AnyStruct | undefined, newInputs: AnyStruct | undefined): boolean {
  if (!oldInputs || !newInputs) return false;
  const before = stringField(oldInputs, PROVIDER_KEY);
  const after = stringField(newInputs, PROVIDER_KEY);
  if (before === undefined || after === undefined || !sameProviderCode(before, after)) return false;
  return sameBagsExcept(oldInputs, newInputs, PROVIDER_KEY);
}

/**
 * Whether two input bags differ at most in `__provider` (held by either, both
 * or neither): false when either bag is unset.
 */
export function onlyProviderDiffers(oldInputs: AnyStruct | undefined, newInputs: AnyStruct | undefined): boolean {
  if (!oldInputs || !newInputs) return false;
  return sameBagsExcept(oldInputs, newInputs, PROVIDER_KEY);
}
