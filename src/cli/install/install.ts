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
// What is placed (placementFor, a function of the platform): the single
// executable itself (hard link, else copy) when running as one, but under the
// Python plugin's name the launcher it writes (python-launcher.ts); otherwise a
// symlink to the package's bin/<name> script. On Windows, which has no `sh` and
// makes symlinks an administrator's right, the engine looks for `<name>.exe`
// then `<name>.cmd`: the executable as pulumi-resource-pulumi-nodejs.exe and the
// release zip's `.cmd` launchers under the two other names, or for the npm
// package `.cmd` launchers that run node on its entries (windows-launcher.ts).
import fs from "node:fs";
import { lstatOf } from "../../host/files/file-probe.js";
import path from "node:path";
import { EMBEDDED, packageRoot } from "../../host/files/assets.js";
import { COMMAND_NAME, MODES, PLUGIN_PREFIX, PYTHON, ownPackageOfBinary } from "../../host/plugin/modes.js";
import { embeddedPythonLauncher } from "./python-launcher.js";
import { hostVersion } from "../../host/plugin/plugin-info.js";
import { candidateFiles, findPulumi, resolvePlugin, type PluginPackage } from "./engine-lookup.js";
import { npmWindowsLauncher, windowsLauncher, WINDOWS_EXECUTABLE } from "./windows-launcher.js";
import { pathsOf, type Platform } from "../../host/files/platform.js";
import { findProjectRoot } from "../../host/references/project-root.js";
import { registerProjectPlugins, unregisterProjectPlugins } from "./project-file.js";
import { addToPluginCache, removeFromPluginCache } from "./plugin-cache.js";

export const BACKUP_SUFFIX = ".before-pulumi-dynamic-host";
export const RECORD = ".pulumi-dynamic-host-install.json";

const NAMES = MODES.map((m) => m.binary);
/** Next to pulumi: the plugin names, and the command for people, so that it is on PATH wherever pulumi is. */
const NEXT_TO_PULUMI = [...NAMES, COMMAND_NAME];

/** A failure the user can act on: the message says what and where. */
export class InstallError extends Error {}

interface Placed {
  /** The file's name in the folder (with `.exe` or `.cmd` on Windows). An entry with only a backup: a file kept aside where nothing was placed. */
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
  /** The plugin cache entries made for the by-name lookup of `pulumi package add` (plugin-cache.ts). */
  pluginCache?: string[];
}

/** The file each plugin name should run, and the directory that already holds all three names. */
export function ourPlugins(): { fileFor(name: string): string; dir: string; embedded: boolean } {
  if (EMBEDDED) return { fileFor: () => process.execPath, dir: path.dirname(process.execPath), embedded: true };
  const bin = path.join(packageRoot(), "bin");
  return { fileFor: (name) => path.join(bin, name), dir: bin, embedded: false };
}

/**
 * What `install` places, as it is: the system it places for, the files each
 * name runs, and the launcher texts. thisHost() is the running one; the tests
 * give another platform, a stand-in executable and another package's folder.
 */
export interface HostFiles {
  platform: Platform;
  embedded: boolean;
  /** The executable (embedded), else the package's bin/<name> script. */
  fileFor(name: string): string;
  /** The npm package's folder (its bin/ holds the entries), as the platform writes it. */
  packageRoot: string;
  /** The single executable's Python launcher (sh), elsewhere than Windows. */
  pythonLauncher(): string;
}

export function thisHost(): HostFiles {
  const ours = ourPlugins();
  return { platform: process.platform, embedded: ours.embedded, fileFor: ours.fileFor, packageRoot: EMBEDDED ? "" : packageRoot(), pythonLauncher: embeddedPythonLauncher };
}

/** How one name is placed in a folder: its file name there, and what that file is. */
export type Placement =
  | { file: string; kind: "executable"; source: string }
  | { file: string; kind: "symlink"; source: string }
  | { file: string; kind: "launcher"; text: string; runs: string };

