// Each wheel's platform tag as pip judges it: `pip download --platform P…
// --only-binary=:all:` from dist/release only, with the platform tags of a
// system that must take the wheel, and of one that must not (pip then takes
// another wheel or none). pip widens a macOS --platform to the older macOS
// versions itself, but not a manylinux one: the manylinux lists are what
// packaging.tags gives on a system with that glibc (manylinux_2_<glibc minor>
// down to manylinux_2_17).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildPython } from "../release/wheel.mjs";
import { check, expect, pkg, RELEASE, run, say } from "./harness.mjs";

const glibc = (minor, arch) => Array.from({ length: minor - 16 }, (_, i) => `manylinux_2_${minor - i}_${arch}`);

const CASES = [
  { wheel: "manylinux_2_28_x86_64", takes: ["glibc 2.36 x86_64", glibc(36, "x86_64")], refuses: ["glibc 2.27 x86_64", glibc(27, "x86_64")] },
  { wheel: "manylinux_2_28_aarch64", takes: ["glibc 2.36 aarch64", glibc(36, "aarch64")], refuses: ["glibc 2.27 aarch64", glibc(27, "aarch64")] },
  { wheel: "macosx_11_0_x86_64", takes: ["macOS 14 x86_64", ["macosx_14_0_x86_64"]], refuses: ["macOS 10.15 x86_64", ["macosx_10_15_x86_64"]] },
  { wheel: "macosx_11_0_arm64", takes: ["macOS 14 arm64", ["macosx_14_0_arm64"]], refuses: ["macOS 14 x86_64", ["macosx_14_0_x86_64"]] },
  { wheel: "win_amd64", takes: ["Windows x64", ["win_amd64"]], refuses: ["Windows x86", ["win32"]] },
];

function download(python, platforms) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pdh-wheel-tags-"));
  try {
    const r = run(python, ["-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-index", "--find-links", RELEASE, "--no-deps", "--only-binary=:all:", "--python-version", "3.12", ...platforms.flatMap((p) => ["--platform", p]), "-d", dir, `pulumi-dynamic-host==${pkg.version}`]);
    return { ...r, got: fs.readdirSync(dir) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function wheels() {
  const python = buildPython(say);
  for (const c of CASES) {
    await check("wheels", `${c.wheel}: pip takes it for ${c.takes[0]}, not for ${c.refuses[0]}`, () => {
      const file = `pulumi_dynamic_host-${pkg.version}-py3-none-${c.wheel}.whl`;
      expect(fs.existsSync(path.join(RELEASE, file)), `${file} is missing: run npm run dist -- --all`);
      const yes = download(python, c.takes[1]);
      expect(yes.code === 0 && yes.got.length === 1 && yes.got[0] === file, `for ${c.takes[0]} pip got ${yes.got.join(", ") || "nothing"}: ${yes.stderr.trim().slice(-500)}`);
      const no = download(python, c.refuses[1]);
      expect(!no.got.includes(file), `for ${c.refuses[0]} pip took ${file}`);
      return `${file}; for ${c.refuses[0]} pip got ${no.got.join(", ") || "nothing"}`;
    });
  }
}
