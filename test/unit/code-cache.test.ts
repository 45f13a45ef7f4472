// V8's code cache of the host's bundle (src/boot/code-cache.ts) and when the
// host writes it (src/host/tuning/code-cache-save.ts). Every load runs in a fresh
// node, as a plugin start does: what V8 takes or refuses is decided there.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterServed, requestServed } from "../../src/host/tuning/served-requests.js";
import { saveCodeCacheWhenWarm, type CodeCacheHandle } from "../../src/host/tuning/code-cache-save.js";
import { bundleFor } from "../../src/boot/bundles.js";

const loaderUrl = new URL("../../src/boot/code-cache.js", import.meta.url).href;
const settingsUrl = new URL("../../src/host/tuning/v8-settings.js", import.meta.url).href;

interface Loaded {
  state: string;
  value: unknown;
  file: string | null;
  saved?: number;
  error?: string;
}

describe("code cache: the host's bundle compiled from V8's cache between starts", function () {
  this.timeout(30_000);
  let dir: string;
  let cacheDir: string;
  let bundle: string;

  /** Loads `bundle` in a fresh node as `name`; `then` runs after the load, with `loaded` and `settings` in scope. */
  const load = (opts: { name?: string; then?: string; env?: Record<string, string> } = {}): Loaded => {
    const script = `
      import { loadBundle } from ${JSON.stringify(loaderUrl)};
      import * as settings from ${JSON.stringify(settingsUrl)};
      const loaded = loadBundle(${JSON.stringify(bundle)}, ${JSON.stringify(opts.name ?? "pulumi-resource-pulumi-python")});
      const out = { state: loaded.codeCache.state, value: loaded.exports.value(), file: loaded.codeCache.file ?? null };
      try { ${opts.then ?? ""} } catch (e) { out.error = e.message; }
      console.log(JSON.stringify(out));`;
    const env = { ...process.env, NODE_OPTIONS: "", PULUMI_DYNAMIC_HOST_CACHE_DIR: cacheDir, ...opts.env };
    return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { env, encoding: "utf8" })) as Loaded;
  };
  const cacheFiles = () => (fs.existsSync(path.join(cacheDir, "code-cache")) ? fs.readdirSync(path.join(cacheDir, "code-cache")).sort() : []);
  /** A bundle whose exports.value() says which build it is; every build has the same length. */
  const writeBundle = (build: number, mtime: Date) => {
    fs.writeFileSync(bundle, `"use strict";\nfunction helper(x) { return x * 2; }\nexports.value = () => ({ build: ${build}, doubled: helper(21), file: __filename === ${JSON.stringify(bundle)} });\n`);
    fs.utimesSync(bundle, mtime, mtime);
  };

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "code-cache-"));
    cacheDir = path.join(dir, "cache");
    bundle = path.join(dir, "host.cjs");
    writeBundle(1, new Date(2026, 0, 1));
  });
  afterEach(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("missing at the first start; once saved, the next start's V8 takes it, and the bundle runs the same", function () {
    const first = load({ then: "out.saved = loaded.codeCache.save();" });
    expect(first).to.deep.include({ state: "missing", value: { build: 1, doubled: 42, file: true } });
    expect(first.saved).to.be.greaterThan(0);
    expect(cacheFiles()).to.have.length(1);
    expect(load()).to.deep.include({ state: "accepted", value: { build: 1, doubled: 42, file: true } });
  });

  it("a bundle whose text is already the module wrapper (how scripts/bundle.mjs builds the host) runs as it is, strict when it says so", function () {
    fs.writeFileSync(bundle, `(function (exports, require, module, __filename, __dirname) {"use strict";\nexports.value = () => ({ build: 3, doubled: 42, file: __filename === ${JSON.stringify(bundle)}, strict: (function () { return this; })() === undefined });\n})`);
    const r = load({ then: "out.saved = loaded.codeCache.save();" });
    expect(r).to.deep.include({ state: "missing", value: { build: 3, doubled: 42, file: true, strict: true } });
    expect(load().state).to.equal("accepted");
  });

  it("a cache V8 cannot read (garbage, cut short) is refused, the bundle is compiled from source, and a save replaces it", function () {
    const file = load({ then: "out.saved = loaded.codeCache.save();" }).file!;
    const good = fs.readFileSync(file);
    for (const bad of [Buffer.from("not a code cache at all"), good.subarray(0, good.length >> 1), Buffer.alloc(0)]) {
      fs.writeFileSync(file, bad);
      expect(load({ then: "out.saved = loaded.codeCache.save();" })).to.deep.include({ state: "rejected", value: { build: 1, doubled: 42, file: true } });
      expect(load()).to.deep.include({ state: "accepted" });
    }
  });

  it("a rebuilt bundle of the same length never runs the code cached for the one before, and its save removes the old cache", function () {
    load({ then: "out.saved = loaded.codeCache.save();" });
    load({ name: "pulumi-resource-pulumi-nodejs", then: "out.saved = loaded.codeCache.save();" });
    const before = cacheFiles();
    expect(before).to.have.length(2);
    writeBundle(2, new Date(2026, 0, 2));
    // V8 itself checks only the source's length: the file name must tell the builds apart.
    expect(load({ then: "out.saved = loaded.codeCache.save();" })).to.deep.include({ state: "missing", value: { build: 2, doubled: 42, file: true } });
    expect(load()).to.deep.include({ state: "accepted", value: { build: 2, doubled: 42, file: true } });
    const after = cacheFiles();
    expect(after, "the Python plugin's old cache is gone, the Node plugin's stays").to.have.length(2);
    expect(after.filter((f) => before.includes(f))).to.have.length(1);
  });

  it("a save removes what writes cut short long ago left, and leaves one that may still be under way", function () {
    const file = load({ then: "out.saved = loaded.codeCache.save();" }).file!;
    const prefix = path.basename(file).split("-")[0];
    const [old, recent] = [`${prefix}-0000000000000000.v8.tmp-1`, `${prefix}-0000000000000000.v8.tmp-2`];
    for (const f of [old, recent]) fs.writeFileSync(path.join(path.dirname(file), f), "partial");
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(path.join(path.dirname(file), old), hourAgo, hourAgo);
    load({ then: "out.saved = loaded.codeCache.save();" });
    expect(cacheFiles()).to.deep.equal([path.basename(file), recent].sort());
  });

  it("each name the host runs as has a cache of its own", function () {
    load({ then: "out.saved = loaded.codeCache.save();" });
    expect(load({ name: "pulumi-resource-pulumi-nodejs" }).state).to.equal("missing");
    expect(load().state).to.equal("accepted");
  });

  it("a cache saved while the host's V8 settings are changed is taken only if saved with V8's defaults (withV8Defaults)", function () {
    const change = `settings.setV8Flag("heap-growing-percent", 50, 0); settings.setV8Flag("semi-space-growth-factor", 1, 2);`;
    load({ then: `${change} out.saved = loaded.codeCache.save();` });
    expect(load().state, "saved with the settings in force").to.equal("rejected");
    load({ then: `${change} out.saved = settings.withV8Defaults(() => loaded.codeCache.save());` });
    expect(load().state).to.equal("accepted");
  });

  it("PULUMI_DYNAMIC_HOST_CODE_CACHE=0: nothing read, nothing written", function () {
    load({ then: "out.saved = loaded.codeCache.save();" });
    const off = load({ env: { PULUMI_DYNAMIC_HOST_CODE_CACHE: "0" }, then: "out.saved = loaded.codeCache.save();" });
    expect(off).to.deep.include({ state: "off", file: null, value: { build: 1, doubled: 42, file: true } });
    expect(off.error).to.contain("turned off");
  });

  it("a cache directory that cannot be made: the bundle runs without the cache, and says which directory and what to set", function () {
    fs.writeFileSync(path.join(dir, "a-file"), "");
    const root = path.join(dir, "a-file", "cache");
    const r = load({ env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: root }, then: "out.saved = loaded.codeCache.save(); " });
    expect(r).to.deep.include({ state: "off", file: null, value: { build: 1, doubled: 42, file: true } });
    expect(r.error).to.equal(
      `the cache directory ${root} cannot be made (ENOTDIR); the host runs without its code cache. ` +
        "Set PULUMI_DYNAMIC_HOST_CACHE_DIR to a directory only you can write to keep the cache",
    );
  });

  it("a cache directory other users may write is refused (as ssh refuses a loose key); the bundle runs without it", function () {
    const loose = path.join(dir, "loose");
    fs.mkdirSync(loose);
    fs.chmodSync(loose, 0o777);
    const r = load({ env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: loose }, then: "out.saved = loaded.codeCache.save();" });
    expect(r).to.deep.include({ state: "off", file: null, value: { build: 1, doubled: 42, file: true } });
    expect(r.error).to.match(new RegExp(`^the cache directory ${loose} can be written by other users \\(mode 0777\\).*PULUMI_DYNAMIC_HOST_CACHE_DIR`));
    expect(fs.readdirSync(loose)).to.deep.equal([]);
    fs.chmodSync(loose, 0o775);
    expect(load({ env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: loose } }).state).to.equal("off");
  });

  it("a cache directory of another user's is refused", function () {
    if (process.getuid?.() !== 0) this.skip(); // only root can give a directory away
    const theirs = path.join(dir, "theirs");
    fs.mkdirSync(theirs, { mode: 0o700 });
    fs.chownSync(theirs, 65534, 65534);
    const r = load({ env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: theirs }, then: "out.saved = loaded.codeCache.save();" });
    expect(r.state).to.equal("off");
    expect(r.error).to.contain(`the cache directory ${theirs} belongs to another user (uid 65534)`);
  });

  it("the cache root, its folders and its files are created owner-only (0700, 0600)", function () {
    const fresh = path.join(dir, "fresh", "root");
    const r = load({ env: { PULUMI_DYNAMIC_HOST_CACHE_DIR: fresh }, then: "out.saved = loaded.codeCache.save();" });
    expect(r.state).to.equal("missing");
    expect(r.saved).to.be.greaterThan(0);
    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    expect([mode(fresh), mode(path.join(fresh, "code-cache")), mode(r.file!)]).to.deep.equal([0o700, 0o700, 0o600]);
  });
});

