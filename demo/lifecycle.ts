// npm run demo: starts the built host exactly as the Pulumi engine would (cwd =
// the program directory, argv = an engine address, its own process group) and
// walks a sample Node dynamic provider, then a sample Python one, through
// check → create → diff → update → refresh → replace → delete, printing every
// call and answer. The client is built from @pulumi/pulumi's generated gRPC
// stubs; the providers are serialized by the SDKs' own serializers.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, existsSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { VENV_PYTHON } from "../test/helpers/paths.js";
import { Plugin } from "../test/helpers/plugin.js";
import type { Outcome } from "../test/helpers/client.js";

const require = createRequire(import.meta.url);
const here = fileURLToPath(new URL("../../demo/", import.meta.url));
const statusName: Record<number, string> = require("@grpc/grpc-js").status;
const DIFF = ["DIFF_UNKNOWN", "DIFF_NONE", "DIFF_SOME"];

function show(step: string, request: unknown, answer: Outcome): void {
  console.log(`\n── ${step}`);
  console.log(`   request: ${JSON.stringify(request, abbreviate)}`);
  if (answer.code !== 0) {
    console.log(`   answer:  ${statusName[answer.code] ?? answer.code}: ${answer.details}`);
  } else {
    const v = answer.view;
    const view =
      v && "changes" in v ? { changes: DIFF[v.changes], replaces: v.replacesList, deleteBeforeReplace: v.deletebeforereplace } : v;
    console.log(`   answer:  ${JSON.stringify(view, abbreviate)}`);
  }
}

/** Keeps the serialized provider text from flooding the screen. */
function abbreviate(key: string, value: unknown): unknown {
  return key === "__provider" && typeof value === "string" ? `<serialized provider, ${value.length} chars>` : value;
}

function expectOk(answer: Outcome, what: string): Outcome {
  if (answer.code !== 0) throw new Error(`${what} failed: ${answer.details}`);
  return answer;
}

interface Sample {
  language: "nodejs" | "python";
  title: string;
  provider: string;
  cwd: string;
  urnType: string;
}

async function walk(sample: Sample): Promise<void> {
  const { provider } = sample;
  const dir = mkdtempSync(path.join(os.tmpdir(), "pulumi-dynamic-host-demo-"));
  const urn = `urn:pulumi:demo::demo-program::${sample.urnType}::greeting`;
  const host = await Plugin.launch("ours", { language: sample.language, cwd: sample.cwd });
  console.log(`\n════ ${sample.title}`);
  console.log(`started pulumi-resource-pulumi-${sample.language} (pid ${host.child.pid}); port line: ${host.stdout[0]}`);
  const c = host.client;
  try {
    show("GetPluginInfo", {}, await c.getPluginInfo());
    show("Configure", { "demo-program:greeting": "hello" }, await c.configure({ "demo-program:greeting": "hello" }));

    const first = { __provider: provider, path: path.join(dir, "hello.txt"), content: "hello, world\n" };
    const bad = { __provider: provider, path: "" };
    show("Check (invalid inputs)", { news: bad }, await c.check({ urn, news: bad }));
    const checked = expectOk(await c.check({ urn, news: first }), "check");
    show("Check", { news: first }, checked);
    const created = expectOk(await c.create({ urn, properties: checked.view.inputs }), "create");
    show("Create", { properties: checked.view.inputs }, created);
    console.log(`   on disk: ${JSON.stringify(readFileSync(first.path, "utf8"))}`);

    const edited = { ...first, content: "hello again\n" };
    const diff1 = expectOk(await c.diff({ urn, id: created.view.id, olds: created.view.properties, news: edited }), "diff");
    show("Diff (content changed → update)", { olds: created.view.properties, news: edited }, diff1);
    const updated = expectOk(await c.update({ urn, id: created.view.id, olds: created.view.properties, news: edited }), "update");
    show("Update", { id: created.view.id, news: edited }, updated);
    show("Read (refresh)", { id: created.view.id }, await c.read({ urn, id: created.view.id, properties: updated.view.properties }));

    const moved = { ...edited, path: path.join(dir, "moved.txt") };
    const diff2 = expectOk(await c.diff({ urn, id: created.view.id, olds: updated.view.properties, news: moved }), "diff");
    show("Diff (path changed → replace)", { olds: updated.view.properties, news: moved }, diff2);
    const replacement = expectOk(await c.create({ urn, properties: moved }), "create");
    show("Create (replacement)", { properties: moved }, replacement);
    show("Delete (the replaced file)", { id: created.view.id }, await c.delete({ urn, id: created.view.id, properties: updated.view.properties }));
    show("Delete", { id: replacement.view.id }, await c.delete({ urn, id: replacement.view.id, properties: replacement.view.properties }));
    console.log(`\nfiles left: hello.txt=${existsSync(first.path)} moved.txt=${existsSync(moved.path)}`);
  } finally {
    const exit = await host.stop();
    console.log(`\nwhat the provider printed (the engine shows these as diagnostics):`);
    for (const line of host.userStdout) console.log(`   stdout: ${line}`);
    for (const line of host.stderr.split("\n").filter(Boolean)) console.log(`   stderr: ${line}`);
    console.log(`host stopped like the engine stops it (SIGINT): ${exit.signal ?? `exit ${exit.code}`}`);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  await walk({
    language: "nodejs",
    title: "a Node dynamic provider (serialized by @pulumi/pulumi's closure serializer)",
    provider: await require(path.join(here, "file-provider.cjs")).serialize(),
    cwd: path.join(here, "program"),
    urnType: "pulumi-nodejs:dynamic:Resource",
  });
  await walk({
    language: "python",
    title: "a Python dynamic provider (pickled by pulumi.dynamic's serialize_provider, run in the program's virtualenv)",
    provider: execFileSync(VENV_PYTHON, [path.join(here, "python-program", "file_provider.py")], { encoding: "utf8" }).trim(),
    cwd: path.join(here, "python-program"),
    urnType: "pulumi-python:dynamic:Resource",
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
