// The README's three install routes, walked as a newcomer walks them: from a clean HOME (a
// temporary folder holding pulumi as its installer leaves it, ~/.pulumi/bin) and a PATH of pulumi's
// folder and the system's tools (and node, for the npm package), the Quick start's steps 1 and 2 as
// written, then `pulumi-dynamic-host doctor` in each project's folder with no warning and no
// problem, then `pulumi up` and `pulumi destroy` of the README's TypeScript and Python examples
// under the real engine. The examples' providers report which plugin ran them: the one `install`
// put next to pulumi, never Pulumi's own (stand-ins that fail if the engine runs them). Each route
// also takes the wrong turn the README warns of (the archive's folder, npm's bin or the virtualenv
// first on PATH), where `install` and `doctor` must say the engine will warn.
//
// The programs are Automation API inline programs (the language hosts are not built here:
// test/e2e/harness.ts); the TypeScript one's @pulumi/pulumi is the checkout's, which the program's
// folder (under .cache/) resolves, and the Python one's virtualenv reaches the test virtualenv's
// pulumi and dill through a .pth file (test/helpers/installs.ts).
import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { inlineStack } from "../helpers/inline-stack.js";
import { npmInstall, pathWithoutNode, release } from "../helpers/installs.js";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { expectOurPythonHost, PASSPHRASE, prepareEngine, type Sandbox } from "../e2e/harness.js";
import { drive, PYTHON_WORK_DIR, type Step } from "../e2e/python-driver.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const { textFileProvider } = require(`${REPO}test/install/readme-program/text-file.cjs`);

const VERSION = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")).version as string;
const NODE_PLUGIN = "pulumi-resource-pulumi-nodejs";
const PYTHON_PLUGIN = "pulumi-resource-pulumi-python";
const COMMAND = "pulumi-dynamic-host";
const STAND_IN = "pulumi's own plugin script ran";
const PYTHON_DRIVER = path.relative(PYTHON_WORK_DIR, `${REPO}test/install/readme-program/readme_python.py`);

/** The README's TextFile class. */
class TextFile extends pulumi.dynamic.Resource {
  constructor(name: string, args: { path: string; content: string }, opts?: object) {
    super(textFileProvider, name, args, opts);
  }
}

type Event = Record<string, any>;

interface Machine {
  home: string;
  /** ~/.pulumi/bin: pulumi, and the plugin scripts it ships. */
  pulumiBin: string;
  /** A folder whose bin/pulumi links to it, for the Automation API (which puts root/bin first on PATH). */
  root: string;
  backend: string;
  /** The user's environment: every command below runs with it and nothing else. */
  env: Record<string, string>;
}

/**
 * A clean HOME with pulumi as its installer leaves it: ~/.pulumi/bin/pulumi (the engine) and beside
 * it the two plugin scripts Pulumi ships, as stand-ins that name what Pulumi's run and fail if run.
 */
function cleanMachine(route: string, engineBin: string): Machine {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `readme-${route}-`)));
  const pulumiBin = path.join(home, ".pulumi/bin");
  fs.mkdirSync(pulumiBin, { recursive: true });
  try {
    fs.linkSync(path.join(engineBin, "pulumi"), path.join(pulumiBin, "pulumi"));
  } catch {
    fs.copyFileSync(path.join(engineBin, "pulumi"), path.join(pulumiBin, "pulumi"));
    fs.chmodSync(path.join(pulumiBin, "pulumi"), 0o755);
  }
  const scripts = {
    [NODE_PLUGIN]: `# node "$(node -e "console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))")" $@`,
    [PYTHON_PLUGIN]: "# exec python3 -u -m pulumi.dynamic $@",
  };
  for (const [name, line] of Object.entries(scripts)) {
    fs.writeFileSync(path.join(pulumiBin, name), `#!/bin/sh\n${line}\necho "${STAND_IN}: ${name}" >&2\nexit 1\n`, { mode: 0o755 });
  }
  const root = path.join(home, "automation");
  fs.mkdirSync(path.join(root, "bin"), { recursive: true });
  fs.symlinkSync(path.join(pulumiBin, "pulumi"), path.join(root, "bin/pulumi"));
  const backend = path.join(home, "state");
  fs.mkdirSync(backend);
  const env: Record<string, string> = {
    HOME: home,
    PATH: "",
    PULUMI_HOME: path.join(home, ".pulumi"),
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    // As the other suites have it (test/helpers/paths.ts): which worker serves never depends on earlier tests.
    PULUMI_DYNAMIC_HOST_PRELOAD: process.env.PULUMI_DYNAMIC_HOST_PRELOAD ?? "0",
  };
  return { home, pulumiBin, root, backend, env };
}

