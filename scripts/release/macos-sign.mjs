// macOS executables must be signed again after injection (Node's single
// executable documentation); an ad-hoc signature is what Node's own
// `codesign --sign -` step gives, and is all an arm64 Mac needs to run a
// binary. On Linux: rcodesign (crates.io: apple-codesign, `cargo install
// apple-codesign --locked`), found on PATH or in ~/.cargo/bin. The result is
// checked twice: by `rcodesign verify`, and by macho.mjs against the bytes.
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

/** `rcodesign verify`, then every code page's hash (macho.mjs); throws naming what failed. */
export function verifySignature(exe, rcodesign = findRcodesign()) {
  if (!rcodesign) throw new Error(`rcodesign is needed to verify the macOS executables: ${RCODESIGN_INSTALL}`);
  try {
    execFileSync(rcodesign, ["verify", exe], { stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    throw new Error(`rcodesign verify ${exe} failed: ${String(err.stderr ?? err.message).trim()}`);
  }
  const { identifier, pages, pageSize } = checkAdHocSignature(fs.readFileSync(exe));
  return `rcodesign verify passed; ${pages} pages of ${pageSize} bytes match their hashes, identifier ${identifier}`;
}
