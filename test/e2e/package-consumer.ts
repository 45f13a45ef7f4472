// What the provider-package suites share (test/e2e/provider-packages.test.ts,
// provider-package-registries.test.ts, provider-package-sdks.test.ts): the
// pulumi CLI run in a sandbox the way a user runs it (Pulumi YAML's host is
// placed by the harness's placeYamlHost), and a package's SDK generated and
// installed as `pulumi package add` and a package manager would.
import { expect } from "chai";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { REPO } from "../helpers/paths.js";
import { inlineStack } from "../helpers/inline-stack.js";
import { E2E_BIN, E2E_ROOT, type Sandbox } from "./harness.js";

const require = createRequire(import.meta.url);
const automation = require("@pulumi/pulumi/automation");

/** The pulumi CLI in a sandbox: run, or run and required to succeed with no warning of any kind (its stdout and stderr). */
export function pulumiIn(sb: Sandbox) {
  const cli = (args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> => {
    const env = { ...process.env, ...sb.env };
    return new Promise((resolve) => {
      execFile(`${E2E_BIN}/pulumi`, args, { cwd, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  };
  const ok = async (args: string[], cwd: string): Promise<string> => {
    const res = await cli(args, cwd);
    expect(res.code, `pulumi ${args.join(" ")}:\n${res.stdout}\n${res.stderr}`).to.equal(0);
    expect(res.stdout + res.stderr, `pulumi ${args.join(" ")}`).to.not.match(/warning:/);
    return res.stdout + res.stderr;
  };
  return { cli, ok };
}

/** An executable of scripts/go-program.sh (built once, then reused from ~/.cache). */
export function goProgram(args: string[], env: Record<string, string> = {}): string {
  return execFileSync("bash", [`${REPO}scripts/go-program.sh`, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } })
    .trim()
    .split("\n")
    .pop()!;
}

/**
 * The package's SDK in `<project>/sdks/<name>`, as `pulumi package add <plugin> <source>` (a folder, or a registry spec)
 * writes it: the schema `pulumi package get-schema` answers in the project, given to Pulumi's generator.
 */
export function generateSdk(
  sb: Sandbox,
  project: string,
  plugin: string,
  name: string,
  language: "nodejs" | "python" | "go",
  source = `../packages/${name}`,
): { schema: any; dir: string } {
  // No virtualenv activated: asked only for a schema, the Python plugin's early worker starts in whatever
  // `python3` is on PATH (the engine gives no runtime options then), which may lack dill; the plugin is quiet.
  const env = { ...process.env, ...sb.env };
  const res = spawnSync(`${E2E_BIN}/pulumi`, ["package", "get-schema", plugin, source], { cwd: project, env, encoding: "utf8" });
  expect(res.status, `pulumi package get-schema: ${res.stderr}`).to.equal(0);
  expect(res.stderr, "pulumi package get-schema: nothing on stderr, of the CLI or of our plugin").to.equal("");
  const text = res.stdout;
  const schema = JSON.parse(text);
  expect(schema.name).to.equal(name);
  const file = path.join(project, `${name}.schema.json`);
  fs.writeFileSync(file, text);
  const dir = path.join(project, "sdks", name);
  execFileSync(goProgram(["schema-tool"]), ["gen", language, file, dir], { stdio: ["ignore", "ignore", "inherit"] });
  return { schema, dir };
}

/**
 * `npm install ./sdks/<name>`: the SDK's postinstall compiles it (tsc, here this repository's
 * TypeScript) and copies package.json into bin/; npm links it into node_modules under its name. The
 * SDK module, required by that name from the project, as its index.ts would.
 */
export function installNodeSdk(sdkDir: string, consumer: string): any {
  execFileSync(process.execPath, ["scripts/postinstall.js"], {
    cwd: sdkDir,
    env: { ...process.env, PATH: `${REPO}node_modules/.bin:${process.env.PATH}` },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const name = JSON.parse(fs.readFileSync(path.join(sdkDir, "package.json"), "utf8")).name;
  fs.mkdirSync(path.dirname(path.join(consumer, "node_modules", name)), { recursive: true });
  fs.symlinkSync(sdkDir, path.join(consumer, "node_modules", name));
  return createRequire(path.join(consumer, "index.js"))(name);
}

/** An Automation API inline stack "dev" of a Node project in `consumer`, in the sandbox's backend. */
export async function nodeSdkStack(sb: Sandbox, consumer: string, project: string, program: () => Promise<Record<string, unknown>>): Promise<any> {
  const pulumiCommand = await automation.PulumiCommand.get({ root: E2E_ROOT, skipVersionCheck: true });
  return inlineStack(
    { stackName: "dev", projectName: project, program },
    {
      workDir: consumer,
      pulumiHome: sb.home,
      envVars: sb.env,
      pulumiCommand,
      projectSettings: { name: project, runtime: "nodejs", backend: { url: `file://${sb.backend}` } },
    },
  );
}