interface Said {
  code: number | null;
  lines: string[];
  stderr: string;
}

/** A command as the user types it, in `cwd`, with the machine's environment alone (a bare name is looked up on its PATH). */
function type(m: Machine, cwd: string, command: string, args: string[], PATH = m.env.PATH): Said {
  const r = spawnSync(command, args, { cwd, env: { ...m.env, PATH }, encoding: "utf8" });
  if (r.error) throw new Error(`${command} ${args.join(" ")}: ${r.error.message}`);
  return { code: r.status, lines: r.stdout.trim().split("\n"), stderr: r.stderr };
}

/** Step 2's output: what it replaced (Pulumi's own scripts, kept) and what it placed, with no warning. */
function expectInstalled(m: Machine, said: Said, placed: (name: string) => RegExp): void {
  expect(said.code, `${said.lines.join("\n")}\n${said.stderr}`).to.equal(0);
  for (const name of [NODE_PLUGIN, PYTHON_PLUGIN]) {
    const file = path.join(m.pulumiBin, name);
    expect(said.lines).to.include(`kept ${file} as ${file}.before-pulumi-dynamic-host: it was Pulumi's own plugin (the script pulumi ships); uninstall puts it back`);
  }
  for (const name of [NODE_PLUGIN, PYTHON_PLUGIN, COMMAND]) {
    const line = said.lines.find((l) => l.startsWith(`${path.join(m.pulumiBin, name)} `) || l.startsWith(`${path.join(m.pulumiBin, name)}:`));
    expect(line, name).to.match(placed(name));
  }
  expect(said.lines.filter((l) => /^(warning|note|problem):/.test(l)), "nothing to warn of").to.deep.equal([]);
}

/** Step 4's doctor: both plugin names are this host, next to pulumi; no warning, no problem; exit 0. */
function expectCleanDoctor(m: Machine, said: Said): void {
  const text = `${said.lines.join("\n")}\n${said.stderr}`;
  expect(said.lines.filter((l) => /^(warning|problem):/.test(l)), text).to.deep.equal([]);
  expect(said.lines[said.lines.length - 1], text).to.match(/^summary: 0 problems, 0 warnings, /);
  expect(said.code, text).to.equal(0);
  for (const name of [NODE_PLUGIN, PYTHON_PLUGIN]) {
    expect(said.lines).to.include(`ok: plugin ${name}: ${m.pulumiBin}/${name} ($PATH, next to pulumi), this host ${VERSION}`);
  }
}

/** The wrong turn: `PATH` with `first` ahead of pulumi's folder. install and doctor both say the engine will warn, and how to fix it. */
function expectWarnedOfShadowing(m: Machine, cwd: string, first: string, install: string): void {
  const PATH = `${first}:${m.env.PATH}`;
  const said = `using ${NODE_PLUGIN} from $PATH at ${first}/${NODE_PLUGIN} expected ${m.pulumiBin}/${NODE_PLUGIN}`;
  const installed = type(m, cwd, install, ["install"], PATH);
  expect(installed.code).to.equal(0);
  const warning = installed.lines.find((l) => l.startsWith("warning: ") && l.includes(said));
  expect(warning, installed.lines.join("\n")).to.contain(`export PATH="${m.pulumiBin}:$PATH"`);
  const doctor = type(m, cwd, install, ["doctor"], PATH);
  expect(doctor.lines.find((l) => l.startsWith(`warning: plugin ${NODE_PLUGIN}: `)), doctor.lines.join("\n")).to.contain(said);
  expect(doctor.code, "a warning fails doctor").to.equal(1);
}

