// Caches that cannot hurt (src/host/files/cache-root.ts, docs/reliability.md "The
// cache directory"), through an installed copy started as the engine starts
// it: the single executable by default (the release archive; or the copy
// PULUMI_DYNAMIC_HOST_UNDER_TEST names), beside the checkout's npm form, a
// build of its own. A cache root that cannot be used (a file, one other users
// may write, one of another user's) leaves both plugin names serving, said at
// -v with the directory and the variable to set, and nothing said without it;
// with no writable place at all, the executable's Python mode says so in one
// sentence, no stack. What the cache holds is owner-only. Three dozen hosts of
// two builds starting at once against one fresh cache directory all serve.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isDirectory } from "../../src/host/files/file-probe.js";
import { nodeUrn } from "../helpers/client.js";
import { archiveInstall } from "../helpers/installs.js";
import { REPO } from "../helpers/paths.js";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";

const pythonUrn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;

describe("the cache directory: an unusable one never stops a start, and what it holds is owner-only", function () {
  this.timeout(600_000);
  let installed: string;
  let scratch: string;
  /** Whether the copy under test is the single executable (it extracts its worker into the cache). */
  let embedded: boolean;

  before(function () {
    installed = process.env.PULUMI_DYNAMIC_HOST_UNDER_TEST || archiveInstall();
    embedded = fs.statSync(fs.realpathSync(path.join(installed, "pulumi-resource-pulumi-nodejs"))).size > 20 * 2 ** 20;
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pdh-cache-dir-")));
  });
  after(function () {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Starts `dir`'s plugin of `language` with `env`, sends one Create, stops it; the answer's code and what it wrote on stderr. */
  async function createOnce(dir: string, language: "nodejs" | "python", env: NodeJS.ProcessEnv, args?: string[]) {
    const plugin = await Plugin.launch("ours", { language, executable: path.join(dir, `pulumi-resource-pulumi-${language}`), env, args });
    try {
      const r =
        language === "nodejs"
          ? await plugin.client.create({ urn: nodeUrn("cache"), properties: { __provider: await nodeProvider("createOnly") } })
          : await plugin.client.create({ urn: pythonUrn("cache"), properties: { __provider: pythonProvider("minimal") } });
      return { code: r.code, details: r.details, stderr: plugin.stderr };
    } finally {
      await plugin.stop();
    }
  }

  const unusable: [string, (root: string) => string, RegExp][] = [
    ["a file", (root) => (fs.writeFileSync(root, ""), root), /is not a directory/],
    ["a folder under a file", (root) => (fs.writeFileSync(root, ""), path.join(root, "cache")), /cannot be made \(ENOTDIR\)/],
    ["a folder other users may write", (root) => (fs.mkdirSync(root), fs.chmodSync(root, 0o777), root), /can be written by other users \(mode 0777\)/],
  ];
  if (process.getuid?.() === 0) unusable.push(["a folder of another user's", (root) => (fs.mkdirSync(root, { mode: 0o700 }), fs.chownSync(root, 65534, 65534), root), /belongs to another user \(uid 65534\)/]);

  for (const [what, make, why] of unusable) {
    it(`a cache root that is ${what}: both plugins serve; -v says which directory and PULUMI_DYNAMIC_HOST_CACHE_DIR, nothing is said without it`, async function () {
      const root = make(path.join(scratch, what.replace(/\W+/g, "-")));
      for (const language of ["nodejs", "python"] as const) {
        // Private directories under the scratch folder, removed with it (a host stopped by a signal leaves its own).
        const quiet = await createOnce(installed, language, { PULUMI_DYNAMIC_HOST_CACHE_DIR: root, TMPDIR: scratch });
        expect(quiet.code, `${language}: ${quiet.details} ${quiet.stderr}`).to.equal(0);
        expect(quiet.stderr, language).to.equal("");
        const told = await createOnce(installed, language, { PULUMI_DYNAMIC_HOST_CACHE_DIR: root, TMPDIR: scratch }, ["-v=1", "--logtostderr", "127.0.0.1:1"]);
        expect(told.code, `${language}: ${told.details}`).to.equal(0);
        expect(told.stderr, language).to.contain(`the cache directory ${root} `);
        expect(told.stderr, language).to.match(why);
        expect(told.stderr, language).to.contain("Set PULUMI_DYNAMIC_HOST_CACHE_DIR to a directory only you can write");
        expect(told.stderr, language).not.to.match(/\n\s+at /);
        if (embedded && language === "python") expect(told.stderr).to.contain(`the host's python-stub goes to ${scratch}/pulumi-dynamic-host-`);
      }
      // A refused folder is left as it was: nothing written into it.
      if (isDirectory(root)) expect(fs.readdirSync(root)).to.deep.equal([]);
    });
  }

  it("no writable place at all (the cache root and the temporary directory both files): the executable's Python mode says so in a sentence, no stack", async function () {
    if (!embedded) this.skip(); // only the single executable extracts files; the npm package serves from its own
    const file = path.join(scratch, "not-a-dir");
    fs.writeFileSync(file, "");
    const plugin = Plugin.launch("ours", { language: "python", executable: path.join(installed, "pulumi-resource-pulumi-python"), env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: file, TMPDIR: file } });
    const err = await plugin.then(
      async (p) => (await p.stop(), "started"),
      (e: Error) => e.message,
    );
    expect(err).to.contain(
      `pulumi-dynamic-host: failed to start: the cache directory ${file} is not a directory, and no private directory could be made under ${file} either (ENOTDIR): set PULUMI_DYNAMIC_HOST_CACHE_DIR to a directory only you can write`,
    );
    expect(err).not.to.match(/\\n\s+at /);
  });

  it("what the cache holds is owner-only: folders 0700, files 0600 (code cache, extracted worker, the worker's compiled code)", async function () {
    const root = path.join(scratch, "fresh", "cache");
    for (const language of ["nodejs", "python"] as const) {
      // Three answers and a turn for the code cache to be written (src/host/tuning/code-cache-save.ts).
      const plugin = await Plugin.launch("ours", { language, executable: path.join(installed, `pulumi-resource-pulumi-${language}`), env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: root } });
      try {
        for (let i = 0; i < 4; i++) {
          const r = language === "nodejs" ? await plugin.client.create({ urn: nodeUrn(`m${i}`), properties: { __provider: await nodeProvider("createOnly") } }) : await plugin.client.create({ urn: pythonUrn(`m${i}`), properties: { __provider: pythonProvider("minimal") } });
          expect(r.code, r.details).to.equal(0);
        }
        const want = language === "nodejs" ? 1 : 2;
        await waitFor(() => fs.existsSync(path.join(root, "code-cache")) && fs.readdirSync(path.join(root, "code-cache")).filter((f) => f.endsWith(".v8")).length >= want);
      } finally {
        await plugin.stop();
      }
    }
    const loose: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        const mode = fs.lstatSync(p).mode & 0o777;
        if (e.isDirectory()) {
          if (mode !== 0o700) loose.push(`${p} ${mode.toString(8)}`);
          walk(p);
        } else if (mode !== 0o600) loose.push(`${p} ${mode.toString(8)}`);
      }
    };
    expect(fs.statSync(root).mode & 0o777).to.equal(0o700);
    walk(root);
    expect(loose).to.deep.equal([]);
    expect(fs.readdirSync(path.join(root, "code-cache")).filter((f) => f.endsWith(".v8")).length).to.be.greaterThan(0);
    if (embedded) expect(fs.readdirSync(root).some((f) => /^\d+\.\d+\.\d+.*-[0-9a-f]{12}$/.test(f)), "the extracted worker").to.equal(true);
  });

  it("36 hosts of two builds (this copy and the checkout's npm form), both plugin names, starting at once against one fresh cache directory: every one serves", async function () {
    const root = path.join(scratch, "shared", "cache");
    const builds = [installed, `${REPO}bin`];
    for (const round of [1, 2]) {
      const starts = Array.from({ length: 36 }, (_, i) => ({ dir: builds[i % 2]!, language: (["nodejs", "python"] as const)[Math.floor(i / 2) % 2]! }));
      const results = await Promise.all(
        starts.map(async (s, i) => {
          try {
            const r = await createOnce(s.dir, s.language, { PULUMI_DYNAMIC_HOST_CACHE_DIR: root });
            return `${s.dir === installed ? "installed" : "checkout"} ${s.language}: ${r.code === 0 ? "ok" : `${r.code} ${r.details}`}${r.stderr ? ` stderr ${r.stderr}` : ""}`;
          } catch (e) {
            return `${s.dir === installed ? "installed" : "checkout"} ${s.language} #${i}: ${(e as Error).message}`;
          }
        }),
      );
      expect(results.filter((r) => !r.endsWith(": ok")), `round ${round}`).to.deep.equal([]);
    }
    // No temporary file or folder left in the cache by the racing writers.
    const names = fs.readdirSync(root, { recursive: true }).map(String);
    expect(names.filter((n) => /\.tmp(-|$)|\.tmp$/.test(n)), "temporary leftovers").to.deep.equal([]);
  });
});

async function waitFor(ok: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error("timed out waiting for the code cache to be written");
    await new Promise((r) => setTimeout(r, 50));
  }
}