describe("code cache: written by the host once it has answered its first requests", function () {
  const handle = (state: CodeCacheHandle["state"]) => {
    const saves: number[] = [];
    return { saves, cache: { state, file: "/nowhere", save: () => (saves.push(Date.now()), 1) } satisfies CodeCacheHandle };
  };
  const turn = () => new Promise((r) => setTimeout(r, 30));

  it("after the third answer, on a later turn, once", async function () {
    const { saves, cache } = handle("missing");
    expect(saveCodeCacheWhenWarm(cache)).to.equal(true);
    requestServed();
    requestServed();
    await turn();
    expect(saves, "two answers").to.have.length(0);
    requestServed();
    expect(saves, "not in the answer's own turn").to.have.length(0);
    await turn();
    expect(saves).to.have.length(1);
    for (let i = 0; i < 5; i++) requestServed();
    await turn();
    expect(saves).to.have.length(1);
  });

  it("a cache V8 took is left be; a refused one is written again; none without a loader", async function () {
    const accepted = handle("accepted");
    const rejected = handle("rejected");
    expect(saveCodeCacheWhenWarm(accepted.cache)).to.equal(false);
    expect(saveCodeCacheWhenWarm(rejected.cache)).to.equal(true);
    expect(saveCodeCacheWhenWarm(undefined)).to.equal(false);
    for (let i = 0; i < 3; i++) requestServed();
    await turn();
    expect(accepted.saves).to.have.length(0);
    expect(rejected.saves).to.have.length(1);
  });

  it("afterServed runs each waiter at its own count, in count order", function () {
    const ran: string[] = [];
    afterServed(3, () => ran.push("third"));
    afterServed(1, () => ran.push("first"));
    afterServed(2, () => ran.push("second"));
    afterServed(1, () => ran.push("first again"));
    requestServed();
    expect(ran).to.deep.equal(["first", "first again"]);
    requestServed();
    requestServed();
    expect(ran).to.deep.equal(["first", "first again", "second", "third"]);
  });
});

