// What the Python plugin's name runs in the npm package, with the platform
// injected (bin/python-entry-choice.mjs; docs/launcher.md, "Where no sh runs
// it"): the Node entry on Windows, which has no sh for npm's shims, the shell
// launcher elsewhere, the knob deciding alone when set; and the plugin file the
// Node entry names as served, from a Windows shim's path or a POSIX one.
import { expect } from "chai";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO } from "../helpers/paths.js";

interface Choice {
  choosePythonEntry(platform: NodeJS.Platform, value: string | undefined): { entry?: "node" | "sh"; problem?: string };
  servedPluginFile(invoked: string, paths?: path.PlatformPath): string;
}

describe("the Python plugin's entry where no sh runs it (platform injected)", function () {
  let choice: Choice;
  before(async function () {
    choice = (await import(pathToFileURL(path.join(REPO, "bin", "python-entry-choice.mjs")).href)) as Choice;
  });

  const table: [NodeJS.Platform, string | undefined, { entry?: string; problem?: RegExp }][] = [
    ["win32", undefined, { entry: "node" }],
    ["win32", "", { entry: "node" }],
    ["win32", "sh", { entry: "sh" }],
    ["darwin", undefined, { entry: "sh" }],
    ["linux", undefined, { entry: "sh" }],
    ["linux", "node", { entry: "node" }],
    ["win32", "bash", { problem: /PULUMI_DYNAMIC_HOST_PYTHON_ENTRY is "bash"; it must be node .* or sh/ }],
  ];
  for (const [platform, value, expected] of table) {
    it(`${platform}, PULUMI_DYNAMIC_HOST_PYTHON_ENTRY=${value === undefined ? "(unset)" : JSON.stringify(value)}: ${expected.entry ?? "refused"}`, function () {
      const got = choice.choosePythonEntry(platform, value);
      if (expected.problem) expect(got.problem).to.match(expected.problem);
      else expect(got).to.deep.equal({ entry: expected.entry });
    });
  }

  it("the served plugin: the file as a Windows shim runs it (any extension, any case), else the name beside the entry", function () {
    const bin = "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\pulumi-dynamic-host\\bin";
    expect(choice.servedPluginFile(`${bin}\\pulumi-resource-pulumi-python`, path.win32)).to.equal(`${bin}\\pulumi-resource-pulumi-python`);
    expect(choice.servedPluginFile(`${bin}\\pulumi-resource-pulumi-python.CMD`, path.win32)).to.equal(`${bin}\\pulumi-resource-pulumi-python.CMD`);
    expect(choice.servedPluginFile(`${bin}\\python-entry.mjs`, path.win32)).to.equal(`${bin}\\pulumi-resource-pulumi-python`);
    // A POSIX path module does not split at `\`: the whole path is one name, not the plugin's.
    expect(choice.servedPluginFile(`${bin}\\python-entry.mjs`, path.posix)).to.equal("pulumi-resource-pulumi-python");
    expect(choice.servedPluginFile("/usr/lib/node_modules/pulumi-dynamic-host/bin/python-entry.mjs", path.posix)).to.equal("/usr/lib/node_modules/pulumi-dynamic-host/bin/pulumi-resource-pulumi-python");
  });
});
