// What users get, installed the way the README tells them to install it, each
// made once per test run from the current checkout:
// - the npm package: `npm pack` (its prepack builds the bundle), then
//   `npm i -g <tarball>` into a temporary prefix;
// - the release archive and the wheel of `npm run dist` (scripts/dist.mjs):
//   the archive unpacked, the wheel pip-installed into a fresh virtualenv.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO, TEST_VENV, VENV_PYTHON } from "./paths.js";

export const PLUGIN_NAMES = ["pulumi-dynamic-host", "pulumi-resource-pulumi-nodejs", "pulumi-resource-pulumi-python"] as const;
const VERSION = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")).version as string;

let scratch: string | undefined;
/** One temporary directory for every install of this run, removed when the process exits. */
export function installsRoot(): string {
  if (!scratch) {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pdh-installs-")));
    const dir = scratch;
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return scratch;
}

const run = (cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20, ...opts });

export interface NpmInstall {
  tarball: string;
  /** The files the tarball holds, as `npm pack --json` lists them (package-relative). */
  files: string[];
  prefix: string;
  /** The prefix's bin directory, where npm links the three names. */
  bin: string;
  /** The installed package's directory. */
  packageDir: string;
}

let npmInstalled: NpmInstall | undefined;
export function npmInstall(): NpmInstall {
  if (npmInstalled) return npmInstalled;
  const dir = path.join(installsRoot(), "npm");
  fs.mkdirSync(dir);
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: REPO }))[0];
  const tarball = path.join(dir, packed.filename);
  const prefix = path.join(dir, "prefix");
  // A package with no dependencies installs offline.
  run("npm", ["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", "--offline", tarball]);
  npmInstalled = {
    tarball,
    files: packed.files.map((f: { path: string }) => f.path),
    prefix,
    bin: path.join(prefix, "bin"),
    packageDir: path.join(prefix, "lib/node_modules/pulumi-dynamic-host"),
  };
  return npmInstalled;
}

let npmNodeEntryInstalled: NpmInstall | undefined;
/**
 * The same tarball installed into a prefix of its own as on Windows: with
 * PULUMI_DYNAMIC_HOST_PYTHON_ENTRY=node, the package's preinstall
 * (bin/choose-python-entry.mjs) puts the Node entry under the Python plugin's
 * name before npm links it.
 */
export function npmInstallNodeEntry(): NpmInstall {
  if (npmNodeEntryInstalled) return npmNodeEntryInstalled;
  const { tarball, files } = npmInstall();
  const prefix = path.join(installsRoot(), "npm-node-entry");
  run("npm", ["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", "--offline", tarball], {
    env: { ...process.env, PULUMI_DYNAMIC_HOST_PYTHON_ENTRY: "node" },
  });
  npmNodeEntryInstalled = { tarball, files, prefix, bin: path.join(prefix, "bin"), packageDir: path.join(prefix, "lib/node_modules/pulumi-dynamic-host") };
  return npmNodeEntryInstalled;
}

export interface Release {
  archive: string;
  wheel: string;
}

let released: Release | undefined;
/** `npm run dist`'s artifacts, built from the current checkout (the bundle must be built already). */
export function release(): Release {
  if (released) return released;
  run(process.execPath, [`${REPO}scripts/dist.mjs`], { cwd: REPO });
  const dir = `${REPO}dist/release`;
  const osName = process.platform === "darwin" ? "darwin" : process.platform;
  const archive = path.join(dir, `pulumi-dynamic-host-${VERSION}-${osName}-${process.arch}.tar.gz`);
  const wheel = fs.readdirSync(dir).find((f) => f.startsWith(`pulumi_dynamic_host-${VERSION}-py3-none-`) && f.endsWith(".whl"));
  if (!fs.existsSync(archive) || !wheel) throw new Error(`npm run dist did not make both artifacts in ${dir}`);
  released = { archive, wheel: path.join(dir, wheel) };
  return released;
}

let unpacked: string | undefined;
/** The release archive unpacked: the directory holding the three names. */
export function archiveInstall(): string {
  if (unpacked) return unpacked;
  const dir = path.join(installsRoot(), "archive");
  fs.mkdirSync(dir);
  run("tar", ["-xzf", release().archive, "-C", dir]);
  const [top] = fs.readdirSync(dir);
  unpacked = path.join(dir, top);
  return unpacked;
}

export interface WheelInstall {
  venv: string;
  /** The virtualenv's bin directory, where pip put the three names. */
  bin: string;
}

let wheelInstalled: WheelInstall | undefined;
/**
 * A fresh virtualenv with the wheel pip-installed, as a program's own
 * virtualenv would be. The program also needs pulumi and dill there: a .pth
 * file adds the test virtualenv's site-packages (installing them again from
 * PyPI would only slow the tests down).
 */
export function wheelInstall(): WheelInstall {
  if (wheelInstalled) return wheelInstalled;
  const venv = path.join(installsRoot(), "wheel-venv");
  run(VENV_PYTHON, ["-m", "venv", venv]);
  const python = path.join(venv, "bin/python");
  run(python, ["-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check", release().wheel]);
  const site = (py: string) => run(py, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).trim();
  fs.writeFileSync(path.join(site(python), "pulumi-dynamic-host-tests.pth"), `${site(`${TEST_VENV}/bin/python`)}\n`);
  wheelInstalled = { venv, bin: path.join(venv, "bin") };
  return wheelInstalled;
}

/**
 * A PATH of the given directories plus a directory of the system tools the
 * engine and the Python programs use, linked one by one, with no `node`.
 */
export function pathWithoutNode(dirs: string[]): string {
  const tools = path.join(installsRoot(), "tools-without-node");
  if (!fs.existsSync(tools)) {
    fs.mkdirSync(tools);
    for (const tool of ["sh", "bash", "env", "cat", "uname"]) {
      const found = run("bash", ["-c", `command -v ${tool} || true`]).trim();
      if (found) fs.symlinkSync(found, path.join(tools, tool));
    }
  }
  for (const d of [...dirs, tools]) {
    if (fs.existsSync(path.join(d, "node"))) throw new Error(`${d} holds a node: it cannot be on a PATH without node`);
  }
  return [...dirs, tools].join(path.delimiter);
}
