// doctor's checks of providers by reference: those the project declares
// (Pulumi.yaml's pulumi-dynamic-host section) and those a stack's resources
// hold through the reference helper (providerReference() /
// provider_reference()), each reference checked once. Node: the module
// resolves from the project, for TypeScript a compiler is in reach, and the
// export is among the names its source exports (module-exports.ts); nothing of
// it runs. Python: the module is found on the program's sys.path and has the
// attribute (which imports the module, as the worker will).
import { nearest } from "../../host/references/input-types.js";
import { packageSchema, SchemaError } from "../../host/references/package-schema.js";
import type { ProviderReference } from "../../host/references/provider-references.js";
import { DeclarationError, ProviderReferences } from "../../host/references/provider-references.js";
import type { Language } from "../../host/runtime.js";
import { resolveModuleReference } from "../../node-dynamic/module-reference.js";
import { staticExports } from "./module-exports.js";
import { docReference } from "../usage.js";
import type { ProbeResult } from "./python-probe.js";
import type { Findings } from "./resource-checks.js";

export interface DeclaredReferences {
  nodejs: ProviderReference[];
  python: ProviderReference[];
}

/** Reads both languages' declarations, saying what is found or wrong. */
export async function readDeclarations(cwd: string, f: Findings): Promise<DeclaredReferences> {
  const found: DeclaredReferences = { nodejs: [], python: [] };
  const byPackage = new Map<string, ProviderReference[]>();
  // Every package the project declares types of: pulumi-nodejs, pulumi-python and any of its own (docs/schema.md).
  for (const [name, refs] of (await ProviderReferences.loadAll(cwd)).packages) {
    try {
      byPackage.set(name, refs.all());
    } catch (e) {
      if (!(e instanceof DeclarationError)) throw e;
      f("problem", `provider references: ${e.message}`);
      return { nodejs: [], python: [] };
    }
    found[refs.language].push(...byPackage.get(name)!);
  }
  const all = [...found.nodejs, ...found.python];
  if (all.length > 0) {
    const latest = all.filter((r) => r.latestCode).length;
    f("ok", `provider references: ${all.length} declared in ${all[0].declaredIn} (pulumi-dynamic-host.providers; latestCode for ${latest})`);
    checkSchemas(byPackage, f);
  }
  return found;
}

/**
 * The package schema each package's declarations make (what GetSchema answers, docs/schema.md):
 * a problem when one cannot be made, and a note for the types without property types, which a
 * YAML program cannot give any property.
 */
function checkSchemas(byPackage: ReadonlyMap<string, readonly ProviderReference[]>, f: Findings): void {
  const untyped: string[] = [];
  for (const [name, mine] of byPackage) {
    if (mine.length === 0) continue;
    try {
      packageSchema(mine, { name });
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
      f("problem", `schema of ${name}: ${e.message}`);
      continue;
    }
    untyped.push(...mine.filter((r) => !r.types).map((r) => r.typeToken));
    f("ok", `schema of ${name}: ${mine.length} resource type${mine.length === 1 ? "" : "s"} (pulumi-dynamic-host schema --package ${name})`);
  }
  // One note for all of them: typing is a choice, which only YAML programs and typed SDKs need.
  if (untyped.length) {
    const shown = untyped.length > 3 ? `${untyped.slice(0, 3).join(", ")} and ${untyped.length - 3} more` : untyped.join(", ");
    f(
      "note",
      `schema: ${untyped.length === 1 ? "1 declared type declares" : `${untyped.length} declared types declare`} no inputs or outputs (${shown}): ` +
        `programs of every language can use ${untyped.length === 1 ? "it" : "them"}, but a YAML program can give ${untyped.length === 1 ? "it" : "them"} no property; ${docReference("schema")} says how to type them`,
    );
  }
}

/** Each Node reference: resolved without running it. */
export function checkNodeReferences(refs: readonly ProviderReference[], f: Findings): void {
  for (const ref of refs) checkNodeReference(ref.typeToken, { reference: ref.reference, projectDir: ref.projectDir, origin: `declared for ${ref.typeToken}` }, f);
}

/**
 * One reference, its line labelled `label`: a problem when the module does not resolve or its source
 * shows it has no such export; a note when its exports cannot be read without running it. Returns
 * whether it can be loaded as far as can be told.
 */
