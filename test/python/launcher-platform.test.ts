// The Python side of the launcher and preloader where the platform lacks what
// they need, with the platform injected (python-stub/prestart.py,
// python-stub/preloader.py; docs/platform-code.md): the preloaders' socket
// directory within macOS's 104-byte and Linux's 108-byte socket paths (the
// same answers as src/cli/preloaders.ts, which doctor uses), no worker started
// beside the host where there is no /proc or fork, and a preloader that exits
// without listening where it could not check who connects.
import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { preloaderDirectory } from "../../src/cli/doctor/preloaders.js";
import { REPO } from "../helpers/paths.js";

const STUB = path.join(REPO, "python-stub");

/** `code` run in python3 -B -I -S (no __pycache__ left in the stub) with the stub's directory importable; its stdout. */
function python(code: string, env: NodeJS.ProcessEnv = {}): string {
  return execFileSync("python3", ["-B", "-I", "-S", "-c", `import sys; sys.path.insert(0, ${JSON.stringify(STUB)})\n${code}`], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, ...env },
  });
}

describe("platform: the launcher's Python side where /proc, fork or SO_PEERCRED are missing (platform injected)", function () {
  const long = (n: number) => `/run/user/${"x".repeat(n)}`;
  const cases: [NodeJS.ProcessEnv, NodeJS.Platform][] = [
    [{ XDG_RUNTIME_DIR: "/run/user/501/" }, "linux"],
    [{ TMPDIR: "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/" }, "darwin"],
    [{ XDG_RUNTIME_DIR: long(60) }, "linux"],
    [{ XDG_RUNTIME_DIR: long(55) }, "linux"],
    [{ XDG_RUNTIME_DIR: long(55) }, "darwin"],
    [{ XDG_RUNTIME_DIR: long(51) }, "darwin"],
    [{ XDG_RUNTIME_DIR: "run" }, "darwin"],
    [{ XDG_RUNTIME_DIR: "/run/user/501" }, "win32"],
  ];

  it("the socket directory: prestart.py's answers are doctor's, each within the platform's limit, /tmp when XDG_RUNTIME_DIR is too long", function () {
    const got = JSON.parse(
      python(`import json, prestart\nprint(json.dumps([prestart._preload_dir_path(e, 501, p) for e, p in ${JSON.stringify(cases)}]))`),
    ) as (string | null)[];
    expect(got).to.deep.equal(cases.map(([env, platform]) => preloaderDirectory(env, 501, platform) ?? null));
    expect(got).to.deep.equal([
      "/run/user/501/pulumi-dynamic-host",
      "/tmp/pulumi-dynamic-host-501",
      "/tmp/pulumi-dynamic-host-501",
      `${long(55)}/pulumi-dynamic-host`,
      "/tmp/pulumi-dynamic-host-501",
      `${long(51)}/pulumi-dynamic-host`,
      "/tmp/pulumi-dynamic-host-501",
      null,
    ]);
  });

  it("what turns the launcher's worker and the preloader off, by platform", function () {
    const got = JSON.parse(
      python(
        "import json, prestart, preloader\n" +
          "print(json.dumps([prestart._prestart_unsupported('linux', True, True), prestart._prestart_unsupported('darwin', False, True), " +
          "prestart._prestart_unsupported('win32', False, False), preloader.unsupported('linux', True, True, True, True), " +
          "preloader.unsupported('darwin', False, True, False, True), preloader.unsupported('win32', False, False, False, False)]))",
      ),
    );
    expect(got).to.deep.equal([
      null,
      "no /proc on darwin",
      "no fork on win32",
      null,
      "no /proc or SO_PEERCRED on darwin",
      "no fork or Unix sockets or /proc or SO_PEERCRED on win32",
    ]);
  });

  it("prestart.py where /proc is missing starts no worker: it runs the host alone, naming none", function () {
    // The host here is `env`, which prints the environment it was given.
    const out = python(
      "import os, prestart\n" +
        "real = os.path.isdir\n" +
        "os.path.isdir = lambda p: False if p == '/proc/self' else real(p)\n" +
        "sys.argv = ['prestart.py', 'python3', '', " + JSON.stringify(STUB) + ", 'env']\n" +
        "prestart.main()",
      { PULUMI_DYNAMIC_HOST_PRELOAD: "0" },
    );
    expect(out).to.match(/^PATH=/m);
    expect(out).not.to.include("PULUMI_DYNAMIC_HOST_PRESTARTED");
  });

  it("a preloader without SO_PEERCRED (macOS) exits without listening, and takes its lock file away", function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "preloader-platform-"));
    try {
      const sock = path.join(dir, "0123456789abcdef.sock");
      const lock = path.join(dir, "0123456789abcdef.lock");
      fs.writeFileSync(lock, "1\n");
      const r = spawnSync(
        "python3",
        ["-B", "-I", "-S", "-c", `import sys, socket; sys.path.insert(0, ${JSON.stringify(STUB)})\nif hasattr(socket, "SO_PEERCRED"): del socket.SO_PEERCRED\nimport preloader\npreloader.serve_until_forked()\nprint("returned")`],
        { encoding: "utf8", env: { PATH: process.env.PATH, PULUMI_DYNAMIC_HOST_PRELOADER: sock } },
      );
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.equal("");
      expect(fs.existsSync(sock)).to.equal(false);
      expect(fs.existsSync(lock)).to.equal(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
