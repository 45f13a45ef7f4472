// Linux: the x64 executable's embedded Node against @pulumi/pulumi's engines
// range (`doctor`), and the arm64 executable under qemu-user: the
// conformance kit in Node mode with Debian's arm64 libraries (multiarch), and
// in Python mode inside an arm64 Debian root (mmdebstrap; its packages set up
// under qemu) holding a virtualenv with pulumi from PyPI.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { NODE_VERSION } from "../release/targets.mjs";
import { CACHE, check, conforms, expect, needPackages, nodeProject, pkg, ROOT, run, say, unpack, which } from "./harness.mjs";

export async function linuxX64() {
  const id = "linux-x64";
  let dir;
  await check(id, "the archive's executable answers version", () => {
    dir = unpack(id);
    const r = run(path.join(dir, "pulumi-dynamic-host"), ["version"]);
    expect(r.stdout.trim() === pkg.version, `version said ${JSON.stringify(r.stdout.trim())}, exit ${r.code}: ${r.stderr}`);
  });
  if (!dir) return;
  await check(id, `doctor in a TypeScript project with @pulumi/pulumi ${pkg.devDependencies["@pulumi/pulumi"]}: the embedded Node ${NODE_VERSION} meets its engines range`, () => {
    const r = run(path.join(dir, "pulumi-dynamic-host"), ["doctor"], { cwd: nodeProject() });
    const line = r.stdout.split("\n").find((l) => /^\S+: node: @pulumi\/pulumi \S+ asks for Node/.test(l));
    expect(line, `doctor printed no line on @pulumi/pulumi's engines range (exit ${r.code}):\n${r.stdout}${r.stderr}`);
    expect(line.startsWith("ok: ") && line.includes(`Node v${NODE_VERSION}, embedded in the single executable`), line);
    return line;
  });
}

/** The cases that may fail under qemu's emulation, and why: none is a wrong answer of the host. */
const KNOWN_UNDER_QEMU = {
  "node/large-payload/77-large-payload": "a 100 MiB string through Create, emulated instruction by instruction, can take longer than the kit's 120 s for an answer",
};

const ARM64_LIBS = ["/lib/ld-linux-aarch64.so.1", "/usr/lib/aarch64-linux-gnu/libstdc++.so.6"];

/** qemu-user-static, its binfmt registration (so arm64 programs start arm64 programs), and the arm64 libraries Node needs. */
function arm64Tools() {
  needPackages("qemu-user-static", ["qemu-user-static", "binfmt-support"], () => Boolean(which("qemu-aarch64-static")));
  if (!fs.existsSync("/proc/sys/fs/binfmt_misc/status")) execFileSync("mount", ["-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc"]);
  if (!fs.existsSync("/proc/sys/fs/binfmt_misc/qemu-aarch64")) execFileSync("update-binfmts", ["--enable", "qemu-aarch64"]);
  expect(fs.readFileSync("/proc/sys/fs/binfmt_misc/qemu-aarch64", "utf8").startsWith("enabled"), "binfmt_misc's qemu-aarch64 entry is not enabled: update-binfmts --enable qemu-aarch64");
  needPackages("arm64 libc and libstdc++", ["libc6:arm64", "libstdc++6:arm64"], () => ARM64_LIBS.every((f) => fs.existsSync(f)), ["dpkg", "--add-architecture", "arm64"]);
}

/** The Debian mirror this machine's apt uses (DEBIAN_MIRROR overrides): the first `URIs:` of a deb822 source, else the first `deb` line. */
function debianMirror() {
  if (process.env.DEBIAN_MIRROR) return process.env.DEBIAN_MIRROR;
  const dir = "/etc/apt/sources.list.d";
  const texts = [...(fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".sources") || f.endsWith(".list")).map((f) => path.join(dir, f)) : []), "/etc/apt/sources.list"]
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f, "utf8"));
  for (const text of texts) {
    const m = /^URIs:\s*(\S+)/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/m.exec(text);
    if (m) return m[1];
  }
  throw new Error("no Debian mirror found in this machine's apt sources: set DEBIAN_MIRROR to one");
}

