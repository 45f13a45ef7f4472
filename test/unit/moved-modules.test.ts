// Module paths that moved (src/node-dynamic/moved-modules.ts): which package
// a store, nested or absolute node_modules path names, and a payload's
// `require` of such a path when it no longer exists, loaded from the program
// directory's copy of the package with one warning per package, or failing
// with an error that names both attempts.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CallSignal } from "../../src/host/limits/call-signal.js";
import { ProviderResultError } from "../../src/host/errors.js";
import type { CallInfo, Operation } from "../../src/host/runtime.js";
import { jsToStruct, structToJs } from "../../src/host/wire/wire.js";
import { ProviderLoader, ProviderLoadError } from "../../src/node-dynamic/loader.js";
import { packageOfPath } from "../../src/node-dynamic/moved-modules.js";
import { NodeRuntime } from "../../src/node-dynamic/runtime.js";

describe("moved module paths: the package a path names", function () {
  const table: [string, ReturnType<typeof packageOfPath>][] = [
    // What SDKs before 3.251 write under pnpm (the store, resolved through node_modules).
    [".pnpm/ms@2.1.2/node_modules/ms/index.js", { name: "ms", subpath: "index.js", store: ".pnpm", storeVersion: "2.1.2" }],
    [
      "/home/u/app/node_modules/.pnpm/@scope+name@1.0.0_react@18.2.0/node_modules/@scope/name/lib/a.js",
      { name: "@scope/name", subpath: "lib/a.js", store: ".pnpm", storeVersion: "1.0.0", packageDir: "/home/u/app/node_modules/.pnpm/@scope+name@1.0.0_react@18.2.0/node_modules/@scope/name" },
    ],
    [".pnpm/pkg@3.0.0(react@18.2.0)(typescript@5.4.0)/node_modules/pkg/dist/index.cjs", { name: "pkg", subpath: "dist/index.cjs", store: ".pnpm", storeVersion: "3.0.0" }],
    // What every SDK writes under aspect_rules_js (pulumi#18976).
    [".aspect_rules_js/twilio@5.4.5/node_modules/twilio/lib/index.js", { name: "twilio", subpath: "lib/index.js", store: ".aspect_rules_js", storeVersion: "5.4.5" }],
    // Another checkout's, or another machine's, plain node_modules.
    ["/ci/runner/build/app/node_modules/lodash/fp/map.js", { name: "lodash", subpath: "fp/map.js", packageDir: "/ci/runner/build/app/node_modules/lodash" }],
    ["../old-checkout/node_modules/ms", { name: "ms", subpath: "" }],
    ["C:\\Users\\me\\app\\node_modules\\@scope\\name\\index.js", { name: "@scope/name", subpath: "index.js", packageDir: "C:/Users/me/app/node_modules/@scope/name" }],
    // Nested installs: the file belongs to the package after the last node_modules.
    ["/app/node_modules/a/node_modules/b/index.js", { name: "b", subpath: "index.js", packageDir: "/app/node_modules/a/node_modules/b" }],
    [".pnpm/a@1.0.0/node_modules/a/node_modules/b/x.js", { name: "b", subpath: "x.js" }],
    // A store entry of another name says nothing of this package's version.
    [".pnpm/other@9.9.9/node_modules/ms/index.js", { name: "ms", subpath: "index.js", store: ".pnpm" }],
  ];
  for (const [id, expected] of table) {
    it(id, function () {
      const got = packageOfPath(id);
      if (got?.packageDir) got.packageDir = got.packageDir.replace(/\\/g, "/");
      expect(got).to.deep.equal(expected);
    });
  }

  it("paths that are no package's, and package names, give nothing (the module is reported missing as always)", function () {
    for (const id of ["ms", "ms/index.js", "@scope/name", "/abs/lib/thing.js", "./lib/x", "/x/node_modules/", "/x/node_modules/.bin/tsc", "/x/node_modules/@scope", "node:fs"]) {
      expect(packageOfPath(id), id).to.equal(undefined);
    }
  });
});