export function checkNodeReference(label: string, ref: { reference: string; projectDir: string; origin: string }, f: Findings): boolean {
  let r: ReturnType<typeof resolveModuleReference>;
  try {
    r = resolveModuleReference(ref);
  } catch (e) {
    f("problem", `${label}: ${(e as Error).message}`);
    return false;
  }
  const ts = r.typescript ? ` (TypeScript, compiled with ${r.typescript.typescript} through ts-node ${r.typescript.tsNode})` : "";
  // The loader takes the module itself for "default" when it has no such export.
  const exports = r.exportName === "default" ? undefined : staticExports(r.file, r.typescript?.typescript);
  if (exports?.known && !exports.names.includes(r.exportName)) {
    const names = exports.names.filter((n) => n !== "__esModule");
    const near = nearest(r.exportName, names);
    f(
      "problem",
      `${label}: ${r.what}: ${r.file} has no export named ${r.exportName}` +
        (near ? `; did you mean ${near}?` : "") +
        (names.length ? `; it exports ${names.slice(0, 12).join(", ")}${names.length > 12 ? ", …" : ""}` : "; it exports nothing"),
    );
    return false;
  }
  if (exports && !exports.known) {
    f("note", `${label}: ${ref.reference} is module ${r.file}${ts}; whether it exports ${r.exportName} cannot be told without running it: ${exports.why}`);
    return true;
  }
  f("ok", `${label}: ${ref.reference} is export ${r.exportName} of ${r.file}${ts}`);
  return true;
}

/** A Python reference and the label of its line (the type it is declared for, or the resources holding it). */
export type PythonReference = Pick<ProviderReference, "typeToken" | "reference">;

/** The modules and attributes the Python probe must look up for the Python references. */
export function pythonReferenceQuestions(refs: readonly PythonReference[]): { modules: string[]; classes: { module: string; name: string }[] } {
  const split = refs.map((r) => splitPython(r.reference));
  return { modules: split.map((s) => s.module), classes: split.map((s) => ({ module: s.module, name: s.name })) };
}

/** Each Python reference, from what the probe found; returns the references that cannot be loaded. */
export function checkPythonReferences(refs: readonly PythonReference[], result: ProbeResult | undefined, f: Findings): Set<string> {
  const failed = new Set<string>();
  for (const ref of refs) {
    const { module, name } = splitPython(ref.reference);
    if (!result?.ok) {
      f("note", `${ref.typeToken}: ${ref.reference} not checked: no Python to look it up with`);
      continue;
    }
    const located = result.probe.modules[module];
    if (located && "error" in located) {
      failed.add(ref.reference);
      f("problem", `${ref.typeToken}: ${ref.reference}: ${result.probe.executable} cannot find module ${module} from the program directory (${located.error})`);
      continue;
    }
    const why = result.probe.classes[`${module}:${name}`];
    if (why) {
      failed.add(ref.reference);
      const there = result.probe.attributes?.[`${module}:${name}`];
      const parts = name.split(".");
      const near = there && parts[there.index] !== undefined ? nearest(parts[there.index], there.names) : undefined;
      const meant = near === undefined ? "" : `; did you mean ${module}:${[...parts.slice(0, there!.index), near].join(".")}?`;
      f("problem", `${ref.typeToken}: ${ref.reference}: ${why}${meant}`);
    } else f("ok", `${ref.typeToken}: ${ref.reference} is ${name} of ${located?.origin ?? module}`);
  }
  return failed;
}

const HELPER = { nodejs: "providerReference()", python: "provider_reference()" } as const;

/** The label of the line about a reference the reference helper holds in `count` resources' __provider. */
export function helperLabel(language: Language, reference: string, count: number): string {
  return `${HELPER[language]} "${reference}" (in ${count} resource${count === 1 ? "" : "s"})`;
}

/** What a Node program's helper reference says where it came from, as the loader says it. */
export const NODE_HELPER_ORIGIN = "that the program passed with providerReference()";

function splitPython(reference: string): { module: string; name: string } {
  const colon = reference.indexOf(":");
  return { module: reference.slice(0, colon), name: reference.slice(colon + 1) };
}
