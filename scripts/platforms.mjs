// npm run platforms [-- [--no-build] [PART…]]: the evidence that the release
// files of every platform work, on this Linux machine (docs/platforms.md).
// PARTs: linux-x64, linux-arm64, windows-x64, darwin, wheels (default: all).
// It builds them first (`scripts/dist.mjs --all`) unless --no-build, installs
// what each part needs from Debian's packages when missing (as root), and
// caches the rest under ~/.cache/pulumi-dynamic-host/platforms/. A check
// whose tool is missing fails, saying how to get it. Ends with
// "N passed, N failed", and exits 1 if any failed.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { darwin } from "./platforms/darwin.mjs";
import { ROOT, results, say, unpack } from "./platforms/harness.mjs";
import { linuxArm64, linuxX64 } from "./platforms/linux.mjs";
import { wheels } from "./platforms/wheels.mjs";
import { windows } from "./platforms/windows.mjs";

const PARTS = {
  "linux-x64": () => linuxX64(),
  "linux-arm64": () => linuxArm64(),
  // The kit runs on Linux, from this machine's archive.
  "windows-x64": () => windows({ kitBin: unpack("linux-x64") }),
  darwin: () => darwin(),
  wheels: () => wheels(),
};

const args = process.argv.slice(2);
const build = !args.includes("--no-build");
const asked = args.filter((a) => a !== "--no-build");
const unknown = asked.filter((a) => !(a in PARTS));
if (unknown.length) {
  say(`unknown part ${unknown.join(", ")}: expected ${Object.keys(PARTS).join(", ")} or --no-build`);
  process.exit(2);
}

const started = Date.now();
if (build) {
  const t = Date.now();
  execFileSync(process.execPath, [path.join(ROOT, "scripts/dist.mjs"), "--all"], { stdio: "inherit" });
  say(`npm run dist -- --all: ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
for (const part of asked.length ? asked : Object.keys(PARTS)) {
  const t = Date.now();
  await PARTS[part]();
  say(`${part}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
const failed = results.filter((r) => !r.ok).length;
say(`${((Date.now() - started) / 1000).toFixed(1)} s in all`);
process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
