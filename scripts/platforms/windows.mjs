// Windows x64 under Wine (Debian's wine64, in a private prefix reporting
// Windows 10, which Node 22 requires): the zip's names answer version, --help
// and doctor, and the conformance kit on Linux (this machine's executable)
// runs its Node-mode cases against the Windows plugin over loopback.
//
// Wine's quirk: Node under Wine cannot write to a Linux pipe (`open EBADF`),
// so every command's stdout and stderr here go to files, and the kit runs the
// plugin through wine-plugin.py, which carries the plugin's output (the port
// line first) from files to its own pipes.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readPe } from "../release/pe.mjs";
import { CACHE, check, conforms, expect, needPackages, nodeProject, pkg, run, unpack, which } from "./harness.mjs";

const WINE_PLUGIN = fileURLToPath(new URL("./wine-plugin.py", import.meta.url));

const WINDOWS_PATH = "the plugin names the same folder as Windows does (Z:\\…\\ under Wine), the kit expects the Linux path it made";
const NO_SIGNALS = "Windows has no SIGINT: Wine ends the plugin with exit code 1 where the kit expects death by SIGINT";
/** The Node-mode cases that fail under Wine, and why: none is a wrong answer of the host (docs/platforms.md). */
const KNOWN_UNDER_WINE = {
  "node/check/20-unknown-provider-no-olds": WINDOWS_PATH,
  "node/check/21-missing-provider-key": WINDOWS_PATH,
  "node/diff/29-unknown-provider-no-olds": WINDOWS_PATH,
  "node/read/52-import-no-properties": WINDOWS_PATH,
  "node/config-runtime/73-require/73-node-require-from-cwd": WINDOWS_PATH,
  "node/moved-paths/absent-package": WINDOWS_PATH,
  "node/config-runtime/74-sigint/74-uncaught-sigint": NO_SIGNALS,
  "node/config-runtime/74-socket-stdin/74-uncaught-socket-stdin": NO_SIGNALS,
  "node/config-runtime/74-pipe-stdin/74-uncaught-pipe-stdin-closed": `${NO_SIGNALS}; and the plugin's stdin is /dev/null under Wine (wine-plugin.py), so it never sees the kit's pipe close`,
};

/** A Wine prefix of the project's own, made once and set to Windows 10. */
function winePrefix() {
  needPackages("wine", ["wine", "wine64"], () => Boolean(which("wine")) && fs.existsSync("/usr/lib/wine/wine64"));
  const prefix = path.join(CACHE, "wineprefix");
  const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: "-all" };
  if (!fs.existsSync(path.join(prefix, ".complete"))) {
    fs.rmSync(prefix, { recursive: true, force: true });
    execFileSync("wine", ["wineboot", "-i"], { env, stdio: "ignore" });
    execFileSync("wine", ["winecfg", "-v", "win10"], { env, stdio: "ignore" });
    fs.writeFileSync(path.join(prefix, ".complete"), "");
  }
  return env;
}

/** `wine cmd /c <file> args…` with stdout and stderr in files (never a pipe): code and both texts. */
function underWine(env, file, args, opts = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pdh-wine-"));
  try {
    const out = fs.openSync(path.join(dir, "out"), "w");
    const err = fs.openSync(path.join(dir, "err"), "w");
    const r = run("wine", ["cmd", "/c", file, ...args], { env, stdio: ["ignore", out, err], ...opts });
    fs.closeSync(out);
    fs.closeSync(err);
    return { code: r.code, stdout: fs.readFileSync(path.join(dir, "out"), "utf8"), stderr: fs.readFileSync(path.join(dir, "err"), "utf8") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function windows({ kitBin }) {
  const id = "windows-x64";
  let env;
  if (!(await check(id, "wine64 and a private prefix set to Windows 10", () => void (env = winePrefix())))) return;
  let dir;
  await check(id, "the zip holds pulumi-resource-pulumi-nodejs.exe (a PE32+ x64 executable, its Authenticode table removed) and two .cmd launchers", () => {
    dir = unpack(id);
    const names = fs.readdirSync(dir).filter((f) => f !== "docs").sort();
    expect(JSON.stringify(names) === JSON.stringify(["pulumi-dynamic-host.cmd", "pulumi-resource-pulumi-nodejs.exe", "pulumi-resource-pulumi-python.cmd"]), `names: ${names.join(", ")}`);
    const pe = readPe(fs.readFileSync(path.join(dir, "pulumi-resource-pulumi-nodejs.exe")));
    expect(pe.machine === "x64" && pe.certificates.size === 0, JSON.stringify(pe));
  });
  if (!dir) return;
  const cli = path.join(dir, "pulumi-dynamic-host.cmd");
  await check(id, "pulumi-dynamic-host.cmd version", () => {
    const r = underWine(env, cli, ["version"]);
    expect(r.code === 0 && r.stdout.trim() === pkg.version, `exit ${r.code}, stdout ${JSON.stringify(r.stdout)}, stderr ${r.stderr}`);
    return r.stdout.trim();
  });
  await check(id, "pulumi-dynamic-host.cmd --help", () => {
    const r = underWine(env, cli, ["--help"]);
    expect(r.code === 0 && /conformance/.test(r.stdout) && /doctor/.test(r.stdout), `exit ${r.code}, stdout ${r.stdout.slice(0, 500)}, stderr ${r.stderr}`);
    return r.stdout.split("\n")[0];
  });
  await check(id, "pulumi-dynamic-host.cmd doctor answers with its report (exit 0, or 1 over this machine's problems)", () => {
    const r = underWine(env, cli, ["doctor"], { cwd: nodeProject() });
    expect((r.code === 0 || r.code === 1) && /^summary: /m.test(r.stdout), `exit ${r.code}, stdout ${r.stdout.slice(0, 1500)}, stderr ${r.stderr.slice(0, 1500)}`);
    return r.stdout.split("\n").filter((l) => /^(summary|problem|ok: node|.*platform)/.test(l)).join("\n");
  });
  await check(id, "the conformance kit, Node mode: the kit on Linux, the Windows plugin under Wine, over loopback", () => {
    const plugin = `python3 ${WINE_PLUGIN} ${path.join(dir, "pulumi-resource-pulumi-nodejs.exe")}`;
    const r = run(path.join(kitBin, "pulumi-dynamic-host"), ["conformance", "--plugin", plugin, "--language", "nodejs", "--json"], { cwd: nodeProject(), env });
    return conforms(r, "conformance --language nodejs", KNOWN_UNDER_WINE);
  });
}
