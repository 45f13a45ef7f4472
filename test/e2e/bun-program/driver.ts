// The Automation API driver that Bun runs, as a TypeScript file, for
// test/e2e/bun-declared.test.ts: an inline program that registers the
// declared Node provider's type with DeclaredResource (this package's
// declared/index.cjs, through its own `exports`), with @pulumi/pulumi from the
// repository's node_modules, in a project whose Pulumi.yaml declares the type.
// Steps: up, up again (no change), refresh, up with changed content, destroy.
//
// usage: bun driver.ts <settings JSON>
// settings: {"root": <dir holding bin/pulumi>, "backend": <state dir>, "home": <PULUMI_HOME>,
//            "env": {<environment of every CLI run>}, "workDir": <project dir>,
//            "file": <the text file the resource manages>, "result": <where to write the result>}
// Writes ONE JSON document to settings.result: {"runtime": {"bun", "node"} as
// process.versions reports them, "steps": [{"name", "events", "summary",
// "error", "resources", "outputs", "file"}]}, "resources" the pulumi-nodejs
// resources of `stack export` after the step, "file" the managed file's
// content then (null: none). Nothing is printed on stdout.
import fs from "node:fs";
import { automation } from "@pulumi/pulumi";
import { DeclaredResource } from "pulumi-dynamic-host/declared";

const TYPE = "pulumi-nodejs:dynamic/files:TextFile";

interface Settings {
  root: string;
  backend: string;
  home: string;
  env: Record<string, string>;
  workDir: string;
  file: string;
  result: string;
}

interface TextFileOutputs {
  path: string;
  content: string;
  size: number;
  ranBy: { script: string; launchedAs: string | null; pid: number };
}

interface Step {
  name: string;
  events: unknown[];
  summary?: unknown;
  error?: string;
  resources: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  /** The managed file's content after the step, null when there is none. */
  file: string | null;
}

const settings: Settings = JSON.parse(process.argv[2]);
let content = "first";

async function program() {
  const file = new DeclaredResource<TextFileOutputs>(TYPE, "motd", { path: settings.file, content }, { outputs: ["size", "ranBy"] });
  return { size: file.output("size"), ranBy: file.output("ranBy") };
}

async function resources(stack: automation.Stack): Promise<Record<string, unknown>> {
  const deployment = (await stack.exportStack()).deployment;
  const dynamic = (deployment.resources ?? []).filter((r: { type: string }) => r.type.startsWith("pulumi-nodejs:"));
  return Object.fromEntries(dynamic.map((r: { urn: string }) => [r.urn.split("::").pop(), r]));
}

/** Runs one operation, recording its events, its summary (or error) and the state after it. */
async function step(stack: automation.Stack, name: string, run: (onEvent: (e: unknown) => void) => Promise<any>): Promise<Step> {
  const events: unknown[] = [];
  const record: Step = { name, events, resources: {}, file: null };
  try {
    const result = await run((e) => events.push(e));
    record.summary = result.summary;
    if (result.outputs) record.outputs = result.outputs;
  } catch (e) {
    record.error = String(e instanceof Error ? e.message : e);
  }
  record.resources = await resources(stack);
  record.file = fs.existsSync(settings.file) ? fs.readFileSync(settings.file, "utf8") : null;
  return record;
}

async function main(): Promise<Step[]> {
  const pulumiCommand = await automation.PulumiCommand.get({ root: settings.root, skipVersionCheck: true });
  // Pulumi.yaml as the Automation API writes it from these settings, the declaration included.
  const projectSettings = {
    name: "bun-declared",
    runtime: "nodejs",
    backend: { url: `file://${settings.backend}` },
    "pulumi-dynamic-host": { providers: { [TYPE]: "./text-file#textFileProvider" } },
  } as automation.ProjectSettings;
  const stack = await automation.LocalWorkspace.createOrSelectStack(
    { stackName: "bun", projectName: "bun-declared", program },
    { workDir: settings.workDir, pulumiHome: settings.home, envVars: settings.env, pulumiCommand, projectSettings },
  );
  const steps = [await step(stack, "up", (onEvent) => stack.up({ onEvent }))];
  steps.push(await step(stack, "up-again", (onEvent) => stack.up({ onEvent })));
  steps.push(await step(stack, "refresh", (onEvent) => stack.refresh({ onEvent })));
  content = "second";
  steps.push(await step(stack, "up-change", (onEvent) => stack.up({ onEvent })));
  steps.push(await step(stack, "destroy", (onEvent) => stack.destroy({ onEvent })));
  return steps;
}

main().then(
  (steps) => fs.writeFileSync(settings.result, JSON.stringify({ runtime: { bun: process.versions.bun ?? null, node: process.versions.node }, steps })),
  (e) => {
    fs.writeFileSync(settings.result, JSON.stringify({ driverError: String(e instanceof Error ? e.stack : e) }));
    process.exitCode = 1;
  },
);
