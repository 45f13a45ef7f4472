// Paths as Windows and macOS have them, with the platform injected
// (docs/platform-code.md): moved-module paths with drive letters, backslashes
// and other case; provider references compared as the file system compares
// them; the plugin path `install --project` writes into Pulumi.yaml.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { projectPluginPath, readProjectPlugins, registerProjectPlugins, sameProjectPluginDir } from "../../src/cli/install/project-file.js";
import type { ProviderReference } from "../../src/host/references/provider-references.js";
import { isRelativeSpecifier } from "../../src/node-dynamic/module-reference.js";
import { isModulePath, packageOfPath } from "../../src/node-dynamic/moved-modules.js";
import { isReferenceText, sameNodeReference } from "../../src/node-dynamic/reference-text.js";

describe("platform: moved-module paths on Windows and macOS", function () {
  const table: [string, Parameters<typeof packageOfPath>[1], ReturnType<typeof packageOfPath>][] = [
    [
      "C:\\proj\\node_modules\\x\\lib\\a.js",
      "win32",
      { name: "x", subpath: "lib/a.js", packageDir: "C:\\proj\\node_modules\\x" },
    ],
    [
      "C:/proj/node_modules/.pnpm/ms@2.1.2/node_modules/ms/index.js",
      "win32",
      { name: "ms", subpath: "index.js", store: ".pnpm", storeVersion: "2.1.2", packageDir: "C:\\proj\\node_modules\\.pnpm\\ms@2.1.2\\node_modules\\ms" },
    ],
    // Windows and macOS ignore case: Node_Modules and .PNPM are those folders.
    ["C:\\Proj\\Node_Modules\\@Scope\\name\\index.js", "win32", { name: "@Scope/name", subpath: "index.js", packageDir: "C:\\Proj\\Node_Modules\\@Scope\\name" }],
    [".PNPM/ms@2.1.2/Node_Modules/ms/index.js", "darwin", { name: "ms", subpath: "index.js", store: ".pnpm", storeVersion: "2.1.2" }],
    ["/Users/me/app/Node_Modules/ms/index.js", "darwin", { name: "ms", subpath: "index.js", packageDir: "/Users/me/app/Node_Modules/ms" }],
    ["\\\\server\\share\\app\\node_modules\\ms\\index.js", "win32", { name: "ms", subpath: "index.js", packageDir: "\\\\server\\share\\app\\node_modules\\ms" }],
    // Linux is case-sensitive: a folder named Node_Modules is no package folder there.
    ["/home/me/app/Node_Modules/ms/index.js", "linux", undefined],
    ["/home/me/app/node_modules/ms/index.js", "linux", { name: "ms", subpath: "index.js", packageDir: "/home/me/app/node_modules/ms" }],
  ];
  for (const [id, platform, expected] of table) {
    it(`${platform}: ${id}`, function () {
      expect(packageOfPath(id, platform)).to.deep.equal(expected);
    });
  }

  it("a store specifier in other case is a path on Windows and macOS, a package name on Linux", function () {
    expect(isModulePath(".PNPM/ms@2.1.2/node_modules/ms/index.js", "darwin")).to.equal(true);
    expect(isModulePath(".PNPM/ms@2.1.2/node_modules/ms/index.js", "linux")).to.equal(false);
  });
});

