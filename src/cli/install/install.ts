// src/cli/install: `install` and `uninstall`: registering the host with the
// engine (install.ts), where the engine finds a plugin and in what order
// (engine-lookup.ts, which `doctor` asks too), a project's Pulumi.yaml
// `plugins.providers` (project-file.ts), and the Python plugin's launcher the
// single executable writes (python-launcher.ts). It may import src/host's
// folders; nothing else of src/cli: the command table and `doctor` are above it.
//
// Registering the host with the engine, three ways:
//
// - next to `pulumi` (no argument): the engine's "bundled" place. The scripts
//   pulumi ships there are renamed to <name>.before-pulumi-dynamic-host and put
//   back by `uninstall`; a record of what was placed, in
//   .pulumi-dynamic-host-install.json beside them, lets `uninstall` touch only
//   what `install` wrote.
// - for one project (--project [DIR]): Pulumi.yaml `plugins.providers`, the
//   engine's first choice, no warning whatever PATH holds.
// - into a directory of the user's (--dir DIR): to put on PATH; the engine then
//   warns "using … from $PATH" unless that directory holds pulumi too.
//
// What is placed: the single executable itself (hard link, else copy) when
// running as one, but under the Python plugin's name the launcher it writes
// (python-launcher.ts); otherwise a symlink to the package's bin/<name> script.
import fs from "node:fs";
import { lstatOf } from "../../host/files/file-probe.js";
import path from "node:path";
import { EMBEDDED, packageRoot } from "../../host/files/assets.js";
import { COMMAND_NAME, MODES, PLUGIN_PREFIX, PYTHON, ownPackageOfBinary } from "../../host/plugin/modes.js";
import { embeddedPythonLauncher } from "./python-launcher.js";
import { hostVersion } from "../../host/plugin/plugin-info.js";
import { findPulumi, resolvePlugin, type PluginPackage } from "./engine-lookup.js";
import { findProjectRoot } from "../../host/references/project-root.js";
import { registerProjectPlugins, unregisterProjectPlugins } from "./project-file.js";

export const BACKUP_SUFFIX = ".before-pulumi-dynamic-host";
export const RECORD = ".pulumi-dynamic-host-install.json";

const NAMES = MODES.map((m) => m.binary);

/** A failure the user can act on: the message says what and where. */
export class InstallError extends Error {}

interface Placed {
  name: string;
  /** A symlink's target, or a file's inode and size when copied or hard-linked. */
  link?: string;
  ino?: number;
  size?: number;
  backup?: string;
}

interface Record {
  host: string;
  version: string;
  placed: Placed[];
}

/** The file each plugin name should run, and the directory that already holds all three names. */
export function ourPlugins(): { fileFor(name: string): string; dir: string; embedded: boolean } {
  if (EMBEDDED) return { fileFor: () => process.execPath, dir: path.dirname(process.execPath), embedded: true };
  const bin = path.join(packageRoot(), "bin");
  return { fileFor: (name) => path.join(bin, name), dir: bin, embedded: false };
}

/**
 * In the single executable, what the Python plugin's name holds: its launcher
 * script (python-launcher.ts), which starts the worker beside the executable
 * placed under the Node plugin's name. Undefined for every other name and install.
 */
export function launcherText(name: string): string | undefined {
  return EMBEDDED && name === PYTHON.binary ? embeddedPythonLauncher() : undefined;
}

/** The file at `file` is the launcher this executable writes for `name`. */
export function isOurLauncher(file: string, name: string): boolean {
  const text = launcherText(name);
  if (text === undefined) return false;
  try {
    return fs.readFileSync(file, "utf8") === text;
  } catch {
    return false;
  }
}

/** The installed name a plugin name runs: its own, or for a package of the project's own name, the command's. */
function sourceName(name: string): string {
  return ownPackageOfBinary(name) ? COMMAND_NAME : name;
}

