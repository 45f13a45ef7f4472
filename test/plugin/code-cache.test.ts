// The code cache as a plugin start meets it (src/boot/code-cache.ts,
// src/host/tuning/code-cache-save.ts): the plugins started as the engine starts them,
// as each is installed (the checkout's bin/, npm i -g of the tarball, the
// release archive's single executable, the wheel's scripts in a virtualenv),
// with a cache directory of the test's own.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { archiveInstall, npmInstall, pathWithoutNode, wheelInstall } from "../helpers/installs.js";
import { ENGINE_ADDRESS, Plugin } from "../helpers/plugin.js";

const cacheFilesIn = (dir: string) => (fs.existsSync(path.join(dir, "code-cache")) ? fs.readdirSync(path.join(dir, "code-cache")).filter((f) => f.endsWith(".v8")) : []);

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Where each install's plugins are, and the PATH they run with (the single executable's: no node). */
const INSTALLS: [string, () => { bin: string | undefined; env: NodeJS.ProcessEnv }][] = [
  ["the checkout", () => ({ bin: undefined, env: {} })],
  ["npm i -g of the tarball", () => ({ bin: npmInstall().bin, env: {} })],
  ["the release archive", () => ({ bin: archiveInstall(), env: { PATH: pathWithoutNode([archiveInstall()]) } })],
  ["the wheel", () => ({ bin: wheelInstall().bin, env: { PATH: pathWithoutNode([wheelInstall().bin]) } })],
];

const CASES = INSTALLS.flatMap(([install, where]) => (["nodejs", "python"] as const).map((language) => ({ install, where, language })));

for (const { install, where, language } of CASES) {
  describe(`code cache: pulumi-resource-pulumi-${language} from ${install} keeps V8's code cache between starts`, function () {
    this.timeout(10 * 60_000);
    let cacheDir: string;
    let provider: string;
    let installed: { bin: string | undefined; env: NodeJS.ProcessEnv };
    const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::${name}`;
    const start = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      Plugin.launch("ours", {
        language,
        args,
        executable: installed.bin === undefined ? undefined : path.join(installed.bin, `pulumi-resource-pulumi-${language}`),
        env: { ...installed.env, PULUMI_DYNAMIC_HOST_CACHE_DIR: cacheDir, ...env },
      });
    /** Configure and two Creates: three answers, after which the host writes its cache. */
    const serve = async (p: Plugin) => {
      await p.client.configure({});
      for (const name of ["a", "b"]) {
        const r = await p.client.create({ urn: urn(name), properties: { __provider: provider, n: 1 } });
        expect(r.code, r.details).to.equal(0);
      }
    };

    before(async function () {
      installed = where();
      provider = language === "nodejs" ? await nodeProvider("scripted") : pythonProvider("scripted");
    });
    beforeEach(function () {
      cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "code-cache-plugin-"));
    });
    afterEach(function () {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    });

    /** Starts the plugin, serves, waits until `done` holds (or `lingerMs`), stops it; returns it for its stderr. */
    const runOnce = async (args: string[], opts: { env?: NodeJS.ProcessEnv; done?: [string, (p: Plugin) => boolean]; lingerMs?: number } = {}) => {
      const p = await start(args, opts.env);
      try {
        await serve(p);
        if (opts.done) await until(opts.done[0], () => opts.done![1](p));
        if (opts.lingerMs) await new Promise((r) => setTimeout(r, opts.lingerMs));
      } finally {
        await p.stop();
      }
      return p;
    };
    const written: [string, () => boolean] = ["the cache is written", () => cacheFilesIn(cacheDir).length === 1];

    it("the first start writes the cache after its first answers, saying nothing; the next start uses it", async function () {
      const first = await runOnce([ENGINE_ADDRESS], { done: written });
      expect(first.stderr).to.equal("");
      const [file] = cacheFilesIn(cacheDir);
      const second = await runOnce(["--logtostderr", "-v=3", ENGINE_ADDRESS]);
      expect(second.stderr).to.contain(`code cache used (${path.join(cacheDir, "code-cache", file!)})`);
      expect(second.stderr).to.not.contain("code cache written");
      expect(cacheFilesIn(cacheDir)).to.deep.equal([file]);
    });

    it("a cache V8 refuses is written again; one that cannot be written leaves the plugin serving, and says why only at -v=3", async function () {
      await runOnce([ENGINE_ADDRESS], { done: written });
      const file = path.join(cacheDir, "code-cache", cacheFilesIn(cacheDir)[0]!);
      fs.writeFileSync(file, "garbage");
      const again = await runOnce(["--logtostderr", "-v=3", ENGINE_ADDRESS], { done: ["the cache is written again", () => fs.statSync(file).size > 1000] });
      expect(again.stderr).to.contain(`code cache rejected (${file})`);
      expect(again.stderr).to.match(/code cache written: \d+ bytes/);

      // The code cache's directory is a file: no cache can be written (the single executable's Python worker is still extracted beside it).
      const blocked = path.join(cacheDir, "blocked");
      fs.mkdirSync(blocked);
      fs.writeFileSync(path.join(blocked, "code-cache"), "");
      const env = { PULUMI_DYNAMIC_HOST_CACHE_DIR: blocked };
      const quiet = await runOnce([ENGINE_ADDRESS], { env, lingerMs: 200 });
      expect(quiet.stderr).to.equal("");
      const loud = await runOnce(["--logtostderr", "-v=3", ENGINE_ADDRESS], { env, done: ["the write fails", (p) => p.stderr.includes("code cache not written")] });
      expect(loud.stderr).to.contain(`code cache not written: ${path.join(blocked, "code-cache")} is not a directory`);
    });
  });
}
