// What `doctor` says of the system, with the system injected
// (src/cli/doctor/platform-report.ts, src/cli/doctor/preloaders.ts): the platform, the Node
// and whether it is the single executable's, the note where the Python
// launcher and its preloader are off (macOS, Windows, a Linux without /proc);
// and the directory of the preloaders' sockets, which must give a socket a
// path within the platform's limit (104 bytes on macOS, 108 on Linux).
import { expect } from "chai";
import { doctor } from "../../src/cli/doctor/doctor.js";
import { platformFindings, type RunningOn } from "../../src/cli/doctor/platform-report.js";
import { launcherOff, preloaderDirectory, socketPathLimit } from "../../src/cli/doctor/preloaders.js";

const base: RunningOn = { platform: "linux", arch: "x64", nodeVersion: "v24.11.0", embedded: false, hasProc: true };

describe("platform: what doctor says of the system (system injected)", function () {
  const table: [string, RunningOn, string[]][] = [
    ["Linux, the npm package", base, ["ok: platform: Linux x64 (linux-x64); this command runs on Node v24.11.0 (node, not the single executable)"]],
    [
      "macOS arm64, the single executable: the launcher is off",
      { ...base, platform: "darwin", arch: "arm64", embedded: true, hasProc: false },
      [
        "ok: platform: macOS arm64 (darwin-arm64); this command runs on Node v24.11.0 embedded in this single executable",
        "note: python launcher: off on macOS: there is no /proc on macOS to check the worker by. The host starts its Python worker itself (as with PULUMI_DYNAMIC_HOST_PRESTART=0), so no worker starts beside it and no preloader forks one: each Python plugin start pays an interpreter's start (docs/platform-code.md)",
      ],
    ],
    [
      "Windows x64, the npm package",
      { ...base, platform: "win32", embedded: false, hasProc: false },
      [
        "ok: platform: Windows x64 (win32-x64); this command runs on Node v24.11.0 (node.exe, not the single executable)",
        "note: python launcher: off on Windows: Windows has no sh to run the launcher and no /proc to check the worker by. The host starts its Python worker itself (as with PULUMI_DYNAMIC_HOST_PRESTART=0), so no worker starts beside it and no preloader forks one: each Python plugin start pays an interpreter's start (docs/platform-code.md)",
      ],
    ],
    ["a Linux without /proc", { ...base, hasProc: false }, ["ok: platform: Linux x64 (linux-x64); this command runs on Node v24.11.0 (node, not the single executable)"]],
  ];
  for (const [title, system, expected] of table) {
    it(title, function () {
      const lines = platformFindings(system).map((f) => `${f.kind}: ${f.line}`);
      if (title.startsWith("a Linux without /proc")) expect(lines[1]).to.match(/^note: python launcher: off on Linux: there is no \/proc on linux to check the worker by\./);
      else expect(lines).to.deep.equal(expected);
    });
  }

  it("doctor prints them first", async function () {
    const out: string[] = [];
    const system = { ...base, platform: "darwin" as const, arch: "arm64", hasProc: false };
    await doctor({ dir: process.cwd(), env: { PATH: "" }, system }, (l) => out.push(l), () => {});
    expect(out[0]).to.equal("ok: platform: macOS arm64 (darwin-arm64); this command runs on Node v24.11.0 (node, not the single executable)");
    expect(out[1]).to.match(/^note: python launcher: off on macOS: /);
  });

  it("the launcher is on only where there is sh and /proc", function () {
    expect(launcherOff("linux", true)).to.equal(undefined);
    expect(launcherOff("darwin", true)).to.equal(undefined);
    expect(launcherOff("darwin", false)).to.include("no /proc on macOS");
    expect(launcherOff("win32", true)).to.include("no sh");
  });
});

describe("platform: the preloaders' socket directory fits the platform's socket path limit", function () {
  const long = (n: number) => `/run/user/${"x".repeat(n)}`;
  const table: [string, NodeJS.ProcessEnv, NodeJS.Platform, string | undefined][] = [
    ["XDG_RUNTIME_DIR, Linux", { XDG_RUNTIME_DIR: "/run/user/501/" }, "linux", "/run/user/501/pulumi-dynamic-host"],
    ["no XDG_RUNTIME_DIR (macOS: $TMPDIR is not used)", { TMPDIR: "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/" }, "darwin", "/tmp/pulumi-dynamic-host-501"],
    // 10 + 60 + 20 + 22 = 112 > 107: too long for Linux, the fallback
    ["too long for Linux: /tmp", { XDG_RUNTIME_DIR: long(60) }, "linux", "/tmp/pulumi-dynamic-host-501"],
    // 10 + 55 + 20 + 22 = 107: fits Linux exactly, not macOS
    ["107 bytes fits Linux", { XDG_RUNTIME_DIR: long(55) }, "linux", `${long(55)}/pulumi-dynamic-host`],
    ["107 bytes is over macOS's 103: /tmp", { XDG_RUNTIME_DIR: long(55) }, "darwin", "/tmp/pulumi-dynamic-host-501"],
    ["103 bytes fits macOS", { XDG_RUNTIME_DIR: long(51) }, "darwin", `${long(51)}/pulumi-dynamic-host`],
    ["a relative XDG_RUNTIME_DIR is not used", { XDG_RUNTIME_DIR: "run" }, "linux", "/tmp/pulumi-dynamic-host-501"],
    ["Windows has none", { XDG_RUNTIME_DIR: "/run/user/501" }, "win32", undefined],
  ];
  for (const [title, env, platform, expected] of table) {
    it(title, function () {
      const dir = preloaderDirectory(env, 501, platform);
      expect(dir).to.equal(expected);
      if (dir) expect(Buffer.byteLength(`${dir}/0123456789abcdef.sock`)).to.be.at.most(socketPathLimit(platform));
    });
  }
});
