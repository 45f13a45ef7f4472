// doctor's checks of the project's providers by reference (Pulumi.yaml's
// pulumi-dynamic-host section): that the section reads, and that each
// reference points at something. Node: the module resolves from the project
// and, for TypeScript, a compiler is in reach; nothing of it runs. Python: the
// module is found on the program's sys.path and has the attribute (which
// imports the module, as the worker will).
import type { ProviderReference } from "../host/provider-references.js";
import { DeclarationError, ProviderReferences } from "../host/provider-references.js";
import type { Language } from "../host/runtime.js";
import { resolveModuleReference } from "../node-dynamic/module-reference.js";
import type { ProbeResult } from "./python-probe.js";
import type { Findings } from "./resource-checks.js";

export interface DeclaredReferences {
  nodejs: ProviderReference[];
  python: ProviderReference[];
}

/** Reads both languages' declarations, saying what is found or wrong. */
export async function readDeclarations(cwd: string, f: Findings): Promise<DeclaredReferences> {
  const found: DeclaredReferences = { nodejs: [], python: [] };
  for (const language of ["nodejs", "python"] as const satisfies readonly Language[]) {
    const refs = await ProviderReferences.load(cwd, language);
    try {
      found[language] = refs.all();
    } catch (e) {
      if (!(e instanceof DeclarationError)) throw e;
      f("problem", `provider references: ${e.message}`);
      return { nodejs: [], python: [] };
    }
  }
  const n = found.nodejs.length + found.python.length;
  if (n > 0) {
    const file = (found.nodejs[0] ?? found.python[0]).declaredIn;
    const latest = [...found.nodejs, ...found.python].filter((r) => r.latestCode).length;
    f("ok", `provider references: ${n} declared in ${file} (pulumi-dynamic-host.providers; latestCode for ${latest})`);
  }
  return found;
}

/** Each Node reference: resolved without running it. */
export function checkNodeReferences(refs: readonly ProviderReference[], f: Findings): void {
  for (const ref of refs) {
    try {
      const r = resolveModuleReference({ reference: ref.reference, projectDir: ref.projectDir, origin: `declared for ${ref.typeToken}` });
      const ts = r.typescript ? ` (TypeScript, compiled with ${r.typescript.typescript} through ts-node ${r.typescript.tsNode})` : "";
      f("ok", `${ref.typeToken}: ${ref.reference} is export ${r.exportName} of ${r.file}${ts}`);
    } catch (e) {
      f("problem", `${ref.typeToken}: ${(e as Error).message}`);
    }
  }
}

/** The modules and attributes the Python probe must look up for the Python references. */
export function pythonReferenceQuestions(refs: readonly ProviderReference[]): { modules: string[]; classes: { module: string; name: string }[] } {
  const split = refs.map((r) => splitPython(r.reference));
  return { modules: split.map((s) => s.module), classes: split.map((s) => ({ module: s.module, name: s.name })) };
}

/** Each Python reference, from what the probe found. */
export function checkPythonReferences(refs: readonly ProviderReference[], result: ProbeResult | undefined, f: Findings): void {
  for (const ref of refs) {
    const { module, name } = splitPython(ref.reference);
    if (!result?.ok) {
      f("note", `${ref.typeToken}: ${ref.reference} not checked: no Python to look it up with`);
      continue;
    }
    const located = result.probe.modules[module];
    if (located && "error" in located) {
      f("problem", `${ref.typeToken}: ${ref.reference}: ${result.probe.executable} cannot find module ${module} from the program directory (${located.error})`);
      continue;
    }
    const why = result.probe.classes[`${module}:${name}`];
    if (why) f("problem", `${ref.typeToken}: ${ref.reference}: ${why}`);
    else f("ok", `${ref.typeToken}: ${ref.reference} is ${name} of ${located?.origin ?? module}`);
  }
}

function splitPython(reference: string): { module: string; name: string } {
  const colon = reference.indexOf(":");
  return { module: reference.slice(0, colon), name: reference.slice(colon + 1) };
}
