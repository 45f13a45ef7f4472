// Whether a state's `__provider` is the text a program writes when it passes
// a provider by reference (`providerReference("<module>#<export>")`,
// reference/index.cjs): the SDK serializes only the helper's object, which
// holds the reference string under the loader's marker. Read without running
// the text.
import type { ProviderReference } from "../host/references/provider-references.js";
import { REFERENCE_MARKER } from "./loader.js";

/** Whether `text` is such a text for `ref`: a program passes the same reference with the helper. */
export function isReferenceText(text: string, ref: ProviderReference): boolean {
  return text.includes(`${REFERENCE_MARKER}: ${JSON.stringify(ref.reference)}`);
}
