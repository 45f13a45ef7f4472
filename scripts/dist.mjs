// npm run dist: the release artifacts for the platform this runs on, in
// dist/release/:
//   pulumi-dynamic-host-<version>-<os>-<arch>.tar.gz  the single executable under
//       all three names (hard links; the Python plugin's name is its launcher script),
//       and docs/*.md, for teams without Node;
//   pulumi_dynamic_host-<version>-py3-none-<platform>.whl  the same executable once, as
//       the wheel's script pulumi-resource-pulumi-nodejs, with launchers under the two
//       other names (wheelScripts), so `pip install` puts the plugins on a virtualenv's PATH,
//       and the package pulumi_dynamic_host with the helpers programs import
//       (pulumi_dynamic_host.reference and .declared, whose one source is python-stub/helper/).
//
// The single executable is Node's own (single executable applications): this
// node binary, its debug symbols stripped, with a preparation blob injected by
// postject (the tool Node's documentation names for it) holding its main script
// (src/boot/sea.ts, with V8's code cache for it), which loads the host's
// CommonJS bundle for the name it was run by (the assets host.cjs, host-nodejs.cjs
// and host-python.cjs: src/boot/bundles.ts) with V8's code cache kept between starts
// (src/boot/code-cache.ts), and the host's files as assets
// (package.json, proto/*.proto, python-stub/**/*.py and launch.sh, reference/index.cjs,
// docs/*.md for `pulumi-dynamic-host docs`, and assets.json listing them).
// The wheel is built by hatchling (see packaging/python/hatch_build.py).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { copyKitPackages, HOST_ENTRIES, hostBundle, KIT_PACKAGES_DIR } from "./bundle.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT = path.join(ROOT, "dist/sea");
const RELEASE = path.join(ROOT, "dist/release");
const NAMES = ["pulumi-dynamic-host", "pulumi-resource-pulumi-nodejs", "pulumi-resource-pulumi-python"];
const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const HATCHLING = "hatchling==1.33.0";
/** The helpers' one source: every module here goes into the wheel's package (reference.py, declared.py). */
const HELPERS = "python-stub/helper/pulumi_dynamic_host";

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
const say = (m) => process.stderr.write(`dist: ${m}\n`);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", ...opts });

function files(dir, keep) {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true })
    .map((f) => path.posix.join(dir, f.split(path.sep).join("/")))
    .filter((f) => fs.statSync(path.join(ROOT, f)).isFile() && keep(f))
    .sort();
}

async function bundle() {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  const host = hostBundle("process.execPath");
  await Promise.all([
    // The npm package's host bundle (scripts/bundle.mjs), with the embedded assets and the executable's URL for import.meta.url.
    build({
      ...host,
      entryPoints: Object.fromEntries(Object.entries(HOST_ENTRIES).map(([name, entry]) => [name, path.join(ROOT, entry)])),
      outdir: OUT,
      outExtension: { ".js": ".cjs" },
      sourcemap: false,
      define: { ...host.define, __PDH_SEA__: "true" },
    }),
    build({ bundle: true, format: "cjs", platform: "node", target: "node20", logLevel: "warning", entryPoints: [path.join(ROOT, "src/boot/sea.ts")], outfile: path.join(OUT, "sea-main.cjs") }),
  ]);
}

function seaConfig() {
  // The conformance kit's scenarios and the packages they require (scripts/bundle.mjs, copyKitPackages).
  copyKitPackages();
  const assets = [
    "package.json",
    "reference/index.cjs",
    ...files("proto", (f) => f.endsWith(".proto")),
    ...files("python-stub", (f) => f.endsWith(".py") || f.endsWith(".sh")),
    ...files("docs", (f) => f.endsWith(".md")),
    ...files("src/conformance/scenarios", (f) => !f.includes("__pycache__")),
    ...files(KIT_PACKAGES_DIR, () => true),
  ];
  fs.writeFileSync(path.join(OUT, "assets.json"), JSON.stringify(assets));
  const map = Object.fromEntries(assets.map((a) => [a, path.join(ROOT, a)]));
  map["assets.json"] = path.join(OUT, "assets.json");
  for (const name of Object.keys(HOST_ENTRIES)) map[`${name}.cjs`] = path.join(OUT, `${name}.cjs`);
  const config = {
    main: path.join(OUT, "sea-main.cjs"),
    output: path.join(OUT, "sea-prep.blob"),
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: map,
  };
  fs.writeFileSync(path.join(OUT, "sea-config.json"), JSON.stringify(config, null, 2));
  return config;
}

