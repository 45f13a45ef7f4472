// staticExports: a module's export names from its source, without running it;
// "unknown" whenever the source does not say them all.
import { expect } from "chai";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { staticExports } from "../../src/cli/doctor/module-exports.js";

const TYPESCRIPT = createRequire(import.meta.url).resolve("typescript");

describe("module-exports: the names a module exports, read from its source", function () {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "module-exports-"))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `require("fs").writeFileSync(${JSON.stringify(`${dir}/ran`)}, "");\n${text}`);
    return file;
  };
  const known = (names: string[]) => ({ known: true, names });

  it("TypeScript: declarations, lists, default; types and declare left out", function () {
    const file = write(
      "a.ts",
      "export const a = 1, { b, c: [d] } = x;\nexport function f() {}\nexport class K {}\nexport enum E { X }\nexport interface I {}\nexport type T = 1;\n" +
        "declare const hidden: number;\nexport declare const ambient: number;\nconst g = 1;\nexport { g, g as h };\nexport default g;\n",
    );
    expect(staticExports(file, TYPESCRIPT)).to.deep.equal(known(["a", "b", "d", "f", "K", "E", "g", "h", "default"]));
  });

  it("TypeScript: export * and export = cannot be followed", function () {
    expect(staticExports(write("b.ts", 'export * from "./a";\n'), TYPESCRIPT)).to.deep.equal({ known: false, why: "it re-exports everything of ./a" });
    expect(staticExports(write("c.ts", "const p = {};\nexport = p;\n"), TYPESCRIPT)).to.deep.equal({ known: false, why: "it assigns `export =`" });
  });

  it("JavaScript: CommonJS assignments, object literals, defineProperty; ESM", function () {
    expect(staticExports(write("d.js", "exports.a = 1;\nmodule.exports.b = 2;\nObject.defineProperty(exports, \"c\", { value: 3 });\n"))).to.deep.equal(known(["a", "b", "c"]));
    expect(staticExports(write("e.js", "module.exports = { x, y: 1, 'z': 2 };\n"))).to.deep.equal(known(["x", "y", "z"]));
    expect(staticExports(write("f.mjs", "export const m = 1;\nexport { m as n };\nexport default 3;\n"))).to.deep.equal(known(["m", "n", "default"]));
    expect(staticExports(write("g.js", "module.exports = make();\n"))).to.deep.equal({ known: false, why: "it assigns module.exports a value built at run time" });
    expect(staticExports(write("h.js", "module.exports = { ...base };\n"))).to.deep.equal({ known: false, why: "it assigns module.exports a value built at run time" });
    expect(fs.existsSync(`${dir}/ran`), "no module ran").to.equal(false);
  });
});
