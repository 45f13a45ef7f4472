// The second half of `npm test`: the suites that launch our plugins the way
// the engine does (differential against both references, bad input, Python
// worker faults), run again against the single executable, as users of the
// release archive and the wheel get it. `npm run dist` builds it first, from
// the bundle `npm test` has just built (the packaging tests built it too; a
// rebuild takes ~20 s and keeps this step right when run on its own).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
const osName = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform] ?? process.platform;
const dir = path.join(ROOT, "dist/sea", `pulumi-dynamic-host-${pkg.version}-${osName}-${process.arch}`);

execFileSync(process.execPath, [path.join(ROOT, "scripts/dist.mjs")], { cwd: ROOT, stdio: "inherit" });
process.stderr.write(`test-installed: the suites again, against ${path.relative(ROOT, dir)}\n`);
execFileSync(
  process.execPath,
  [
    path.join(ROOT, "node_modules/mocha/bin/mocha.js"),
    // .mocharc.json's spec is the whole suite; these options are its others.
    ...["--no-config", "--reporter", "test/reporter.cjs", "--timeout", "60000", "--exit"],
    ...["dist/test/differential/*.test.js", "dist/test/node-bad-input.test.js", "dist/test/python-faults.test.js"],
  ],
  { cwd: ROOT, stdio: "inherit", env: { ...process.env, PULUMI_DYNAMIC_HOST_UNDER_TEST: dir } },
);