function notices(events: Event[], key: "diagnosticEvent" | "diagnostic_event"): Event[] {
  return events.filter((e) => e[key] && !["debug", "info", "info#err"].includes(e[key].severity)).map((e) => e[key]);
}

/** A TypeScript project's folder (under the checkout, so @pulumi/pulumi resolves as from its node_modules), with the Pulumi.yaml `pulumi new typescript` writes. */
function typescriptProject(): string {
  fs.mkdirSync(`${REPO}.cache`, { recursive: true });
  const dir = fs.realpathSync(fs.mkdtempSync(`${REPO}.cache/readme-ts-`));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: readme-ts\nruntime: nodejs\n");
  return dir;
}

/** A Python project as `pulumi new python` makes it: a virtualenv `venv`, named in Pulumi.yaml. */
function pythonProject(m: Machine, withPip: boolean): { dir: string; venv: string } {
  const dir = path.join(m.home, "hello-python");
  const venv = path.join(dir, "venv");
  fs.mkdirSync(dir);
  execFileSync(VENV_PYTHON, ["-m", "venv", ...(withPip ? [] : ["--without-pip"]), venv]);
  const site = (py: string) => execFileSync(py, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { encoding: "utf8" }).trim();
  fs.writeFileSync(path.join(site(path.join(venv, "bin/python")), "pulumi-dynamic-host-tests.pth"), `${site(`${TEST_VENV}/bin/python`)}\n`);
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: readme-py\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: venv\n");
  return { dir, venv };
}

/** The README's TypeScript program through up and destroy; what the provider reported, and every warning or error the engine gave. */
async function typescriptUpDestroy(m: Machine, workDir: string) {
  const program = async () => ({ file: new TextFile("greeting", { path: "hello.txt", content: "hello\n" }).id });
  const stack = await inlineStack(
    { stackName: "dev", projectName: "readme-ts", program },
    {
      workDir,
      pulumiHome: m.env.PULUMI_HOME,
      envVars: m.env,
      pulumiCommand: await automation.PulumiCommand.get({ root: m.root, skipVersionCheck: true }),
      projectSettings: { name: "readme-ts", runtime: "nodejs", backend: { url: `file://${m.backend}` } },
    },
  );
  const warnings: Event[] = [];
  const events = (e: Event) => warnings.push(...notices([e], "diagnosticEvent"));
  const up = await stack.up({ onEvent: events });
  // Read if there (null if not), so that a failure says what the up did, and which plugin ran it, first.
  const hello = fs.existsSync(path.join(workDir, "hello.txt")) ? fs.readFileSync(path.join(workDir, "hello.txt"), "utf8") : null;
  const greeting = (await stack.exportStack()).deployment.resources.find((r: Event) => r.urn.endsWith("::greeting"));
  const destroy = await stack.destroy({ onEvent: events });
  return { up: up.summary.resourceChanges, destroy: destroy.summary.resourceChanges, hello, left: fs.existsSync(path.join(workDir, "hello.txt")), ranBy: greeting.outputs.ranBy, warnings };
}

async function pythonUpDestroy(m: Machine, project: { dir: string; venv: string }): Promise<Record<string, Step & { hello?: string | null }>> {
  const sb: Sandbox = { dir: m.home, home: m.env.PULUMI_HOME, backend: m.backend, env: m.env, cleanup: () => undefined };
  return drive(sb, "readme", "runtime-options", { root: m.root, venv: project.venv, driver: PYTHON_DRIVER, extra: { work_dir: project.dir } });
}