function executable() {
  const exe = path.join(OUT, "pulumi-dynamic-host");
  fs.copyFileSync(process.execPath, exe);
  fs.chmodSync(exe, 0o755);
  if (process.platform === "linux") {
    // Node's release binaries carry debug symbols the host never uses (≈ 12 MiB here).
    try {
      run("strip", [exe]);
    } catch {
      say("strip is not available: the executable keeps node's debug symbols");
    }
  }
  if (process.platform === "darwin") run("codesign", ["--remove-signature", exe]);
  run(process.execPath, ["--experimental-sea-config", path.join(OUT, "sea-config.json")], { cwd: OUT });
  const postject = path.join(ROOT, "node_modules/postject/dist/cli.js");
  const extra = process.platform === "darwin" ? ["--macho-segment-name", "NODE_SEA"] : [];
  run(process.execPath, [postject, exe, "NODE_SEA_BLOB", path.join(OUT, "sea-prep.blob"), "--sentinel-fuse", FUSE, ...extra], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (process.platform === "darwin") run("codesign", ["--sign", "-", exe]);
  const version = run(exe, ["version"]).trim();
  if (version !== pkg.version) throw new Error(`the built executable says version ${JSON.stringify(version)}, expected ${pkg.version}`);
  return exe;
}

const osName = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform] ?? process.platform;
const archName = { x64: "x64", arm64: "arm64" }[process.arch] ?? process.arch;

/**
 * The executable under the names the engine and people run, in `dir`: hard
 * links, but for pulumi-resource-pulumi-python, the launcher the executable
 * writes for itself (src/cli/install/python-launcher.ts), which starts the Python
 * worker beside the host.
 */
function placeNames(exe, dir) {
  for (const name of NAMES) {
    if (name === "pulumi-resource-pulumi-python") fs.writeFileSync(path.join(dir, name), run(exe, ["python-launcher"]), { mode: 0o755 });
    else fs.linkSync(exe, path.join(dir, name));
  }
}

/**
 * The wheel's scripts: pip installs each as its own file (no hard links), so
 * the executable goes in once, under the Node plugin's name (the one the
 * engine runs most, with no shell in front); the Python plugin's name is its
 * launcher as in the archive, and pulumi-dynamic-host a small launcher
 * (packaging/python/command-launcher.sh) that runs the executable as the
 * command for people.
 */
function wheelScripts(exe, dir) {
  fs.copyFileSync(exe, path.join(dir, "pulumi-resource-pulumi-nodejs"));
  fs.chmodSync(path.join(dir, "pulumi-resource-pulumi-nodejs"), 0o755);
  fs.writeFileSync(path.join(dir, "pulumi-resource-pulumi-python"), run(exe, ["python-launcher"]), { mode: 0o755 });
  fs.copyFileSync(path.join(ROOT, "packaging/python/command-launcher.sh"), path.join(dir, "pulumi-dynamic-host"));
  fs.chmodSync(path.join(dir, "pulumi-dynamic-host"), 0o755);
}