describe("the host's bundles: each plugin name loads one of its own (src/boot/bundles.ts)", function () {
  it("picks by the name run as, the Python launcher's name first, as main.ts picks the mode", function () {
    expect(bundleFor("/usr/lib/node_modules/pulumi-dynamic-host/bin/pulumi-resource-pulumi-nodejs", undefined)).to.equal("host-nodejs.cjs");
    expect(bundleFor("/venv/bin/pulumi-resource-pulumi-python.exe", undefined)).to.equal("host-python.cjs");
    expect(bundleFor("/pkg/bin/launch.mjs", "/pkg/bin/pulumi-resource-pulumi-python")).to.equal("host-python.cjs");
    expect(bundleFor("/opt/pdh/pulumi-resource-pulumi-nodejs", "/opt/pdh/not-a-plugin")).to.equal("host-nodejs.cjs");
    expect(bundleFor("/usr/bin/pulumi-dynamic-host", undefined)).to.equal("host.cjs");
    expect(bundleFor("/venv/bin/pulumi-resource-pulumi-nodejs", "/venv/bin/pulumi-dynamic-host")).to.equal("host.cjs");
  });

  it("a plugin's bundle holds its own adapter and not the other's, nor the commands for people", function () {
    const dir = new URL("../../bundle/cli/", import.meta.url);
    const text = (f: string) => fs.readFileSync(new URL(f, dir), "utf8");
    const [node, python, all] = [text("host-nodejs.cjs"), text("host-python.cjs"), text("host.cjs")];
    // esbuild names each module it loads lazily by its path: the runtimes and the commands are such modules.
    const [nodeRuntime, pool, pythonRuntime, doctor] = ["src/node-dynamic/runtime.ts", "src/python-bridge/worker/pool.ts", "src/python-bridge/runtime.ts", "src/cli/doctor/doctor.ts"].map((m) => `"${m}"`);
    for (const [name, body, has, hasNot] of [
      ["host-nodejs.cjs", node, [nodeRuntime], [pool, pythonRuntime, doctor]],
      ["host-python.cjs", python, [pool, pythonRuntime], [nodeRuntime, doctor]],
      ["host.cjs", all, [nodeRuntime, pool, pythonRuntime, doctor], []],
    ] as const) {
      for (const s of has) expect(body, `${name} holds ${s}`).to.contain(s);
      for (const s of hasNot) expect(body, `${name} does not hold ${s}`).to.not.contain(s);
    }
  });
});
