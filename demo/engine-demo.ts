// npm run demo, part one: the real Pulumi engine (the CLI built from the Go
// module proxy by scripts/engine.sh) takes a small TypeScript program and a
// small Python program through up → change → up → refresh → destroy; their
// dynamic providers run in our host, installed under both plugin names first
// on PATH. The engine's own output is printed as it comes.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_VENV, VENV_PYTHON } from "../test/helpers/paths.js";
import { E2E_ROOT, prepareEngine, sandbox } from "../test/e2e/harness.js";

const require = createRequire(import.meta.url);
const here = fileURLToPath(new URL("../../demo/", import.meta.url));

async function nodeProgram(sb: ReturnType<typeof sandbox>): Promise<void> {
  const pulumi = require("@pulumi/pulumi");
  const automation = require("@pulumi/pulumi/automation");
  const { fileProvider } = require(path.join(here, "file-provider.cjs"));
  const target = path.join(sb.dir, "greeting-from-typescript.txt");
  let content = "hello from a TypeScript program\n";
  const program = async () => {
    const f = new pulumi.dynamic.Resource(fileProvider, "greeting", { path: target, content }, undefined, "demo", "TextFile");
    return { path: f.id };
  };
  const stack = await automation.LocalWorkspace.createOrSelectStack(
    { stackName: "demo", projectName: "demo-engine-typescript", program },
    {
      workDir: path.join(here, "program"),
      pulumiHome: sb.home,
      envVars: sb.env,
      pulumiCommand: await automation.PulumiCommand.get({ root: E2E_ROOT, skipVersionCheck: true }),
      projectSettings: { name: "demo-engine-typescript", runtime: "nodejs", backend: { url: `file://${sb.backend}` } },
    },
  );
  const onOutput = (out: string) => process.stdout.write(out.replace(/^(?=.)/gm, "   | "));
  console.log("\n── TypeScript program: pulumi up");
  await stack.up({ onOutput });
  console.log(`   on disk: ${JSON.stringify(readFileSync(target, "utf8"))}`);
  console.log("\n── TypeScript program: change the content, pulumi up");
  content = "hello again\n";
  await stack.up({ onOutput });
  console.log(`   on disk: ${JSON.stringify(readFileSync(target, "utf8"))}`);
  console.log("\n── TypeScript program: pulumi refresh");
  await stack.refresh({ onOutput });
  console.log("\n── TypeScript program: pulumi destroy");
  await stack.destroy({ onOutput });
  console.log(`   file left: ${existsSync(target)}`);
  await stack.workspace.removeStack("demo");
}

/** Stack settings left by an earlier run (their secrets salt) would not match a fresh state directory. */
function forgetStacks(dir: string): void {
  for (const f of readdirSync(dir)) if (/^Pulumi\..+\.yaml$/.test(f)) rmSync(path.join(dir, f));
}

async function main(): Promise<void> {
  console.log("════ the real Pulumi engine, with our host as both dynamic-provider plugins");
  forgetStacks(path.join(here, "program"));
  forgetStacks(path.join(here, "python-program"));
  prepareEngine();
  const sb = sandbox("pulumi-dynamic-host-engine-demo");
  try {
    await nodeProgram(sb);
    // An inline program's runtime options do not reach the plugin (the engine passes only the program's
    // address), so the program's interpreter is named the way the launcher also honours: PULUMI_PYTHON_CMD.
    execFileSync(VENV_PYTHON, [path.join(here, "python-program", "engine_demo.py"), E2E_ROOT, sb.backend, sb.home, TEST_VENV], {
      cwd: path.join(here, "python-program"),
      env: { ...process.env, ...sb.env, PULUMI_PYTHON_CMD: VENV_PYTHON },
      stdio: "inherit",
    });
  } finally {
    sb.cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
