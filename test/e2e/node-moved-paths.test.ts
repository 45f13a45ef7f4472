// The real engine and a real pnpm project whose dependency moves under the
// state (issue 19, pulumi#9085, #18976). The project (test/e2e/pnpm-program,
// its lockfile committed) is installed with pnpm into a checkout; its own
// @pulumi/pulumi (3.250.0, the last SDK that writes pnpm store paths)
// serializes a provider that captures `ms`, so the state's __provider holds
// require(".pnpm/ms@2.1.1/node_modules/ms/index.js"). The checkout is then
// moved to another directory and ms bumped with `pnpm update`; refresh and
// destroy run the state's code. Under our plugin they succeed, with a warning
// under the resource naming both paths and versions; under Pulumi's own
// plugin the same steps fail with `Cannot find module`.
import { expect } from "chai";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REFERENCE_NODE_PLUGIN, REPO } from "../helpers/paths.js";
import { E2E_ROOT, prepareEngine, prepareReferenceEngine, sandbox, type Sandbox } from "./harness.js";

/** pnpm, pinned, as scripts/setup.sh installs it. */
const PNPM = `${REPO}.cache/pnpm/node_modules/.bin/pnpm`;
/** pnpm's content-addressed store: a cache (pnpm fetches what it lacks from the registry). */
const PNPM_STORE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-dynamic-host", "pnpm-store");
const FIXTURE = `${REPO}test/e2e/pnpm-program`;
const OLD_PATH = ".pnpm/ms@2.1.1/node_modules/ms/index.js";
/** process.argv[1] of a provider our plugin runs: the name the engine ran. */
const OURS = `${E2E_ROOT}/bin/pulumi-resource-pulumi-nodejs`;

type Event = Record<string, any>;

interface Operation {
  operation: string;
  events: Event[];
  summary?: Record<string, any>;
  error?: { name: string; message: string };
  resources: Record<string, any>[];
}

function pnpm(cwd: string, ...args: string[]): void {
  execFileSync(PNPM, [...args, "--store-dir", PNPM_STORE, "--prefer-offline", "--config.confirmModulesPurge=false"], {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, CI: "true" },
  });
}

/** A checkout of the pnpm program at `dir`, installed from its lockfile. */
function checkout(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ["package.json", "pnpm-lock.yaml", "driver.cjs"]) fs.copyFileSync(path.join(FIXTURE, f), path.join(dir, f));
  pnpm(dir, "install", "--frozen-lockfile");
}

/**
 * The checkout moved to `to`, and ms bumped there. pnpm keeps a package it no
 * longer needs in node_modules/.pnpm for a week (modulesCacheMaxAge); 0 gives
 * now what a week later, a clean install or a CI runner's fresh clone gives.
 */
function moveAndBump(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.renameSync(from, to);
  pnpm(to, "update", "ms@2.1.2", "--config.modules-cache-max-age=0");
}

function drive(sb: Sandbox, dir: string, stackName: string, operation: string, root: string): Promise<Operation> {
  const settings = { root, stackName, home: sb.home, backend: sb.backend, env: sb.env };
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_")));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["driver.cjs", operation, JSON.stringify(settings)], { cwd: dir, env, encoding: "utf8", maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`driver ${operation}: ${err.message}\n${stderr}`));
      const doc = JSON.parse(stdout);
      if (doc.driverError) return reject(new Error(`driver ${operation}: ${doc.driverError}\n${stderr}`));
      resolve(doc);
    });
  });
}

function diagnostics(op: Operation): Event[] {
  return op.events.filter((e) => e.diagnosticEvent).map((e) => e.diagnosticEvent);
}

function timeout(op: Operation): Record<string, any> | undefined {
  return op.resources.find((r) => r.urn.endsWith("::timeout"));
}

/** The error the engine shows under the resource, and whether the operation failed. */
function resourceError(op: Operation): string | undefined {
  expect(op.error, `${op.operation} fails`).to.not.equal(undefined);
  return diagnostics(op).find((d) => d.severity === "error" && d.urn?.endsWith("::timeout"))?.message;
}

describe("end to end (Node): a pnpm project moved and bumped under its state", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-pnpm");
  });
  after(function () {
    sb?.cleanup();
  });

  it("under our plugin: refresh and destroy load the program's ms 2.1.2 instead, with one warning under the resource", async function () {
    const first = path.join(sb.dir, "ours", "checkout");
    const moved = path.join(sb.dir, "ours", "elsewhere", "checkout");
    checkout(first);
    const up = await drive(sb, first, "ours", "up", E2E_ROOT);
    expect(up.error, "up").to.equal(undefined);
    const created = timeout(up)!;
    // What the SDK a pnpm user has writes: the store path, version and all.
    expect(created.outputs.__provider).to.include(`require("${OLD_PATH}")`);
    expect(created.outputs).to.include({ millis: 172800000, ranBy: OURS });

    moveAndBump(first, moved);
    expect(fs.existsSync(path.join(moved, "node_modules", OLD_PATH)), "the old store path is gone").to.equal(false);

    const refresh = await drive(sb, moved, "ours", "refresh", E2E_ROOT);
    expect(refresh.error, "refresh").to.equal(undefined);
    expect(timeout(refresh)!.outputs).to.include({ millis: 172800000, ranBy: OURS });
    const warning =
      `the dynamic provider requires ${OLD_PATH}, which does not exist here; it was loaded from the program's ms instead, ` +
      `${moved}/node_modules/.pnpm/ms@2.1.2/node_modules/ms/index.js: ms 2.1.1 there, 2.1.2 here. ` +
      "Running `pulumi up` records the provider with the paths of this checkout";
    const warnings = (op: Operation) => diagnostics(op).filter((d) => d.severity === "warning");
    expect(warnings(refresh).map((d) => [d.urn.split("::").pop(), d.message.trim()])).to.deep.equal([["timeout", warning]]);
    expect(diagnostics(refresh).filter((d) => d.severity !== "warning" && d.severity !== "debug")).to.deep.equal([]);

    const destroy = await drive(sb, moved, "ours", "destroy", E2E_ROOT);
    expect(destroy.error, "destroy").to.equal(undefined);
    expect(destroy.summary!.resourceChanges.delete).to.equal(2);
    expect(destroy.resources).to.deep.equal([]);
    expect(warnings(destroy).map((d) => [d.urn.split("::").pop(), d.message.trim()])).to.deep.equal([["timeout", warning]]);
  });

  it("under Pulumi's own plugin: the same refresh and destroy fail with Cannot find module", async function () {
    const root = prepareReferenceEngine();
    const first = path.join(sb.dir, "reference", "checkout");
    const moved = path.join(sb.dir, "reference", "elsewhere", "checkout");
    checkout(first);
    const up = await drive(sb, first, "reference", "up", root);
    expect(up.error, "up").to.equal(undefined);
    expect(timeout(up)!.outputs).to.include({ millis: 172800000, ranBy: REFERENCE_NODE_PLUGIN });

    moveAndBump(first, moved);

    // Node's own error from the reference's require-from-string, under the resource; the full trace under the stack.
    const missing = `Cannot find module '${OLD_PATH}'\nRequire stack:\n- \n- ${fs.realpathSync(REFERENCE_NODE_PLUGIN)}`;
    const refresh = await drive(sb, moved, "reference", "refresh", root);
    expect(resourceError(refresh)).to.equal(`${missing}\n`);
    const destroy = await drive(sb, moved, "reference", "destroy", root);
    expect(resourceError(destroy)).to.equal(`${missing}\n`);
    // The resource is stuck in the state.
    expect(timeout(destroy)).to.not.equal(undefined);
  });
});
