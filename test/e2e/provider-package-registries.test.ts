// Provider packages from a registry (docs/provider-packages.md, "From a
// registry"), under the real engine and Pulumi YAML's language host: the test
// starts an npm registry (verdaccio) and a Python package index (pypiserver)
// on loopback, publishes the fixture packages to them as a team would, and a
// consuming project that holds nothing of the provider adds them by spec
// (`pulumi package add <our plugin> @acme/pulumi-files@^1.2.0`,
// `… acme-counters==0.3.0`). The host resolves the spec with the user's own npm
// and pip (configured by npm_config_registry and PIP_INDEX_URL, as a user
// configures them), installs the exact version into its cache (here a fresh
// one, PULUMI_DYNAMIC_HOST_CACHE_DIR), pins its integrity in the parameter
// value, and reinstalls it from that value when the cache is gone. Two
// projects on one machine use two versions of the package side by side. The
// Python package's own dependency is on the index only, not in the project's
// Python: the host installs it for the package.
import { expect } from "chai";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { FIXTURES, REPO, TEST_VENV } from "../helpers/paths.js";
import { E2E_BIN, E2E_ROOT, placeYamlHost, sandbox, type Sandbox } from "./harness.js";
import { generateSdk, installNodeSdk, nodeSdkStack, pulumiIn } from "./package-consumer.js";
import { addToPluginCache, removeFromPluginCache } from "../../src/cli/install/plugin-cache.js";
import { hostVersion } from "../../src/host/plugin/plugin-info.js";

const STACK = "dev";
const OUR_NODE = `${E2E_BIN}/pulumi-resource-pulumi-nodejs`;
const OUR_PYTHON = `${E2E_BIN}/pulumi-resource-pulumi-python`;
const VERDACCIO = `${REPO}.cache/verdaccio/node_modules/.bin/verdaccio`;
const PYPISERVER = `${REPO}.cache/pypiserver/bin/pypi-server`;
const BUILD_PYTHON = `${REPO}.cache/pypiserver/bin/python`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `url` answers (any HTTP status), or the process ends, or 60 s pass. */
async function answering(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (proc.exitCode !== null) throw new Error(`${url}: the server ended (exit ${proc.exitCode}):\n${log()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${url} did not answer in 60 s:\n${log()}`);
}

/** A server process whose output is kept for the failure message. */
function start(command: string, args: string[], cwd: string): { proc: ChildProcess; log: () => string } {
  for (const tool of [command]) {
    if (!fs.existsSync(tool)) throw new Error(`${tool} is missing: run bash scripts/setup.sh --tests (it installs the registries the provider-package tests start)`);
  }
  let out = "";
  const proc = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  return { proc, log: () => out.slice(-4000) };
}

/** The parameter value in a YAML SDK lock file, decoded. */
function lockValue(file: string): any {
  const value = /value: (\S+)/.exec(fs.readFileSync(file, "utf8"))![1];
  return JSON.parse(Buffer.from(value, "base64").toString());
}

function cacheEntries(cache: string, kind: string): string[] {
  const base = path.join(cache, "packages", kind);
  if (!fs.existsSync(base)) return [];
  const out: string[] = [];
  for (const pkg of fs.readdirSync(base)) for (const version of fs.readdirSync(path.join(base, pkg))) for (const key of fs.readdirSync(path.join(base, pkg, version))) if (!key.startsWith(".")) out.push(`${pkg}/${version}`);
  return out.sort();
}

