// macOS executables must be signed again after injection (Node's single
// executable documentation); an ad-hoc signature is what Node's own
// `codesign --sign -` step gives, and is all an arm64 Mac needs to run a
// binary. On Linux: rcodesign (the apple-codesign crate, `cargo install
// apple-codesign --locked`), found on PATH or in ~/.cargo/bin. The result is
// checked twice: rcodesign parses it (`print-signature-info`: an ad-hoc
// CodeDirectory and no CMS signature), and macho.mjs checks every hash in it
// against the bytes. (`rcodesign verify` 0.29 cannot judge an ad-hoc
// signature: it fails on the empty CMS blob every ad-hoc signature carries,
// "CMS error: missing further values", and says itself that it is "known to
// be buggy".)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkAdHocSignature } from "./macho.mjs";

export const RCODESIGN_INSTALL = "cargo install apple-codesign --locked";

/** rcodesign's path, or undefined. */
export function findRcodesign() {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), path.join(process.env.CARGO_HOME || path.join(os.homedir(), ".cargo"), "bin")];
  for (const dir of dirs) {
    const file = path.join(dir, "rcodesign");
    if (dir && fs.existsSync(file)) return file;
  }
  return undefined;
}

/** Signs `exe` ad hoc in place and checks the signature; returns what was checked, as text. */
export function signAdHoc(exe) {
  const rcodesign = findRcodesign();
  if (!rcodesign) throw new Error(`rcodesign is needed to sign the macOS executables and is not on PATH or in ~/.cargo/bin: ${RCODESIGN_INSTALL}`);
  const signed = `${exe}.signed`;
  fs.rmSync(signed, { force: true });
  execFileSync(rcodesign, ["sign", "--binary-identifier", "pulumi-dynamic-host", exe, signed], { stdio: ["ignore", "ignore", "pipe"] });
  fs.renameSync(signed, exe);
  fs.chmodSync(exe, 0o755);
  return verifySignature(exe, rcodesign);
}

/** rcodesign's reading of the signature, then every hash in it (macho.mjs); throws naming what failed. */
export function verifySignature(exe, rcodesign = findRcodesign()) {
  if (!rcodesign) throw new Error(`rcodesign is needed to verify the macOS executables: ${RCODESIGN_INSTALL}`);
  let info;
  try {
    info = execFileSync(rcodesign, ["print-signature-info", exe], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  } catch (err) {
    throw new Error(`rcodesign print-signature-info ${exe} failed: ${String(err.stderr ?? err.message).trim()}`);
  }
  const said = ["flags: CodeSignatureFlags(ADHOC)", "digest_type: sha256", "cms: null"];
  const missing = said.filter((s) => !info.includes(s));
  if (missing.length) throw new Error(`rcodesign print-signature-info ${exe} does not say ${missing.join(", ")}`);
  const { identifier, pages, pageSize, specialSlots } = checkAdHocSignature(fs.readFileSync(exe));
  return `rcodesign reads an ad-hoc CodeDirectory (SHA-256, no CMS); ${pages} pages of ${pageSize} bytes and special slots ${specialSlots.join(", ")} match their hashes; identifier ${identifier}`;
}
