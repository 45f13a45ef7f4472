// Registering the host with the engine (src/cli/install/install.ts), the engine's
// lookup order as install and doctor see it (src/cli/install/engine-lookup.ts) and the
// Pulumi.yaml edits (src/cli/install/project-file.ts), on real directory layouts: a
// pulumi reached through a symlink, the scripts pulumi ships beside it, npm's
// bin on PATH, a plugin cache. The commands run as users run them: the built
// bin/pulumi-dynamic-host, as a child process.
import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolvePlugin } from "../../src/cli/install/engine-lookup.js";
import { npmGlobalBin } from "../../src/cli/install/install.js";
import { readProjectPlugins, registerProjectPlugins, unregisterProjectPlugins } from "../../src/cli/install/project-file.js";
import { REPO } from "../helpers/paths.js";

const ENTRY = `${REPO}bin/pulumi-dynamic-host`;
const VERSION = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")).version as string;
const NODE_PLUGIN = "pulumi-resource-pulumi-nodejs";
const PYTHON_PLUGIN = "pulumi-resource-pulumi-python";

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "registration-")));
}

function exe(file: string, text = "#!/bin/sh\nexit 0\n"): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode: 0o755 });
  return file;
}

/** ~/.pulumi/bin with pulumi and its bundled scripts, reached through /usr/local/bin/pulumi -> it. */
function pulumiInstall(root: string) {
  const real = path.join(root, "home/.pulumi/bin");
  exe(path.join(real, "pulumi"));
  // What pulumi ships there, in substance: the SDKs' launcher scripts.
  exe(path.join(real, NODE_PLUGIN), `#!/bin/sh\nnode "$(node -e "console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))")" $@\n`);
  exe(path.join(real, PYTHON_PLUGIN), "#!/bin/sh\nexec python3 -u -m pulumi.dynamic $@\n");
  const linkDir = path.join(root, "usr/local/bin");
  fs.mkdirSync(linkDir, { recursive: true });
  fs.symlinkSync(path.join(real, "pulumi"), path.join(linkDir, "pulumi"));
  return { real, linkDir };
}