/** A program directory (outside the repository, so nothing above it resolves) laid out as pnpm lays it out. */
function pnpmProgram(packages: Record<string, { version: string; files?: Record<string, string>; main?: string }>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "moved-modules-")));
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "p", "private": true }\n');
  for (const [name, pkg] of Object.entries(packages)) {
    const store = path.join(dir, "node_modules", ".pnpm", `${name.replace("/", "+")}@${pkg.version}`, "node_modules", name);
    fs.mkdirSync(store, { recursive: true });
    fs.writeFileSync(path.join(store, "package.json"), JSON.stringify({ name, version: pkg.version, main: pkg.main ?? "index.js" }));
    const files = pkg.files ?? { "index.js": `module.exports = { name: ${JSON.stringify(name)}, version: ${JSON.stringify(pkg.version)} };\n` };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(store, file)), { recursive: true });
      fs.writeFileSync(path.join(store, file), text);
    }
    const link = path.join(dir, "node_modules", name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(link), store), link);
  }
  return dir;
}

/** A provider text of the serializer's shape whose handler's provider holds the modules `ids` require. */
function requiring(...ids: string[]): string {
  const lines = ids.map((id, i) => `const m${i} = require(${JSON.stringify(id)});`);
  return `exports.handler = __f0;\n${lines.join("\n")}\nfunction __f0() { return { modules: [${ids.map((_, i) => `m${i}`).join(", ")}] }; }\n`;
}

function call(messages: string[], operation: Operation = "Read"): CallInfo {
  return {
    operation,
    urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic:Resource::r",
    signal: new CallSignal(),
    secrets: () => [],
    log: (severity, message) => messages.push(`${severity}: ${message}`),
  };
}

describe("moved module paths: a payload's require of a path that no longer exists", function () {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const program = (packages: Parameters<typeof pnpmProgram>[0]) => {
    const d = pnpmProgram(packages);
    dirs.push(d);
    return d;
  };
  const load = async (dir: string, text: string, messages: string[] = []) => {
    const loader = new ProviderLoader(dir);
    return loader.during(call(messages), () => loader.get({ text })) as Promise<{ modules: any[] }>;
  };

  it("a bumped pnpm package: the program's version is loaded, with one warning naming both paths and versions", async function () {
    const dir = program({ ms: { version: "2.1.3", files: { "index.js": "module.exports = 'ms 2.1.3';\n", "lib/extra.js": "module.exports = 'extra 2.1.3';\n" } } });
    const messages: string[] = [];
    const provider = await load(dir, requiring(".pnpm/ms@2.1.2/node_modules/ms/index.js", ".pnpm/ms@2.1.2/node_modules/ms/lib/extra.js"), messages);
    expect(provider.modules).to.deep.equal(["ms 2.1.3", "extra 2.1.3"]);
    expect(messages).to.deep.equal([
      `warning: the dynamic provider requires .pnpm/ms@2.1.2/node_modules/ms/index.js, which does not exist here; it was loaded from ` +
        `the program's ms instead, ${dir}/node_modules/.pnpm/ms@2.1.3/node_modules/ms/index.js: ms 2.1.2 there, 2.1.3 here. ` +
        "Running `pulumi up` records the provider with the paths of this checkout",
    ]);
  });

  it("another checkout's absolute path, a scoped package: loaded from the program, versions the same", async function () {
    const dir = program({ "@acme/util": { version: "1.0.0" } });
    const messages: string[] = [];
    const old = "/elsewhere/checkout/node_modules/.pnpm/@acme+util@1.0.0/node_modules/@acme/util/index.js";
    const provider = await load(dir, requiring(old), messages);
    expect(provider.modules).to.deep.equal([{ name: "@acme/util", version: "1.0.0" }]);
    expect(messages).to.have.length(1);
    expect(messages[0]).to.include(`requires ${old}, which does not exist here`).and.include("(@acme/util 1.0.0, the same version)");
  });

  it("a plain node_modules path with no version in it: the warning says the version found and that the old one is not known", async function () {
    const dir = program({ ms: { version: "2.1.3" } });
    const messages: string[] = [];
    await load(dir, requiring("/gone/app/node_modules/ms/index.js"), messages);
    expect(messages[0]).to.include("(ms 2.1.3 here; the old path does not say which version it was)");
  });

  it("a path that still exists is loaded as written, without a warning", async function () {
    const dir = program({ ms: { version: "2.1.2" } });
    const messages: string[] = [];
    const provider = await load(dir, requiring(".pnpm/ms@2.1.2/node_modules/ms/index.js"), messages);
    expect(provider.modules).to.deep.equal([{ name: "ms", version: "2.1.2" }]);
    expect(messages).to.deep.equal([]);
  });

  it("a package the program does not have: the error names the old path and the bare name resolved from the program directory", async function () {
    const dir = program({});
    const err = await load(dir, requiring(".pnpm/ms@2.1.2/node_modules/ms/index.js")).then(
      () => undefined,
      (e) => e,
    );
    expect(err).to.be.instanceOf(ProviderLoadError);
    expect(err.message).to.equal(
      `Cannot find module '.pnpm/ms@2.1.2/node_modules/ms/index.js' required by the dynamic provider: that path does not exist here ` +
        `(it is where ms was when the provider was serialized, in the .pnpm store), and ms/index.js resolved from the program ` +
        `directory ${dir} (its node_modules and those of its parents) was not found either; install ms in the program's package, ${dir} (npm install ms there)`,
    );
  });

  it("the package is there but not the file: the error says which version was found and what it lacks", async function () {
    const dir = program({ ms: { version: "3.0.0" } });
    const err = await load(dir, requiring(".aspect_rules_js/ms@2.1.2/node_modules/ms/lib/old.js")).then(
      () => undefined,
      (e) => e,
    );
    expect(err.message).to.include(`and ms/lib/old.js resolved from the program directory ${dir} (its node_modules and those of its parents) found ms 3.0.0 at ${dir}/node_modules/ms, which has no lib/old.js`);
  });

  it("a path that is no package's fails as before, naming the program directory", async function () {
    const dir = program({});
    const err = await load(dir, requiring("/gone/lib/helper.js")).then(
      () => undefined,
      (e) => e,
    );
    expect(err.message).to.equal(
      `the serialized provider threw while loading: Error: Cannot find module '/gone/lib/helper.js' required by the dynamic provider: ` +
        `it was resolved from the program directory ${dir} (its node_modules and those of its parents); install it in the program's package, ${dir} (npm install there)`,
    );
  });
});