/** An arm64 Debian root with python3 and a virtualenv holding test/python-requirements.txt, made once. */
function arm64Root() {
  const root = path.join(CACHE, "arm64-root");
  if (fs.existsSync(path.join(root, ".complete"))) return root;
  needPackages("mmdebstrap", ["mmdebstrap", "arch-test"], () => Boolean(which("mmdebstrap")));
  fs.rmSync(root, { recursive: true, force: true });
  say(`making an arm64 Debian root in ${root} (mmdebstrap, its packages set up under qemu)`);
  execFileSync("mmdebstrap", ["--arch=arm64", "--variant=apt", "--include=python3,python3-venv,ca-certificates", "bookworm", root, debianMirror()], { stdio: ["ignore", "ignore", "inherit"] });
  // The machine's resolver and trust store (which may hold a proxy's certificate), for pip in the root.
  fs.copyFileSync("/etc/resolv.conf", path.join(root, "etc/resolv.conf"));
  fs.copyFileSync("/etc/ssl/certs/ca-certificates.crt", path.join(root, "etc/ssl/certs/ca-certificates.crt"));
  fs.mkdirSync(path.join(root, "project"), { recursive: true });
  fs.copyFileSync(path.join(ROOT, "test/python-requirements.txt"), path.join(root, "project/requirements.txt"));
  fs.writeFileSync(path.join(root, "project/Pulumi.yaml"), "name: platforms-python\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n");
  execFileSync("chroot", [root, "sh", "-c", "cd /project && python3 -m venv venv && venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt"], { stdio: ["ignore", "inherit", "inherit"] });
  fs.writeFileSync(path.join(root, ".complete"), "");
  return root;
}

export async function linuxArm64() {
  const id = "linux-arm64";
  if (!(await check(id, "qemu-user-static, binfmt_misc and the arm64 libraries", () => arm64Tools()))) return;
  let dir;
  await check(id, "the archive's executable is an aarch64 ELF and answers version under qemu", () => {
    dir = unpack(id);
    const exe = path.join(dir, "pulumi-dynamic-host");
    const header = fs.readFileSync(exe).subarray(0, 20);
    expect(header.readUInt16LE(18) === 0xb7, `e_machine 0x${header.readUInt16LE(18).toString(16)}, expected 0xb7 (aarch64)`);
    const r = run(exe, ["version"]);
    expect(r.stdout.trim() === pkg.version, `version said ${JSON.stringify(r.stdout.trim())}, exit ${r.code}: ${r.stderr}`);
  });
  if (!dir) return;
  await check(id, "the conformance kit, Node mode: the arm64 executable runs the kit against its own Node plugin", () => {
    const r = run(path.join(dir, "pulumi-dynamic-host"), ["conformance", "--plugin", path.join(dir, "pulumi-resource-pulumi-nodejs"), "--language", "nodejs", "--json"], { cwd: nodeProject() });
    return conforms(r, "conformance --language nodejs", KNOWN_UNDER_QEMU);
  });
  await check(id, "the conformance kit, Python mode: in an arm64 Debian root, a virtualenv with pulumi, the arm64 executable's Python plugin", () => {
    const root = arm64Root();
    const inside = path.join(root, "opt/pulumi-dynamic-host");
    fs.rmSync(inside, { recursive: true, force: true });
    execFileSync("cp", ["-a", dir, inside]);
    const proc = path.join(root, "proc");
    if (!fs.existsSync(path.join(proc, "self"))) execFileSync("mount", ["-t", "proc", "proc", proc]);
    try {
      const script = "cd /project && exec /opt/pulumi-dynamic-host/pulumi-dynamic-host conformance --plugin /opt/pulumi-dynamic-host/pulumi-resource-pulumi-python --language python --json";
      const r = run("chroot", [root, "/usr/bin/env", "-i", "HOME=/root", "PATH=/usr/local/bin:/usr/bin:/bin", "sh", "-c", script]);
      return conforms(r, "conformance --language python", KNOWN_UNDER_QEMU);
    } finally {
      run("umount", [proc]);
    }
  });
}
