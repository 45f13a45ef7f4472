// `install` and `uninstall` on Windows, with the platform injected
// (docs/platform-code.md): the names placed beside pulumi.exe and in a folder
// (an `.exe` and `.cmd` launchers, never a symlink), Pulumi's own `.cmd`
// plugins kept and put back, the lines `install` prints, and the engine's
// Windows lookup (`.exe` then `.cmd` beside pulumi, PATHEXT on PATH, no exec
// bit). Run on Linux against temporary folders; the launcher texts are the
// release zip's (scripts/release/layout.mjs writes the same).
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { candidateFiles, findPulumi, lookPath, resolvePlugin } from "../../src/cli/install/engine-lookup.js";
import {
  BACKUP_SUFFIX,
  installIntoDir,
  installNextToPulumi,
  InstallError,
  isOurLauncher,
  placementFor,
  RECORD,
  uninstallFromDir,
  uninstallNextToPulumi,
  type HostFiles,
} from "../../src/cli/install/install.js";
import { npmWindowsLauncher, windowsLauncher } from "../../src/cli/install/windows-launcher.js";
import { hostVersion } from "../../src/host/plugin/plugin-info.js";
import { REPO } from "../helpers/paths.js";

const NODE = "pulumi-resource-pulumi-nodejs";
const PY = "pulumi-resource-pulumi-python";
const CMD = "pulumi-dynamic-host";
const NPM_ROOT = "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\pulumi-dynamic-host";
// Pulumi's own Windows plugins, in substance (the SDKs ship them as .cmd files).
const PULUMI_NODE_CMD = "@echo off\r\nsetlocal\r\nfor /f %%i in ('node -e \"console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))\"') do node \"%%i\" %*\r\n";
const PULUMI_PY_CMD = "@echo off\r\npython -u -m pulumi.dynamic %*\r\n";
const PATHEXT = ".COM;.EXE;.BAT;.CMD";

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "platform-install-")));
}

function write(file: string, text: string, mode = 0o644): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode });
  return file;
}

/** The single executable on Windows (a stand-in file: `install` only links or copies it). */
function embedded(exe: string): HostFiles {
  return { platform: "win32", embedded: true, fileFor: () => exe, packageRoot: "", pythonLauncher: () => expect.fail("no sh launcher on Windows") };
}

/** The npm package on Windows, installed globally by npm at NPM_ROOT. */
function npm(): HostFiles {
  return { platform: "win32", embedded: false, fileFor: (n) => path.win32.join(NPM_ROOT, "bin", n), packageRoot: NPM_ROOT, pythonLauncher: () => expect.fail("no sh launcher on Windows") };
}

const listing = (dir: string) => fs.readdirSync(dir).sort();

