// A Python package index, through the pip of the project's Python
// (src/host/packages/registry-install.ts): a spec (`acme-files==1.2.0`,
// `acme-files>=1.2`, `acme-files`) resolved with `pip install --dry-run
// --report` to one version and the sha256 of the file the index serves for it;
// that file installed with `--require-hashes` into a folder of the cache, which
// the worker puts first on sys.path when it imports the package's providers,
// together with the dependencies the project's Python does not already satisfy
// (pip's own resolver, against what that Python has installed, says which). So
// the provider runs with its package's dependencies whatever the consuming
// project installed, and with the project's own pulumi and dill. pip's
// configuration is the user's (PIP_INDEX_URL, pip.conf); the cache folder is
// per interpreter, since what it lacks, and which wheels fit it, depend on it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RegistrySource } from "../host/packages/parameters.js";
import { RegistryError, runTool, type Installed, type PackageRegistry, type Resolved, type ToolResult } from "../host/packages/registry-install.js";
import type { Interpreter } from "./interpreter/interpreter.js";

const PIP_TIMEOUT_MS = 10 * 60_000;

export type PipRun = (args: string[], cwd: string) => Promise<ToolResult>;

/** `python -m pip …` with the interpreter's environment. */
export function pipOf(interpreter: Interpreter): PipRun {
  return (args, cwd) =>
    runTool(interpreter.python, ["-m", "pip", "--disable-pip-version-check", "--no-input", ...args], {
      cwd,
      env: { ...interpreter.env, PIP_NO_INPUT: "1" },
      timeoutMs: PIP_TIMEOUT_MS,
      title: "pip",
    });
}

/** An entry of pip's installation report (https://pip.pypa.io/en/stable/reference/installation-report/), as far as it is read here. */
interface ReportItem {
  metadata?: { name?: string; version?: string };
  download_info?: { url?: string; archive_info?: { hashes?: Record<string, string>; hash?: string } };
}

export class PypiRegistry implements PackageRegistry {
  readonly kind = "pypi" as const;
  readonly title = "the Python package index";
  readonly variant: string;

  constructor(
    private readonly interpreter: Interpreter,
    private readonly pip: PipRun = pipOf(interpreter),
  ) {
    this.variant = interpreter.python;
  }

  async resolve(spec: string, cwd: string): Promise<Resolved> {
    const [item] = await this.report(["--ignore-installed", "--no-deps", spec], cwd, `find ${JSON.stringify(spec)}`);
    const name = item?.metadata?.name;
    const version = item?.metadata?.version;
    const sha256 = item && sha256Of(item);
    if (!name || !version || !sha256) {
      throw new RegistryError(`pip resolved ${JSON.stringify(spec)} to no file with a sha256 (${JSON.stringify(item ?? null).slice(0, 200)}); a provider package must come from an index that serves files`);
    }
    return { package: name, version, integrity: `sha256:${sha256}` };
  }

  async install(pinned: RegistrySource, into: string, cwd: string): Promise<Installed> {
    const site = path.join(into, "site");
    const exact = `${pinned.package}==${pinned.version}`;
    // The package itself, the very file it was added with.
    const requirements = path.join(into, "requirements.txt");
    fs.writeFileSync(requirements, `${exact} --hash=${pinned.integrity}\n`);
    const own = await this.pip(["install", "--quiet", "--no-deps", "--require-hashes", "--target", site, "-r", requirements], cwd);
    if (own.code !== 0) {
      const changed = /DO NOT MATCH THE HASHES/.test(own.stderr);
      throw new RegistryError(
        changed
          ? `the index pip uses now serves other bytes for ${pinned.package} ${pinned.version} than the project added it with (${pinned.integrity}), so it is not installed`
          : `pip could not install ${exact} (for ${pinned.spec}) with ${this.interpreter.python}: ${pipProblem(own)}`,
      );
    }
    // Its dependencies that the project's Python lacks, or has at versions the package does not accept.
    const missing = (await this.report([exact], cwd, `resolve the dependencies of ${exact}`)).filter(
      (i) => normalize(i.metadata?.name ?? "") !== normalize(pinned.package) && i.metadata?.name && i.metadata.version,
    );
    if (missing.length && !lacksTheWorker(missing)) {
      const deps = missing.map((i) => `${i.metadata!.name}==${i.metadata!.version}`);
      const res = await this.pip(["install", "--quiet", "--no-deps", "--target", site, ...deps], cwd);
      if (res.code !== 0) throw new RegistryError(`pip could not install the dependencies of ${exact} (${deps.join(" ")}) with ${this.interpreter.python}: ${pipProblem(res)}`);
    }
    fs.rmSync(requirements, { force: true });
    return { dir: site, declarations: declarationsOf(site, pinned), manifest: { name: pinned.package, version: pinned.version } };
  }

