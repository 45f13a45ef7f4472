// The conformance kit as a plugin author runs it: the `pulumi-dynamic-host
// conformance` command of the INSTALLED npm package (npm pack, npm i -g into a
// temporary prefix), run in a project folder that has @pulumi/pulumi installed,
// against our plugin and against the reference plugin of every language the
// case table holds (Node: @pulumi/pulumi's cmd/dynamic-provider; Python: the
// command's `reference`, pulumi.dynamic in the interpreter its launcher picks). Each must conform (exit 0): ours answering every deliberate
// difference as we recorded it, the reference as it recorded it ("deliberate
// (reference behaviour)"); and side by side, ours beside the reference.
import { expect } from "chai";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Language } from "../src/conformance/case.js";
import { CASES } from "../src/conformance/cases/index.js";
import { npmInstall } from "./helpers/installs.js";
import { REPO, TEST_VENV } from "./helpers/paths.js";

interface JsonReport {
  language: Language;
  ok: boolean;
  counts: Record<string, number>;
  cases: { id: string; title: string; status: string; side: string | null; doc: string | null; message: string | null }[];
}

/**
 * A project as a plugin author has one: a package.json, and @pulumi/pulumi (and what the
 * scenarios need) in the node_modules it resolves from. It sits in the repository's .cache,
 * so the repository's installed packages stand in for `npm install @pulumi/pulumi sleep-promise
 * ms`, reached as a project reaches its own (no symlink on the way: row 73 compares paths).
 */
function project(): string {
  const dir = `${REPO}.cache/conformance-project`;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "conformance-project", private: true }));
  return dir;
}

/** Runs the installed command in the project; resolves with its exit code, stdout and stderr. */
function conformance(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = path.join(npmInstall().bin, "pulumi-dynamic-host");
  return new Promise((resolve) => {
    const child = spawn(bin, ["conformance", ...args], { cwd: project(), env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const LANGUAGES = [...new Set(CASES.map((c) => c.language))];

/** The plugins as a plugin author names them: installed executables and interpreter command lines. */
function commands(language: Language): { ours: string; reference: string; env: NodeJS.ProcessEnv } {
  const bin = npmInstall().bin;
  if (language === "nodejs") {
    return {
      ours: path.join(bin, "pulumi-resource-pulumi-nodejs"),
      // Pulumi's own Node plugin, as the project's @pulumi/pulumi installs it.
      reference: `${process.execPath} ${createRequire(path.join(project(), "x.js")).resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js")}`,
      env: {},
    };
  }
  // The program's virtualenv, as Pulumi.yaml's runtime option gives it to the plugin. The reference is the
  // command's keyword `reference`: `python -u -m pulumi.dynamic` in the interpreter its launcher picks per launch
  // (src/conformance/python-reference.ts), as the differential suites run it.
  return { ours: path.join(bin, "pulumi-resource-pulumi-python"), reference: "reference", env: { PULUMI_RUNTIME_VIRTUALENV: TEST_VENV } };
}

function parse(run: { code: number | null; stdout: string; stderr: string }): JsonReport {
  try {
    return JSON.parse(run.stdout) as JsonReport;
  } catch {
    throw new Error(`conformance --json did not print JSON (exit ${run.code}): ${run.stdout.slice(0, 2000)} ${run.stderr.slice(0, 2000)}`);
  }
}

/** Every case of the language reported, each passed; a [difference] answered as `side` recorded it. */
function expectConforms(report: JsonReport, language: Language, side: "ours" | "reference"): void {
  const failed = report.cases.filter((c) => c.status !== "pass" && c.status !== "deliberate");
  expect(failed, JSON.stringify(failed, null, 2)).to.deep.equal([]);
  expect(report.cases.map((c) => c.id)).to.deep.equal(CASES.filter((c) => c.language === language).map((c) => c.id));
  const byId = new Map(report.cases.map((c) => [c.id, c]));
  for (const c of CASES.filter((x) => x.language === language && x.difference)) {
    const got = byId.get(c.id)!;
    // A [difference] row shows the difference; another row of a difference may be one both records allow.
    if (c.title.includes("[difference]")) expect({ id: c.id, status: got.status, side: got.side }).to.deep.equal({ id: c.id, status: "deliberate", side });
    else expect(["pass", `deliberate ${side}`], c.id).to.include(got.status === "pass" ? "pass" : `${got.status} ${got.side}`);
  }
  for (const c of CASES.filter((x) => x.language === language && !x.difference)) expect(byId.get(c.id)!.status, c.id).to.equal("pass");
  expect(report.ok).to.equal(true);
}

describe("the conformance kit (pulumi-dynamic-host conformance), installed from the npm package", function () {
  this.timeout(30 * 60 * 1000);

  for (const language of LANGUAGES) {
    describe(language, function () {
      it("our plugin conforms: exit 0, every deliberate difference answered as we recorded it", async function () {
        const { ours, env } = commands(language);
        const run = await conformance(["--plugin", ours, "--language", language, "--json"], env);
        expectConforms(parse(run), language, "ours");
        expect(run.code, run.stderr).to.equal(0);
      });

      it("the reference plugin conforms: exit 0, every deliberate difference reported as the reference's behaviour", async function () {
        const { reference, env } = commands(language);
        const run = await conformance(["--plugin", reference, "--language", language, "--json"], env);
        expectConforms(parse(run), language, "reference");
        expect(run.code, run.stderr).to.equal(0);
      });

      // Side by side is what the differential suites do for the whole table; here one session's worth shows the mode.
      it("side by side (--reference) for one session, as a table: exit 0, a line per case and the summary", async function () {
        const { ours, reference, env } = commands(language);
        const only = `${language === "nodejs" ? "node" : "python"}/check/`;
        const run = await conformance(["--plugin", ours, "--reference", reference, "--language", language, "--only", only], env);
        const n = CASES.filter((c) => c.language === language && c.id.startsWith(only)).length;
        expect(n).to.be.greaterThan(10);
        expect(run.stdout.split("\n")[0].startsWith(`conformance (${language}): ${ours} side by side with the reference `), run.stdout.split("\n")[0]).to.equal(true);
        expect(run.stdout.split("\n").filter((l) => /^(pass|deliberate \(ours\)) +\S+\/\S+ /.test(l))).to.have.length(n);
        expect(run.stdout).to.match(new RegExp(`\\n${n} cases: \\d+ pass, \\d+ deliberate \\(answered as recorded\\), 0 fail — conforms\\n$`));
        expect(run.code, run.stderr).to.equal(0);
      });
    });
  }

  it("a plugin that does not conform fails with exit 1, naming the case and the difference", async function () {
    // The Node reference judged against the Python table: it cannot load a Python payload.
    const run = await conformance(["--plugin", commands("nodejs").reference, "--language", "python", "--only", "python/check/", "--json"], commands("python").env);
    const report = parse(run);
    expect(run.code).to.equal(1);
    expect(report.ok).to.equal(false);
    const failed = report.cases.filter((c) => c.status === "fail");
    expect(failed.length).to.be.greaterThan(0);
    for (const c of failed) expect(c.message, c.id).to.be.a("string").and.not.equal("");
  });

  it("bad arguments: exit 2 with what is wrong and the usage", async function () {
    const run = await conformance(["--language", "cobol", "--plugin", "x"], {});
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^pulumi-dynamic-host conformance: --language must be nodejs or python, not "cobol"\nusage: pulumi-dynamic-host conformance /);
  });
});