/** Both examples deployed and destroyed, each by the plugin next to pulumi; `embedded`: the single executable runs them. */
async function expectExamplesRun(m: Machine, ts: string, py: { dir: string; venv: string }, embedded: boolean): Promise<void> {
  const node = await typescriptUpDestroy(m, ts);
  expect(node.up).to.deep.equal({ create: 2 });
  expect(node.ranBy.argv1, "the engine ran the host next to pulumi").to.equal(`${m.pulumiBin}/${NODE_PLUGIN}`);
  expect(node.hello, `hello.txt in ${ts}, written by the provider (ran by ${JSON.stringify(node.ranBy)})`).to.equal("hello\n");
  expect(node.ranBy.execPath).to.equal(embedded ? `${m.pulumiBin}/${NODE_PLUGIN}` : process.execPath);
  expect(node.destroy).to.deep.equal({ delete: 2 });
  expect(node.left, "destroy removed hello.txt").to.equal(false);
  expect(node.warnings, "no warning from the engine").to.deep.equal([]);

  const python = await pythonUpDestroy(m, py);
  for (const s of Object.values(python)) expect(s.error, `${s.name}: ${s.error?.message}`).to.equal(undefined);
  expect(python.up.hello).to.equal("hello\n");
  const ranBy = python.up.resources.greeting.outputs.ran_by;
  expectOurPythonHost(ranBy, `${m.pulumiBin}/${PYTHON_PLUGIN}`, embedded);
  expect(ranBy.prefix, "the provider ran in the project's virtualenv").to.equal(py.venv);
  expect(python.destroy.hello, "destroy removed hello.txt").to.equal(null);
  expect(Object.values(python).flatMap((s) => notices(s.events, "diagnostic_event")), "no warning from the engine").to.deep.equal([]);
}