/**
 * The file `name` (a plugin's or the command's) becomes on `host.platform`:
 * - Windows, single executable: the Node plugin's name and a package's of the
 *   project's own are the executable as `<name>.exe` (main.ts reads a package
 *   name from the executable's own path); the Python plugin and the command are
 *   the release zip's `.cmd` launchers, which run pulumi-resource-pulumi-nodejs.exe;
 * - Windows, npm package: `<name>.cmd` running node on the package's entry
 *   (bin/python-entry.mjs for the Python plugin, which needs no sh);
 * - elsewhere, single executable: the executable, the Python plugin's name its sh launcher;
 * - elsewhere, npm package: a symlink to bin/<name>.
 */
export function placementFor(name: string, host: HostFiles): Placement {
  const source = host.fileFor(sourceName(name));
  if (host.platform === "win32") {
    if (host.embedded) {
      if (name === MODES[0].binary || ownPackageOfBinary(name)) return { file: `${name}.exe`, kind: "executable", source };
      return { file: `${name}.cmd`, kind: "launcher", text: windowsLauncher(name), runs: WINDOWS_EXECUTABLE };
    }
    if (ownPackageOfBinary(name)) {
      throw new InstallError(
        `--package on Windows needs the single executable (the release's .zip): the npm package's .cmd launcher runs node, ` +
          `whose script path names no package of your own`,
      );
    }
    const win = pathsOf("win32");
    const entry = win.join(host.packageRoot, "bin", name === PYTHON.binary ? "python-entry.mjs" : name);
    return { file: `${name}.cmd`, kind: "launcher", text: npmWindowsLauncher(name, entry), runs: `node ${entry}` };
  }
  if (host.embedded && name === PYTHON.binary) return { file: name, kind: "launcher", text: host.pythonLauncher(), runs: MODES[0].binary };
  return { file: name, kind: host.embedded ? "executable" : "symlink", source };
}

/** The file at `file` is the launcher `host` writes for `name` (on Windows, each `.cmd` of its names). */
export function isOurLauncher(file: string, name: string, host: HostFiles | undefined = EMBEDDED || process.platform === "win32" ? thisHost() : undefined): boolean {
  if (host === undefined) return false;
  let plan: Placement;
  try {
    plan = placementFor(name.replace(/\.(cmd|exe)$/i, ""), host);
  } catch {
    return false;
  }
  if (plan.kind !== "launcher") return false;
  try {
    return fs.readFileSync(file, "utf8") === plan.text;
  } catch {
    return false;
  }
}

/** The installed name a plugin name runs: its own, or for a package of the project's own name, the command's. */
function sourceName(name: string): string {
  return ownPackageOfBinary(name) ? COMMAND_NAME : name;
}

/** How a name was placed: what `install` says of it (`->` only for a symlink). */
type How = { kind: "symlink"; to: string } | { kind: "hard link" | "copy"; of: string } | { kind: "launcher"; runs: string } | { kind: "itself" };

/** One line for a placed file: `FILE -> TARGET` for a symlink, else what the file is. */
export function placedLine(file: string, how: How): string {
  switch (how.kind) {
    case "symlink":
      return `${file} -> ${how.to}`;
    case "hard link":
    case "copy":
      return `${file}: ${how.kind} of ${how.of}`;
    case "launcher":
      if (how.runs.startsWith("node ")) return `${file}: a launcher (.cmd) that runs ${how.runs}`;
      if (/\.cmd$/i.test(file)) return `${file}: a launcher (.cmd) that runs ${path.join(path.dirname(file), how.runs)} beside it`;
      return `${file}: the Python plugin's launcher script, which runs ${path.join(path.dirname(file), how.runs)} beside it`;
    case "itself":
      return `${file}: this host's own file, left as it is`;
  }
}

/**
 * Puts `name` into `dir` as placementFor says. `linkFrom`: a file already placed in `dir` that is this executable,
 * to hard-link from when the executable itself cannot be (another file system): one copy, not one per name.
 * Never a symlink on Windows (placementFor gives none there).
 */