describe("install on Windows (the platform injected)", function () {
  let root: string;
  beforeEach(() => (root = tmp()));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  describe("what each name becomes (placementFor)", function () {
    const exe = "/opt/pdh/pulumi-dynamic-host.exe";
    const table: { host: () => HostFiles; name: string; file: string; kind: string; runs?: RegExp }[] = [
      { host: () => embedded(exe), name: NODE, file: `${NODE}.exe`, kind: "executable" },
      { host: () => embedded(exe), name: PY, file: `${PY}.cmd`, kind: "launcher" },
      { host: () => embedded(exe), name: CMD, file: `${CMD}.cmd`, kind: "launcher" },
      { host: () => embedded(exe), name: "pulumi-resource-files", file: "pulumi-resource-files.exe", kind: "executable" },
      { host: npm, name: NODE, file: `${NODE}.cmd`, kind: "launcher" },
      { host: npm, name: PY, file: `${PY}.cmd`, kind: "launcher" },
      { host: npm, name: CMD, file: `${CMD}.cmd`, kind: "launcher" },
      // Linux and macOS as before: plain names, the npm package's as symlinks.
      { host: () => ({ ...npm(), platform: "linux", fileFor: (n) => `/usr/lib/node_modules/pulumi-dynamic-host/bin/${n}` }), name: NODE, file: NODE, kind: "symlink" },
      { host: () => ({ ...npm(), platform: "darwin", fileFor: (n) => `/usr/local/lib/node_modules/pulumi-dynamic-host/bin/${n}` }), name: PY, file: PY, kind: "symlink" },
      { host: () => ({ ...embedded(exe), platform: "darwin" }), name: NODE, file: NODE, kind: "executable" },
      { host: () => ({ ...embedded(exe), platform: "linux", pythonLauncher: () => "#!/bin/sh\n" }), name: PY, file: PY, kind: "launcher" },
    ];
    for (const t of table) {
      it(`${t.host().platform} ${t.host().embedded ? "single executable" : "npm package"}: ${t.name} is ${t.file} (${t.kind})`, function () {
        const plan = placementFor(t.name, t.host());
        expect(plan.file).to.equal(t.file);
        expect(plan.kind).to.equal(t.kind);
      });
    }

    it("the single executable's launchers: the release zip's text, \\r\\n, the executable beside them, the name served", function () {
      const py = placementFor(PY, embedded(exe));
      const cmd = placementFor(CMD, embedded(exe));
      if (py.kind !== "launcher" || cmd.kind !== "launcher") return expect.fail("launchers expected");
      expect(py.text).to.equal(windowsLauncher(PY));
      expect(py.text.split("\r\n")).to.deep.equal([
        "@echo off",
        "rem pulumi-resource-pulumi-python of pulumi-dynamic-host's single executable on Windows: the executable is beside this file.",
        "setlocal",
        'set "PULUMI_DYNAMIC_HOST_SERVE=%~f0"',
        '"%~dp0pulumi-resource-pulumi-nodejs.exe" %*',
        "exit /b %ERRORLEVEL%",
        "",
      ]);
      // The command for people: a served path whose file name is exactly pulumi-dynamic-host.
      expect(cmd.text).to.contain('set "PULUMI_DYNAMIC_HOST_SERVE=%~dpn0"\r\n');
      expect(cmd.text).to.not.match(/[^\r]\n/);
    });

    it("the npm package's launchers: node on the package's entry (bin/python-entry.mjs for Python, which needs no sh), % doubled", function () {
      const text = (name: string) => {
        const p = placementFor(name, npm());
        return p.kind === "launcher" ? p.text : expect.fail("launcher expected");
      };
      expect(text(NODE).split("\r\n")).to.deep.equal([
        "@echo off",
        "rem pulumi-resource-pulumi-nodejs of the pulumi-dynamic-host npm package on Windows: node runs the package's entry.",
        "setlocal",
        `node "${NPM_ROOT}\\bin\\pulumi-resource-pulumi-nodejs" %*`,
        "exit /b %ERRORLEVEL%",
        "",
      ]);
      expect(text(PY)).to.contain(`node "${NPM_ROOT}\\bin\\python-entry.mjs" %*\r\n`);
      expect(text(CMD)).to.contain(`node "${NPM_ROOT}\\bin\\pulumi-dynamic-host" %*\r\n`);
      expect(npmWindowsLauncher(NODE, "C:\\100%\\bin\\x")).to.contain('node "C:\\100%%\\bin\\x" %*');
      expect(() => npmWindowsLauncher(NODE, 'C:\\a"b')).to.throw(/quote or a line break/);
    });

    it("--package with the npm package on Windows: a clear error (node's script path names no package), not a launcher that serves the wrong one", function () {
      expect(() => placementFor("pulumi-resource-files", npm())).to.throw(InstallError, /--package on Windows needs the single executable/);
    });

    it("the release's zip writes the same launchers as install (scripts/release/layout.mjs imports them)", async function () {
      const layout = (await import(pathToFileURL(`${REPO}scripts/release/layout.mjs`).href)) as { placeNames(t: object, exe: string, dir: string, l: string): void };
      const exeFile = write(path.join(root, "host.exe"), "MZ stand-in", 0o755);
      const dir = path.join(root, "zip");
      fs.mkdirSync(dir);
      layout.placeNames({ os: "win32" }, exeFile, dir, "unused");
      expect(listing(dir)).to.deep.equal([`${CMD}.cmd`, `${NODE}.exe`, `${PY}.cmd`]);
      for (const name of [PY, CMD]) expect(fs.readFileSync(path.join(dir, `${name}.cmd`), "utf8")).to.equal(windowsLauncher(name));
    });
  });

  describe("beside pulumi.exe", function () {
    function pulumiHome() {
      const bin = path.join(root, "Pulumi", "bin");
      write(path.join(bin, "pulumi.exe"), "MZ pulumi");
      write(path.join(bin, `${NODE}.cmd`), PULUMI_NODE_CMD);
      write(path.join(bin, `${PY}.cmd`), PULUMI_PY_CMD);
      // Windows spells it Path, and has no exec bit (the files above are 0644).
      return { bin, env: { Path: `${path.join(root, "elsewhere")};${bin}`, PATHEXT } as NodeJS.ProcessEnv };
    }

    it("the single executable: its .exe and the zip's .cmd launchers, Pulumi's .cmd plugins kept and, on uninstall, put back", function () {
      const { bin, env } = pulumiHome();
      const exe = write(path.join(root, "pdh", "pulumi-dynamic-host.exe"), "MZ the host", 0o755);
      const lines: string[] = [];
      installNextToPulumi(env, (l) => lines.push(l), embedded(exe));
      const f = (n: string) => path.join(bin, n);
      expect(lines).to.deep.equal([
        `kept ${f(`${NODE}.cmd`)} as ${f(`${NODE}.cmd`)}${BACKUP_SUFFIX}: it was Pulumi's own plugin (the script pulumi ships); uninstall puts it back`,
        `${f(`${NODE}.exe`)}: hard link of ${exe}`,
        `kept ${f(`${PY}.cmd`)} as ${f(`${PY}.cmd`)}${BACKUP_SUFFIX}: it was Pulumi's own plugin (the script pulumi ships); uninstall puts it back`,
        `${f(`${PY}.cmd`)}: a launcher (.cmd) that runs ${f(`${NODE}.exe`)} beside it`,
        `${f(`${CMD}.cmd`)}: a launcher (.cmd) that runs ${f(`${NODE}.exe`)} beside it`,
      ]);
      expect(listing(bin)).to.deep.equal(
        [RECORD, `${CMD}.cmd`, `${NODE}.cmd${BACKUP_SUFFIX}`, `${NODE}.exe`, `${PY}.cmd`, `${PY}.cmd${BACKUP_SUFFIX}`, "pulumi.exe"].sort(),
      );
      expect(fs.statSync(f(`${NODE}.exe`)).ino).to.equal(fs.statSync(exe).ino);
      expect(fs.lstatSync(f(`${NODE}.exe`)).isSymbolicLink()).to.equal(false);
      expect(fs.readFileSync(f(`${PY}.cmd`), "utf8")).to.equal(windowsLauncher(PY));
      expect(fs.readFileSync(f(`${CMD}.cmd`), "utf8")).to.equal(windowsLauncher(CMD));
      expect(isOurLauncher(f(`${PY}.cmd`), `${PY}.cmd`, embedded(exe))).to.equal(true);

      // What the engine now runs, by its Windows order: our .exe for Node, our .cmd for Python.
      expect(resolvePlugin("pulumi-nodejs", { env, pulumiDir: bin, platform: "win32" }).chosen).to.deep.equal({ source: "path", path: f(`${NODE}.exe`) });
      expect(resolvePlugin("pulumi-python", { env, pulumiDir: bin, platform: "win32" }).candidates.map((c) => c.path)).to.deep.equal([f(`${PY}.cmd`), f(`${PY}.cmd`)]);

      // Again: ours replaced, Pulumi's backups stay Pulumi's.
      const again: string[] = [];
      installNextToPulumi(env, (l) => again.push(l), embedded(exe));
      expect(again.filter((l) => l.startsWith("kept"))).to.deep.equal([]);
      expect(again).to.include(`${f(`${NODE}.exe`)}: replaces the install of pulumi-dynamic-host ${hostVersion()} there`);
      expect(again).to.include(`${f(`${PY}.cmd`)}: replaces the install of pulumi-dynamic-host ${hostVersion()} there (${f(`${PY}.cmd`)}${BACKUP_SUFFIX} stays kept, for uninstall)`);
      expect(fs.readFileSync(f(`${NODE}.cmd${BACKUP_SUFFIX}`), "utf8")).to.equal(PULUMI_NODE_CMD);

      const gone: string[] = [];
      uninstallNextToPulumi(env, (l) => gone.push(l), "win32");
      expect(gone).to.deep.equal([
        `restored ${f(`${NODE}.cmd`)} from ${f(`${NODE}.cmd`)}${BACKUP_SUFFIX}`,
        `removed ${f(`${NODE}.exe`)}`,
        `removed ${f(`${PY}.cmd`)}`,
        `restored ${f(`${PY}.cmd`)} from ${f(`${PY}.cmd`)}${BACKUP_SUFFIX}`,
        `removed ${f(`${CMD}.cmd`)}`,
      ]);
      expect(listing(bin)).to.deep.equal([`${NODE}.cmd`, `${PY}.cmd`, "pulumi.exe"]);
      expect(fs.readFileSync(f(`${NODE}.cmd`), "utf8")).to.equal(PULUMI_NODE_CMD);
      expect(fs.readFileSync(f(`${PY}.cmd`), "utf8")).to.equal(PULUMI_PY_CMD);
    });

    it("the npm package: .cmd launchers running node on its entries; then the single executable over it, and uninstall puts Pulumi's back", function () {
      const { bin, env } = pulumiHome();
      const f = (n: string) => path.join(bin, n);
      const lines: string[] = [];
      installNextToPulumi(env, (l) => lines.push(l), npm());
      expect(lines).to.deep.equal([
        `kept ${f(`${NODE}.cmd`)} as ${f(`${NODE}.cmd`)}${BACKUP_SUFFIX}: it was Pulumi's own plugin (the script pulumi ships); uninstall puts it back`,
        `${f(`${NODE}.cmd`)}: a launcher (.cmd) that runs node ${NPM_ROOT}\\bin\\${NODE}`,
        `kept ${f(`${PY}.cmd`)} as ${f(`${PY}.cmd`)}${BACKUP_SUFFIX}: it was Pulumi's own plugin (the script pulumi ships); uninstall puts it back`,
        `${f(`${PY}.cmd`)}: a launcher (.cmd) that runs node ${NPM_ROOT}\\bin\\python-entry.mjs`,
        `${f(`${CMD}.cmd`)}: a launcher (.cmd) that runs node ${NPM_ROOT}\\bin\\${CMD}`,
      ]);
      for (const n of [NODE, PY, CMD]) expect(fs.readFileSync(f(`${n}.cmd`), "utf8")).to.equal((placementFor(n, npm()) as { text: string }).text);

      // The single executable installed over it: the npm install's nodejs.cmd goes (the .exe stands for it), Pulumi's stays kept.
      const exe = write(path.join(root, "pdh", "pulumi-dynamic-host.exe"), "MZ the host", 0o755);
      const over: string[] = [];
      installNextToPulumi(env, (l) => over.push(l), embedded(exe));
      expect(over[0]).to.equal(`removed ${f(`${NODE}.cmd`)}: an earlier install of pulumi-dynamic-host put it there; ${NODE}.exe stands for ${NODE} now`);
      expect(over.filter((l) => l.startsWith("kept"))).to.deep.equal([]);
      expect(fs.readFileSync(f(`${NODE}.cmd${BACKUP_SUFFIX}`), "utf8")).to.equal(PULUMI_NODE_CMD);

      uninstallNextToPulumi(env, () => undefined, "win32");
      expect(listing(bin)).to.deep.equal([`${NODE}.cmd`, `${PY}.cmd`, "pulumi.exe"]);
      expect(fs.readFileSync(f(`${NODE}.cmd`), "utf8")).to.equal(PULUMI_NODE_CMD);
      expect(fs.readFileSync(f(`${PY}.cmd`), "utf8")).to.equal(PULUMI_PY_CMD);
    });

    it("a file of the user's at our name that changed since install is left alone, and Pulumi's is not put over it", function () {
      const { bin, env } = pulumiHome();
      installNextToPulumi(env, () => undefined, npm());
      const mine = path.join(bin, `${PY}.cmd`);
      fs.writeFileSync(mine, "@echo off\r\nrem the user's own\r\n");
      const gone: string[] = [];
      uninstallNextToPulumi(env, (l) => gone.push(l), "win32");
      expect(gone).to.include(`left ${mine} alone: it changed since pulumi-dynamic-host installed it`);
      expect(fs.readFileSync(mine, "utf8")).to.contain("the user's own");
    });
  });

  describe("into a folder (--dir)", function () {
    it("the names with their extensions, no symlink; uninstall removes only what it would write", function () {
      const dir = path.join(root, "tools");
      const exe = write(path.join(root, "pdh", "pulumi-dynamic-host.exe"), "MZ the host", 0o755);
      const lines: string[] = [];
      installIntoDir(dir, (l) => lines.push(l), embedded(exe));
      // The two plugins' names (the command for people goes only beside pulumi, as on Linux).
      expect(listing(dir)).to.deep.equal([`${NODE}.exe`, `${PY}.cmd`]);
      expect(lines.slice(0, 2)).to.deep.equal([`${path.join(dir, `${NODE}.exe`)}: hard link of ${exe}`, `${path.join(dir, `${PY}.cmd`)}: a launcher (.cmd) that runs ${path.join(dir, `${NODE}.exe`)} beside it`]);
      for (const n of listing(dir)) expect(fs.lstatSync(path.join(dir, n)).isSymbolicLink()).to.equal(false);
      fs.writeFileSync(path.join(dir, `${PY}.cmd`), "@echo off\r\nrem someone else's\r\n");
      const gone: string[] = [];
      uninstallFromDir(dir, (l) => gone.push(l), undefined, embedded(exe));
      expect(gone).to.deep.equal([
        `removed ${path.join(dir, `${NODE}.exe`)}`,
        `left ${path.join(dir, `${PY}.cmd`)} alone: it is not the launcher this host writes there`,
      ]);
      expect(listing(dir)).to.deep.equal([`${PY}.cmd`]);
    });
  });

  describe("the engine's lookup on Windows (engine-lookup.ts)", function () {
    it("beside pulumi: .exe, then .cmd; any file counts (no exec bit); Linux's order is unchanged", function () {
      const bin = path.join(root, "bin");
      expect(candidateFiles(NODE, "win32")).to.deep.equal([`${NODE}.exe`, `${NODE}.cmd`]);
      expect(candidateFiles(NODE, "linux")).to.deep.equal([NODE]);
      write(path.join(bin, `${NODE}.cmd`), PULUMI_NODE_CMD);
      const ctx = { env: { Path: "" }, pulumiDir: bin, platform: "win32" as const };
      expect(resolvePlugin("pulumi-nodejs", ctx).chosen).to.deep.equal({ source: "bundled", path: path.join(bin, `${NODE}.cmd`) });
      write(path.join(bin, `${NODE}.exe`), "MZ");
      expect(resolvePlugin("pulumi-nodejs", ctx).chosen).to.deep.equal({ source: "bundled", path: path.join(bin, `${NODE}.exe`) });
      // On Linux neither name is the plugin's, and a file without an exec bit is not run.
      write(path.join(bin, NODE), "#!/bin/sh\n");
      expect(resolvePlugin("pulumi-nodejs", { env: { PATH: "" }, pulumiDir: bin, platform: "linux" }).chosen).to.equal(undefined);
    });

    it("on PATH: Path in any case, ';' between entries, PATHEXT's extensions in its order (its default when unset)", function () {
      const [a, b] = [path.join(root, "a"), path.join(root, "b")];
      write(path.join(a, "pulumi.cmd"), "x");
      write(path.join(b, "pulumi.exe"), "x");
      expect(lookPath("pulumi", { Path: `${a};${b}`, PATHEXT }, "win32")).to.equal(path.join(a, "pulumi.cmd"));
      write(path.join(a, "pulumi.bat"), "x");
      expect(lookPath("pulumi", { PATH: `${a};${b}` }, "win32")).to.equal(path.join(a, "pulumi.bat"));
      expect(lookPath("pulumi", { Path: `${a};${b}`, PATHEXT: ".CMD;.EXE" }, "win32")).to.equal(path.join(a, "pulumi.cmd"));
      expect(lookPath("pulumi.exe", { Path: `${a};${b}`, PATHEXT }, "win32")).to.equal(path.join(b, "pulumi.exe"));
      expect(lookPath("pulumi", { PATH: `${a}:${b}` }, "linux")).to.equal(undefined);
      expect(findPulumi({ Path: b, PATHEXT }, "win32")).to.deep.equal({ invoked: path.join(b, "pulumi.exe"), real: path.join(b, "pulumi.exe"), dir: b });
    });

    it("the plugin cache holds <name>.exe on Windows", function () {
      const home = path.join(root, "home");
      write(path.join(home, "plugins", "resource-pulumi-nodejs-v3.200.0", `${NODE}.exe`), "MZ");
      const r = resolvePlugin("pulumi-nodejs", { env: { Path: "", PULUMI_HOME: home }, platform: "win32" });
      expect(r.chosen).to.deep.equal({ source: "cache", path: path.join(home, "plugins", "resource-pulumi-nodejs-v3.200.0", `${NODE}.exe`) });
    });
  });
});
