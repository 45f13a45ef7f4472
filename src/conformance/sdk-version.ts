// Which release of Pulumi's SDK the conformance table was recorded with, and
// which release a plugin under test comes from, where that can be known.
//
// The table records the answers of Pulumi's plugins of one release
// (RECORDED_WITH, the versions the repository pins: package.json's
// @pulumi/pulumi, test/python-requirements.txt's pulumi). Where a later
// release changed an answer, the case says so (Case.sdk: the release the
// recorded answer comes from, and what earlier releases answer), and a plugin
// known to come from an earlier release is judged by that (run.ts).
//
// How the kit knows a plugin's release (pluginSdkVersion), for Node:
// - a word of the command is a file inside an `@pulumi/pulumi` package folder
//   (`node …/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js`):
//   that package's version;
// - the program (or a script given to sh) is Pulumi's launcher script
//   `pulumi-resource-pulumi-nodejs`, which runs the dynamic-provider module of
//   the `@pulumi/pulumi` Node resolves from the program's folder: the version
//   of the project's `@pulumi/pulumi`.
// For Python: `reference`, and Pulumi's launcher script
// `pulumi-resource-pulumi-python` (it runs `-m pulumi.dynamic`): the version
// of `pulumi` in the Python the payloads are made with (the one the launcher
// picks). Anything else (this host, another host) is not an SDK release: its
// answers are judged as recorded, unless `--sdk-version` names one.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Language } from "./case.js";
import { shellWords } from "./plugin-command.js";

/** The SDK releases the table's answers were recorded with (test/unit/conformance-sdk-version.test.ts holds them to the pins). */
export const RECORDED_WITH: Record<Language, string> = { nodejs: "3.270.0", python: "3.270.0" };

export const validVersion = (v: string): boolean => /^\d+\.\d+\.\d+(?:[-+][\w.+-]*)?$/.test(v);

/** -1, 0 or 1 as release `a` is before, the same as, or after `b` (major.minor.patch; a pre-release before its release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core, pre] = v.split(/-(.*)/s, 2);
    return { nums: core.split("+")[0].split(".").map((n) => Number(n) || 0), pre: pre ?? "" };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === "") return 1;
  if (y.pre === "") return -1;
  return x.pre < y.pre ? -1 : 1;
}

function readJson(file: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/** The version of the `@pulumi/pulumi` package folder that holds `file`, if one does. */
export function enclosingNodeSdk(file: string): string | undefined {
  // A link to the plugin's file is that file (Node runs a linked main module from its real path).
  let real = path.resolve(file);
  try {
    real = fs.realpathSync(real);
  } catch {
    // not there: its own folder is all there is to look at
  }
  let dir = path.dirname(real);
  for (;;) {
    const pkg = readJson(path.join(dir, "package.json"));
    if (pkg?.name === "@pulumi/pulumi" && pkg.version) return pkg.version;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The first 4 KiB of `file` as text, when it is a readable file. */
function head(file: string): string | undefined {
  try {
    const fd = fs.openSync(file, "r");
    try {
      const buf = Buffer.alloc(4096);
      return buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString("latin1");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** The `@pulumi/pulumi` version Node resolves from `dir` (the project's). */
export function projectNodeSdk(dir: string): string | undefined {
  try {
    return readJson(createRequire(path.join(dir, "noop.js")).resolve("@pulumi/pulumi/package.json"))?.version;
  } catch {
    return undefined;
  }
}

/** The `pulumi` distribution's version in `python`. */
export function pythonSdkVersion(python: string): string | undefined {
  try {
    const v = execFileSync(python, ["-c", "import importlib.metadata as m; print(m.version('pulumi'))"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 30_000 }).trim();
    return validVersion(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The SDK release the plugin `command` (its paths absolute, plugin-command.ts) comes from, run
 * for a project in `projectDir`; `payloadPython` names the Python the payloads are made with.
 */
export function pluginSdkVersion(language: Language, command: string, projectDir: string, payloadPython?: () => string | undefined): string | undefined {
  const python = () => {
    const p = payloadPython?.();
    return p ? pythonSdkVersion(p) : undefined;
  };
  if (language === "python" && command === "reference") return python();
  const words = shellWords(command) ?? [];
  const files = words.filter((w) => path.isAbsolute(w) && fs.existsSync(w));
  if (language === "nodejs") {
    for (const f of files) {
      const v = enclosingNodeSdk(f);
      if (v) return v;
    }
    if (files.some((f) => head(f)?.includes("@pulumi/pulumi/cmd/dynamic-provider"))) return projectNodeSdk(projectDir);
    return undefined;
  }
  const launcher = files.some((f) => /-m pulumi\.dynamic/.test(head(f) ?? ""));
  const module = words.some((w, i) => w === "pulumi.dynamic" && words[i - 1] === "-m");
  if (module && /python/.test(path.basename(words[0]))) return pythonSdkVersion(words[0]);
  return launcher || module ? python() : undefined;
}