function place(name: string, dir: string): Placed {
  const ours = ourPlugins();
  const to = path.join(dir, name);
  const launcher = launcherText(name);
  if (launcher !== undefined) {
    if (!isOurLauncher(to, name)) {
      fs.rmSync(to, { force: true });
      fs.writeFileSync(to, launcher, { mode: 0o755 });
    }
    const st = fs.statSync(to);
    return { name, ino: st.ino, size: st.size };
  }
  const source = ours.fileFor(sourceName(name));
  if (path.resolve(source) === path.resolve(to)) return { name, ino: fs.statSync(to).ino, size: fs.statSync(to).size };
  fs.rmSync(to, { force: true });
  if (!ours.embedded) {
    fs.symlinkSync(source, to);
    return { name, link: source };
  }
  try {
    fs.linkSync(source, to);
  } catch {
    // Another filesystem (or no hard links there): a copy runs the same.
    fs.copyFileSync(source, to);
    fs.chmodSync(to, 0o755);
  }
  const st = fs.statSync(to);
  return { name, ino: st.ino, size: st.size };
}

function isWhatWePlaced(p: Placed, file: string): boolean {
  const st = lstatOf(file);
  if (!st) return false;
  if (p.link !== undefined) return st.isSymbolicLink() && fs.readlinkSync(file) === p.link;
  return st.isFile() && st.ino === p.ino && st.size === p.size;
}

function readRecord(dir: string): Record | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, RECORD), "utf8")) as Record;
  } catch {
    return undefined;
  }
}

function notWritable(dir: string, err: unknown, where: string): never {
  const code = (err as NodeJS.ErrnoException).code ?? String(err);
  throw new InstallError(
    `cannot write to ${dir} (${code}): ${where}.\n` +
      `Ways out:\n` +
      `  - run this again as a user who may write there (e.g. with sudo);\n` +
      `  - register the host for one project instead: pulumi-dynamic-host install --project <project dir>;\n` +
      `  - or put the plugins in a directory of your own and that directory first on PATH:\n` +
      `    pulumi-dynamic-host install --dir <dir>  (the engine then warns "using … from $PATH" on every run)`,
  );
}

function checkWritable(dir: string, where: string): void {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    notWritable(dir, err, where);
  }
}

/** `install` with no argument: our names next to the pulumi the user runs. */
export function installNextToPulumi(env: NodeJS.ProcessEnv, out: (line: string) => void): void {
  const pulumi = findPulumi(env);
  if (!pulumi) {
    throw new InstallError(
      "pulumi is not on PATH, so there is no pulumi to install next to.\n" +
        "Put pulumi on PATH and run this again, or use --project <dir> (one project) or --dir <dir> (a directory you put on PATH).",
    );
  }
  const dir = pulumi.dir;
  const where = `pulumi (${pulumi.invoked}${pulumi.real !== pulumi.invoked ? ` -> ${pulumi.real}` : ""}) lives there, and the engine looks for its bundled plugins next to it`;
  checkWritable(dir, where);
  const before = readRecord(dir);
  const placed: Placed[] = [];
  try {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      const earlier = before?.placed.find((p) => p.name === name);
      let backup = earlier?.backup;
      if (lstatOf(file) && !(earlier && isWhatWePlaced(earlier, file))) {
        // A plugin that is not ours (the bundled script, perhaps of a newer pulumi): keep it to put back.
        backup = file + BACKUP_SUFFIX;
        fs.rmSync(backup, { force: true });
        fs.renameSync(file, backup);
        out(`kept ${file} as ${backup}`);
      }
      const p = place(name, dir);
      placed.push({ ...p, backup });
      out(`${file} -> ${p.link ?? ourPlugins().fileFor(name)}`);
    }
    fs.writeFileSync(path.join(dir, RECORD), JSON.stringify({ host: "pulumi-dynamic-host", version: hostVersion(), placed } satisfies Record, null, 2) + "\n");
  } catch (err) {
    if (err instanceof InstallError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") notWritable(dir, err, where);
    throw err;
  }
  reportShadows(dir, env, out);
}

