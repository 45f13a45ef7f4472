// What every part of `npm run platforms` shares: checks that pass or fail
// loudly (a missing tool is a failure that says how to get it, never a skip),
// the tools installed from Debian's packages when missing (as root), the
// release files unpacked, and a Node project with the pinned @pulumi/pulumi,
// cached under ~/.cache/pulumi-dynamic-host/platforms/.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot } from "../release/node-binaries.mjs";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const RELEASE = path.join(ROOT, "dist/release");
export const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
export const CACHE = path.join(cacheRoot(), "platforms");
export const say = (m) => process.stderr.write(`platforms: ${m}\n`);

export const results = [];

/** Runs one check: its name, PASS or FAIL with what was seen, and its time. */
export async function check(part, name, fn) {
  const started = Date.now();
  let ok = true;
  let detail;
  try {
    detail = await fn();
  } catch (err) {
    ok = false;
    detail = err instanceof Error ? err.message : String(err);
  }
  const seconds = (Date.now() - started) / 1000;
  results.push({ part, name, ok, detail, seconds });
  process.stdout.write(`${ok ? "PASS" : "FAIL"} ${part}: ${name} (${seconds.toFixed(1)} s)${detail ? `\n     ${String(detail).split("\n").join("\n     ")}` : ""}\n`);
  return ok;
}

export function expect(cond, message) {
  if (!cond) throw new Error(message);
}

/** A command's result, with a time limit; never throws. */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 30 * 60 * 1000, maxBuffer: 256 << 20, ...opts });
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}

export const which = (cmd) => run("sh", ["-c", `command -v "$1"`, "sh", cmd]).stdout.trim() || undefined;

let updated = false;
/**
 * Debian packages, installed when `ok()` says they are missing, as root; any
 * other user is told the command. `before` runs first (dpkg --add-architecture).
 */
export function needPackages(what, packages, ok, before) {
  if (ok()) return;
  const command = `apt-get install -y --no-install-recommends ${packages.join(" ")}`;
  if (process.getuid?.() !== 0 || !which("apt-get")) throw new Error(`${what} is missing: as root, ${before ? `${before.join(" ")} && apt-get update && ` : ""}${command}`);
  say(`installing ${what}: ${command}`);
  if (before) execFileSync(before[0], before.slice(1));
  if (!updated || before) execFileSync("apt-get", ["update", "-qq"], { stdio: ["ignore", "ignore", "inherit"] });
  updated = true;
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages], { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (!ok()) throw new Error(`${what} is still missing after ${command}`);
}

/** A release file of this version, by target id and suffix; fails naming what to build. */
export function releaseFile(id, suffix) {
  const file = path.join(RELEASE, `pulumi-dynamic-host-${pkg.version}-${id}${suffix}`);
  if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: run npm run dist -- --all`);
  return file;
}

/** The archive of `id` unpacked in a fresh temporary directory: its top folder. */
export function unpack(id) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pdh-platforms-${id}-`));
  process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  if (id.startsWith("windows")) execFileSync("python3", ["-m", "zipfile", "-e", releaseFile(id, ".zip"), dir]);
  else execFileSync("tar", ["-xzf", releaseFile(id, ".tar.gz"), "-C", dir]);
  return path.join(dir, `pulumi-dynamic-host-${pkg.version}-${id}`);
}

/**
 * A TypeScript Pulumi project with the repository's pinned @pulumi/pulumi
 * (package.json's devDependencies), installed once and kept: what `doctor`
 * and the conformance kit's Node mode run in.
 */
export function nodeProject() {
  const version = pkg.devDependencies["@pulumi/pulumi"];
  const dir = path.join(CACHE, `node-project-${version}`);
  if (fs.existsSync(path.join(dir, ".complete"))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: platforms\nruntime: nodejs\n");
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "platforms", private: true, main: "index.ts" }, null, 2));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2020", module: "commonjs" }, files: ["index.ts"] }, null, 2));
  fs.writeFileSync(path.join(dir, "index.ts"), 'import * as pulumi from "@pulumi/pulumi";\nexport const stack = pulumi.getStack();\n');
  say(`installing @pulumi/pulumi@${version} in ${dir}`);
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `@pulumi/pulumi@${version}`], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  fs.writeFileSync(path.join(dir, ".complete"), "");
  return dir;
}

/**
 * The kit's JSON report from a run, checked: no case failed but those
 * `known` lists (id: why this platform or its emulation answers otherwise);
 * returns a summary naming each known failure seen, and each known one that
 * passed this time.
 */
export function conforms(r, what, known = {}) {
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new Error(`${what}: exit ${r.code ?? r.signal}, no JSON report; stderr: ${r.stderr.slice(-2000)}${r.error ? ` (${r.error.message})` : ""}`);
  }
  const failed = report.cases.filter((c) => c.status === "fail");
  const { pass, fail, deliberate, notRun } = report.counts;
  const summary = `${report.cases.length} cases: ${pass} pass, ${deliberate} deliberate, ${notRun} not run, ${fail} fail`;
  const unexpected = failed.filter((c) => !(c.id in known));
  const passedAnyway = Object.keys(known).filter((id) => report.cases.some((c) => c.id === id && c.status !== "fail"));
  const lines = unexpected.map((c) => `${c.id}: ${String(c.message ?? "").slice(0, 1500)}`);
  expect(report.cases.length > 0 && (r.code === 0 || failed.length > 0) && lines.length === 0, `${what}: exit ${r.code}; ${summary}\n${lines.join("\n")}`);
  return [
    summary,
    ...failed.map((c) => `known here: ${c.id}: ${known[c.id]}`),
    ...passedAnyway.map((id) => `known here, but passed this time: ${id}`),
  ].join("\n");
}
