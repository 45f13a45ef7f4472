// The conformance commands of README.md and docs/conformance.md, run as written (each line of their
// `sh` blocks that starts `pulumi-dynamic-host conformance`, through sh), from a folder where their
// relative paths mean what a user means: a Node project whose `node_modules` holds @pulumi/pulumi
// (the version the repository pins, 3.270.0, and 3.248.0, what `npm install` gives on Node 20) with
// `my-host/plugin.js` being Pulumi's own Node plugin; a Python project in the layout `pulumi new`
// makes (`virtualenv: venv`) with `bin/pulumi-resource-pulumi-python` our plugin and `my-plugin` and
// `pulumi-resource-pulumi-python` copies of Pulumi's Python launcher script (an `sh` that does not
// `exec` Python). Every command must conform (exit 0) with both SDKs: the kit takes the relative
// paths from the user's folder and judges each plugin by the SDK release it comes from.
//
// `pulumi-dynamic-host` is the checkout's (bin/, built by `npm run build`); kit.test.ts runs the
// installed copies.
import { expect } from "chai";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { OUR_PYTHON_PLUGIN, OTHER_PYTHON, REPO, TEST_VENV } from "../helpers/paths.js";

/** The lines of `file`'s sh blocks that run the conformance command. */
function commandsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(REPO, file), "utf8");
  const out: string[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1].split("\n")) if (line.startsWith("pulumi-dynamic-host conformance ")) out.push(line.replace(/\s+#.*$/, ""));
  }
  return out;
}

/** Pulumi's Python launcher script, from the Go module cache (scripts/engine.sh fetched the SDK module with the engine). */
function pulumiPythonLauncher(): string {
  const cache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
  const sdk = path.join(cache, "github.com/pulumi/pulumi/sdk");
  const found = (fs.existsSync(sdk) ? fs.readdirSync(sdk) : [])
    .filter((d) => /^v3@v[\d.]+$/.test(d))
    .map((d) => path.join(sdk, d, "python/dist/pulumi-resource-pulumi-python"))
    .filter((f) => fs.existsSync(f))
    .sort();
  if (found.length === 0) throw new Error(`no Pulumi Python launcher script under ${sdk}: run bash scripts/setup.sh --engine`);
  return found[found.length - 1];
}

const OLD_SDK = "3.248.0";
const PINNED_SDK = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).devDependencies["@pulumi/pulumi"] as string;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `line` through sh in `cwd`, the checkout's bin first on PATH. */
function sh(line: string, cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    const PATH = [path.join(REPO, "bin"), path.dirname(process.execPath), process.env.PATH].join(path.delimiter);
    const child = spawn("sh", ["-c", line], { cwd, env: { ...process.env, PATH } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Exit 0, the summary saying it conforms; the report shown on failure. */
function expectConforms(r: Ran, line: string): void {
  // The failed cases with what differed (a line at the margin starts each case), then the summary.
  const failed: string[] = [];
  let inFailure = false;
  for (const l of r.stdout.split("\n")) {
    if (!l.startsWith(" ")) inFailure = l.startsWith("fail ");
    if (inFailure) failed.push(l);
  }
  const shown = `${line}\n${r.stdout.split("\n").slice(0, 2).join("\n")}\n${failed.join("\n").slice(0, 8000)}\n${r.stdout.trimEnd().split("\n").pop()}\n${r.stderr.slice(-3000)}`;
  expect(r.code, shown).to.equal(0);
  expect(r.stdout, shown).to.match(/ 0 fail(, \d+ not run [^\n]*)? — conforms\n$/);
}

describe("the conformance commands of README.md and docs/conformance.md, run as written", function () {
  this.timeout(40 * 60 * 1000);
  let root: string;
  const nodeProjects: Record<string, string> = {};
  let pythonProject: string;

  before(function () {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "kit-readme-")));
    for (const [version, modules] of [
      [PINNED_SDK, path.join(REPO, "node_modules")],
      [OLD_SDK, path.join(REPO, `.cache/sdk-nodejs-${OLD_SDK}/node_modules`)],
    ]) {
      const sdk = path.join(modules, "@pulumi/pulumi");
      expect(JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8")).version, `${sdk} (bash scripts/setup.sh --tests)`).to.equal(version);
      const dir = path.join(root, `node-${version}`);
      fs.mkdirSync(path.join(dir, "my-host"), { recursive: true });
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "kit-readme", private: true }));
      fs.symlinkSync(modules, path.join(dir, "node_modules"));
      // "node ./my-host/plugin.js": here, Pulumi's own Node plugin of the project's SDK.
      fs.symlinkSync(path.join(sdk, "cmd/dynamic-provider/index.js"), path.join(dir, "my-host/plugin.js"));
      nodeProjects[version] = dir;
    }
    pythonProject = path.join(root, "python");
    fs.mkdirSync(path.join(pythonProject, "bin"), { recursive: true });
    fs.writeFileSync(path.join(pythonProject, "Pulumi.yaml"), "name: kit-readme\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n");
    fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(pythonProject, "venv"));
    fs.symlinkSync(fs.realpathSync(path.dirname(path.dirname(OTHER_PYTHON))), path.join(root, "venv-other"));
    fs.symlinkSync(OUR_PYTHON_PLUGIN, path.join(pythonProject, "bin/pulumi-resource-pulumi-python"));
    for (const name of ["my-plugin", "pulumi-resource-pulumi-python"]) {
      fs.copyFileSync(pulumiPythonLauncher(), path.join(pythonProject, name));
      fs.chmodSync(path.join(pythonProject, name), 0o755);
    }
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const commands = [...commandsOf("README.md").map((c) => ["README.md", c]), ...commandsOf("docs/conformance.md").map((c) => ["docs/conformance.md", c])];

  it("the documents hold the commands this suite runs", function () {
    expect(commandsOf("README.md")).to.have.length(3);
    expect(commandsOf("docs/conformance.md").length).to.be.at.least(2);
  });

  for (const [doc, line] of commands) {
    if (line.includes("--language nodejs")) {
      for (const version of [PINNED_SDK, OLD_SDK]) {
        it(`${doc}, with @pulumi/pulumi ${version}: ${line}`, async function () {
          const cwd = nodeProjects[version];
          fs.rmSync(path.join(cwd, "conformance.xml"), { force: true });
          const r = await sh(line, cwd);
          expectConforms(r, line);
          // The header names the release the expectations were recorded with, and the one the plugin is judged as.
          expect(r.stdout.split("\n")[1]).to.equal(`expectations recorded with @pulumi/pulumi ${PINNED_SDK}; the plugin is judged as @pulumi/pulumi ${version} (the SDK it is run from)`);
          if (line.includes("--junit conformance.xml")) expect(fs.readFileSync(path.join(cwd, "conformance.xml"), "utf8")).to.include("<testsuites ");
        });
      }
    } else {
      it(`${doc}: ${line}`, async function () {
        expectConforms(await sh(line, pythonProject), line);
      });
    }
  }
});
