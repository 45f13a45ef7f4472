// The npm registry, through the user's own npm (./registry-install.ts): a spec
// (`@acme/files@1.2.0`, `@acme/files@^1`, `@acme/files`) resolved with `npm
// view` to one version and the `integrity` the registry published for it; that
// version installed with `npm install` into a cache folder of its own, with its
// dependencies (not its devDependencies), and refused unless npm installed the
// same integrity. npm's configuration is the user's: environment variables,
// ~/.npmrc, and the project's .npmrc (copied in for the install, removed after).
import fs from "node:fs";
import path from "node:path";
import type { RegistrySource } from "./parameters.js";
import { RegistryError, runTool, type Installed, type PackageRegistry, type Resolved, type ToolResult } from "./registry-install.js";

/** npm may download a lot; a registry that stops answering still ends. */
const NPM_TIMEOUT_MS = 10 * 60_000;

export type NpmRun = (args: string[], cwd: string) => Promise<ToolResult>;

/** npm from PATH (npm.cmd on Windows, which needs a shell). */
export const runNpm: NpmRun = (args, cwd) => {
  const windows = process.platform === "win32";
  return runTool(windows ? "npm.cmd" : "npm", windows ? args.map((a) => `"${a.replace(/"/g, '\\"')}"`) : args, {
    cwd,
    env: { ...process.env, npm_config_update_notifier: "false" },
    timeoutMs: NPM_TIMEOUT_MS,
    shell: windows,
    title: "npm",
    notFound: "npm was not found on PATH (a package is installed from npm with npm: install Node.js, which brings it, or add the package from a folder)",
  });
};

export class NpmRegistry implements PackageRegistry {
  readonly kind = "npm" as const;
  readonly title = "npm";
  readonly variant = "";

  constructor(private readonly run: NpmRun = runNpm) {}

  async resolve(spec: string, cwd: string): Promise<Resolved> {
    const res = await this.run(["view", spec, "name", "version", "dist.integrity", "--json"], cwd);
    if (res.code !== 0) throw new RegistryError(`npm could not find ${JSON.stringify(spec)} (npm view ${spec}, in ${cwd}): ${npmProblem(res)}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.stdout || "null");
    } catch {
      throw new RegistryError(`npm view ${spec} answered something that is not JSON: ${JSON.stringify(res.stdout.slice(0, 200))}`);
    }
    // A range matching several versions answers one object per version, lowest first: npm install would take the highest.
    const all = (Array.isArray(parsed) ? parsed : [parsed]).filter((v): v is Record<string, unknown> => !!v && typeof v === "object");
    const chosen = all[all.length - 1];
    if (!chosen) throw new RegistryError(`npm knows no version of ${JSON.stringify(spec)} (npm view ${spec}, in ${cwd}, answered nothing)`);
    const [name, version, integrity] = [chosen.name, chosen.version, chosen["dist.integrity"]];
    if (typeof name !== "string" || typeof version !== "string" || typeof integrity !== "string" || !integrity) {
      throw new RegistryError(`npm view ${spec} gave no name, version and integrity (${JSON.stringify(chosen).slice(0, 200)}); a provider package must come from a registry that publishes an integrity`);
    }
    return { package: name, version, integrity };
  }

  async install(pinned: RegistrySource, into: string, cwd: string): Promise<Installed> {
    const wanted = `${pinned.package}@${pinned.version}`;
    fs.writeFileSync(
      path.join(into, "package.json"),
      JSON.stringify({ name: "pulumi-dynamic-host-package", private: true, description: `${wanted}, for pulumi-dynamic-host`, dependencies: { [pinned.package]: pinned.version } }, null, 2),
    );
    const npmrc = path.join(cwd, ".npmrc");
    const copied = fs.existsSync(npmrc);
    if (copied) fs.copyFileSync(npmrc, path.join(into, ".npmrc"));
    let res;
    try {
      res = await this.run(["install", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"], into);
    } finally {
      if (copied) fs.rmSync(path.join(into, ".npmrc"), { force: true });
    }
    if (res.code !== 0) throw new RegistryError(`npm could not install ${wanted} (npm install, for ${pinned.spec}): ${npmProblem(res)}`);
    let lock: { packages?: Record<string, { version?: string; integrity?: string }> };
    try {
      lock = JSON.parse(fs.readFileSync(path.join(into, "package-lock.json"), "utf8"));
    } catch (e) {
      throw new RegistryError(`npm installed ${wanted} and wrote no readable package-lock.json (${(e as Error).message}), so its integrity cannot be checked`);
    }
    const got = lock.packages?.[`node_modules/${pinned.package}`];
    if (got?.version !== pinned.version || got?.integrity !== pinned.integrity) {
      throw new RegistryError(
        `npm installed ${pinned.package} ${got?.version ?? "(nothing)"} with integrity ${got?.integrity ?? "(none)"}, and the project added ${wanted} ` +
          `with integrity ${pinned.integrity}: the registry npm uses now serves other bytes under that version, so it is not installed`,
      );
    }
    return { dir: path.join(into, "node_modules", ...pinned.package.split("/")) };
  }
}

/** What npm said: its error summary, else the last lines it wrote. */
function npmProblem(res: { code: number; stdout: string; stderr: string }): string {
  try {
    const e = (JSON.parse(res.stdout) as { error?: { code?: string; summary?: string; detail?: string } }).error;
    if (e?.summary) return `${e.code ? `${e.code}: ` : ""}${e.summary}`.replace(/\s+/g, " ").trim();
  } catch {
    // not JSON
  }
  const lines = (res.stderr || res.stdout).split("\n").map((l) => l.replace(/^npm (ERR!|error) ?/, "").trim()).filter(Boolean);
  return lines.slice(0, 4).join("; ") || `exit code ${res.code}`;
}
