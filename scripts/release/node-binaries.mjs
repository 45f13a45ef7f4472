// The pinned Node binary of a target (targets.mjs), from the npm registry:
// `npm pack <package>@<version>` into the cache, the tarball's SHA-512 checked
// against the integrity pinned in targets.mjs, and the one binary extracted
// beside it. A later build finds the binary and its recorded SHA-256 and
// downloads nothing; a cached binary whose bytes no longer match is fetched
// again.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NODE_VERSION } from "./targets.mjs";

export function cacheRoot() {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-dynamic-host");
}

const hashOf = (file, algorithm, encoding) => {
  const hash = createHash(algorithm);
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) hash.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest(encoding);
};

/** The path of the target's pinned Node binary, downloaded and checked on first use. */
export function pinnedNode(target, say = () => {}) {
  const dir = path.join(cacheRoot(), `node-${NODE_VERSION}`, target.npm);
  const binary = path.join(dir, path.basename(target.binary));
  const record = path.join(dir, "sha256");
  if (fs.existsSync(record) && fs.existsSync(binary) && hashOf(binary, "sha256", "hex") === fs.readFileSync(record, "utf8").trim()) return binary;

  const spec = `${target.npm}@${NODE_VERSION}`;
  say(`fetching ${spec} from the npm registry`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const packed = JSON.parse(execFileSync("npm", ["pack", spec, "--json", "--silent", "--pack-destination", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 << 20 }));
  const tarball = path.join(dir, (Array.isArray(packed) ? packed[0] : packed).filename);
  const got = `sha512-${hashOf(tarball, "sha512", "base64")}`;
  if (got !== target.integrity) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`${spec}: the tarball's integrity is ${got}, but scripts/release/targets.mjs pins ${target.integrity}`);
  }
  execFileSync("tar", ["-xzf", tarball, "-C", dir, "--strip-components", String(target.binary.split("/").length - 1), target.binary]);
  fs.rmSync(tarball);
  fs.chmodSync(binary, 0o755);
  fs.writeFileSync(record, `${hashOf(binary, "sha256", "hex")}\n`);
  return binary;
}

export { hashOf };