describe("end to end (YAML): provider packages added by registry spec, from npm (verdaccio) and a Python index (pypiserver) on loopback", function () {
  this.timeout(20 * 60 * 1000);
  let sb: Sandbox;
  let root: string;
  let cache: string;
  let npmUrl: string;
  const servers: ChildProcess[] = [];

  before(async function () {
    placeYamlHost();
    fs.mkdirSync(`${E2E_ROOT}/projects`, { recursive: true });
    root = fs.mkdtempSync(`${E2E_ROOT}/projects/package-registries-`);
    cache = path.join(root, "host-cache");

    // The npm registry, with no uplink: only what the test publishes is there.
    const registry = path.join(root, "verdaccio");
    fs.mkdirSync(registry);
    fs.writeFileSync(
      path.join(registry, "config.yaml"),
      "storage: ./storage\nauth:\n  htpasswd:\n    file: ./htpasswd\n    max_users: -1\nuplinks: {}\npackages:\n  '**':\n    access: $all\n    publish: $anonymous\nlog: { type: stdout, format: pretty, level: warn }\n",
    );
    const npmPort = await freePort();
    npmUrl = `http://127.0.0.1:${npmPort}/`;
    const verdaccio = start(VERDACCIO, ["--config", path.join(registry, "config.yaml"), "--listen", `127.0.0.1:${npmPort}`], registry);
    servers.push(verdaccio.proc);
    await answering(`${npmUrl}-/ping`, verdaccio.proc, verdaccio.log);

    // The Python index, serving a folder the test puts wheels in.
    const index = path.join(root, "pypi");
    fs.mkdirSync(index);
    const pypiPort = await freePort();
    const pypiserver = start(PYPISERVER, ["run", "-i", "127.0.0.1", "-p", String(pypiPort), "-a", ".", "-P", ".", index], root);
    servers.push(pypiserver.proc);
    await answering(`http://127.0.0.1:${pypiPort}/simple/`, pypiserver.proc, pypiserver.log);

    sb = sandbox("e2e-package-registries");
    // The user's own configuration of npm and pip names the registries; the host's cache is a fresh one.
    Object.assign(sb.env, {
      npm_config_registry: npmUrl,
      PIP_INDEX_URL: `http://127.0.0.1:${pypiPort}/simple/`,
      PULUMI_DYNAMIC_HOST_CACHE_DIR: cache,
    });

    publishNode(root, "1.2.0");
    publishNode(root, "1.3.0");
    publishPython(root, index);
  });
  after(function () {
    for (const s of servers) s.kill("SIGKILL");
    sb?.cleanup();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  /** Publishes acme-banner (once) and @acme/pulumi-files at `version`, from copies of the fixture, with npm publish. */
  function publishNode(at: string, version: string): void {
    const npmrc = `registry=${npmUrl}\n//${npmUrl.replace(/^http:\/\//, "")}:_authToken=anonymous\n`;
    const banner = path.join(at, "publish", "acme-banner");
    if (!fs.existsSync(banner)) {
      fs.mkdirSync(banner, { recursive: true });
      fs.writeFileSync(path.join(banner, "package.json"), `{ "name": "acme-banner", "version": "1.0.0", "main": "index.js" }\n`);
      fs.writeFileSync(path.join(banner, "index.js"), `module.exports = () => "from acme-banner, installed from the registry";\n`);
      fs.writeFileSync(path.join(banner, ".npmrc"), npmrc);
      execFileSync("npm", ["publish", "--loglevel=error"], { cwd: banner, stdio: "pipe" });
    }
    const files = path.join(at, "publish", `files-${version}`);
    fs.cpSync(`${FIXTURES}provider-packages/files-node`, files, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(files, "package.json"), "utf8"));
    delete manifest.private;
    Object.assign(manifest, { version, dependencies: { "acme-banner": "^1.0.0" } });
    fs.writeFileSync(path.join(files, "package.json"), JSON.stringify(manifest, null, 2));
    fs.writeFileSync(path.join(files, ".npmrc"), npmrc);
    execFileSync("npm", ["publish", "--loglevel=error"], { cwd: files, stdio: "pipe" });
  }

  /** Builds acme-stepper (a dependency on the index only) and acme-counters 0.3.0 (which imports it) as wheels into the index's folder. */
  function publishPython(at: string, index: string): void {
    const stepper = path.join(at, "publish", "acme-stepper");
    fs.mkdirSync(path.join(stepper, "acme_stepper"), { recursive: true });
    fs.writeFileSync(
      path.join(stepper, "pyproject.toml"),
      `[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "acme-stepper"\nversion = "2.0.0"\nrequires-python = ">=3.8"\n`,
    );
    fs.writeFileSync(path.join(stepper, "acme_stepper", "__init__.py"), `def advanced(start, step):\n    return start + step\n`);
    const counters = path.join(at, "publish", "acme-counters");
    fs.cpSync(`${FIXTURES}provider-packages/counters-python`, counters, { recursive: true });
    const pyproject = path.join(counters, "pyproject.toml");
    fs.writeFileSync(pyproject, fs.readFileSync(pyproject, "utf8").replace('dependencies = ["pulumi>=3"]', 'dependencies = ["pulumi>=3", "acme-stepper>=2"]'));
    // The published package's steps come from its dependency, which the project's Python does not have.
    fs.writeFileSync(path.join(counters, "acme_counters", "steps.py"), `from acme_stepper import advanced  # noqa: F401\n`);
    for (const dir of [stepper, counters]) {
      execFileSync(BUILD_PYTHON, ["-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-build-isolation", "--no-deps", "-w", index, dir], { stdio: "pipe" });
    }
    expect(fs.readdirSync(index).sort()).to.deep.equal(["acme_counters-0.3.0-py3-none-any.whl", "acme_stepper-2.0.0-py3-none-any.whl"]);
  }

  /** A consuming YAML project in its own folder: a program and nothing else (for Python, the .venv its Python providers run in). */
  function consumerProject(name: string, program: string, venv = false): string {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    if (venv) fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(dir, ".venv"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), program);
    return dir;
  }
  const filesProgram = (name: string, content: string) =>
    `name: ${name}\nruntime: yaml\nresources:\n  notes:\n    type: files:index:TextFile\n    properties:\n      path: \${pulumi.cwd}/notes.txt\n      content: ${content}\noutputs:\n  banner: \${notes.banner}\n  ranBy: \${notes.ranBy}\n  size: \${notes.size}\n`;

  async function state(cwd: string): Promise<Record<string, any>> {
    const text = await pulumiIn(sb).ok(["stack", "export", "--stack", STACK], cwd);
    expect(text).to.not.contain("__provider");
    const out: Record<string, any> = {};
    for (const r of JSON.parse(text).deployment.resources ?? []) out[r.urn.split("::").pop()] = r;
    return out;
  }
  const outputs = async (cwd: string) => JSON.parse((await pulumiIn(sb).cli(["stack", "output", "--json", "--stack", STACK], cwd)).stdout);

  describe("a Node package from npm", function () {
    let older: string;
    let newer: string;

    it("pulumi package add <our Node plugin> @acme/pulumi-files@^1.2.0 <1.3.0: the spec resolved by npm, the exact version and its integrity pinned in the SDK's value", async function () {
      older = consumerProject("files-older", filesProgram("files-older", "hello"));
      const said = await pulumiIn(sb).ok(["package", "add", OUR_NODE, "@acme/pulumi-files@>=1.2.0 <1.3.0"], older);
      expect(said).to.contain("Added package files");
      const value = lockValue(path.join(older, "sdks", "files", "files-1.2.0.yaml"));
      expect(value.source).to.deep.include({ kind: "npm", spec: "@acme/pulumi-files@>=1.2.0 <1.3.0", package: "@acme/pulumi-files", version: "1.2.0" });
      const published = execFileSync("npm", ["view", "@acme/pulumi-files@1.2.0", "dist.integrity", "--registry", npmUrl], { encoding: "utf8" }).trim();
      expect(value.source.integrity).to.equal(published);
      expect(cacheEntries(cache, "npm")).to.deep.equal(["acme+pulumi-files/1.2.0"]);
    });

    it("up creates its resource, run by our Node plugin from the cache, its dependency installed from the registry with it; an unchanged up and a refresh change nothing", async function () {
      await pulumiIn(sb).ok(["stack", "init", STACK], older);
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", STACK], older);
      const out = await outputs(older);
      expect(out.banner).to.equal("from acme-banner, installed from the registry");
      expect(out.ranBy.script).to.equal(OUR_NODE);
      const s = await state(older);
      expect(s.notes.type).to.equal("files:index:TextFile");
      expect(s.default_1_2_0.type).to.equal("pulumi:providers:files");
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK], older);
      await pulumiIn(sb).ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK], older);
    });

    it("with the host's cache gone (another machine, a cleaned cache), the value installs the same version again", async function () {
      fs.rmSync(cache, { recursive: true, force: true });
      await pulumiIn(sb).ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK], older);
      expect(cacheEntries(cache, "npm")).to.deep.equal(["acme+pulumi-files/1.2.0"]);
    });

    it("another project on the machine uses 1.3.0 while the first keeps 1.2.0: two cache entries, each project its own version", async function () {
      newer = consumerProject("files-newer", filesProgram("files-newer", "newer"));
      await pulumiIn(sb).ok(["package", "add", OUR_NODE, "@acme/pulumi-files"], newer);
      expect(lockValue(path.join(newer, "sdks", "files", "files-1.3.0.yaml")).source).to.deep.include({ spec: "@acme/pulumi-files", version: "1.3.0" });
      await pulumiIn(sb).ok(["stack", "init", STACK], newer);
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", STACK], newer);
      expect((await state(newer)).notes.provider).to.match(/::pulumi:providers:files::default_1_3_0::/);
      await pulumiIn(sb).ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK], older);
      expect((await state(older)).notes.provider).to.match(/::pulumi:providers:files::default_1_2_0::/);
      expect(cacheEntries(cache, "npm")).to.deep.equal(["acme+pulumi-files/1.2.0", "acme+pulumi-files/1.3.0"]);
    });

    it("two stacks of one project on two versions: a stack whose state names 1.2.0 still runs it, from the cache, after the project moved to 1.3.0", async function () {
      await pulumiIn(sb).ok(["package", "add", OUR_NODE, "@acme/pulumi-files@1.3.0"], older);
      expect(fs.readdirSync(path.join(older, "sdks", "files"))).to.deep.equal(["files-1.3.0.yaml"]);
      await pulumiIn(sb).ok(["stack", "init", "next"], older);
      fs.writeFileSync(path.join(older, "Pulumi.yaml"), filesProgram("files-older", "hello").replace("/notes.txt", "/notes-${pulumi.stack}.txt"));
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", "next"], older);
      // The dev stack was not updated: its provider, loaded from the state's value, is 1.2.0's. The engine
      // says so itself (the only warning), and the refresh runs it.
      const r = await pulumiIn(sb).cli(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK], older);
      expect(r.code, r.stdout + r.stderr).to.equal(0);
      const warnings = new Set((r.stdout + r.stderr).match(/warning: .*/g));
      expect([...warnings]).to.deep.equal(["warning: refresh operation is using an older version of package 'files' than the specified program version: 1.2.0 < 1.3.0"]);
      expect((await state(older)).notes.provider).to.match(/::pulumi:providers:files::default_1_2_0::/);
      await pulumiIn(sb).ok(["destroy", "--yes", "--skip-preview", "--stack", "next"], older);
      await pulumiIn(sb).ok(["stack", "rm", "--yes", "next"], older);
      fs.writeFileSync(path.join(older, "Pulumi.yaml"), filesProgram("files-older", "hello"));
    });

    it("an update and destroy run through the package in both projects", async function () {
      fs.writeFileSync(path.join(older, "Pulumi.yaml"), filesProgram("files-older", "hello again"));
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", STACK], older);
      expect((await outputs(older)).size).to.equal(11);
      expect((await state(older)).notes.provider, "the update moved dev to the project's version").to.match(/::pulumi:providers:files::default_1_3_0::/);
      for (const dir of [older, newer]) {
        await pulumiIn(sb).ok(["destroy", "--yes", "--skip-preview", "--stack", STACK], dir);
        expect(fs.existsSync(path.join(dir, "notes.txt"))).to.equal(false);
      }
    });

    it("through its generated TypeScript SDK (the value pins the npm package): up, refresh and destroy from an inline program", async function () {
      const project = path.join(root, "files-typescript");
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: files-typescript\nruntime: nodejs\n");
      const sdk = generateSdk(sb, project, OUR_NODE, "files", "nodejs", "@acme/pulumi-files@1.2.0");
      const manifest = JSON.parse(fs.readFileSync(path.join(sdk.dir, "package.json"), "utf8"));
      expect(manifest.version).to.equal("1.2.0");
      expect(JSON.parse(Buffer.from(manifest.pulumi.parameterization.value, "base64").toString()).source).to.deep.include({ kind: "npm", package: "@acme/pulumi-files", version: "1.2.0" });
      const files = installNodeSdk(sdk.dir, project);
      const notes = path.join(project, "notes.txt");
      const stack = await nodeSdkStack(sb, project, "files-typescript", async () => {
        const file = new files.TextFile("notes", { path: notes, content: "typed" });
        return { banner: file.banner, ranBy: file.ranBy };
      });
      fs.rmSync(cache, { recursive: true, force: true });
      const up = await stack.up();
      expect(up.summary.result).to.equal("succeeded");
      expect(up.outputs.banner.value).to.equal("from acme-banner, installed from the registry");
      expect(up.outputs.ranBy.value.script).to.equal(OUR_NODE);
      expect(cacheEntries(cache, "npm"), "installed again from the SDK's value").to.deep.equal(["acme+pulumi-files/1.2.0"]);
      expect((await stack.refresh({ expectNoChanges: true })).summary.result).to.equal("succeeded");
      expect((await stack.destroy()).summary.result).to.equal("succeeded");
      expect(fs.existsSync(notes)).to.equal(false);
    });

    it("by name, as install registers the plugins in the plugin cache: pulumi package add pulumi-nodejs @acme/pulumi-files@1.2.0, then up and destroy", async function () {
      const lines: string[] = [];
      expect(addToPluginCache(E2E_BIN, hostVersion(), { ...process.env, ...sb.env }, (l) => lines.push(l), process.platform)).to.have.length(2);
      const dir = consumerProject("files-by-name", filesProgram("files-by-name", "named"));
      expect(await pulumiIn(sb).ok(["package", "add", "pulumi-nodejs", "@acme/pulumi-files@1.2.0"], dir)).to.contain("Added package files");
      expect(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")).to.match(/source: pulumi-nodejs\n/);
      await pulumiIn(sb).ok(["stack", "init", STACK], dir);
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", STACK], dir);
      expect((await outputs(dir)).banner).to.equal("from acme-banner, installed from the registry");
      await pulumiIn(sb).ok(["destroy", "--yes", "--skip-preview", "--stack", STACK], dir);
      removeFromPluginCache(lines.map((l) => path.dirname(l.split(" -> ")[0])), () => undefined);
    });

    it("a spec npm cannot find is refused, saying what npm said", async function () {
      const dir = consumerProject("files-missing", filesProgram("files-missing", "x"));
      const res = await pulumiIn(sb).cli(["package", "add", OUR_NODE, "@acme/no-such-package@1.0.0"], dir);
      expect(res.code).to.not.equal(0);
      const said = res.stdout + res.stderr;
      expect(said).to.match(/Parameterize: npm could not find "@acme\/no-such-package@1\.0\.0" \(npm view @acme\/no-such-package@1\.0\.0, in [^)]+\): E404: Not Found/);
      expect(said).to.contain(`(no folder "@acme/no-such-package@1.0.0" is in ${dir}, so it was taken for an npm spec)`);
    });
  });

  describe("a Python package from a Python index", function () {
    let consumer: string;
    const counterProgram = (props: string) => `name: counters-consumer\nruntime: yaml\nresources:\n  visits:\n    type: counters:index:Counter\n    properties:\n      ${props}\noutputs:\n  value: \${visits.value}\n  ranBy: \${visits.ranBy}\n`;

    it("pulumi package add <our Python plugin> acme-counters==0.3.0: resolved by the project's pip, the wheel's sha256 pinned", async function () {
      consumer = consumerProject("counters", counterProgram("start: 3"), true);
      expect(await pulumiIn(sb).ok(["package", "add", OUR_PYTHON, "acme-counters==0.3.0"], consumer)).to.contain("Added package counters");
      const value = lockValue(path.join(consumer, "sdks", "counters", "counters-0.3.0.yaml"));
      expect(value.source).to.deep.include({ kind: "pypi", spec: "acme-counters==0.3.0", package: "acme-counters", version: "0.3.0" });
      const wheel = fs.readFileSync(path.join(root, "pypi", "acme_counters-0.3.0-py3-none-any.whl"));
      const { createHash } = await import("node:crypto");
      expect(value.source.integrity).to.equal(`sha256:${createHash("sha256").update(wheel).digest("hex")}`);
    });

    it("up, an unchanged up, refresh, an update (through its dependency from the index, which the project's Python lacks) and destroy", async function () {
      expect(() => execFileSync(`${TEST_VENV}/bin/python`, ["-c", "import acme_stepper"], { stdio: "pipe" }), "the project's Python has no acme_stepper").to.throw();
      await pulumiIn(sb).ok(["stack", "init", STACK], consumer);
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", STACK], consumer);
      const out = await outputs(consumer);
      expect(out.value).to.equal(3);
      expect(out.ranBy.launchedAs).to.equal(OUR_PYTHON);
      expect(out.ranBy.module.startsWith(path.join(cache, "packages", "pypi", "acme-counters", "0.3.0") + path.sep), out.ranBy.module).to.equal(true);
      expect(fs.realpathSync(out.ranBy.python)).to.equal(fs.realpathSync(path.join(consumer, ".venv", "bin", "python")));
      expect((await state(consumer)).visits.type).to.equal("counters:index:Counter");
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK], consumer);
      await pulumiIn(sb).ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--stack", STACK], consumer);
      fs.writeFileSync(path.join(consumer, "Pulumi.yaml"), counterProgram("start: 3\n      step: 2"));
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", STACK], consumer);
      expect((await outputs(consumer)).value, "update ran acme_stepper.advanced, installed for the package").to.equal(5);
      await pulumiIn(sb).ok(["destroy", "--yes", "--skip-preview", "--stack", STACK], consumer);
      expect(Object.values(await state(consumer)).filter((r) => r.type === "counters:index:Counter")).to.deep.equal([]);
    });

    it("a Python package from a folder gets the dependencies the project's Python lacks from the index too, installed once into the cache", async function () {
      // The package's sources (as a team's repository holds them), beside a project whose Python has only pulumi.
      const folder = path.join(root, "folder-project", "packages", "counters");
      fs.cpSync(path.join(root, "publish", "acme-counters"), folder, { recursive: true });
      const project = path.join(root, "folder-project", "app");
      fs.mkdirSync(project);
      fs.symlinkSync(fs.realpathSync(TEST_VENV), path.join(project, ".venv"));
      fs.writeFileSync(path.join(project, "Pulumi.yaml"), counterProgram("start: 3\n      step: 2").replace("counters-consumer", "counters-folder"));
      await pulumiIn(sb).ok(["package", "add", OUR_PYTHON, "../packages/counters"], project);
      await pulumiIn(sb).ok(["stack", "init", STACK], project);
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", STACK], project);
      const out = await outputs(project);
      expect(out.ranBy.module).to.equal(path.join(folder, "acme_counters", "provider.py"));
      fs.writeFileSync(path.join(project, "Pulumi.yaml"), counterProgram("start: 4\n      step: 2").replace("counters-consumer", "counters-folder"));
      await pulumiIn(sb).ok(["up", "--yes", "--skip-preview", "--stack", STACK], project);
      expect((await outputs(project)).value, "update ran acme_stepper.advanced, installed for the folder package").to.equal(6);
      expect(fs.readdirSync(path.join(cache, "packages", "pypi-dependencies")), "one cache folder for its requirements and this Python").to.have.length(1);
      await pulumiIn(sb).ok(["destroy", "--yes", "--skip-preview", "--stack", STACK], project);
    });
  });
});
