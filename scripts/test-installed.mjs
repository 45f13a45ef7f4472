// The second half of `npm test`: the suites that launch our plugins the way
// the engine does (differential against both references, bad input, Python
// worker faults), run again against the single executable, as users of the
// release archive and the wheel get it, with no node on PATH (the references
// and mocha are started by absolute path). `npm run dist` builds it first,
// from the bundle `npm test` has just built (the packaging tests built it too;
// a rebuild takes ~20 s and keeps this step right when run on its own).
//
//   node scripts/test-installed.mjs [DIR]
// DIR: a directory holding the plugin names of another installed copy (npm's
// bin, an unpacked archive, a virtualenv's bin) to test instead; nothing is built.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
const osName = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform] ?? process.platform;
const dir = process.argv[2] ? path.resolve(process.argv[2]) : path.join(ROOT, "dist/sea", `pulumi-dynamic-host-${pkg.version}-${osName}-${process.arch}`);

/** A directory of links to every command on PATH but Node's own (the first of each name, as PATH would find it). */
function pathWithoutNode() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pdh-path-without-node-"));
  process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  const skip = new Set(["node", "nodejs", "npm", "npx", "corepack"]);
  for (const from of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(from) || !fs.existsSync(from)) continue;
    for (const name of fs.readdirSync(from)) {
      const to = path.join(dir, name);
      if (skip.has(name) || fs.existsSync(to)) continue;
      try {
        if (fs.statSync(path.join(from, name)).isFile()) fs.symlinkSync(path.join(from, name), to);
      } catch {
        // a dangling link on PATH
      }
    }
  }
  return dir;
}

/** The suites of declared providers used by programs of every language (Python, JavaScript, TypeScript under Bun, Go). */
const DECLARED_SUITES = [
  "dist/test/e2e/declared-node-provider.test.js",
  "dist/test/e2e/declared-python-provider.test.js",
  "dist/test/e2e/declared-python-program.test.js",
  "dist/test/e2e/go-declared.test.js",
  "dist/test/e2e/bun-declared.test.js",
  "dist/test/e2e/yaml-declared.test.js",
];
const MOCHA = [path.join(ROOT, "node_modules/mocha/bin/mocha.js"), "--no-config", "--reporter", "test/reporter.cjs", "--timeout", "60000", "--exit"];

if (!process.argv[2]) execFileSync(process.execPath, [path.join(ROOT, "scripts/dist.mjs")], { cwd: ROOT, stdio: "inherit" });
process.stderr.write(`test-installed: the suites again, against ${path.relative(ROOT, dir)}, with no node on PATH\n`);
execFileSync(
  process.execPath,
  [
    // .mocharc.json's spec is the whole suite; MOCHA has its other options.
    ...MOCHA,
    ...["dist/test/differential/*.test.js", "dist/test/plugin/node-bad-input.test.js", "dist/test/python/faults.test.js"],
    // Under the real engine: import and repair load the project's code (TypeScript too) from the executable.
    "dist/test/e2e/node-references.test.js",
    // Declared providers for programs of every language, served by the executable where no node is installed.
    ...DECLARED_SUITES,
    // 1,000 declared Python resources in one program, through the executable.
    "dist/test/e2e/declared-scale.test.js",
    // The executable's own Python launcher: its worker taken by the host (its files extracted by the runs above),
    // and the preloader it leaves, forking later starts' workers.
    "dist/test/python/launcher.test.js",
    "dist/test/python/preloader.test.js",
    // The conformance kit from the executable, in fresh user projects, against both references and both our plugins
    // (mocha's run covers npm i -g of the packed package and the wheel).
    "dist/test/conformance/kit.test.js",
  ],
  { cwd: ROOT, stdio: "inherit", env: { ...process.env, PATH: pathWithoutNode(), PULUMI_DYNAMIC_HOST_UNDER_TEST: dir } },
);

// The npm package as the README installs it (`npm i -g` of the packed tarball, here into a prefix of
// its own): the declared-provider suites against its bin, with the machine's node; then installed
// as on Windows, the Python suites against its Node entry.
if (!process.argv[2]) {
  const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pdh-npm-global-")));
  process.once("exit", () => fs.rmSync(scratch, { recursive: true, force: true }));
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }))[0];
  const prefix = path.join(scratch, "prefix");
  execFileSync("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", path.join(scratch, packed.filename)], { stdio: ["ignore", "inherit", "inherit"] });
  process.stderr.write(`test-installed: the declared-provider suites, provider packages from registries, the launcher and its preloader against npm i -g of ${packed.filename}\n`);
  // Provider packages by registry spec: the installed plugins run the user's npm and pip (node is on PATH here);
  // a component's dynamic resource resolving from the component's folder.
  execFileSync(process.execPath, [...MOCHA, ...DECLARED_SUITES, "dist/test/e2e/provider-package-registries.test.js", "dist/test/e2e/component-dynamic.test.js", "dist/test/python/launcher.test.js", "dist/test/python/preloader.test.js"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, PULUMI_DYNAMIC_HOST_UNDER_TEST: path.join(prefix, "bin") },
  });

  // The same tarball installed as on Windows: the Python plugin's name is the Node entry
  // (bin/python-entry.mjs, chosen by the preinstall). The suites that start the Python plugin,
  // against it; test/install/python-node-entry.test.ts starts it where no shell can run.
  const nodeEntry = path.join(scratch, "prefix-node-entry");
  execFileSync("npm", ["install", "-g", "--prefix", nodeEntry, "--no-audit", "--no-fund", "--loglevel=error", path.join(scratch, packed.filename)], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, PULUMI_DYNAMIC_HOST_PYTHON_ENTRY: "node" },
  });
  process.stderr.write(`test-installed: the Python suites against npm i -g of ${packed.filename} with the Node entry (as on Windows)\n`);
  execFileSync(
    process.execPath,
    [
      ...MOCHA,
      "dist/test/differential/python-*.test.js",
      "dist/test/python/faults.test.js",
      "dist/test/e2e/declared-python-provider.test.js",
      "dist/test/e2e/declared-python-program.test.js",
    ],
    { cwd: ROOT, stdio: "inherit", env: { ...process.env, PULUMI_DYNAMIC_HOST_UNDER_TEST: path.join(nodeEntry, "bin") } },
  );
}
