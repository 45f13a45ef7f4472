// The `__provider` text of a provider passed by reference: what the Node SDK
// writes for a program that passes `providerReference("<module>#<export>")`
// (reference/index.cjs). An import stores it, so that the program's next
// update finds the state's `__provider` equal to its own and changes nothing.
//
// It is made the way the SDK makes it (dynamic.Resource serializes
// `() => provider` with the closure serializer, secrets allowed), by the
// project's own @pulumi/pulumi, on the helper's object made by the project's
// own copy of the helper (or the host's copy, the same file, when the project
// has none). The text holds only the reference and the helper's methods.
import vm from "node:vm";
import { readAsset } from "../host/assets.js";
import type { ProviderReference } from "../host/provider-references.js";
import { REFERENCE_MARKER } from "./loader.js";
import { projectRequire } from "./module-reference.js";

type Helper = { providerReference(reference: string): object };
type Sdk = { runtime: { serializeFunction(fn: Function, opts: object): Promise<{ text: string }> } };

export async function referenceText(ref: ProviderReference): Promise<string> {
  const fromProject = projectRequire(ref.projectDir);
  let sdk: Sdk;
  try {
    sdk = fromProject("@pulumi/pulumi") as Sdk;
  } catch (e) {
    throw new Error(
      `the state needs the ${"__provider"} that a program passing "${ref.reference}" with providerReference() writes, ` +
        `and only the project's @pulumi/pulumi makes it, but it does not resolve from ${ref.projectDir} ` +
        `(${String((e as Error).message).split("\n")[0]}): install the project's dependencies`,
    );
  }
  const object = helper(fromProject).providerReference(ref.reference);
  // The same source text as the SDK's own `() => provider`, closing over a variable of the same name.
  const closure = new Function("provider", "return () => provider;")(object) as Function;
  const serialized = await sdk.runtime.serializeFunction(closure, { allowSecrets: true });
  return serialized.text;
}

/** Whether `text` is such a text for `ref`: a program passes the same reference with the helper. */
export function isReferenceText(text: string, ref: ProviderReference): boolean {
  return text.includes(`${REFERENCE_MARKER}: ${JSON.stringify(ref.reference)}`);
}

/** The project's copy of the helper, or the host's own (reference/index.cjs, evaluated as a CommonJS module). */
function helper(fromProject: NodeJS.Require): Helper {
  try {
    return fromProject("pulumi-dynamic-host/reference") as Helper;
  } catch {
    const module = { exports: {} as Record<string, unknown> };
    const fn = vm.compileFunction(readAsset("reference/index.cjs"), ["exports", "require", "module", "__filename", "__dirname"], {
      filename: "pulumi-dynamic-host/reference/index.cjs",
    });
    fn.call(module.exports, module.exports, fromProject, module, "", ".");
    return module.exports as unknown as Helper;
  }
}