describe("platform: provider references compared as the file system compares them", function () {
  const table: [string, string, NodeJS.Platform, boolean][] = [
    ["./providers#textFile", "./providers#textFile", "linux", true],
    ["./Providers#textFile", "./providers#textFile", "darwin", true],
    ["./Providers#textFile", "./providers#textFile", "win32", true],
    ["./Providers#textFile", "./providers#textFile", "linux", false],
    [".\\lib\\providers#textFile", "./lib/providers#textFile", "win32", true],
    [".\\lib\\providers#textFile", "./lib/providers#textFile", "linux", false],
    ["C:\\Proj\\providers.js#p", "c:/proj/providers.js#p", "win32", true],
    ["./lib/../providers#p", "./providers/#p", "linux", true],
    // The export is JavaScript's name, case-sensitive everywhere.
    ["./providers#TextFile", "./providers#textFile", "darwin", false],
    // A package name is not a path: compared exactly.
    ["Providers#p", "providers#p", "darwin", false],
    ["./providers#p", "./providers.js#p", "darwin", false],
  ];
  for (const [a, b, platform, same] of table) {
    it(`${platform}: ${a} ${same ? "is" : "is not"} ${b}`, function () {
      expect(sameNodeReference(a, b, platform)).to.equal(same);
    });
  }

  it("a state's reference text is the declared reference's in other case on macOS, not on Linux", function () {
    const ref = { reference: "./providers#textFile" } as ProviderReference;
    const text = 'exports.handler = { pulumiDynamicHostReference: "./Providers#textFile" };';
    expect(isReferenceText(text, ref, "darwin")).to.equal(true);
    expect(isReferenceText(text, ref, "win32")).to.equal(true);
    expect(isReferenceText(text, ref, "linux")).to.equal(false);
    const windows = String.raw`exports.handler = { pulumiDynamicHostReference: ".\\providers#textFile" };`;
    expect(isReferenceText(windows, ref, "win32")).to.equal(true);
    expect(isReferenceText('{ pulumiDynamicHostReference: "./providers#textFile" }', ref, "linux")).to.equal(true);
    expect(isReferenceText("no marker here", ref, "darwin")).to.equal(false);
  });

  it("a reference's module written with Windows' separator is relative on Windows only", function () {
    expect(isRelativeSpecifier(".\\providers", "win32")).to.equal(true);
    expect(isRelativeSpecifier("..\\lib\\providers", "win32")).to.equal(true);
    expect(isRelativeSpecifier(".\\providers", "linux")).to.equal(false);
    expect(isRelativeSpecifier("./providers", "darwin")).to.equal(true);
    expect(isRelativeSpecifier("providers", "win32")).to.equal(false);
  });
});

describe("platform: the plugin path install --project writes into Pulumi.yaml", function () {
  const table: [string, string, NodeJS.Platform, string][] = [
    ["C:\\proj", "C:\\proj\\tools\\pdh", "win32", "tools/pdh"],
    ["C:\\proj", "D:\\tools\\pdh", "win32", "D:/tools/pdh"],
    ["C:\\proj", "C:\\other\\pdh", "win32", "C:/other/pdh"],
    ["/Users/me/proj", "/Users/me/proj/.venv/bin", "darwin", ".venv/bin"],
    ["/p", "/p/..foo/bin", "linux", "..foo/bin"],
    ["/p", "/elsewhere/bin", "linux", "/elsewhere/bin"],
    ["/p", "/p", "linux", "/p"],
  ];
  for (const [root, dir, platform, written] of table) {
    it(`${platform}: ${dir} from ${root} is written ${written}`, function () {
      expect(projectPluginPath(root, dir, platform)).to.equal(written);
    });
  }

  it("an entry is this host's directory as the file system compares names", function () {
    expect(sameProjectPluginDir("C:\\proj", "tools/pdh", "c:\\PROJ\\Tools\\pdh\\", "win32")).to.equal(true);
    expect(sameProjectPluginDir("/Users/me/proj", ".venv/bin", "/Users/me/proj/.VENV/bin", "darwin")).to.equal(true);
    expect(sameProjectPluginDir("/p", ".venv/bin", "/p/.VENV/bin", "linux")).to.equal(false);
  });

  it("a path that plain YAML would misread is quoted, and reads back as written", function () {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "platform-yaml-")));
    try {
      fs.writeFileSync(path.join(root, "Pulumi.yaml"), "name: p\r\nruntime: nodejs\r\n");
      // Windows allows no `:` in a file name: those two are Linux's and macOS's.
      const names = ["a #b", "- c: d", "'q'", "x: y", "@at", "100"].filter((n) => process.platform !== "win32" || !n.includes(":"));
      for (const name of names) {
        const dir = path.join(root, name, "bin");
        fs.mkdirSync(dir, { recursive: true });
        registerProjectPlugins(root, ["pulumi-nodejs"], dir);
        const text = fs.readFileSync(path.join(root, "Pulumi.yaml"), "utf8");
        const doc = parse(text) as { plugins: { providers: { name: string; path: unknown }[] } };
        expect(doc.plugins.providers[0].path, text).to.equal(`${name}/bin`);
        expect(readProjectPlugins(root)[0].dir).to.equal(dir);
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
