// Each wheel's platform tag as pip judges it: `pip download --platform P
// --only-binary=:all:` from dist/release only, which pip answers with the
// wheel when P is compatible with its tag (packaging.tags' rules) and with
// "No matching distribution" when not. Each wheel is asked for once with a
// platform that must take it and once with one that must not.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildPython } from "../release/wheel.mjs";
import { check, expect, pkg, RELEASE, run, say } from "./harness.mjs";

const CASES = [
  { wheel: "manylinux_2_28_x86_64", takes: "manylinux_2_36_x86_64", refuses: "manylinux_2_27_x86_64" },
  { wheel: "manylinux_2_28_aarch64", takes: "manylinux_2_36_aarch64", refuses: "manylinux_2_36_x86_64" },
  { wheel: "macosx_11_0_x86_64", takes: "macosx_14_0_x86_64", refuses: "macosx_10_15_x86_64" },
  { wheel: "macosx_11_0_arm64", takes: "macosx_14_0_arm64", refuses: "macosx_14_0_x86_64" },
  { wheel: "win_amd64", takes: "win_amd64", refuses: "win32" },
];

function download(python, platform) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pdh-wheel-tags-"));
  try {
    const r = run(python, ["-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-index", "--find-links", RELEASE, "--no-deps", "--only-binary=:all:", "--python-version", "3.12", "--platform", platform, "-d", dir, `pulumi-dynamic-host==${pkg.version}`]);
    return { ...r, got: fs.readdirSync(dir) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function wheels() {
  const python = buildPython(say);
  for (const c of CASES) {
    await check("wheels", `${c.wheel}: pip takes it for ${c.takes}, refuses it for ${c.refuses}`, () => {
      const file = `pulumi_dynamic_host-${pkg.version}-py3-none-${c.wheel}.whl`;
      expect(fs.existsSync(path.join(RELEASE, file)), `${file} is missing: run npm run dist -- --all`);
      const yes = download(python, c.takes);
      expect(yes.code === 0 && yes.got.length === 1 && yes.got[0] === file, `for ${c.takes} pip got ${yes.got.join(", ") || "nothing"}: ${yes.stderr.trim().slice(-500)}`);
      const no = download(python, c.refuses);
      expect(no.code !== 0 && no.got.length === 0, `for ${c.refuses} pip took ${no.got.join(", ")}`);
      return `${file}`;
    });
  }
}
