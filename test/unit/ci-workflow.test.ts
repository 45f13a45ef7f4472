// The GitHub Actions workflows (.github/workflows; docs/platform-code.md, "CI"):
// actionlint (built by scripts/setup.sh --tests, at .cache/actionlint) finds
// nothing in them, and finds what is wrong in a broken one, so the lint can
// fail; with shellcheck on PATH it checks their run: scripts too. And every
// suite scripts/ci-suites.mjs runs on macOS or Windows exists.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO } from "../helpers/paths.js";

const ACTIONLINT = path.join(REPO, ".cache", "actionlint");
const WORKFLOWS = path.join(REPO, ".github", "workflows");

function actionlint(files: string[]): { status: number | null; out: string } {
  if (!fs.existsSync(ACTIONLINT)) throw new Error(`${ACTIONLINT} is missing: run bash scripts/setup.sh --tests, which builds actionlint with Go`);
  const r = spawnSync(ACTIONLINT, ["-no-color", ...files], { cwd: REPO, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("the GitHub Actions workflows", function () {
  it("actionlint finds nothing in .github/workflows", function () {
    const files = fs.readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f)).map((f) => path.join(WORKFLOWS, f));
    expect(files.map((f) => path.basename(f)).sort()).to.deep.equal(["ci.yml", "release.yml"]);
    const r = actionlint(files);
    expect(r.out).to.equal("");
    expect(r.status).to.equal(0);
  });

  it("actionlint fails a broken workflow, naming the mistake (and, with shellcheck on PATH, a run: script's)", function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ci-workflow-"));
    try {
      const broken = path.join(dir, "broken.yml");
      const ci = fs.readFileSync(path.join(WORKFLOWS, "ci.yml"), "utf8");
      // An exclude naming a Node the matrix does not have, and an unquoted variable in a script.
      const text = ci.replace("          - os: macos-latest\n            node: 20\n", "          - os: macos-latest\n            node: 18\n").replace("run: .ci/run", 'run: cd $RUNNER_TEMP && "$GITHUB_WORKSPACE/.ci/run"');
      expect(text).to.not.equal(ci);
      fs.writeFileSync(broken, text);
      const r = actionlint([broken]);
      expect(r.status).to.equal(1);
      expect(r.out).to.include(`value "18" in "exclude" does not match in matrix "node" combinations`);
      const shellcheck = spawnSync("shellcheck", ["--version"]).status === 0;
      if (shellcheck) expect(r.out).to.include("SC2086");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("every suite CI runs on macOS and Windows exists", async function () {
    const { suitesFor, NOT_ON_DARWIN } = (await import(pathToFileURL(path.join(REPO, "scripts", "ci-suites.mjs")).href)) as {
      suitesFor(platform: string): string[];
      NOT_ON_DARWIN: Record<string, string>;
    };
    for (const platform of ["darwin", "win32"]) {
      const suites = suitesFor(platform);
      expect(suites.length, platform).to.be.greaterThan(10);
      for (const s of suites) expect(fs.existsSync(path.join(REPO, s.replace(/^dist[\\/]/, "").replace(/\.js$/, ".ts"))), `${platform}: ${s}`).to.equal(true);
    }
    for (const name of Object.keys(NOT_ON_DARWIN)) expect(fs.existsSync(path.join(REPO, "test", "unit", `${name}.test.ts`)), name).to.equal(true);
  });
});
