// The conformance kit as a plugin author runs it: the `pulumi-dynamic-host
// conformance` command of an installed copy, run in a FRESH project that holds
// only the SDK it tests with (Node: a package.json and `npm install
// @pulumi/pulumi`; Python: `pulumi` pip-installed in a new virtualenv, named in
// Pulumi.yaml as `pulumi new` lays it out, or activated), against our plugins
// and both references. The kit brings its own provider fixtures and their
// packages, and a case that needs what the machine lacks (a second Python) is
// `not run`, no failure: each run exits 0, ours answering every `[difference]`
// as we recorded it and the references as theirs, and its JUnit report says the same.
//
// Which copy: PULUMI_DYNAMIC_HOST_UNDER_TEST (scripts/test-installed.mjs: the
// single executable, with no node on PATH), else `npm i -g` of the packed
// package into a private prefix; from the npm run, also the wheel, pip-installed
// into the Python project's virtualenv.
import { expect } from "chai";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Language } from "../../src/conformance/case.js";
import { CASES } from "../../src/conformance/cases/index.js";
import { installsRoot, npmInstall, release } from "../helpers/installs.js";
import { OTHER_PYTHON, REPO } from "../helpers/paths.js";

interface JsonReport {
  language: Language;
  ok: boolean;
  counts: Record<string, number>;
  cases: { id: string; title: string; status: string; side: string | null; doc: string | null; message: string | null }[];
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const UNDER_TEST = process.env.PULUMI_DYNAMIC_HOST_UNDER_TEST;
/** The directory of the installed names under test. */
const kitBin = (): string => UNDER_TEST ?? npmInstall().bin;

const SDK_VERSION = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")).devDependencies["@pulumi/pulumi"] as string;
const run = (cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20, ...opts });

let nodeDir: string | undefined;
/** A fresh Node project: a package.json and `npm install @pulumi/pulumi` (the repository's pinned version), nothing else. */
function nodeProject(): string {
  if (nodeDir) return nodeDir;
  const dir = path.join(installsRoot(), "kit-node-project");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "kit-node-project", private: true }));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: kit-node-project\nruntime: nodejs\n");
  // npm runs on this node (scripts/test-installed.mjs takes node off PATH for the executable's runs).
  const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", `@pulumi/pulumi@${SDK_VERSION}`], { cwd: dir, env: { ...process.env, PATH } });
  nodeDir = dir;
  return dir;
}

