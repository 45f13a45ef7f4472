// The real engine for end-to-end tests: the pulumi CLI built by
// scripts/engine.sh (cached under ~/.cache), laid out so that the engine
// resolves both dynamic-provider plugins to our host — the CLI (a hard link,
// or a copy) and links to our two plugin files (as `install` places them: the
// Python one is its launcher, which starts the worker beside the host) in
// one directory, first on PATH, so the $PATH and "next to pulumi" lookups agree
// and the engine prints no "using … from $PATH" warning — and an offline
// environment: file backend, passphrase secrets, private PULUMI_HOME, no update
// check, no plugin downloads.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { OUR_PLUGIN_DIR, REFERENCE_NODE_PLUGIN, REPO, VENV_PYTHON } from "../helpers/paths.js";

export const E2E_ROOT = `${REPO}.cache/e2e`;
export const E2E_BIN = `${E2E_ROOT}/bin`;
/** The host under test: the checkout's, or an installed copy (PULUMI_DYNAMIC_HOST_UNDER_TEST, test/helpers/paths.ts). */
export const OUR_ENTRY = `${OUR_PLUGIN_DIR}/pulumi-dynamic-host`;
export const PASSPHRASE = "correct horse battery staple";

let prepared: string | undefined;

/** Builds (or reuses) the engine and lays out .cache/e2e/bin; returns the engine's own bin directory. */
export function prepareEngine(): string {
  if (prepared) return prepared;
  const built = execFileSync("bash", [`${REPO}scripts/engine.sh`], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
  fs.mkdirSync(E2E_BIN, { recursive: true });
  placeCli(built, E2E_BIN);
  for (const name of ["pulumi-resource-pulumi-nodejs", "pulumi-resource-pulumi-python"]) {
    const link = path.join(E2E_BIN, name);
    fs.rmSync(link, { force: true });
    fs.symlinkSync(`${OUR_PLUGIN_DIR}/${name}`, link);
  }
  prepared = built;
  return built;
}

/** The engine's CLI in `bin` (a hard link, or a copy across file systems). */
function placeCli(built: string, bin: string): void {
  const cli = path.join(bin, "pulumi");
  fs.rmSync(cli, { force: true });
  try {
    fs.linkSync(path.join(built, "pulumi"), cli);
  } catch {
    fs.copyFileSync(path.join(built, "pulumi"), cli);
    fs.chmodSync(cli, 0o755);
  }
}

/** Pulumi YAML's language host next to pulumi, as an installed CLI has it (no "using … from $PATH" warning). */
export function placeYamlHost(): void {
  prepareEngine();
  const yamlHost = execFileSync("bash", [`${REPO}scripts/go-program.sh`, "yaml-host", "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
  fs.rmSync(`${E2E_BIN}/pulumi-language-yaml`, { force: true });
  fs.copyFileSync(yamlHost, `${E2E_BIN}/pulumi-language-yaml`);
  fs.chmodSync(`${E2E_BIN}/pulumi-language-yaml`, 0o755);
}

export const REFERENCE_ROOT = `${REPO}.cache/e2e-reference`;

/**
 * The same engine with Pulumi's own plugins under both names (the Node one run
 * by this node, the Python one in the test virtualenv, as their launchers do),
 * in a directory of their own; returns the root to pass as the CLI's root.
 */
export function prepareReferenceEngine(): string {
  const built = prepareEngine();
  const bin = `${REFERENCE_ROOT}/bin`;
  fs.mkdirSync(bin, { recursive: true });
  placeCli(built, bin);
  const scripts: Record<string, string> = {
    "pulumi-resource-pulumi-nodejs": `exec "${process.execPath}" "${REFERENCE_NODE_PLUGIN}" "$@"`,
    "pulumi-resource-pulumi-python": `exec "${VENV_PYTHON}" -u -m pulumi.dynamic "$@"`,
  };
  for (const [name, line] of Object.entries(scripts)) {
    const file = path.join(bin, name);
    fs.writeFileSync(file, `#!/bin/sh\n${line}\n`, { mode: 0o755 });
  }
  return REFERENCE_ROOT;
}

/**
 * A directory holding test/e2e/language-stand-in.mjs under the language host
 * names of the e2e projects' runtimes (nodejs, python, go), to put first on
 * PATH for `pulumi import` (which asks the project's language host which
 * plugins it needs, and runs no program).
 */
export function languageStandIn(): string {
  const dir = `${E2E_ROOT}/language-stand-in`;
  fs.mkdirSync(dir, { recursive: true });
  for (const name of ["pulumi-language-nodejs", "pulumi-language-python", "pulumi-language-go"]) {
    fs.writeFileSync(path.join(dir, name), `#!/bin/sh\nexec "${process.execPath}" "${REPO}test/e2e/language-stand-in.mjs" "$@"\n`, { mode: 0o755 });
  }
  return dir;
}

export interface Sandbox {
  dir: string;
  home: string;
  backend: string;
  env: Record<string, string>;
  cleanup(): void;
}

/** A private PULUMI_HOME and file backend, and the environment every CLI run gets. */
export function sandbox(prefix: string): Sandbox {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`)));
  const home = path.join(dir, "pulumi-home");
  const backend = path.join(dir, "state");
  fs.mkdirSync(home);
  fs.mkdirSync(backend);
  const env: Record<string, string> = {
    PATH: `${E2E_BIN}:${process.env.PATH ?? ""}`,
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    // The preloader as this process has it (the tests: off unless a run turns it on, test/helpers/paths.ts;
    // the benchmarks: as users have it); programs run with PULUMI_* filtered out, so it is passed on here.
    ...(process.env.PULUMI_DYNAMIC_HOST_PRELOAD !== undefined ? { PULUMI_DYNAMIC_HOST_PRELOAD: process.env.PULUMI_DYNAMIC_HOST_PRELOAD } : {}),
  };
  return { dir, home, backend, env, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * What a Python provider's report of its host (the `whoami` of the e2e
 * programs: the host's command line, and the PULUMI_DYNAMIC_HOST_SERVE of its
 * starting environment) must show when the engine ran our Python plugin at
 * `plugin`: the launcher the engine ran passed its own path, and ran the host
 * beside it, Node on bin/launch.mjs (the npm package, the checkout), or the
 * single executable under the Node plugin's name, with the engine's address last.
 */
export function expectOurPythonHost(ranBy: { host_cmdline: string[]; launched_as?: string | null }, plugin: string, embedded = false): void {
  expect(ranBy.launched_as, "the plugin the engine ran").to.equal(plugin);
  const dir = path.dirname(fs.realpathSync(plugin));
  const [first, second] = ranBy.host_cmdline;
  if (embedded) {
    expect(fs.realpathSync(first)).to.equal(fs.realpathSync(path.join(dir, "pulumi-resource-pulumi-nodejs")));
    expect(ranBy.host_cmdline.some((a) => /(^|\/)node$/.test(a)), "no node in the host's command line").to.equal(false);
  } else {
    expect(first).to.match(/(^|\/)node$/);
    expect(fs.realpathSync(second)).to.equal(fs.realpathSync(path.join(dir, "launch.mjs")));
  }
  expect(ranBy.host_cmdline[ranBy.host_cmdline.length - 1], "the engine address, last on the command line").to.match(/^127\.0\.0\.1:\d+$/);
}

