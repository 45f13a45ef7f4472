// `__provider` payloads made with the SDK installed in the current project,
// from the provider scenarios shipped in src/conformance/scenarios: Node's with
// the project's @pulumi/pulumi closure serializer, Python's with pulumi.dynamic's
// serialize_provider in the interpreter the plugin would use.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Language, Program } from "./case.js";
import { installKitPackages } from "./kit-packages.js";
import { pythonPayloadsFor, scenariosDirectory } from "./payloads-python.js";


/** Default scenario module of each language. */
export const DEFAULT_SCENARIO: Record<Language, string> = { nodejs: "node-providers", python: "python_providers" };

const PROGRAM_FILES: Record<Language, string> = { nodejs: "node-program", python: "python-program" };
/** Node's scenario modules are in node/; Python's at the top (python-program/ is a module's program). */
const SCENARIO_FILES: Record<Language, string> = { nodejs: "node", python: "." };

/**
 * The program for `language`. Without `projectDir`, the shipped scenario folders in
 * place (a checkout, whose node_modules is above them). With it, a fresh folder in
 * the project holding the program files and scenario modules (and, for Node, the
 * kit's own packages in its node_modules), so that the scenarios and the plugins
 * resolve the project's @pulumi/pulumi (and pulumi.dynamic) as a program of that
 * project would.
 */
export function prepareProgram(language: Language, projectDir?: string, python?: string): Program {
  const programSrc = path.join(scenariosDirectory(), PROGRAM_FILES[language]);
  const scenarioSrc = path.join(scenariosDirectory(), SCENARIO_FILES[language]);
  if (!projectDir) return { language, programDir: programSrc, scenarioDir: scenarioSrc, python, cleanup() {} };
  const dir = fs.mkdtempSync(path.join(projectDir, ".pulumi-dynamic-host-conformance-"));
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    if (fs.existsSync(programSrc)) fs.cpSync(programSrc, dir, { recursive: true, filter: (f) => !f.includes("__pycache__") });
    for (const f of fs.readdirSync(scenarioSrc)) {
      const from = path.join(scenarioSrc, f);
      if (fs.statSync(from).isFile() && !fs.existsSync(path.join(dir, f))) fs.cpSync(from, path.join(dir, f));
    }
    // The packages the Node scenarios require besides the SDK come with the kit (kit-packages.ts).
    if (language === "nodejs") installKitPackages(dir);
    // A project file of the kit's own in the program folder and in each folder of it the cases run plugins
    // in (python-program/bare): the plugins take the nearest one as the program's, so the project's
    // Pulumi.yaml (its declarations, its project root) never reaches the cases, whose recorded answers
    // name the kit's (cases/project-file.ts).
    const folders = [dir, ...fs.readdirSync(programSrc, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== "__pycache__").map((e) => path.join(dir, e.name))];
    for (const folder of folders) fs.writeFileSync(path.join(folder, "Pulumi.yaml"), KIT_PROJECT_FILE(language));
  } catch (e) {
    cleanup();
    throw e;
  }
  return { language, programDir: dir, scenarioDir: dir, python, cleanup };
}

/** The kit's project file (no declarations, no runtime options). */
const KIT_PROJECT_FILE = (language: Language) =>
  `name: pulumi-dynamic-host-conformance\nruntime: ${language}\ndescription: made by pulumi-dynamic-host conformance for one run, and removed after it\n`;

const cache = new Map<string, Promise<Record<string, string>> | Promise<string>>();

/** The payload of provider `name` of a scenario module (default: the language's). */
export function makePayload(program: Program, name: string, scenario = DEFAULT_SCENARIO[program.language]): Promise<string> {
  return program.language === "nodejs" ? nodePayload(program.scenarioDir, scenario, name) : pythonPayload(program, scenario, name);
}

/** A Node scenario module, loaded from the program's scenario folder (its SDK resolves from there). */
export function nodeScenario(program: Program, scenario: string): any {
  const file = path.join(program.scenarioDir, scenario.endsWith(".cjs") ? scenario : `${scenario}.cjs`);
  return createRequire(file)(file);
}

/** A Node scenario module exports `serialize(name)`, which calls the closure serializer of the @pulumi/pulumi resolved from it. */
export function nodePayload(scenarioDir: string, scenario: string, name: string): Promise<string> {
  const file = path.join(scenarioDir, scenario.endsWith(".cjs") ? scenario : `${scenario}.cjs`);
  const key = `${file}#${name}`;
  let text = cache.get(key) as Promise<string> | undefined;
  if (!text) {
    const mod = createRequire(file)(file);
    text = Promise.resolve(mod.serialize(name) as Promise<string>);
    cache.set(key, text);
  }
  return text;
}

/**
 * A Python scenario module, run as a script in the scenario folder by the
 * interpreter the plugin would use (payloads-python.ts), prints a JSON object of
 * every provider's payload made by pulumi.dynamic's serialize_provider; it is
 * run once per module and interpreter.
 */
export async function pythonPayload(program: Program, scenario: string, name: string): Promise<string> {
  return pythonPayloadsFor(program).provider(name, scenario);
}