/** A new virtualenv with pulumi and the dill it pins, from PyPI (the versions the repository tests with). */
function freshVenv(venv: string): string {
  run(process.env.PULUMI_DYNAMIC_HOST_PYTHON || "python3", ["-m", "venv", venv]);
  run(path.join(venv, "bin/python"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", `${REPO}test/python-requirements.txt`]);
  return venv;
}

let pythonDirs: { layout: string; venv: string; activated: string; activatedVenv: string } | undefined;
/**
 * A fresh Python project as `pulumi new` lays it out (Pulumi.yaml naming `venv` beside it), and a
 * folder with a virtualenv of its own activated instead (its bin first on PATH, VIRTUAL_ENV set).
 */
function pythonProject(): { layout: string; venv: string; activated: string; activatedVenv: string } {
  if (pythonDirs) return pythonDirs;
  const root = path.join(installsRoot(), "kit-python");
  const layout = path.join(root, "project");
  const activated = path.join(root, "activated");
  fs.mkdirSync(layout, { recursive: true });
  fs.mkdirSync(activated);
  fs.writeFileSync(path.join(layout, "Pulumi.yaml"), "name: kit-python-project\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n");
  pythonDirs = { layout, venv: freshVenv(path.join(layout, "venv")), activated, activatedVenv: freshVenv(path.join(root, "activated-venv")) };
  return pythonDirs;
}

/** The environment of a shell with the virtualenv activated. */
const activatedEnv = (venv: string): NodeJS.ProcessEnv => ({ VIRTUAL_ENV: venv, PATH: `${venv}/bin${path.delimiter}${process.env.PATH}` });

/** Runs `<bin>/pulumi-dynamic-host conformance …` in `cwd`. */
function conformance(bin: string, cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(path.join(bin, "pulumi-dynamic-host"), ["conformance", ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function parse(r: Ran): JsonReport {
  try {
    return JSON.parse(r.stdout) as JsonReport;
  } catch {
    throw new Error(`conformance --json did not print JSON (exit ${r.code}): ${r.stdout.slice(0, 2000)} ${r.stderr.slice(0, 2000)}`);
  }
}

const DRIFT = "python/version-drift/python-version-drift";

/**
 * Every case of the language reported, none failed; a [difference] answered as `side` recorded it;
 * only the cases in `notRun` not run, each saying what it needs.
 */
function expectConforms(report: JsonReport, language: Language, side: "ours" | "reference", notRun: readonly string[] = []): void {
  const failed = report.cases.filter((c) => c.status === "fail");
  expect(failed, JSON.stringify(failed, null, 2)).to.deep.equal([]);
  expect(report.cases.map((c) => c.id)).to.deep.equal(CASES.filter((c) => c.language === language).map((c) => c.id));
  const byId = new Map(report.cases.map((c) => [c.id, c]));
  for (const c of report.cases.filter((x) => x.status === "not run")) {
    expect(notRun, `${c.id} was not run: ${c.message}`).to.include(c.id);
    expect(c.message, c.id).to.match(/^needs \S/);
  }
  for (const c of CASES.filter((x) => x.language === language && !notRun.includes(x.id))) {
    const got = byId.get(c.id)!;
    if (!c.difference) expect(got.status, `${c.id}: ${got.message}`).to.equal("pass");
    // A [difference] row shows the difference; another row of a difference may be one both records allow.
    else if (c.title.includes("[difference]")) expect({ id: c.id, status: got.status, side: got.side }).to.deep.equal({ id: c.id, status: "deliberate", side });
    else expect(["pass", `deliberate ${side}`], c.id).to.include(got.status === "pass" ? "pass" : `${got.status} ${got.side}`);
  }
  expect(report.ok).to.equal(true);
}

/** The JUnit report holds one <testcase> per case, with the counts of the JSON report. */
function expectJunit(file: string, report: JsonReport): void {
  const xml = fs.readFileSync(file, "utf8");
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).to.equal(true);
  const head = /<testsuites [^>]*tests="(\d+)" failures="(\d+)" errors="0" skipped="(\d+)"/.exec(xml);
  expect(head?.slice(1).map(Number)).to.deep.equal([report.cases.length, report.counts.fail, report.counts.notRun]);
  expect(xml.match(/<testcase /g)?.length).to.equal(report.cases.length);
  expect(xml.match(/<failure /g)?.length ?? 0).to.equal(report.counts.fail);
  expect(xml.match(/<skipped message="not run: needs /g)?.length ?? 0).to.equal(report.counts.notRun);
  expect(xml.match(/<property name="deliberate" /g)?.length ?? 0).to.equal(report.counts.deliberate);
  expect(xml.trimEnd().endsWith("</testsuites>")).to.equal(true);
}

describe(`the conformance kit in a fresh user project, ${UNDER_TEST ? `from ${path.basename(UNDER_TEST)}` : "installed with npm i -g"}`, function () {
  this.timeout(30 * 60 * 1000);

  describe("Node: a project with only @pulumi/pulumi", function () {
    const reference = () => `${process.execPath} ${path.join(nodeProject(), "node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js")}`;

    it("Pulumi's own Node plugin conforms: exit 0, every deliberate difference reported as the reference's behaviour; the JUnit report says so", async function () {
      const junit = path.join(nodeProject(), "..", "kit-node-reference.xml");
      const r = await conformance(kitBin(), nodeProject(), ["--plugin", reference(), "--language", "nodejs", "--json", "--junit", junit]);
      const report = parse(r);
      expectConforms(report, "nodejs", "reference");
      expectJunit(junit, report);
      expect(r.code, r.stderr).to.equal(0);
    });

    it("our Node plugin conforms: exit 0, every deliberate difference answered as we recorded it; the kit left nothing in the project", async function () {
      const before = fs.readdirSync(nodeProject()).sort();
      const r = await conformance(kitBin(), nodeProject(), ["--plugin", path.join(kitBin(), "pulumi-resource-pulumi-nodejs"), "--language", "nodejs", "--json"]);
      expectConforms(parse(r), "nodejs", "ours");
      expect(r.code, r.stderr).to.equal(0);
      expect(fs.readdirSync(nodeProject()).sort()).to.deep.equal(before);
    });
  });

  describe("Python: pulumi in a fresh virtualenv", function () {
    it("our Python plugin conforms in the layout `pulumi new` makes (virtualenv: venv)", async function () {
      const { layout } = pythonProject();
      const r = await conformance(kitBin(), layout, ["--plugin", path.join(kitBin(), "pulumi-resource-pulumi-python"), "--language", "python", "--json"]);
      const report = parse(r);
      // Whether a second CPython minor with pulumi is where the kit and the plugin look (beside the venv, uv,
      // PATH, pyenv) is the machine's: here, none usually is (test/conformance/verdicts.test.ts makes a case need one).
      const drift = report.cases.find((c) => c.id === DRIFT)!;
      expectConforms(report, "python", "ours", drift.status === "not run" ? [DRIFT] : []);
      expect(r.code, r.stderr).to.equal(0);
    });

    it("Pulumi's Python plugin conforms in that layout; the JUnit report says so", async function () {
      const { layout } = pythonProject();
      const junit = path.join(layout, "..", "kit-python-reference.xml");
      const r = await conformance(kitBin(), layout, ["--plugin", "reference", "--language", "python", "--json", "--junit", junit]);
      const report = parse(r);
      const drift = report.cases.find((c) => c.id === DRIFT)!;
      expectConforms(report, "python", "reference", drift.status === "not run" ? [DRIFT] : []);
      expectJunit(junit, report);
      expect(r.code, r.stderr).to.equal(0);
    });

    for (const [who, side] of [["our Python plugin", "ours"], ["Pulumi's Python plugin", "reference"]] as const) {
      it(`${who}, the virtualenv activated, a second Python named with --other-python: the version-drift case runs, answered as ${side === "ours" ? "we" : "it"} recorded`, async function () {
        const { activated, activatedVenv } = pythonProject();
        const plugin = side === "ours" ? path.join(kitBin(), "pulumi-resource-pulumi-python") : "reference";
        const only = ["python/version-drift/", "python/startup/"];
        const reports = [];
        for (const o of only) {
          const r = await conformance(kitBin(), activated, ["--plugin", plugin, "--language", "python", "--json", "--only", o, "--other-python", OTHER_PYTHON], activatedEnv(activatedVenv));
          expect(r.code, `${o}: ${r.stdout.slice(0, 3000)} ${r.stderr}`).to.equal(0);
          reports.push(...parse(r).cases);
        }
        expect(reports.filter((c) => c.status === "fail" || c.status === "not run")).to.deep.equal([]);
        expect(reports.find((c) => c.id === DRIFT)).to.include({ status: "deliberate", side });
      });
    }

    it("our Python plugin beside the reference (--reference), activated: a table with a line per case and the summary, exit 0", async function () {
      const { activated, activatedVenv } = pythonProject();
      const only = "python/startup/";
      const ours = path.join(kitBin(), "pulumi-resource-pulumi-python");
      const r = await conformance(kitBin(), activated, ["--plugin", ours, "--reference", "reference", "--language", "python", "--only", only], activatedEnv(activatedVenv));
      const n = CASES.filter((c) => c.language === "python" && c.id.startsWith(only)).length;
      expect(n).to.be.greaterThan(5);
      expect(r.stdout.split("\n")[0]).to.equal(`conformance (python): ${ours} side by side with the reference reference (python -m pulumi.dynamic)`);
      expect(r.stdout.split("\n").filter((l) => /^(pass|deliberate \(ours\)) +python\/startup\/\S+ /.test(l))).to.have.length(n);
      expect(r.stdout).to.match(new RegExp(`\\n${n} cases: \\d+ pass, \\d+ deliberate \\(answered as recorded\\), 0 fail — conforms\\n$`));
      expect(r.code, r.stderr).to.equal(0);
    });
  });

  if (!UNDER_TEST) {
    it("from the wheel, pip-installed in the project's virtualenv: the kit runs our Python plugin's check cases, exit 0", async function () {
      const { layout, venv } = pythonProject();
      run(path.join(venv, "bin/python"), ["-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check", release().wheel]);
      const bin = path.join(venv, "bin");
      const r = await conformance(bin, layout, ["--plugin", path.join(bin, "pulumi-resource-pulumi-python"), "--language", "python", "--only", "python/check/", "--json"]);
      const report = parse(r);
      expect(report.cases.length).to.equal(CASES.filter((c) => c.id.startsWith("python/check/")).length);
      expect(report.cases.filter((c) => c.status !== "pass" && c.status !== "deliberate")).to.deep.equal([]);
      expect(r.code, r.stderr).to.equal(0);
    });
  }

  it("a plugin that does not conform fails with exit 1, naming the case and the difference", async function () {
    // The Node reference judged against the Python table: it cannot load a Python payload.
    const { layout } = pythonProject();
    const r = await conformance(kitBin(), layout, ["--plugin", `${process.execPath} ${path.join(nodeProject(), "node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js")}`, "--language", "python", "--only", "python/check/", "--json"]);
    const report = parse(r);
    expect(r.code).to.equal(1);
    expect(report.ok).to.equal(false);
    const failed = report.cases.filter((c) => c.status === "fail");
    expect(failed.length).to.be.greaterThan(0);
    for (const c of failed) expect(c.message, c.id).to.be.a("string").and.not.equal("");
  });

  it("a Node project without @pulumi/pulumi: exit 2, saying what to install", async function () {
    const dir = fs.mkdtempSync(path.join(installsRoot(), "kit-empty-"));
    const r = await conformance(kitBin(), dir, ["--plugin", path.join(kitBin(), "pulumi-resource-pulumi-nodejs"), "--language", "nodejs"]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include("@pulumi/pulumi is not installed where the conformance kit runs");
    expect(r.stderr).to.include("npm install @pulumi/pulumi");
  });

  it("bad arguments: exit 2 with what is wrong and the usage", async function () {
    const r = await conformance(kitBin(), installsRoot(), ["--language", "cobol", "--plugin", "x"]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/^pulumi-dynamic-host conformance: --language must be nodejs or python, not "cobol"\nusage: pulumi-dynamic-host conformance /);
  });
});