function place(name: string, dir: string, host: HostFiles, linkFrom?: string): { placed: Placed; how: How; file: string } {
  const plan = placementFor(name, host);
  const to = path.join(dir, plan.file);
  const done = (placed: Placed, how: How) => ({ placed, how, file: to });
  if (plan.kind === "launcher") {
    if (!hasText(to, plan.text)) {
      fs.rmSync(to, { force: true });
      fs.writeFileSync(to, plan.text, { mode: 0o755 });
    }
    const st = fs.statSync(to);
    return done({ name: plan.file, ino: st.ino, size: st.size }, { kind: "launcher", runs: plan.runs });
  }
  const source = plan.source;
  if (path.resolve(source) === path.resolve(to)) return done({ name: plan.file, ino: fs.statSync(to).ino, size: fs.statSync(to).size }, { kind: "itself" });
  fs.rmSync(to, { force: true });
  if (plan.kind === "symlink") {
    fs.symlinkSync(source, to);
    return done({ name: plan.file, link: source }, { kind: "symlink", to: source });
  }
  let how: How = { kind: "hard link", of: source };
  try {
    fs.linkSync(source, to);
  } catch {
    try {
      if (linkFrom === undefined) throw new Error("no copy to link");
      fs.linkSync(linkFrom, to);
      how = { kind: "hard link", of: linkFrom };
    } catch {
      // Another filesystem (or no hard links there): a copy runs the same.
      fs.copyFileSync(source, to);
      fs.chmodSync(to, 0o755);
      how = { kind: "copy", of: source };
    }
  }
  const st = fs.statSync(to);
  return done({ name: plan.file, ino: st.ino, size: st.size }, how);
}

function hasText(file: string, text: string): boolean {
  try {
    return fs.readFileSync(file, "utf8") === text;
  } catch {
    return false;
  }
}

/**
 * What a file about to be replaced at a plugin's name is, for the line that says so: Pulumi's own
 * plugin (the script pulumi ships), a copy of this host that no record names, or something else.
 */
