// 64-bit Mach-O, as far as the macOS executables need it on a machine with no
// Mac: read the header, load commands, segments and the code signature;
// remove the signature Node's binary came with (postject's injection would
// invalidate it, and Node's documentation removes it first); and check an
// ad-hoc signature on its own terms: every code page's SHA-256 in the
// CodeDirectory against the bytes (the check macOS makes when it maps a page).
import { createHash } from "node:crypto";
import fs from "node:fs";

const MH_MAGIC_64 = 0xfeedfacf;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const LC_BUILD_VERSION = 0x32;
const CPU = { 0x01000007: "x86_64", 0x0100000c: "arm64" };
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CS_ADHOC = 0x2;

const cstring = (buf, at, len) => buf.toString("latin1", at, at + len).replace(/\0.*$/s, "");

/** The header, segments (with sections), code signature and minimum macOS of a 64-bit Mach-O. */
export function readMachO(buf) {
  if (buf.readUInt32LE(0) !== MH_MAGIC_64) throw new Error("not a 64-bit little-endian Mach-O (magic 0xfeedfacf)");
  const cpu = CPU[buf.readUInt32LE(4)] ?? `cputype 0x${buf.readUInt32LE(4).toString(16)}`;
  const ncmds = buf.readUInt32LE(16);
  const sizeofcmds = buf.readUInt32LE(20);
  const commands = [];
  const segments = [];
  let signature;
  let minos;
  for (let i = 0, at = 32; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(at);
    const size = buf.readUInt32LE(at + 4);
    commands.push({ cmd, at, size });
    if (cmd === LC_SEGMENT_64) {
      const nsects = buf.readUInt32LE(at + 64);
      const sections = [];
      for (let s = 0; s < nsects; s++) {
        const sec = at + 72 + s * 80;
        sections.push({ name: cstring(buf, sec, 16), size: Number(buf.readBigUInt64LE(sec + 40)), offset: buf.readUInt32LE(sec + 48) });
      }
      segments.push({ name: cstring(buf, at + 8, 16), at, fileoff: Number(buf.readBigUInt64LE(at + 40)), filesize: Number(buf.readBigUInt64LE(at + 48)), sections });
    } else if (cmd === LC_CODE_SIGNATURE) {
      signature = { at, dataoff: buf.readUInt32LE(at + 8), datasize: buf.readUInt32LE(at + 12) };
    } else if (cmd === LC_BUILD_VERSION) {
      const v = buf.readUInt32LE(at + 12);
      minos = `${v >>> 16}.${(v >> 8) & 0xff}`;
    }
    at += size;
  }
  return { cpu, ncmds, sizeofcmds, commands, segments, signature, minos };
}

/**
 * Removes the code signature in place: the LC_CODE_SIGNATURE command (moving
 * any after it up), the signature's bytes at the end of __LINKEDIT, and
 * __LINKEDIT's file size shortened to match.
 */
export function removeMachOSignature(file) {
  const buf = fs.readFileSync(file);
  const macho = readMachO(buf);
  if (!macho.signature) return;
  const { at, dataoff, datasize } = macho.signature;
  const size = buf.readUInt32LE(at + 4);
  const end = 32 + macho.sizeofcmds;
  if (dataoff + datasize !== buf.length) throw new Error(`${file}: the code signature is not at the end of the file`);
  buf.copy(buf, at, at + size, end);
  buf.fill(0, end - size, end);
  buf.writeUInt32LE(macho.ncmds - 1, 16);
  buf.writeUInt32LE(macho.sizeofcmds - size, 20);
  const linkedit = readMachO(buf).segments.find((s) => s.name === "__LINKEDIT");
  buf.writeBigUInt64LE(BigInt(dataoff - linkedit.fileoff), linkedit.at + 48);
  fs.writeFileSync(file, buf.subarray(0, dataoff));
}

/**
 * The ad-hoc signature's CodeDirectory, checked: an embedded signature whose
 * CodeDirectory is ad hoc, covers the file up to the signature, and holds
 * each code page's SHA-256. Throws naming what does not hold.
 */
export function checkAdHocSignature(buf) {
  const macho = readMachO(buf);
  if (!macho.signature) throw new Error("no LC_CODE_SIGNATURE load command");
  const { dataoff } = macho.signature;
  if (buf.readUInt32BE(dataoff) !== CSMAGIC_EMBEDDED_SIGNATURE) throw new Error("the signature is not an embedded signature SuperBlob");
  const count = buf.readUInt32BE(dataoff + 8);
  let cd;
  const special = [];
  for (let i = 0; i < count; i++) {
    const type = buf.readUInt32BE(dataoff + 12 + i * 8);
    const at = dataoff + buf.readUInt32BE(dataoff + 16 + i * 8);
    if (type === 0) cd = at;
    else if (type < 0x1000) special.push({ type, blob: buf.subarray(at, at + buf.readUInt32BE(at + 4)) });
  }
  if (cd === undefined || buf.readUInt32BE(cd) !== CSMAGIC_CODEDIRECTORY) throw new Error("the signature has no CodeDirectory");
  const flags = buf.readUInt32BE(cd + 12);
  const hashOffset = buf.readUInt32BE(cd + 16);
  const identifier = cstring(buf, cd + buf.readUInt32BE(cd + 20), 256);
  const nSpecialSlots = buf.readUInt32BE(cd + 24);
  const nCodeSlots = buf.readUInt32BE(cd + 28);
  const codeLimit = buf.readUInt32BE(cd + 32);
  const hashSize = buf.readUInt8(cd + 36);
  const hashType = buf.readUInt8(cd + 37);
  const pageSize = 2 ** buf.readUInt8(cd + 39);
  if (!(flags & CS_ADHOC)) throw new Error(`the CodeDirectory is not ad hoc (flags 0x${flags.toString(16)})`);
  if (hashType !== 2 || hashSize !== 32) throw new Error(`the CodeDirectory's hashes are not SHA-256 (type ${hashType}, size ${hashSize})`);
  if (codeLimit !== dataoff) throw new Error(`the CodeDirectory covers ${codeLimit} bytes, but the signature starts at ${dataoff}`);
  if (nCodeSlots !== Math.ceil(codeLimit / pageSize)) throw new Error(`${nCodeSlots} code slots for ${codeLimit} bytes in pages of ${pageSize}`);
  // The blobs beside the CodeDirectory (the requirements, entitlements) are hashed into its special slots, counted back from hashOffset.
  for (const { type, blob } of special) {
    if (type > nSpecialSlots) throw new Error(`blob of slot ${type} has no special slot (${nSpecialSlots})`);
    const want = buf.subarray(cd + hashOffset - type * hashSize, cd + hashOffset - (type - 1) * hashSize);
    if (!createHash("sha256").update(blob).digest().equals(want)) throw new Error(`the blob of special slot ${type} does not match its hash`);
  }
  for (let i = 0; i < nCodeSlots; i++) {
    const page = buf.subarray(i * pageSize, Math.min((i + 1) * pageSize, codeLimit));
    const want = buf.subarray(cd + hashOffset + i * hashSize, cd + hashOffset + (i + 1) * hashSize);
    if (!createHash("sha256").update(page).digest().equals(want)) throw new Error(`code page ${i} does not match its hash`);
  }
  return { identifier, pages: nCodeSlots, pageSize, specialSlots: special.map((s) => s.type) };
}
