// The suites CI runs on macOS and Windows (.github/workflows/ci.yml), where
// the whole `npm test` cannot run: it needs the engine built from Go, the
// toolchains of `setup.sh --tests`, /proc for the launcher, and sh. Linux runs
// `npm test` itself. docs/platform-code.md says what each platform leaves out
// and why; test/unit/ci-workflow.test.ts checks that every suite named here
// exists.
//
//   node scripts/ci-suites.mjs            the suites of this platform, run with mocha
//   node scripts/ci-suites.mjs --list     their files, one a line
//   node scripts/ci-suites.mjs --platform darwin --list
//
// Run after `npm run build` (the suites are the compiled dist/test/**/*.test.js).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Unit suites that cannot run on macOS, each with why. */
export const NOT_ON_DARWIN = {
  "bytecode-versions": "needs the second Python of setup.sh --tests",
  "interpreter-search": "needs the second Python of setup.sh --tests",
  doctor: "needs the second Python and the engine of setup.sh --engine --tests",
  registration: "runs the engine's plugin lookup against the pulumi of setup.sh --engine",
  prestarted: "reads the launcher's worker from /proc",
  "plugin-process": "finds the plugin's processes in /proc",
};

/**
 * The unit suites that run on Windows: in process, with no shell, symlink,
 * POSIX path or test virtualenv (the suites of the launcher's rules, e.g.
 * interpreter.test.ts, state POSIX paths and run with this system's platform;
 * their Windows branches are run on every system by the platform-* suites).
 */
export const ON_WIN32 = [
  "bag-check",
  "bounded-cache",
  "connection",
  "deadline",
  "diff",
  "drift-message",
  "error-text",
  "pickle-inspect",
  "platform-install",
  "platform-paths",
  "platform-report",
  "platform-virtualenv",
  "provider-text",
  "python-entry-choice",
  "redaction",
  "request-decode",
  "secret-inputs",
  "struct-bytes",
  "unset-value",
  "wire",
];

/** Suites outside test/unit that run on macOS: the launcher's and preloader's Python side where /proc is missing. */
export const PYTHON_ON_DARWIN = ["launcher-platform"];

/** The compiled suite files for `platform`, relative to the repository. */
export function suitesFor(platform) {
  const unit = (name) => path.join("dist", "test", "unit", `${name}.test.js`);
  if (platform === "win32") return ON_WIN32.map(unit);
  if (platform === "darwin") {
    const all = fs
      .readdirSync(path.join(REPO, "test", "unit"))
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => f.slice(0, -".test.ts".length));
    return [...all.filter((n) => !(n in NOT_ON_DARWIN)).map(unit), ...PYTHON_ON_DARWIN.map((n) => path.join("dist", "test", "python", `${n}.test.js`))];
  }
  throw new Error(`scripts/ci-suites.mjs: no subset for ${platform}; Linux runs npm test`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--platform");
  const platform = at >= 0 ? args[at + 1] : process.platform;
  let files;
  try {
    files = suitesFor(platform);
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
  if (args.includes("--list")) {
    process.stdout.write(files.join("\n") + "\n");
  } else {
    const mocha = path.join(REPO, "node_modules", "mocha", "bin", "mocha.js");
    const r = spawnSync(process.execPath, [mocha, "--no-config", "--timeout", "600000", "--exit", ...files], { cwd: REPO, stdio: "inherit" });
    process.exit(r.status ?? 1);
  }
}
