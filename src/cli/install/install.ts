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
/** Next to pulumi: the plugin names, and the command for people, so that it is on PATH wherever pulumi is. */
const NEXT_TO_PULUMI = [...NAMES, COMMAND_NAME];

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

/** How a name was placed: what `install` says of it (`->` only for a symlink). */
type How = { kind: "symlink"; to: string } | { kind: "hard link" | "copy"; of: string } | { kind: "launcher" } | { kind: "itself" };

/** One line for a placed file: `FILE -> TARGET` for a symlink, else what the file is. */
export function placedLine(file: string, how: How): string {
  switch (how.kind) {
    case "symlink":
      return `${file} -> ${how.to}`;
    case "hard link":
    case "copy":
      return `${file}: ${how.kind} of ${how.of}`;
    case "launcher":
      return `${file}: the Python plugin's launcher script, which runs ${path.join(path.dirname(file), MODES[0].binary)} beside it`;
    case "itself":
      return `${file}: this host's own file, left as it is`;
  }
}

/**
 * Puts `name` into `dir`. `linkFrom`: a file already placed in `dir` that is this executable,
 * to hard-link from when the executable itself cannot be (another file system): one copy, not one per name.
 */
function place(name: string, dir: string, linkFrom?: string): { placed: Placed; how: How } {
  const ours = ourPlugins();
  const to = path.join(dir, name);
  const launcher = launcherText(name);
  if (launcher !== undefined) {
    if (!isOurLauncher(to, name)) {
      fs.rmSync(to, { force: true });
      fs.writeFileSync(to, launcher, { mode: 0o755 });
    }
    const st = fs.statSync(to);
    return { placed: { name, ino: st.ino, size: st.size }, how: { kind: "launcher" } };
  }
  const source = ours.fileFor(sourceName(name));
  if (path.resolve(source) === path.resolve(to)) return { placed: { name, ino: fs.statSync(to).ino, size: fs.statSync(to).size }, how: { kind: "itself" } };
  fs.rmSync(to, { force: true });
  if (!ours.embedded) {
    fs.symlinkSync(source, to);
    return { placed: { name, link: source }, how: { kind: "symlink", to: source } };
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
  return { placed: { name, ino: st.ino, size: st.size }, how };
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
  let copy: string | undefined;
  try {
    for (const name of NEXT_TO_PULUMI) {
      const file = path.join(dir, name);
      const earlier = before?.placed.find((p) => p.name === name);
      let backup = earlier?.backup;
      if (earlier && isWhatWePlaced(earlier, file)) {
        out(`${file}: replaces the install of pulumi-dynamic-host ${before!.version} there${backup ? ` (${backup} stays kept, for uninstall)` : ""}`);
      } else if (lstatOf(file)) {
        // A plugin that is not ours (the bundled script, perhaps of a newer pulumi): keep it to put back.
        const was = describeExisting(file);
        backup = file + BACKUP_SUFFIX;
        fs.rmSync(backup, { force: true });
        fs.renameSync(file, backup);
        out(`kept ${file} as ${backup}: it was ${was}; uninstall puts it back`);
      }
      const p = place(name, dir, copy);
      if (p.how.kind === "hard link" || p.how.kind === "copy") copy ??= file;
      placed.push({ ...p.placed, backup });
      out(placedLine(file, p.how));
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
  let copy: string | undefined;
  for (const name of NAMES) {
    const p = place(name, dir, copy);
    if (p.how.kind === "hard link" || p.how.kind === "copy") copy ??= path.join(dir, name);
    out(placedLine(path.join(dir, name), p.how));
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
    out(placedLine(path.join(where.dir, name), p.how));
    out(`put ${where.dir} on PATH; the engine then prints "using ${name} from $PATH" on every run, which --project avoids.`);
    return;
  }
  const root = projectRootOf(where.project ?? undefined);
  const dir = packagePluginDir();
  checkWritable(dir, `the host's own names live there, and ${name} goes beside them`);
  const p = place(name, dir);
  out(placedLine(path.join(dir, name), p.how));
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
export function npmGlobalBin(root: string, platform: NodeJS.Platform): string | undefined {
  const p = platform === "win32" ? path.win32 : path.posix;
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
  out(`left ${path.join(dir, name)} in place for other projects; \`uninstall --package ${pkg} --dir ${dir}\` removes it`);
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
