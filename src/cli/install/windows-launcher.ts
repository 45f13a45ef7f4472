// The `.cmd` launchers that stand for the host's names on Windows, which has
// no `sh` and where a symlink needs an administrator or developer mode. The
// engine finds a plugin beside `pulumi` as `<name>.exe`, then `<name>.cmd`, and
// on PATH by PATHEXT (docs/platforms.md, "Windows names").
//
// One text for the single executable, written by the release's zip and wheel
// (scripts/release/layout.mjs imports this file from dist/) and by `install`;
// one for the npm package, which has no executable: `node` runs the package's
// entry, as npm's own Windows shims do. Pure functions of their arguments: the
// tests compare the texts on any system.

/** The single executable's file on Windows: the Node plugin's name with `.exe`, beside every launcher. */
export const WINDOWS_EXECUTABLE = "pulumi-resource-pulumi-nodejs.exe";

/**
 * The single executable's `.cmd` launcher for `name`: runs the executable
 * beside it (WINDOWS_EXECUTABLE) with PULUMI_DYNAMIC_HOST_SERVE set to the name
 * to serve (src/host/plugin/modes.ts, modeOfProcess): this file's own path for
 * the Python plugin, and for the command for people a path whose file name is
 * exactly pulumi-dynamic-host (%~dpn0: no extension).
 */
export function windowsLauncher(name: string): string {
  const serve = name === "pulumi-dynamic-host" ? "%~dpn0" : "%~f0";
  return [
    "@echo off",
    `rem ${name} of pulumi-dynamic-host's single executable on Windows: the executable is beside this file.`,
    "setlocal",
    `set "PULUMI_DYNAMIC_HOST_SERVE=${serve}"`,
    `"%~dp0${WINDOWS_EXECUTABLE}" %*`,
    "exit /b %ERRORLEVEL%",
    "",
  ].join("\r\n");
}

/**
 * The npm package's `.cmd` launcher for `name`: `node` (from PATH, as the
 * package's bin scripts find it by their `#!/usr/bin/env node`) runs `entry`,
 * the package's script for that name, given as a Windows path. The script's
 * own path picks what it serves (bin/launch.mjs; bin/python-entry.mjs names
 * the Python plugin beside it). A `%` in the path is doubled, as cmd reads one
 * as the start of a variable.
 */
export function npmWindowsLauncher(name: string, entry: string): string {
  if (/["\r\n]/.test(entry)) throw new Error(`the npm package's path ${JSON.stringify(entry)} holds a quote or a line break, which a .cmd launcher cannot hold`);
  return [
    "@echo off",
    `rem ${name} of the pulumi-dynamic-host npm package on Windows: node runs the package's entry.`,
    "setlocal",
    `node "${entry.replace(/%/g, "%%")}" %*`,
    "exit /b %ERRORLEVEL%",
    "",
  ].join("\r\n");
}