function cli(args: string[], env: NodeJS.ProcessEnv, uid?: number) {
  const cmd = uid === undefined ? [ENTRY, args] : ["setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", ENTRY, ...args]];
  const r = spawnSync(cmd[0] as string, cmd[1] as string[], { env: { ...env, PATH: `${env.PATH}:${path.dirname(process.execPath)}` }, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("registration: install, uninstall and the engine's plugin lookup", function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(() => (root = tmp()));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  describe("the engine's lookup order (engine-lookup.ts)", function () {
    it("PATH wins over next to pulumi, and warns unless the PATH hit resolves to the bundled path itself", function () {
      const { real, linkDir } = pulumiInstall(root);
      const npmBin = path.join(root, "npm/bin");
      fs.mkdirSync(npmBin, { recursive: true });
      const target = exe(path.join(root, "npm/lib/pkg/bin", NODE_PLUGIN));
      fs.symlinkSync(target, path.join(npmBin, NODE_PLUGIN));
      const shadowed = resolvePlugin("pulumi-nodejs", { env: { PATH: `${linkDir}:${npmBin}` }, pulumiDir: real });
      expect(shadowed.chosen).to.deep.equal({ source: "path", path: path.join(npmBin, NODE_PLUGIN) });
      expect(shadowed.warning).to.equal(`using ${NODE_PLUGIN} from $PATH at ${npmBin}/${NODE_PLUGIN} expected ${real}/${NODE_PLUGIN}`);
      // pulumi's own directory first on PATH: the same file both ways, no warning.
      const agreed = resolvePlugin("pulumi-nodejs", { env: { PATH: `${real}:${npmBin}` }, pulumiDir: real });
      expect(agreed).to.include({ warning: undefined });
      expect(agreed.chosen).to.deep.equal({ source: "path", path: path.join(real, NODE_PLUGIN) });
      // Not on PATH at all: next to pulumi, no warning.
      const bundled = resolvePlugin("pulumi-nodejs", { env: { PATH: linkDir }, pulumiDir: real });
      expect(bundled.chosen).to.deep.equal({ source: "bundled", path: path.join(real, NODE_PLUGIN) });
      expect(bundled.warning).to.equal(undefined);
      // PULUMI_IGNORE_AMBIENT_PLUGINS: PATH is not looked at.
      const ignored = resolvePlugin("pulumi-nodejs", { env: { PATH: npmBin, PULUMI_IGNORE_AMBIENT_PLUGINS: "true" }, pulumiDir: real });
      expect(ignored.chosen?.source).to.equal("bundled");
    });

    it("a project's plugins.providers comes first; the plugin cache comes last, highest version, skipping one still being written", function () {
      const { real } = pulumiInstall(root);
      const project = path.join(root, "project");
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: p\nruntime: nodejs\nplugins:\n  providers:\n    - name: pulumi-nodejs\n      path: ./plugins\n");
      exe(path.join(project, "plugins", NODE_PLUGIN));
      const r = resolvePlugin("pulumi-nodejs", { env: { PATH: real }, projectRoot: project, pulumiDir: real });
      expect(r.chosen).to.deep.equal({ source: "project", path: path.join(project, "plugins", NODE_PLUGIN) });
      expect(r.candidates.map((c) => c.source)).to.deep.equal(["project", "path", "bundled"]);

      const home = path.join(root, "pulumi-home");
      exe(path.join(home, "plugins/resource-pulumi-python-v3.9.0", PYTHON_PLUGIN));
      exe(path.join(home, "plugins/resource-pulumi-python-v3.10.0", PYTHON_PLUGIN));
      exe(path.join(home, "plugins/resource-pulumi-python-v3.11.0", PYTHON_PLUGIN));
      fs.mkdirSync(path.join(home, "plugins/resource-pulumi-python-v3.11.0.partial"));
      const cached = resolvePlugin("pulumi-python", { env: { PATH: "", PULUMI_HOME: home } });
      expect(cached.chosen).to.deep.equal({ source: "cache", path: path.join(home, "plugins/resource-pulumi-python-v3.10.0", PYTHON_PLUGIN) });
    });
  });

  describe("install and uninstall next to pulumi", function () {
    it("finds pulumi through its symlink, keeps the bundled scripts, links ours, and uninstall restores exactly what was there", function () {
      const { real, linkDir } = pulumiInstall(root);
      const env = { HOME: root, PATH: linkDir };
      const before = Object.fromEntries(fs.readdirSync(real).map((f) => [f, fs.readFileSync(path.join(real, f), "utf8")]));
      const installed = cli(["install"], env);
      expect(installed.code, installed.stderr).to.equal(0);
      // What it replaced, and what it placed: symlinks, shown with ->.
      expect(installed.stdout).to.contain(`kept ${real}/${NODE_PLUGIN} as ${real}/${NODE_PLUGIN}.before-pulumi-dynamic-host: it was Pulumi's own plugin (the script pulumi ships); uninstall puts it back`);
      expect(installed.stdout).to.contain(`kept ${real}/${PYTHON_PLUGIN} as ${real}/${PYTHON_PLUGIN}.before-pulumi-dynamic-host: it was Pulumi's own plugin (the script pulumi ships)`);
      for (const name of [NODE_PLUGIN, PYTHON_PLUGIN, "pulumi-dynamic-host"]) {
        expect(fs.readlinkSync(path.join(real, name))).to.equal(`${REPO}bin/${name}`);
        expect(installed.stdout).to.contain(`${real}/${name} -> ${REPO}bin/${name}`);
      }
      expect(fs.readFileSync(path.join(real, `${PYTHON_PLUGIN}.before-pulumi-dynamic-host`), "utf8")).to.equal(before[PYTHON_PLUGIN]);
      // The plugin cache ($PULUMI_HOME, here ~/.pulumi): an entry per plugin linking to the one placed, which is
      // where `pulumi package add pulumi-nodejs <package>` looks a plugin up by name.
      for (const [pkg, name] of [["pulumi-nodejs", NODE_PLUGIN], ["pulumi-python", PYTHON_PLUGIN]]) {
        const entry = path.join(root, ".pulumi", "plugins", `resource-${pkg}-v${VERSION}`, name);
        expect(fs.readlinkSync(entry)).to.equal(path.join(real, name));
        expect(installed.stdout).to.contain(`${entry} -> ${real}/${name} (the plugin cache, where pulumi package add ${pkg} <package> finds it by name)`);
        expect(resolvePlugin(pkg as "pulumi-nodejs", { env: { PATH: "", PULUMI_HOME: path.join(root, ".pulumi") } }).chosen?.path, "the engine's lookup, with nothing else to find").to.equal(entry);
      }
      // A second install keeps the first backups (what it replaces now is ours), and says so.
      const again = cli(["install"], env).stdout;
      expect(again).not.to.match(/^kept /m);
      expect(again).to.contain(`${real}/${NODE_PLUGIN}: replaces the install of pulumi-dynamic-host ${VERSION} there (${real}/${NODE_PLUGIN}.before-pulumi-dynamic-host stays kept, for uninstall)`);
      const removed = cli(["uninstall"], env);
      expect(removed.code, removed.stderr).to.equal(0);
      const after = Object.fromEntries(fs.readdirSync(real).map((f) => [f, fs.readFileSync(path.join(real, f), "utf8")]));
      expect(after).to.deep.equal(before);
      expect(fs.readdirSync(path.join(root, ".pulumi", "plugins")), "the plugin cache entries are gone").to.deep.equal([]);
      expect(removed.stdout).to.contain(`removed ${path.join(root, ".pulumi", "plugins", `resource-pulumi-nodejs-v${VERSION}`, NODE_PLUGIN)}`);
      expect(cli(["uninstall"], env).stdout).to.contain("nothing to do");
    });

    it("uninstall leaves alone a plugin file changed since install, and says so", function () {
      const { real, linkDir } = pulumiInstall(root);
      const env = { HOME: root, PATH: linkDir };
      cli(["install"], env);
      fs.rmSync(path.join(real, NODE_PLUGIN));
      exe(path.join(real, NODE_PLUGIN), "#!/bin/sh\n# someone else's\n");
      const removed = cli(["uninstall"], env);
      expect(removed.stdout).to.contain(`left ${real}/${NODE_PLUGIN} alone: it changed since pulumi-dynamic-host installed it`);
      expect(fs.readFileSync(path.join(real, NODE_PLUGIN), "utf8")).to.contain("someone else's");
      expect(fs.readFileSync(path.join(real, PYTHON_PLUGIN), "utf8")).to.contain("-m pulumi.dynamic");
    });

    it("a directory it may not write: a clear error naming the directory and the ways out, nothing changed", function () {
      const { real, linkDir } = pulumiInstall(root);
      for (const d of [root, path.dirname(path.dirname(real)), path.dirname(real), real, path.dirname(linkDir), linkDir]) fs.chmodSync(d, 0o755);
      fs.chmodSync(path.join(root, "usr"), 0o755);
      const env = { HOME: root, PATH: linkDir };
      const nobody = 65534;
      const r = cli(["install"], env, nobody);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain(`cannot write to ${real} (EACCES)`);
      expect(r.stderr).to.contain("install --project");
      expect(r.stderr).to.contain("install --dir");
      expect(fs.readdirSync(real).sort()).to.deep.equal(["pulumi", NODE_PLUGIN, PYTHON_PLUGIN].sort());
    });

    it("no pulumi on PATH: says so and what else to do", function () {
      const r = cli(["install"], { HOME: root, PATH: path.join(root, "empty") });
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain("pulumi is not on PATH");
      expect(r.stderr).to.contain("--project");
    });
  });

  describe("install --project and --dir", function () {
    it("--project writes plugins.providers into Pulumi.yaml keeping the user's comments, and uninstall --project takes them out again", function () {
      const project = path.join(root, "project");
      fs.mkdirSync(project);
      const original = "# my project\nname: p # the name\nruntime: nodejs\nplugins:\n  providers:\n    - name: aws\n      path: ./aws-plugin\n";
      fs.writeFileSync(path.join(project, "Pulumi.yaml"), original);
      const r = cli(["install", "--project", project], { HOME: root, PATH: "" });
      expect(r.code, r.stderr).to.equal(0);
      const text = fs.readFileSync(path.join(project, "Pulumi.yaml"), "utf8");
      expect(text).to.contain("# my project").and.to.contain("# the name");
      expect(readProjectPlugins(project).map((p) => [p.name, p.dir])).to.deep.equal([
        ["aws", path.join(project, "aws-plugin")],
        ["pulumi-nodejs", `${REPO}bin`],
        ["pulumi-python", `${REPO}bin`],
      ]);
      expect(cli(["uninstall", "--project", project], { HOME: root, PATH: "" }).code).to.equal(0);
      expect(fs.readFileSync(path.join(project, "Pulumi.yaml"), "utf8")).to.equal(original);
    });

    it("project-file: a plugin directory inside the project is written relative, one elsewhere's entry is left alone on removal", function () {
      const project = path.join(root, "project");
      fs.mkdirSync(path.join(project, ".venv/bin"), { recursive: true });
      fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: p\nruntime: python\n");
      registerProjectPlugins(project, ["pulumi-python"], path.join(project, ".venv/bin"));
      expect(readProjectPlugins(project)).to.deep.equal([{ name: "pulumi-python", path: ".venv/bin", dir: path.join(project, ".venv/bin") }]);
      const edit = unregisterProjectPlugins(project, ["pulumi-python"], path.join(root, "elsewhere"));
      expect(edit.changes[0]).to.contain("left alone");
      expect(readProjectPlugins(project)).to.have.length(1);
    });

    it("--project outside a project, and install with a bad argument: clear errors", function () {
      const r = cli(["install", "--project", root], { HOME: root, PATH: "" });
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain(`no Pulumi.yaml in ${root} or above it`);
      const bad = cli(["install", "--frobnicate"], { HOME: root, PATH: "" });
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.contain("expected nothing, --project [DIR], --dir DIR or --package NAME (with --project [DIR] or --dir DIR)");
      // The usage that follows lists each of them, from the same table.
      for (const option of ["--project [DIR]", "--dir DIR", "--package NAME"]) expect(bad.stderr).to.match(new RegExp(`^  ${option.replace(/[[\]]/g, "\\$&")} `, "m"));
    });

    it("--dir links both plugin names and warns that the engine will warn; uninstall --dir removes only ours", function () {
      const dir = path.join(root, "my-bin");
      const r = cli(["install", "--dir", dir], { HOME: root, PATH: "" });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.contain("the engine prints");
      expect(fs.readdirSync(dir).sort()).to.deep.equal([NODE_PLUGIN, PYTHON_PLUGIN]);
      fs.rmSync(path.join(dir, PYTHON_PLUGIN));
      exe(path.join(dir, PYTHON_PLUGIN), "#!/bin/sh\n# not ours\n");
      const u = cli(["uninstall", "--dir", dir], { HOME: root, PATH: "" });
      expect(u.stdout).to.contain(`left ${dir}/${PYTHON_PLUGIN} alone`);
      expect(fs.readdirSync(dir)).to.deep.equal([PYTHON_PLUGIN]);
    });
  });

  it("install --package of an npm i -g install: the name goes to the prefix's bin, beside npm's links, never into the package's own folder", function () {
    const prefix = path.join(root, "prefix");
    const pkg = path.join(prefix, "lib/node_modules/pulumi-dynamic-host");
    fs.mkdirSync(path.join(prefix, "bin"), { recursive: true });
    fs.mkdirSync(pkg, { recursive: true });
    expect(npmGlobalBin(pkg, "linux"), "no link of npm's there: not npm's prefix").to.equal(undefined);
    fs.symlinkSync("../lib/node_modules/pulumi-dynamic-host/bin/pulumi-dynamic-host", path.join(prefix, "bin/pulumi-dynamic-host"));
    expect(npmGlobalBin(pkg, "linux")).to.equal(path.join(prefix, "bin"));
    // A local install (a project's node_modules) or a checkout: none.
    expect(npmGlobalBin(path.join(root, "project/node_modules/pulumi-dynamic-host"), "linux")).to.equal(undefined);
    expect(npmGlobalBin(REPO, "linux")).to.equal(undefined);
    // Windows: <prefix>\node_modules\<name>, the commands in <prefix> (as .cmd shims).
    expect(npmGlobalBin("C:\\npm\\node_modules\\pulumi-dynamic-host", "win32")).to.equal(undefined);
  });

  it("the host's version", function () {
    const pkg = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8"));
    expect(execFileSync(ENTRY, ["version"], { encoding: "utf8" }).trim()).to.equal(pkg.version);
  });
});