describe("moved module paths: a require inside a provider method", function () {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  /** A provider whose create requires `id` when it runs, not when its text loads. */
  const lateRequire = (id: string) =>
    `exports.handler = __f0;\nfunction __f0() { return { async create(inputs) { return { id: "x", outs: { got: require(${JSON.stringify(id)}) } }; } }; }\n`;

  it("is relocated with a warning to the call that ran it; found nowhere, it fails naming the method and the resource", async function () {
    const dir = pnpmProgram({ ms: { version: "2.1.3", files: { "index.js": "module.exports = 'ms 2.1.3';\n" } } });
    dirs.push(dir);
    const runtime = new NodeRuntime(dir);
    const messages: string[] = [];
    const moved = lateRequire("/old/home/app/node_modules/ms/index.js");
    const created = await runtime.create(call(messages, "Create"), { text: moved }, jsToStruct({ __provider: moved }));
    expect(structToJs(created.outs).got).to.equal("ms 2.1.3");
    expect(messages).to.have.length(1);
    expect(messages[0]).to.match(/^warning: the dynamic provider requires \/old\/home\/app\/node_modules\/ms\/index.js, which does not exist here/);

    const absent = lateRequire(".pnpm/gone@1.0.0/node_modules/gone/index.js");
    const err = await runtime.create(call([], "Create"), { text: absent }, jsToStruct({ __provider: absent })).then(
      () => undefined,
      (e) => e,
    );
    expect(err).to.be.instanceOf(ProviderResultError);
    expect(err.message).to.match(
      /^Create urn:pulumi:dev::p::pulumi-nodejs:dynamic:Resource::r: Cannot find module '\.pnpm\/gone@1\.0\.0\/node_modules\/gone\/index\.js' required by the dynamic provider: .* and gone\/index\.js resolved from the program directory .* was not found either; install gone in the program's package, .* \(npm install gone there\)$/,
    );
  });
});