/** Says which plugin the engine would launch now, and why it would warn if it would. */
function reportShadows(pulumiDir: string, env: NodeJS.ProcessEnv, out: (line: string) => void): void {
  for (const mode of MODES) {
    const r = resolvePlugin(mode.package as PluginPackage, { env, pulumiDir });
    if (r.warning) {
      out(`note: ${shadowAdvice(r.chosen!.path, r.warning, pulumiDir)}`);
    }
  }
}

/**
 * Why the engine runs `chosen` (first on PATH) rather than the plugin next to pulumi in `pulumiDir`,
 * and the fix: the words `install` and `doctor` both use, so their advice agrees.
 */
export function shadowAdvice(chosen: string, warning: string, pulumiDir: string): string {
  return (
    `${chosen} comes first on PATH, so the engine runs that one and prints "${warning}" on every run. ` +
    `Put ${pulumiDir} before its directory on PATH, or remove it, or register per project with --project.`
  );
}

/** `uninstall` with no argument: ours away from next to pulumi, the kept plugins back. */
export function uninstallNextToPulumi(env: NodeJS.ProcessEnv, out: (line: string) => void): void {
  const pulumi = findPulumi(env);
  if (!pulumi) throw new InstallError("pulumi is not on PATH, so there is no pulumi to uninstall from: nothing was changed.");
  const dir = pulumi.dir;
  const record = readRecord(dir);
  if (!record) {
    out(`nothing to do: pulumi-dynamic-host is not installed next to ${pulumi.real} (no ${RECORD} in ${dir})`);
    return;
  }
  checkWritable(dir, `pulumi (${pulumi.real}) lives there`);
  for (const p of record.placed) {
    const file = path.join(dir, p.name);
    if (isWhatWePlaced(p, file)) {
      fs.rmSync(file);
      out(`removed ${file}`);
    } else if (lstatOf(file)) {
      out(`left ${file} alone: it changed since pulumi-dynamic-host installed it`);
      continue;
    }
    if (p.backup && fs.existsSync(p.backup)) {
      fs.renameSync(p.backup, file);
      out(`restored ${file} from ${p.backup}`);
    }
  }
  fs.rmSync(path.join(dir, RECORD), { force: true });
}

/** `install --dir DIR`: our names in a directory of the user's. */
export function installIntoDir(dir: string, out: (line: string) => void): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const name of NAMES) {
    const p = place(name, dir);
    out(`${path.join(dir, name)} -> ${p.link ?? ourPlugins().fileFor(name)}`);
  }
  out(
    `put ${dir} first on PATH. Unless pulumi itself lives in ${dir}, the engine prints "using pulumi-resource-… from $PATH" on every run; ` +
      `\`pulumi-dynamic-host install\` (next to pulumi) or \`install --project\` avoid that.`,
  );
}

export function uninstallFromDir(dir: string, out: (line: string) => void, names: readonly string[] = NAMES): void {
  for (const name of names) {
    const file = path.join(dir, name);
    const st = lstatOf(file);
    if (!st) continue;
    const ours = ourPlugins().fileFor(sourceName(name));
    const same = st.isSymbolicLink() ? fs.readlinkSync(file) === ours : st.isFile() && (isOurLauncher(file, name) || sameContent(file, ours));
    if (same) {
      fs.rmSync(file);
      out(`removed ${file}`);
    } else {
      out(`left ${file} alone: it is not a link to or copy of this host (${ours})`);
    }
  }
}

/** The same file (a hard link of it included; install copies where it cannot link) or, where the sizes agree, the same bytes. */
export function sameContent(a: string, b: string): boolean {
  const [sa, sb] = [fs.statSync(a), fs.statSync(b)];
  if (sa.dev === sb.dev && sa.ino === sb.ino) return true;
  return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
}

function projectRootOf(dir: string | undefined): string {
  const start = path.resolve(dir ?? ".");
  const root = findProjectRoot(start);
  if (!root) throw new InstallError(`no Pulumi.yaml in ${start} or above it: --project takes a Pulumi project's directory`);
  return root;
}

function requireAllNames(dir: string): void {
  const missing = NAMES.filter((n) => !fs.existsSync(path.join(dir, n)));
  if (missing.length > 0) {
    throw new InstallError(
      `${dir} does not hold ${missing.join(" and ")}, which Pulumi.yaml's plugins.providers would point at. ` +
        `Put all three names in one directory first (pulumi-dynamic-host install --dir <dir>), then run --project from there.`,
    );
  }
}

