// macOS, with no Mac: what can be checked of the executables from their
// bytes. The Mach-O header (architecture, minimum macOS), the code signature
// (rcodesign print-signature-info, and every page's hash by macho.mjs), the embedded blob
// (the NODE_SEA segment's section holding the preparation blob written for
// other platforms, byte for byte) and Node's sentinel fuse flipped.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { readMachO } from "../release/macho.mjs";
import { findRcodesign, RCODESIGN_INSTALL, verifySignature } from "../release/macos-sign.mjs";
import { FUSE } from "../release/sea.mjs";
import { check, expect, ROOT, unpack } from "./harness.mjs";

const CPU = { x64: "x86_64", arm64: "arm64" };
/** The blob's first four bytes: Node's SeaResource magic, 0x143da20, little-endian. */
const SEA_MAGIC = 0x0143da20;

export async function darwin() {
  for (const arch of ["x64", "arm64"]) {
    const id = `darwin-${arch}`;
    let exe;
    await check(id, "the archive holds the executable and the Node plugin's name as one file", () => {
      const dir = unpack(id);
      exe = path.join(dir, "pulumi-dynamic-host");
      expect(fs.statSync(exe).ino === fs.statSync(path.join(dir, "pulumi-resource-pulumi-nodejs")).ino, "pulumi-resource-pulumi-nodejs is not a hard link to pulumi-dynamic-host");
      expect(fs.readFileSync(path.join(dir, "pulumi-resource-pulumi-python"), "utf8").startsWith("#!/bin/sh\n"), "the Python plugin's name is not the sh launcher");
    });
    if (!exe) continue;
    const buf = fs.readFileSync(exe);
    await check(id, "Mach-O header: 64-bit, the target's CPU, macOS 11.0 or later", () => {
      const m = readMachO(buf);
      expect(m.cpu === CPU[arch], `CPU ${m.cpu}, expected ${CPU[arch]}`);
      expect(m.minos && Number(m.minos.split(".")[0]) >= 11, `minimum macOS ${m.minos}`);
      return `${m.cpu}, minimum macOS ${m.minos}, ${m.ncmds} load commands`;
    });
    await check(id, "ad-hoc code signature: LC_CODE_SIGNATURE, rcodesign print-signature-info (ad hoc), every page's SHA-256", () => {
      expect(findRcodesign(), `rcodesign is not installed: ${RCODESIGN_INSTALL}`);
      return verifySignature(exe);
    });
    await check(id, "the NODE_SEA segment holds the preparation blob, and the sentinel fuse is flipped", () => {
      const segment = readMachO(buf).segments.find((s) => s.name === "NODE_SEA");
      expect(segment, "no NODE_SEA segment");
      const section = segment.sections.find((s) => s.name === "__NODE_SEA_BLOB");
      expect(section, `no __NODE_SEA_BLOB section in NODE_SEA (sections: ${segment.sections.map((s) => s.name).join(", ")})`);
      const blob = buf.subarray(section.offset, section.offset + section.size);
      expect(blob.readUInt32LE(0) === SEA_MAGIC, `the section does not start with the SEA magic (0x${blob.readUInt32LE(0).toString(16)})`);
      const built = path.join(ROOT, "dist/sea/sea-prep.blob");
      if (fs.existsSync(built)) expect(blob.equals(fs.readFileSync(built)), "the embedded blob differs from dist/sea/sea-prep.blob");
      const text = buf.toString("latin1");
      expect(text.includes(`${FUSE}:1`) && !text.includes(`${FUSE}:0`), "the sentinel fuse is not flipped (NODE_SEA_FUSE_…:1)");
      return `${section.size} bytes${fs.existsSync(built) ? ", equal to dist/sea/sea-prep.blob" : ""}`;
    });
    await check(id, "the wheel's executable is the archive's, byte for byte", () => {
      const wheel = fs.readdirSync(path.join(ROOT, "dist/release")).find((f) => f.endsWith(`_${CPU[arch]}.whl`) && f.includes("-macosx_"));
      expect(wheel, `no macosx ${CPU[arch]} wheel in dist/release`);
      const inWheel = execFileSync("python3", ["-c", "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))", path.join(ROOT, "dist/release", wheel), `pulumi_dynamic_host-${wheel.split("-")[1]}.data/scripts/pulumi-resource-pulumi-nodejs`], { maxBuffer: 1 << 30 });
      expect(inWheel.equals(buf), `${wheel}'s pulumi-resource-pulumi-nodejs differs from the archive's executable`);
      return wheel;
    });
  }
}
