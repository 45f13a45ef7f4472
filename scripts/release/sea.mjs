// The single executable (Node's single executable applications), for any
// target from this machine: the host bundled by esbuild, the preparation blob
// written by the pinned Node of this machine (never the Node running this
// script: a blob is read only by the Node version that wrote it, and every
// target embeds the same pinned version, targets.mjs), and postject (the tool
// Node's documentation names) injecting it into a copy of the target's pinned
// Node binary.
//
// The blob's main script is src/boot/sea.ts; it loads the host's bundle for
// the name it was run by (the assets host.cjs, host-nodejs.cjs and
// host-python.cjs: src/boot/bundles.ts), with V8's code cache kept between
// starts (src/boot/code-cache.ts). The assets are the host's files
// (package.json, proto/*.proto, python-stub/**, reference/index.cjs, docs/*.md
// for `pulumi-dynamic-host docs`, the conformance kit's scenarios and packages,
// and assets.json listing them).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { copyKitPackages, HOST_ENTRIES, hostBundle, KIT_PACKAGES_DIR } from "../bundle.mjs";
import { removeMachOSignature } from "./macho.mjs";
import { removePeSignature } from "./pe.mjs";

export const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

export function files(root, dir, keep) {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true })
    .map((f) => path.posix.join(dir, f.split(path.sep).join("/")))
    .filter((f) => fs.statSync(path.join(root, f)).isFile() && keep(f))
    .sort();
}

/** The host's bundles and the main script, in `out`. */
export async function bundle(root, out) {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const host = hostBundle("process.execPath");
  await Promise.all([
    // The npm package's host bundle (scripts/bundle.mjs), with the embedded assets and the executable's URL for import.meta.url.
    build({
      ...host,
      entryPoints: Object.fromEntries(Object.entries(HOST_ENTRIES).map(([name, entry]) => [name, path.join(root, entry)])),
      outdir: out,
      outExtension: { ".js": ".cjs" },
      sourcemap: false,
      define: { ...host.define, __PDH_SEA__: "true" },
    }),
    build({ bundle: true, format: "cjs", platform: "node", target: "node20", logLevel: "warning", entryPoints: [path.join(root, "src/boot/sea.ts")], outfile: path.join(out, "sea-main.cjs") }),
  ]);
}

/** The asset map every blob embeds (the same for every target). */
export function assets(root, out) {
  // The conformance kit's scenarios and the packages they require (scripts/bundle.mjs, copyKitPackages).
  copyKitPackages();
  const list = [
    "package.json",
    "reference/index.cjs",
    ...files(root, "proto", (f) => f.endsWith(".proto")),
    ...files(root, "python-stub", (f) => f.endsWith(".py") || f.endsWith(".sh")),
    ...files(root, "docs", (f) => f.endsWith(".md")),
    ...files(root, "src/conformance/scenarios", (f) => !f.includes("__pycache__")),
    ...files(root, KIT_PACKAGES_DIR, () => true),
  ];
  fs.writeFileSync(path.join(out, "assets.json"), JSON.stringify(list));
  const map = Object.fromEntries(list.map((a) => [a, path.join(root, a)]));
  map["assets.json"] = path.join(out, "assets.json");
  for (const name of Object.keys(HOST_ENTRIES)) map[`${name}.cjs`] = path.join(out, `${name}.cjs`);
  return map;
}

/**
 * The preparation blob, written by `blobNode` (the pinned Node of this
 * machine), one for every target. No V8 code cache (useCodeCache) nor
 * snapshot: Node's documentation requires both off for a blob made for
 * another platform, and the code cache made two blobs of the same input
 * differ (measured), where the release files must come out the same twice.
 * The main script is small; the host's own code cache is made on the user's
 * machine (src/boot/code-cache.ts).
 */
export function blob(out, assetMap, blobNode) {
  const config = {
    main: path.join(out, "sea-main.cjs"),
    output: path.join(out, "sea-prep.blob"),
    disableExperimentalSEAWarning: true,
    useCodeCache: false,
    useSnapshot: false,
    assets: assetMap,
  };
  const file = path.join(out, "sea-config.json");
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  // It says "Wrote single executable preparation blob" on stderr; only a failure is shown.
  execFileSync(blobNode, ["--experimental-sea-config", file], { cwd: out, stdio: ["ignore", "pipe", "pipe"] });
  return config.output;
}

/**
 * The target's executable in `dir`: its pinned Node copied, debug symbols
 * stripped (Linux; the host never uses them), the Mach-O or Authenticode
 * signature the binary came with removed (injection invalidates it; macOS
 * executables are signed again after, macos-sign.mjs), and the blob injected
 * by postject run on `toolNode`, flipping Node's sentinel fuse.
 */
export function inject({ root, target, node, blobFile, dir, toolNode, say }) {
  const exe = path.join(dir, `pulumi-dynamic-host${target.exe}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(node, exe);
  fs.chmodSync(exe, 0o755);
  if (target.strip) {
    try {
      execFileSync(target.strip, [exe], { stdio: ["ignore", "ignore", "pipe"] });
    } catch {
      say(`${target.strip} is not available: the ${target.id} executable keeps Node's debug symbols (Debian: apt-get install binutils${target.arch === "arm64" ? "-aarch64-linux-gnu" : ""})`);
    }
  }
  if (target.os === "darwin") removeMachOSignature(exe);
  if (target.os === "win32") removePeSignature(exe);
  const postject = path.join(root, "node_modules/postject/dist/cli.js");
  const extra = target.os === "darwin" ? ["--macho-segment-name", "NODE_SEA"] : [];
  execFileSync(toolNode, [postject, exe, "NODE_SEA_BLOB", blobFile, "--sentinel-fuse", FUSE, ...extra], { stdio: ["ignore", "ignore", "pipe"] });
  return exe;
}