export function describeExisting(file: string): string {
  const st = lstatOf(file);
  if (!st) return "nothing";
  let target = "";
  try {
    if (st.isSymbolicLink()) target = fs.readlinkSync(file);
  } catch {
    // unreadable link: described by its content below, if any
  }
  let head = "";
  try {
    const fd = fs.openSync(file, "r");
    try {
      const buf = Buffer.alloc(4096);
      head = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString("latin1");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // a dangling link, or not readable
  }
  if (/pulumi-dynamic-host/.test(target) || /pulumi-dynamic-host/.test(head) || (EMBEDDED && fs.existsSync(file) && sameContent(file, process.execPath))) {
    return `an install of pulumi-dynamic-host with no record here${target ? ` (a link to ${target})` : ""}`;
  }
  if (/@pulumi\/pulumi\/cmd\/dynamic-provider|-m pulumi\.dynamic/.test(head)) return "Pulumi's own plugin (the script pulumi ships)";
  return `a file that is neither Pulumi's own plugin nor this host${target ? ` (a link to ${target})` : ""}`;
}

function isWhatWePlaced(p: Placed, file: string): boolean {
  const st = lstatOf(file);
  if (!st || (p.link === undefined && p.ino === undefined)) return false;
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

/**
 * `install` with no argument: our names next to the pulumi the user runs. `host` is the system and
 * files placed (thisHost(); the tests give Windows'). Every file the engine could take for a name
 * there that is not ours (on Windows both `<name>.exe` and `<name>.cmd`, Pulumi's own being `.cmd`)
 * is kept as <file>.before-pulumi-dynamic-host, which `uninstall` puts back.
 */
export function installNextToPulumi(env: NodeJS.ProcessEnv, out: (line: string) => void, host: HostFiles = thisHost()): void {
  const pulumi = findPulumi(env, host.platform);
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
  let copy: string | undefined;
  /** Keeps what is at `fileName` (not ours) aside; returns the backup to record, if any. */
  const keepAside = (fileName: string): string | undefined => {
    const file = path.join(dir, fileName);
    const earlier = before?.placed.find((p) => p.name === fileName);
    if (!lstatOf(file) || (earlier && isWhatWePlaced(earlier, file))) return earlier?.backup;
    // A plugin that is not ours (the bundled script, perhaps of a newer pulumi): keep it to put back.
    const was = describeExisting(file);
    const backup = file + BACKUP_SUFFIX;
    fs.rmSync(backup, { force: true });
    fs.renameSync(file, backup);
    out(`kept ${file} as ${backup}: it was ${was}; uninstall puts it back`);
    return backup;
  };
  try {
    for (const name of NEXT_TO_PULUMI) {
      const plan = placementFor(name, host);
      // The engine's other names for this one (Windows: .exe before .cmd): Pulumi's kept aside, an earlier install's removed.
      for (const other of candidateFiles(name, host.platform).filter((f) => f !== plan.file)) {
        const file = path.join(dir, other);
        const earlier = before?.placed.find((p) => p.name === other);
        if (earlier && isWhatWePlaced(earlier, file)) {
          fs.rmSync(file);
          out(`removed ${file}: an earlier install of pulumi-dynamic-host put it there; ${plan.file} stands for ${name} now`);
        }
        const backup = keepAside(other);
        if (backup) placed.push({ name: other, backup });
      }
      const file = path.join(dir, plan.file);
      const earlier = before?.placed.find((p) => p.name === plan.file);
      if (earlier && isWhatWePlaced(earlier, file)) {
        out(`${file}: replaces the install of pulumi-dynamic-host ${before!.version} there${earlier.backup ? ` (${earlier.backup} stays kept, for uninstall)` : ""}`);
      }
      const backup = keepAside(plan.file);
      const p = place(name, dir, host, copy);
      if (p.how.kind === "hard link" || p.how.kind === "copy") copy ??= file;
      placed.push({ ...p.placed, backup });
      out(placedLine(file, p.how));
    }
    const pluginCache = addToPluginCache(dir, hostVersion(), env, out, host.platform);
    if (before?.pluginCache) removeFromPluginCache(before.pluginCache.filter((e) => !pluginCache.includes(e)), out);
    fs.writeFileSync(path.join(dir, RECORD), JSON.stringify({ host: "pulumi-dynamic-host", version: hostVersion(), placed, pluginCache } satisfies Record, null, 2) + "\n");
  } catch (err) {
    if (err instanceof InstallError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") notWritable(dir, err, where);
    throw err;
  }
  reportShadows(dir, env, out, host.platform);
}

/** Says which plugin the engine would launch now, and why it would warn if it would. */
function reportShadows(pulumiDir: string, env: NodeJS.ProcessEnv, out: (line: string) => void, platform: Platform): void {
  for (const mode of MODES) {
    const r = resolvePlugin(mode.package as PluginPackage, { env, pulumiDir, platform });
    if (r.warning) {
      out(`warning: ${shadowAdvice(r.chosen!.path, r.warning, pulumiDir)}`);
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
    `Put ${pulumiDir} before ${path.dirname(chosen)} on PATH (export PATH="${pulumiDir}:$PATH"), or take ${path.dirname(chosen)} off PATH, or register per project with --project.`
  );
}

/** `uninstall` with no argument: ours away from next to pulumi, the kept plugins back. */
export function uninstallNextToPulumi(env: NodeJS.ProcessEnv, out: (line: string) => void, platform: Platform = process.platform): void {
  const pulumi = findPulumi(env, platform);
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
  removeFromPluginCache(record.pluginCache ?? [], out);
  fs.rmSync(path.join(dir, RECORD), { force: true });
}

/** `install --dir DIR`: our names in a directory of the user's. */
export function installIntoDir(dir: string, out: (line: string) => void, host: HostFiles = thisHost()): void {
  fs.mkdirSync(dir, { recursive: true });
  let copy: string | undefined;
  for (const name of NAMES) {
    const p = place(name, dir, host, copy);
    if (p.how.kind === "hard link" || p.how.kind === "copy") copy ??= p.file;
    out(placedLine(p.file, p.how));
  }
  out(
    `put ${dir} first on PATH. Unless pulumi itself lives in ${dir}, the engine prints "using pulumi-resource-… from $PATH" on every run; ` +
      `\`pulumi-dynamic-host install\` (next to pulumi) or \`install --project\` avoid that.`,
  );
}

export function uninstallFromDir(dir: string, out: (line: string) => void, names: readonly string[] = NAMES, host: HostFiles = thisHost()): void {
  for (const name of names) {
    const plan = placementFor(name, host);
    const file = path.join(dir, plan.file);
    const st = lstatOf(file);
    if (!st) continue;
    let same: boolean;
    if (plan.kind === "launcher") same = st.isFile() && hasText(file, plan.text);
    else if (st.isSymbolicLink()) same = fs.readlinkSync(file) === plan.source;
    else same = st.isFile() && sameContent(file, plan.source);
    if (same) {
      fs.rmSync(file);
      out(`removed ${file}`);
    } else {
      out(`left ${file} alone: it is not ${plan.kind === "launcher" ? "the launcher this host writes there" : `a link to or copy of this host (${plan.source})`}`);
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

function requireAllNames(dir: string, platform: Platform): void {
  const missing = NAMES.filter((n) => !candidateFiles(n, platform).some((f) => fs.existsSync(path.join(dir, f))));
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
  requireAllNames(plugins.dir, process.platform);
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
    const p = place(name, where.dir, thisHost());
    out(placedLine(p.file, p.how));
    out(`put ${where.dir} on PATH; the engine then prints "using ${name} from $PATH" on every run, which --project avoids.`);
    return;
  }
  const root = projectRootOf(where.project ?? undefined);
  const dir = packagePluginDir();
  checkWritable(dir, `the host's own names live there, and ${name} goes beside them`);
  const p = place(name, dir, thisHost());
  out(placedLine(p.file, p.how));
  const edit = registerProjectPlugins(root, [pkg], dir);
  for (const c of edit.changes) out(`${edit.file}: plugins.providers ${c}`);
}

/**
 * Where `install --package NAME --project` puts pulumi-resource-NAME: beside the host's own names,
 * but never inside the npm package's own folder, which npm replaces whole on an upgrade (taking
 * the link with it, and the project's plugins.providers would name a missing file). For an
 * `npm i -g` install that is the prefix's bin, where npm linked the host's names; npm's upgrade
 * and uninstall remove only the names of the package's `bin`, and the link's target, the
 * package's bin/pulumi-dynamic-host, is there again after an upgrade.
 */
export function packagePluginDir(): string {
  const plugins = ourPlugins();
  if (plugins.embedded) return plugins.dir;
  return npmGlobalBin(packageRoot(), process.platform) ?? plugins.dir;
}

/**
 * The bin directory of the npm prefix that `root` (the package's folder) is globally installed
 * under, when it holds npm's link to the command: `<prefix>/lib/node_modules/<name>` has its
 * commands in `<prefix>/bin`; on Windows `<prefix>/node_modules/<name>`, in `<prefix>`.
 */
export function npmGlobalBin(root: string, platform: Platform): string | undefined {
  const p = pathsOf(platform);
  const modules = p.dirname(p.resolve(root));
  if (p.basename(modules) !== "node_modules") return undefined;
  const above = p.dirname(modules);
  const bin = platform === "win32" ? above : p.basename(above) === "lib" ? p.join(p.dirname(above), "bin") : undefined;
  if (bin === undefined) return undefined;
  const command = p.join(bin, platform === "win32" ? `${COMMAND_NAME}.cmd` : COMMAND_NAME);
  return lstatOf(command) ? bin : undefined;
}

/** Undoes installPackage: the name taken out of DIR, or the project's plugins.providers entry removed (the name stays for other projects). */
export function uninstallPackage(pkg: string, where: { dir?: string; project?: string | null }, out: (line: string) => void): void {
  const name = packagePluginName(pkg);
  if (where.dir !== undefined) return uninstallFromDir(where.dir, out, [name]);
  const root = projectRootOf(where.project ?? undefined);
  const dir = packagePluginDir();
  const edit = unregisterProjectPlugins(root, [pkg], dir);
  if (edit.changes.length === 0) out(`${edit.file}: no plugins.providers entry for ${pkg}; nothing changed`);
  for (const c of edit.changes) out(`${edit.file}: plugins.providers ${c}`);
  out(`left ${path.join(dir, placementFor(name, thisHost()).file)} in place for other projects; \`uninstall --package ${pkg} --dir ${dir}\` removes it`);
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