  /** A folder package's requirements that this Python does not satisfy, installed into `into`/site. */
  async installDependencies(requirements: readonly string[], into: string, cwd: string, what: string): Promise<string | undefined> {
    const missing = (await this.report([...requirements], cwd, `resolve the dependencies of ${what} (${requirements.join(", ")})`)).filter((i) => i.metadata?.name && i.metadata.version);
    if (!missing.length || lacksTheWorker(missing)) return undefined;
    const site = path.join(into, "site");
    const deps = missing.map((i) => `${i.metadata!.name}==${i.metadata!.version}`);
    const res = await this.pip(["install", "--quiet", "--no-deps", "--target", site, ...deps], cwd);
    if (res.code !== 0) throw new RegistryError(`pip could not install the dependencies of ${what} (${deps.join(" ")}) with ${this.interpreter.python}: ${pipProblem(res)}`);
    return site;
  }

  /** What `pip install --dry-run --report` would install for `args`. */
  private async report(args: string[], cwd: string, what: string): Promise<ReportItem[]> {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pdh-pip-")), "report.json");
    try {
      const res = await this.pip(["install", "--quiet", "--dry-run", "--report", file, ...args], cwd);
      if (res.code !== 0) throw new RegistryError(`pip could not ${what} (pip install --dry-run ${args.join(" ")}, with ${this.interpreter.python}, in ${cwd}): ${pipProblem(res)}`);
      const report = JSON.parse(fs.readFileSync(file, "utf8")) as { install?: ReportItem[] };
      return report.install ?? [];
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }
}

/** What pip said: its ERROR lines, else its last lines. */
function pipProblem(res: { code: number; stdout: string; stderr: string }): string {
  const lines = (res.stderr || res.stdout).split("\n").map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => l.startsWith("ERROR:")).map((l) => l.slice(6).trim());
  return (errors.length ? errors : lines.slice(-4)).join("; ") || `exit code ${res.code}`;
}

function sha256Of(item: ReportItem): string | undefined {
  const info = item.download_info?.archive_info;
  const hex = info?.hashes?.sha256 ?? (info?.hash?.startsWith("sha256=") ? info.hash.slice(7) : undefined);
  return hex && /^[0-9a-f]{64}$/.test(hex) ? hex : undefined;
}

/**
 * Whether what this Python lacks includes what the worker itself needs (pulumi, dill): then the
 * worker cannot run in it at all (each request says so, naming the fix), and nothing is installed for
 * the package, least of all a copy of pulumi (a plugin asked only for a schema, in whatever python3
 * is on PATH, would otherwise fetch it).
 */
function lacksTheWorker(missing: ReportItem[]): boolean {
  return missing.some((i) => ["pulumi", "dill"].includes(normalize(i.metadata?.name ?? "")));
}

/** PEP 503's normalized name. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** The pulumi-provider.yaml the distribution installed (its RECORD lists every file it put in `site`). */
function declarationsOf(site: string, pinned: RegistrySource): string {
  const infos = fs.readdirSync(site).filter((d) => d.endsWith(".dist-info"));
  const info = infos.find((d) => normalize(d.replace(/-[^-]+\.dist-info$/, "")) === normalize(pinned.package));
  const record = info ? fs.readFileSync(path.join(site, info, "RECORD"), "utf8") : "";
  const files = record.split(/\r?\n/).map((l) => l.split(",")[0]).filter((f) => f.split("/").pop() === "pulumi-provider.yaml");
  if (files.length !== 1) {
    throw new RegistryError(
      `${pinned.package} ${pinned.version} ${files.length ? `installs ${files.length} files named pulumi-provider.yaml (${files.join(", ")})` : "installs no pulumi-provider.yaml"}: ` +
        `a Python provider package carries exactly one in its wheel, among its modules (docs/provider-packages.md)`,
    );
  }
  return path.join(site, files[0]);
}
