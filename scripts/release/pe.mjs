// Windows' PE format, as far as the Windows executable needs it: node.exe
// comes with an Authenticode signature (the certificate table, at the end of
// the file), which postject's injection would leave in place but invalid.
// Removed before injection (what `signtool remove /s` does), so the
// executable is plainly unsigned rather than signed wrongly.
import fs from "node:fs";

const SECURITY_DIRECTORY = 4;

/** The offset of the optional header's data directories, and the PE32+ check. */
function dataDirectories(buf) {
  if (buf.toString("latin1", 0, 2) !== "MZ") throw new Error("not a PE file (no MZ header)");
  const pe = buf.readUInt32LE(0x3c);
  if (buf.toString("latin1", pe, pe + 4) !== "PE\0\0") throw new Error("not a PE file (no PE signature)");
  const optional = pe + 24;
  if (buf.readUInt16LE(optional) !== 0x20b) throw new Error("not a PE32+ (64-bit) executable");
  return { machine: buf.readUInt16LE(pe + 4), checksum: optional + 64, directories: optional + 112 };
}

export function readPe(buf) {
  const { machine, directories } = dataDirectories(buf);
  const security = directories + SECURITY_DIRECTORY * 8;
  return { machine: machine === 0x8664 ? "x64" : `machine 0x${machine.toString(16)}`, certificates: { offset: buf.readUInt32LE(security), size: buf.readUInt32LE(security + 4) } };
}

export function removePeSignature(file) {
  const buf = fs.readFileSync(file);
  const { checksum, directories } = dataDirectories(buf);
  const security = directories + SECURITY_DIRECTORY * 8;
  const offset = buf.readUInt32LE(security);
  const size = buf.readUInt32LE(security + 4);
  if (size === 0) return;
  if (offset + size !== buf.length) throw new Error(`${file}: the certificate table is not at the end of the file`);
  buf.writeUInt32LE(0, security);
  buf.writeUInt32LE(0, security + 4);
  // The image checksum covers the certificates; Windows checks it only for drivers, so it is cleared.
  buf.writeUInt32LE(0, checksum);
  fs.writeFileSync(file, buf.subarray(0, offset));
}
