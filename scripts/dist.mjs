// npm run dist [-- --all | --target ID[,ID…]]: the release files, in
// dist/release/, for this machine's platform, or for every platform
// (--all: linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64),
// and SHA256SUMS listing them:
//   pulumi-dynamic-host-<version>-<id>.tar.gz (.zip for Windows)  the single
//       executable under the names the engine and people run (layout.mjs),
//       and docs/*.md, for teams without Node;
//   pulumi_dynamic_host-<version>-py3-none-<platform>.whl  the same executable
//       once, with launchers under the other names, and the package
//       pulumi_dynamic_host with the helpers programs import (wheel.mjs).
//
// Each executable is Node's own single executable application, made from the
// pinned Node of its platform (scripts/release/targets.mjs, from the npm
// registry, cached under ~/.cache/pulumi-dynamic-host/), never the Node
// running this script (scripts/release/sea.mjs). The macOS ones are signed ad hoc
// again after injection, and the signature checked (scripts/release/macos-sign.mjs).
// docs/packaging.md describes each file; docs/platforms.md what was run where.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { hostTarget, NODE_VERSION, targetsOf } from "./release/targets.mjs";
import { hashOf, pinnedNode } from "./release/node-binaries.mjs";
import { assets, blob, bundle, files, inject } from "./release/sea.mjs";
import { signAdHoc } from "./release/macos-sign.mjs";
import { placeNames, sourceDateEpoch, tarGz, zip } from "./release/layout.mjs";
import { buildPython, wheel } from "./release/wheel.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT = path.join(ROOT, "dist/sea");
const RELEASE = path.join(ROOT, "dist/release");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
const say = (m) => process.stderr.write(`dist: ${m}\n`);
const mib = (f) => `${(fs.statSync(f).size / 2 ** 20).toFixed(1)} MiB`;

const started = Date.now();
let targets;
try {
  targets = targetsOf(process.argv.slice(2));
} catch (err) {
  say(err.message);
  process.exit(2);
}
const host = hostTarget();
if (!host) throw new Error(`no pinned Node for this machine (${process.platform}-${process.arch}) to write the preparation blob with`);

// Every Node first, so a missing download fails before anything is built.
const hostNode = pinnedNode(host, say);
const nodes = new Map(targets.map((t) => [t.id, pinnedNode(t, say)]));
say(`Node ${NODE_VERSION} for ${targets.map((t) => t.id).join(", ")} (cached under ${path.dirname(path.dirname(hostNode))})`);

await bundle(ROOT, OUT);
const blobFile = blob(OUT, assets(ROOT, OUT), hostNode);
const build = (target, node) => inject({ root: ROOT, target, node, blobFile, dir: path.join(OUT, target.id), toolNode: hostNode, say });

// This machine's executable, built even when not asked for: it is asked its
// version (a mismatch fails the build) and writes the Python plugin's
// launcher script (src/cli/install/python-launcher.ts), the same for every platform
// that has `sh`.
const hostExe = build(host, hostNode);
const version = execFileSync(hostExe, ["version"], { encoding: "utf8" }).trim();
if (version !== pkg.version) throw new Error(`the built executable says version ${JSON.stringify(version)}, expected ${pkg.version}`);
const launcherText = execFileSync(hostExe, ["python-launcher"], { encoding: "utf8" });

fs.rmSync(RELEASE, { recursive: true, force: true });
fs.mkdirSync(RELEASE, { recursive: true });
const epoch = sourceDateEpoch(ROOT);
const python = buildPython(say);
for (const target of targets) {
  const exe = target.id === host.id ? hostExe : build(target, nodes.get(target.id));
  if (target.os === "darwin") say(`${target.id}: signed ad hoc, ${signAdHoc(exe)}`);
  say(`${target.id}: single executable ${path.relative(ROOT, exe)} (${mib(exe)})`);

  const base = `pulumi-dynamic-host-${pkg.version}-${target.id}`;
  const stage = path.join(OUT, base);
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(path.join(stage, "docs"), { recursive: true });
  placeNames(target, exe, stage, launcherText);
  // The documents, to read beside the executable (which also prints them: pulumi-dynamic-host docs).
  for (const f of files(ROOT, "docs", (f) => f.endsWith(".md"))) fs.copyFileSync(path.join(ROOT, f), path.join(stage, f));
  const archive = path.join(RELEASE, `${base}${target.os === "win32" ? ".zip" : ".tar.gz"}`);
  if (target.os === "win32") zip(python, OUT, base, archive, epoch);
  else tarGz(OUT, base, archive, epoch);
  say(`${target.id}: archive ${path.relative(ROOT, archive)} (${mib(archive)})`);

  const whl = wheel({ root: ROOT, target, exe, stage: path.join(OUT, target.id, "wheel"), release: RELEASE, launcherText, version: pkg.version, epoch, python });
  say(`${target.id}: wheel ${path.relative(ROOT, whl)} (${mib(whl)})`);
}

const sums = fs
  .readdirSync(RELEASE)
  .sort()
  .map((f) => `${hashOf(path.join(RELEASE, f), "sha256", "hex")}  ${f}\n`)
  .join("");
fs.writeFileSync(path.join(RELEASE, "SHA256SUMS"), sums);
say(`SHA256SUMS: ${sums.split("\n").length - 1} files`);
say(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