describe("the README's routes from a clean HOME: Quick start, doctor with nothing to fix, up and destroy of its examples", function () {
  this.timeout(20 * 60 * 1000);
  let engineBin: string;
  const made: string[] = [];
  const machine = (route: string) => {
    const m = cleanMachine(route, engineBin);
    made.push(m.home);
    return m;
  };
  const project = () => {
    const dir = typescriptProject();
    made.push(dir);
    return dir;
  };

  before(function () {
    engineBin = prepareEngine();
  });
  after(function () {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the npm package: `npm i -g` of the .tgz, `pulumi-dynamic-host install`; install --package links outside the package, surviving its reinstall", async function () {
    const m = machine("npm");
    const prefix = path.join(m.home, ".npm-global");
    // Step 1 (`npm i -g ./pulumi-dynamic-host-<version>.tgz`), into a prefix of the clean HOME; its bin comes
    // after pulumi's folder, as the README asks (the wrong turn is below).
    const npmI = ["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", "--offline", npmInstall().tarball];
    execFileSync("npm", npmI, { stdio: ["ignore", "pipe", "pipe"] });
    m.env.PATH = `${m.pulumiBin}:${prefix}/bin:${path.dirname(process.execPath)}:${pathWithoutNode([])}`;
    const packageDir = path.join(prefix, "lib/node_modules/pulumi-dynamic-host");
    // Step 2.
    expectInstalled(m, type(m, m.home, COMMAND, ["install"]), (name) => new RegExp(`^${m.pulumiBin}/${name} -> ${packageDir}/bin/${name}$`));
    const ts = project();
    const py = pythonProject(m, false);
    // Step 4.
    expectCleanDoctor(m, type(m, ts, COMMAND, ["doctor"]));
    expectCleanDoctor(m, type(m, py.dir, COMMAND, ["doctor"]));
    await expectExamplesRun(m, ts, py, false);
    expectWarnedOfShadowing(m, py.dir, path.join(prefix, "bin"), COMMAND);

    // A package of the project's own name: the link goes beside npm's links, not into the package's folder,
    // so that removing and installing the package again (as an upgrade does) leaves it working.
    const files = path.join(m.home, "files-project");
    fs.mkdirSync(files);
    fs.writeFileSync(path.join(files, "Pulumi.yaml"), "name: files\nruntime: nodejs\n");
    const registered = type(m, files, COMMAND, ["install", "--package", "files", "--project"]);
    expect(registered.code, registered.stderr).to.equal(0);
    expect(registered.lines[0]).to.equal(`${prefix}/bin/pulumi-resource-files -> ${packageDir}/bin/${COMMAND}`);
    expect(fs.readFileSync(path.join(files, "Pulumi.yaml"), "utf8")).to.contain(`path: ${prefix}/bin`);
    execFileSync("npm", ["uninstall", "--global", "--prefix", prefix, "--no-audit", "--no-fund", "pulumi-dynamic-host"], { stdio: ["ignore", "pipe", "pipe"] });
    expect(fs.existsSync(packageDir), "npm removed the package's folder").to.equal(false);
    execFileSync("npm", npmI, { stdio: ["ignore", "pipe", "pipe"] });
    expect(fs.realpathSync(`${prefix}/bin/pulumi-resource-files`)).to.equal(`${packageDir}/bin/${COMMAND}`);
  });

  it("the release archive: unpacked, not on PATH, `./<folder>/pulumi-dynamic-host install`; then `pulumi-dynamic-host` is on PATH beside pulumi", async function () {
    const m = machine("archive");
    m.env.PATH = pathWithoutNode([m.pulumiBin]);
    // Step 1: `tar -xzf pulumi-dynamic-host-<version>-<os>-<arch>.tar.gz` where it was downloaded.
    const downloads = path.join(m.home, "Downloads");
    fs.mkdirSync(downloads);
    execFileSync("tar", ["-xzf", release().archive], { cwd: downloads });
    const [folder] = fs.readdirSync(downloads);
    expect(folder).to.equal(`pulumi-dynamic-host-${VERSION}-${process.platform}-${process.arch}`);
    // Step 2, from where it was unpacked.
    const exe = path.join(downloads, folder, COMMAND);
    expectInstalled(m, type(m, downloads, `./${folder}/${COMMAND}`, ["install"]), (name) =>
      name === PYTHON_PLUGIN
        ? new RegExp(`^${m.pulumiBin}/${name}: the Python plugin's launcher script, which runs ${m.pulumiBin}/${NODE_PLUGIN} beside it$`)
        : new RegExp(`^${m.pulumiBin}/${name}: (hard link|copy) of (${exe}|${m.pulumiBin}/${NODE_PLUGIN})$`),
    );
    const ts = project();
    const py = pythonProject(m, false);
    // Step 4: the bare command, found beside pulumi.
    expectCleanDoctor(m, type(m, ts, COMMAND, ["doctor"]));
    expectCleanDoctor(m, type(m, py.dir, COMMAND, ["doctor"]));
    await expectExamplesRun(m, ts, py, true);
    // The old step 1: the archive's folder first on PATH.
    expectWarnedOfShadowing(m, py.dir, path.join(downloads, folder), COMMAND);
  });

  it("the wheel: `venv/bin/pip install` in the project's virtualenv, `venv/bin/pulumi-dynamic-host install`", async function () {
    const m = machine("wheel");
    m.env.PATH = pathWithoutNode([m.pulumiBin]);
    const py = pythonProject(m, true);
    // Step 1, in the Python project's folder.
    const pip = type(m, py.dir, "venv/bin/pip", ["install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check", release().wheel]);
    expect(pip.code, pip.stderr).to.equal(0);
    // Step 2.
    expectInstalled(m, type(m, py.dir, `venv/bin/${COMMAND}`, ["install"]), (name) =>
      name === PYTHON_PLUGIN
        ? new RegExp(`^${m.pulumiBin}/${name}: the Python plugin's launcher script, which runs ${m.pulumiBin}/${NODE_PLUGIN} beside it$`)
        : new RegExp(`^${m.pulumiBin}/${name}: (hard link|copy) of (${py.venv}/bin/${NODE_PLUGIN}|${m.pulumiBin}/${NODE_PLUGIN})$`),
    );
    const ts = project();
    // Step 4, as the README gives it for the wheel, and the bare command beside pulumi.
    expectCleanDoctor(m, type(m, py.dir, `venv/bin/${COMMAND}`, ["doctor"]));
    expectCleanDoctor(m, type(m, py.dir, COMMAND, ["doctor"]));
    expectCleanDoctor(m, type(m, ts, COMMAND, ["doctor"]));
    await expectExamplesRun(m, ts, py, true);
    // The virtualenv activated: its bin first on PATH.
    expectWarnedOfShadowing(m, py.dir, path.join(py.venv, "bin"), `venv/bin/${COMMAND}`);
  });
});