function archive(exe) {
  const base = `pulumi-dynamic-host-${pkg.version}-${osName}-${archName}`;
  const stage = path.join(OUT, base);
  fs.mkdirSync(stage);
  placeNames(exe, stage);
  // The documents, to read beside the executable (which also prints them: pulumi-dynamic-host docs).
  fs.mkdirSync(path.join(stage, "docs"));
  for (const f of files("docs", (f) => f.endsWith(".md"))) fs.copyFileSync(path.join(ROOT, f), path.join(stage, f));
  fs.mkdirSync(RELEASE, { recursive: true });
  const file = path.join(RELEASE, `${base}.tar.gz`);
  fs.rmSync(file, { force: true });
  // GNU and BSD tar both store the second and third names as hard links to the first.
  run("tar", ["-czf", file, "-C", OUT, base]);
  return file;
}

/** The wheel's platform tag: the newest glibc symbol version the executable needs decides its manylinux level. */
function wheelPlatform(exe) {
  const machine = { x64: "x86_64", arm64: "aarch64" }[process.arch] ?? process.arch;
  if (process.platform === "linux") {
    const text = fs.readFileSync(exe).toString("latin1");
    let minor = 17;
    for (const m of text.matchAll(/GLIBC_2\.(\d+)/g)) minor = Math.max(minor, Number(m[1]));
    return `manylinux_2_${minor}_${machine}`;
  }
  if (process.platform === "darwin") return `macosx_11_0_${process.arch === "arm64" ? "arm64" : "x86_64"}`;
  throw new Error(`no wheel platform tag for ${process.platform}`);
}

/** A virtualenv with the pinned build backend, cached under ~/.cache and rebuilt when missing. */
function buildPython() {
  const python = process.env.PULUMI_DYNAMIC_HOST_PYTHON || "python3";
  const cache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-dynamic-host");
  const venv = path.join(cache, `wheel-build-${HATCHLING.replace(/[^a-z0-9.]/gi, "-")}`);
  if (!fs.existsSync(path.join(venv, ".complete"))) {
    say(`creating ${venv} (${HATCHLING})`);
    fs.rmSync(venv, { recursive: true, force: true });
    run(python, ["-m", "venv", venv]);
    run(path.join(venv, "bin/python"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", HATCHLING], { stdio: ["ignore", "inherit", "inherit"] });
    fs.writeFileSync(path.join(venv, ".complete"), "");
  }
  return path.join(venv, "bin/python");
}

function wheel(exe) {
  const stage = path.join(OUT, "wheel");
  fs.cpSync(path.join(ROOT, "packaging/python"), stage, { recursive: true });
  // The helpers' one source is the worker's copy; the wheel's package holds each as its module.
  for (const f of fs.readdirSync(path.join(ROOT, HELPERS)).filter((f) => f.endsWith(".py"))) {
    fs.copyFileSync(path.join(ROOT, HELPERS, f), path.join(stage, "pulumi_dynamic_host", f));
  }
  fs.mkdirSync(path.join(stage, "scripts"));
  wheelScripts(exe, path.join(stage, "scripts"));
  const before = new Set(fs.existsSync(RELEASE) ? fs.readdirSync(RELEASE) : []);
  for (const f of before) if (f.endsWith(".whl")) fs.rmSync(path.join(RELEASE, f));
  run(buildPython(), ["-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--disable-pip-version-check", "-w", RELEASE, stage], {
    env: { ...process.env, PULUMI_DYNAMIC_HOST_VERSION: pkg.version, PULUMI_DYNAMIC_HOST_WHEEL_PLATFORM: wheelPlatform(exe) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const built = fs.readdirSync(RELEASE).filter((f) => f.endsWith(".whl"));
  if (built.length !== 1) throw new Error(`expected one wheel in ${RELEASE}, found ${built.join(", ") || "none"}`);
  return path.join(RELEASE, built[0]);
}

const started = Date.now();
await bundle();
seaConfig();
const exe = executable();
const mib = (f) => `${(fs.statSync(f).size / 2 ** 20).toFixed(1)} MiB`;
say(`single executable ${path.relative(ROOT, exe)} (${mib(exe)})`);
const tgz = archive(exe);
say(`archive ${path.relative(ROOT, tgz)} (${mib(tgz)})`);
const whl = wheel(exe);
say(`wheel ${path.relative(ROOT, whl)} (${mib(whl)})`);
say(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
