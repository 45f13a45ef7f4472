// Node providers by reference (src/node-dynamic/module-reference.ts): loading
// "<module>#<export>" from a project, TypeScript included, and the error for
// each way a reference can be wrong, naming the reference, where it was
// declared, the file and what was wrong.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadModuleReference } from "../../src/node-dynamic/module-reference.js";
import { REPO } from "../helpers/paths.js";

const ORIGIN = "declared for pulumi-nodejs:dynamic:T in Pulumi.yaml";

/** A project directory holding `files`; under the repository (its node_modules above it) unless `bare`. */
function project(files: Record<string, string>, bare = false): string {
  const base = bare ? os.tmpdir() : path.join(REPO, ".cache");
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, "module-ref-")));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: p\nruntime: nodejs\n");
  // A project of its own (CommonJS), not a part of the repository's ES module package.
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "p", "private": true }\n');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const load = (dir: string, reference: string) => loadModuleReference({ reference, projectDir: dir, origin: ORIGIN });
const failure = (dir: string, reference: string): string => {
  try {
    load(dir, reference);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${reference} loaded`);
};

describe("Node providers by reference: loading a module's export", function () {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const make = (files: Record<string, string>, bare = false) => {
    const d = project(files, bare);
    dirs.push(d);
    return d;
  };

  it("an object export, a class export (constructed once per load) and a TypeScript module", function () {
    const dir = make({
      "providers.js": "exports.obj = { create: async (i) => ({ id: 'o', outs: i }) };\nexports.Klass = class { constructor() { this.made = true; } async create(i) { return { id: 'k', outs: i }; } };\n",
      "typed.ts": "interface In { n: number }\nexport const typed = { async create(i: In): Promise<{ id: string; outs: In }> { return { id: `t${i.n}`, outs: i }; } };\n",
    });
    expect(typeof load(dir, "./providers#obj").create).to.equal("function");
    expect((load(dir, "./providers#Klass") as any).made).to.equal(true);
    expect(typeof load(dir, "./typed#typed").create).to.equal("function");
    expect(typeof load(dir, "./typed.ts#typed").create).to.equal("function");
  });

  it("a module that is not there: where it was looked for", function () {
    const dir = make({});
    expect(failure(dir, "./nope#x")).to.equal(
      `the provider reference "./nope#x" ${ORIGIN}: module ./nope was not found at ${dir}/nope (relative to the project directory ${dir}): ` +
        `Cannot find module '${dir}/nope'`,
    );
    expect(failure(dir, "no-such-package#x")).to.match(
      new RegExp(`^the provider reference "no-such-package#x" ${ORIGIN}: module no-such-package was not found from the project directory ${dir} \\(its node_modules and those above it\\): Cannot find module 'no-such-package'`),
    );
  });

  it("a missing export: the names the module has", function () {
    const dir = make({ "p.js": "exports.a = {}; exports.b = 1;\n" });
    expect(failure(dir, "./p#c")).to.equal(`the provider reference "./p#c" ${ORIGIN}: ${dir}/p.js has no export named c; it exports a, b`);
  });

  it("an export that is not a provider: what it is instead", function () {
    const dir = make({ "p.js": "exports.obj = { hello() {} }; exports.num = 5; exports.K = class { hello() {} };\n" });
    const methods = "check, diff, create, read, update, delete";
    const tail = "; export the provider object, or a class whose instances are providers";
    expect(failure(dir, "./p#obj")).to.equal(`the provider reference "./p#obj" ${ORIGIN}: obj of ${dir}/p.js is not a dynamic provider: it is an object with none of the methods ${methods}${tail}`);
    expect(failure(dir, "./p#num")).to.equal(`the provider reference "./p#num" ${ORIGIN}: num of ${dir}/p.js is not a dynamic provider: it is a number, not a provider object or class${tail}`);
    expect(failure(dir, "./p#K")).to.equal(`the provider reference "./p#K" ${ORIGIN}: K of ${dir}/p.js is not a dynamic provider: it is a class whose instances have none of the methods ${methods}${tail}`);
  });

  it("a module that throws while loading, and a class whose constructor throws", function () {
    const dir = make({ "boom.js": "throw new RangeError('no config');\n", "k.js": "exports.K = class { constructor() { throw new Error('needs args'); } create() {} };\n" });
    expect(failure(dir, "./boom#x")).to.equal(`the provider reference "./boom#x" ${ORIGIN}: loading ${dir}/boom.js threw: RangeError: no config`);
    expect(failure(dir, "./k#K")).to.equal(
      `the provider reference "./k#K" ${ORIGIN}: K of ${dir}/k.js is a function, and constructing it with no arguments threw: Error: needs args`,
    );
  });

  it("TypeScript with no compiler in reach of the project: what to install, or to point at the compiled JavaScript", function () {
    const dir = make({ "p.ts": "export const p = { create() {} };\n" }, true);
    expect(failure(dir, "./p#p")).to.equal(
      `the provider reference "./p#p" ${ORIGIN}: ${dir}/p.ts is TypeScript, and no TypeScript compiler resolves from the project directory ${dir} ` +
        "(typescript and ts-node not found, and no @pulumi/pulumi that vendors them): install @pulumi/pulumi in the project (npm install), " +
        "add typescript and ts-node to it, or point the reference at the compiled JavaScript",
    );
  });
});
