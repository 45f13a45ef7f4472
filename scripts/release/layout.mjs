// Where the executable goes in each release file, under which names, per
// platform, and the archives themselves, written so that two builds of the
// same commit give the same bytes (sorted entries, fixed times, owners and
// modes).
//
// The engine looks a plugin up by name: on PATH, then beside `pulumi`. On
// Windows it tries `<name>.exe` then `<name>.cmd` beside `pulumi`, and Go's
// PATH search tries PATHEXT's extensions (.com, .exe, .bat, .cmd by default);
// elsewhere the bare name (docs/platforms.md, "Windows names").
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
// The launcher text `install` writes too; built by `npm run build`, which `npm run dist` runs first.
import { windowsLauncher } from "../../dist/src/cli/install/windows-launcher.js";

export const NAMES = ["pulumi-dynamic-host", "pulumi-resource-pulumi-nodejs", "pulumi-resource-pulumi-python"];

/**
 * The archive's names, in `dir`. macOS and Linux: the executable and the Node
 * plugin's name (a hard link to it) and the Python plugin's launcher script,
 * which starts the Python worker beside the host (src/cli/install/python-launcher.ts).
 * Windows has no `sh`, and a zip stores no links: as in the wheel, the
 * executable once, as pulumi-resource-pulumi-nodejs.exe, and `.cmd` launchers
 * under the two other names (windowsLauncher, src/cli/install/windows-launcher.ts,
 * which `install` writes too). Three copies of the executable
 * made a 99 MiB zip; this one is a third of that.
 */
export function placeNames(target, exe, dir, launcherText) {
  if (target.os === "win32") return windowsNames(exe, dir);
  for (const name of NAMES) {
    const file = path.join(dir, name);
    if (name === "pulumi-resource-pulumi-python") fs.writeFileSync(file, launcherText);
    else fs.linkSync(exe, file);
    fs.chmodSync(file, 0o755);
  }
}

/**
 * The wheel's scripts, in `dir`: pip installs each as a file of its own (no
 * links), so the executable goes in once, under the Node plugin's name (the
 * one the engine runs most). Elsewhere than Windows, the Python plugin's name
 * is its launcher, as in the archive, and pulumi-dynamic-host a launcher
 * (packaging/python/command-launcher.sh) that runs the executable as the
 * command for people.
 */
export function wheelScripts(root, target, exe, dir, launcherText) {
  if (target.os === "win32") return windowsNames(exe, dir);
  fs.copyFileSync(exe, path.join(dir, "pulumi-resource-pulumi-nodejs"));
  fs.writeFileSync(path.join(dir, "pulumi-resource-pulumi-python"), launcherText);
  fs.copyFileSync(path.join(root, "packaging/python/command-launcher.sh"), path.join(dir, "pulumi-dynamic-host"));
  for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o755);
}

/**
 * Windows: pulumi-resource-pulumi-nodejs.exe, the executable (the engine tries
 * `.exe` before `.cmd`), and pulumi-resource-pulumi-python.cmd and
 * pulumi-dynamic-host.cmd beside it, as Pulumi's own Windows plugins are
 * `.cmd` files.
 */
function windowsNames(exe, dir) {
  fs.copyFileSync(exe, path.join(dir, "pulumi-resource-pulumi-nodejs.exe"));
  for (const name of ["pulumi-resource-pulumi-python", "pulumi-dynamic-host"]) fs.writeFileSync(path.join(dir, `${name}.cmd`), windowsLauncher(name));
  for (const f of ["pulumi-resource-pulumi-nodejs.exe", "pulumi-resource-pulumi-python.cmd", "pulumi-dynamic-host.cmd"]) fs.chmodSync(path.join(dir, f), 0o755);
}

/** The time every archive entry carries: SOURCE_DATE_EPOCH, else the commit's time, else 1980. */
export function sourceDateEpoch(root) {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    return 315532800;
  }
}

/** `<dir>/<base>` as a .tar.gz (GNU tar and gzip; hard links stored as links). */
export function tarGz(dir, base, file, epoch) {
  const tar = execFileSync(
    "tar",
    ["--sort=name", `--mtime=@${epoch}`, "--owner=0", "--group=0", "--numeric-owner", "--format=gnu", "--mode=go-w", "-cf", "-", "-C", dir, base],
    { maxBuffer: 1 << 30 },
  );
  fs.writeFileSync(file, execFileSync("gzip", ["-n"], { input: tar, maxBuffer: 1 << 30 }));
}

// Python's zipfile with every entry's time and attributes fixed; the entries sorted.
const ZIP = `
import os, sys, time, zipfile
src, base, out, epoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
stamp = time.gmtime(max(epoch, 315532800))[:6]
paths = []
for d, dirs, names in os.walk(os.path.join(src, base)):
    dirs.sort()
    paths += [os.path.join(d, n) for n in names]
with zipfile.ZipFile(out, "w") as z:
    for p in sorted(paths):
        info = zipfile.ZipInfo(os.path.relpath(p, src).replace(os.sep, "/"), stamp)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o100755 if os.access(p, os.X_OK) else 0o100644) << 16
        with open(p, "rb") as f:
            z.writestr(info, f.read())
`;

/** `<dir>/<base>` as a .zip, by `python`. */
export function zip(python, dir, base, file, epoch) {
  execFileSync(python, ["-c", ZIP, dir, base, file, String(epoch)], { stdio: ["ignore", "inherit", "inherit"] });
}
