// What ours says about declaring a type depends on the program's project file,
// which the kit's environment decides, not the plugin: in a checkout the scenario
// program folders have none above them; in a user's project the kit's program
// folder holds one of its own (payloads.ts, prepareProgram), so the user's
// Pulumi.yaml and its declarations never reach the cases. The recorded answers
// are computed from the folder the plugin runs in, by the rule the engine uses
// for a project: the nearest Pulumi.yaml or Pulumi.yml at or above it.
import fs from "node:fs";
import path from "node:path";
import type { Language } from "../case.js";

/** The nearest project file at or above `dir`, or undefined. */
export function projectFileAbove(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const found = ["Pulumi.yaml", "Pulumi.yml"].map((f) => path.join(d, f)).find((f) => fs.existsSync(f));
    if (found) return found;
    if (path.dirname(d) === d) return undefined;
  }
}

const EXAMPLE: Record<Language, { shape: string; example: string }> = {
  nodejs: { shape: '"<module>#<export>"', example: "./providers#textFileProvider" },
  python: { shape: '"<module>:<attribute>"', example: "providers.counter:CounterProvider" },
};

/** Ours' words for how to declare `typeToken`'s provider, in the project file above `dir` (or "the project's Pulumi.yaml"). */
export function howToDeclare(language: Language, typeToken: string, dir: string): string {
  const { shape, example } = EXAMPLE[language];
  return (
    `declare where its provider lives in ${projectFileAbove(dir) ?? "the project's Pulumi.yaml"}:\n` +
    `  pulumi-dynamic-host:\n    providers:\n      ${typeToken}: ${example}\n` +
    `(a ${shape} reference to the provider in the project's code; docs/import-and-repair.md, pulumi-dynamic-host docs import-and-repair)`
  );
}

/** The type token of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
export const typeOfUrn = (urn: string): string => urn.split("::")[2] ?? "";

/**
 * Ours' message for a request without a usable `__provider` (docs/parity.md): with no
 * `__provider` at all and a project file above the program folder `dir`, followed by how
 * to declare the type there.
 */
export function noProviderMessage(language: Language, op: string, urn: string, bag: string, problem = "has no", dir?: string): string {
  const base =
    `${op} ${urn}: the request's ${bag} ${problem} "__provider" property, so the dynamic provider cannot be loaded; ` +
    `__provider must be the serialized provider the SDK writes into every dynamic resource`;
  if (problem !== "has no" || dir === undefined || projectFileAbove(dir) === undefined) return base;
  const type = typeOfUrn(urn);
  return (
    `${base}, or the type must be declared: a program that registers ${type} without serialized code (a program in ` +
    `another language, or the DeclaredResource helper) is served by the project's declaration of it; to serve it, ` +
    howToDeclare(language, type, dir)
  );
}