export function installForProject(dir: string | undefined, out: (line: string) => void): void {
  const root = projectRootOf(dir);
  const plugins = ourPlugins();
  requireAllNames(plugins.dir);
  const edit = registerProjectPlugins(root, MODES.map((m) => m.package), plugins.dir);
  for (const c of edit.changes) out(`${edit.file}: plugins.providers ${c}`);
  const rel = path.relative(fs.realpathSync(root), fs.realpathSync(plugins.dir));
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    out(`note: ${plugins.dir} is outside the project, so the path is absolute: other checkouts of the project need the host at the same place.`);
  }
}

export function uninstallForProject(dir: string | undefined, out: (line: string) => void): void {
  const root = projectRootOf(dir);
  const edit = unregisterProjectPlugins(root, MODES.map((m) => m.package), ourPlugins().dir);
  if (edit.changes.length === 0) out(`${edit.file}: no plugins.providers entry for pulumi-nodejs or pulumi-python; nothing changed`);
  for (const c of edit.changes) out(`${edit.file}: plugins.providers ${c}`);
}

/**
 * `install --package NAME --dir DIR | --project [DIR]`: the host under the
 * plugin name of a package of the project's own name (docs/schema.md), which
 * serves the types Pulumi.yaml declares as NAME:<module>:<Type>. --project
 * puts the name beside the host's own and registers that folder for NAME in
 * plugins.providers, where the engine finds it without a warning.
 */
export function installPackage(pkg: string, where: { dir?: string; project?: string | null }, out: (line: string) => void): void {
  const name = packagePluginName(pkg);
  if (where.dir !== undefined) {
    fs.mkdirSync(where.dir, { recursive: true });
    const p = place(name, where.dir);
    out(`${path.join(where.dir, name)} -> ${p.link ?? ourPlugins().fileFor(COMMAND_NAME)}`);
    out(`put ${where.dir} on PATH; the engine then prints "using ${name} from $PATH" on every run, which --project avoids.`);
    return;
  }
  const root = projectRootOf(where.project ?? undefined);
  const plugins = ourPlugins();
  checkWritable(plugins.dir, `the host's plugin names live there, and ${name} goes beside them`);
  const p = place(name, plugins.dir);
  out(`${path.join(plugins.dir, name)} -> ${p.link ?? plugins.fileFor(COMMAND_NAME)}`);
  const edit = registerProjectPlugins(root, [pkg], plugins.dir);
  for (const c of edit.changes) out(`${edit.file}: plugins.providers ${c}`);
}

/** Undoes installPackage: the name taken out of DIR, or the project's plugins.providers entry removed (the name stays for other projects). */
export function uninstallPackage(pkg: string, where: { dir?: string; project?: string | null }, out: (line: string) => void): void {
  const name = packagePluginName(pkg);
  if (where.dir !== undefined) return uninstallFromDir(where.dir, out, [name]);
  const root = projectRootOf(where.project ?? undefined);
  const plugins = ourPlugins();
  const edit = unregisterProjectPlugins(root, [pkg], plugins.dir);
  if (edit.changes.length === 0) out(`${edit.file}: no plugins.providers entry for ${pkg}; nothing changed`);
  for (const c of edit.changes) out(`${edit.file}: plugins.providers ${c}`);
  out(`left ${path.join(plugins.dir, name)} in place for other projects; \`uninstall --package ${pkg} --dir ${plugins.dir}\` removes it`);
}

function packagePluginName(pkg: string): string {
  const name = `${PLUGIN_PREFIX}${pkg}`;
  if (ownPackageOfBinary(name) !== pkg) {
    throw new InstallError(
      `--package ${JSON.stringify(pkg)}: a package of your own is a name of letters, digits, - and _, starting with a letter, ` +
        `other than pulumi-nodejs and pulumi-python (which install registers without --package)`,
    );
  }
  return name;
}
