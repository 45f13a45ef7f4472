// The wheel of each target: packaging/python/ (a hatchling project) staged
// with the target's scripts (layout.mjs, wheelScripts) and the helpers
// programs import (pulumi_dynamic_host.reference and .declared, whose one
// source is python-stub/helper/), built by `pip wheel` with a pinned
// hatchling in a build virtualenv cached under ~/.cache, and tagged for the
// target's platform (wheelPlatform).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { cacheRoot } from "./node-binaries.mjs";
import { readMachO } from "./macho.mjs";
import { wheelScripts } from "./layout.mjs";

const HATCHLING = "hatchling==1.33.0";
/** The helpers' one source: every module here goes into the wheel's package (reference.py, declared.py). */
const HELPERS = "python-stub/helper/pulumi_dynamic_host";
const MACHINE = { x64: "x86_64", arm64: "aarch64" };

/**
 * The wheel's platform tag, read from the executable: on Linux the newest
 * glibc symbol version it needs gives manylinux_2_<N>; on macOS its
 * LC_BUILD_VERSION's minimum macOS gives macosx_<major>_<minor>; Windows x64
 * is win_amd64.
 */
export function wheelPlatform(target, exe) {
  if (target.os === "linux") {
    const text = fs.readFileSync(exe).toString("latin1");
    let minor = 17;
    for (const m of text.matchAll(/GLIBC_2\.(\d+)/g)) minor = Math.max(minor, Number(m[1]));
    return `manylinux_2_${minor}_${MACHINE[target.arch]}`;
  }
  if (target.os === "darwin") {
    const { minos, cpu } = readMachO(fs.readFileSync(exe));
    if (!minos) throw new Error(`${exe}: no LC_BUILD_VERSION, so no minimum macOS for the wheel's tag`);
    return `macosx_${minos.replace(".", "_")}_${cpu}`;
  }
  if (target.os === "win32" && target.arch === "x64") return "win_amd64";
  throw new Error(`no wheel platform tag for ${target.id}`);
}

/** The Python that runs the build: $PULUMI_DYNAMIC_HOST_PYTHON, else python3. */
export const buildPythonCommand = () => process.env.PULUMI_DYNAMIC_HOST_PYTHON || "python3";

/** A virtualenv with the pinned build backend, cached under ~/.cache and rebuilt when missing. */
export function buildPython(say) {
  const venv = path.join(cacheRoot(), `wheel-build-${HATCHLING.replace(/[^a-z0-9.]/gi, "-")}`);
  if (!fs.existsSync(path.join(venv, ".complete"))) {
    say(`creating ${venv} (${HATCHLING})`);
    fs.rmSync(venv, { recursive: true, force: true });
    execFileSync(buildPythonCommand(), ["-m", "venv", venv], { stdio: ["ignore", "inherit", "inherit"] });
    execFileSync(path.join(venv, "bin/python"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", HATCHLING], { stdio: ["ignore", "inherit", "inherit"] });
    fs.writeFileSync(path.join(venv, ".complete"), "");
  }
  return path.join(venv, "bin/python");
}

/** The target's wheel in `release`, built from `stage` (which it creates). */
export function wheel({ root, target, exe, stage, release, launcherText, version, epoch, python }) {
  fs.rmSync(stage, { recursive: true, force: true });
  fs.cpSync(path.join(root, "packaging/python"), stage, { recursive: true });
  // The helpers' one source is the worker's copy; the wheel's package holds each as its module.
  for (const f of fs.readdirSync(path.join(root, HELPERS)).filter((f) => f.endsWith(".py"))) {
    fs.copyFileSync(path.join(root, HELPERS, f), path.join(stage, "pulumi_dynamic_host", f));
  }
  const scripts = path.join(stage, "scripts");
  fs.mkdirSync(scripts);
  wheelScripts(root, target, exe, scripts, launcherText);
  // The scripts table lists this target's files (with .exe and .cmd on Windows).
  const pyproject = path.join(stage, "pyproject.toml");
  const table = fs
    .readdirSync(scripts)
    .sort()
    .map((f) => `"scripts/${f}" = "${f}"`)
    .join("\n");
  const text = fs.readFileSync(pyproject, "utf8");
  const scriptsTable = /(\[tool\.hatch\.build\.targets\.wheel\.shared-scripts\]\n)(?:"[^\n]*\n)+/;
  if (!scriptsTable.test(text)) throw new Error("packaging/python/pyproject.toml: no shared-scripts table to fill");
  fs.writeFileSync(pyproject, text.replace(scriptsTable, `$1${table}\n`));
  const platform = wheelPlatform(target, exe);
  const before = new Set(fs.readdirSync(release));
  execFileSync(python, ["-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--disable-pip-version-check", "-w", release, stage], {
    env: { ...process.env, PULUMI_DYNAMIC_HOST_VERSION: version, PULUMI_DYNAMIC_HOST_WHEEL_PLATFORM: platform, SOURCE_DATE_EPOCH: String(epoch) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const built = fs.readdirSync(release).filter((f) => f.endsWith(".whl") && !before.has(f));
  if (built.length !== 1 || !built[0].endsWith(`-${platform}.whl`)) throw new Error(`expected one ${platform} wheel in ${release}, found ${built.join(", ") || "none"}`);
  return path.join(release, built[0]);
}
