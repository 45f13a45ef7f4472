// The conformance kit's `--plugin` command as the user typed it (src/conformance/plugin-command.ts):
// relative paths taken from the user's folder, a program that is not there refused before anything
// starts; and which SDK release a plugin comes from (src/conformance/sdk-version.ts).
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CommandError, resolvePluginCommand, shellQuote, shellWords } from "../../src/conformance/plugin-command.js";
import { pluginSdkVersion, RECORDED_WITH } from "../../src/conformance/sdk-version.js";
import { REPO } from "../helpers/paths.js";

describe("the conformance kit's plugin command", function () {
  let dir: string;
  before(function () {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "kit-command-")));
    fs.mkdirSync(path.join(dir, "my-host"));
    fs.writeFileSync(path.join(dir, "my-host/plugin.js"), "");
    fs.mkdirSync(path.join(dir, "bin"));
    fs.writeFileSync(path.join(dir, "bin/pulumi-resource-pulumi-python"), "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(path.join(dir, "my-plugin"), "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(path.join(dir, "not-executable"), "");
    fs.mkdirSync(path.join(dir, "with space"));
    fs.writeFileSync(path.join(dir, "with space/p.js"), "");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const resolve = (command: string) => resolvePluginCommand(command, "--plugin", dir, { PATH: process.env.PATH, HOME: dir });
  const refusal = (command: string) => {
    try {
      resolve(command);
    } catch (e) {
      expect(e).to.be.instanceOf(CommandError);
      return (e as Error).message;
    }
    throw new Error(`${command} was not refused`);
  };

  it("words split as sh splits a simple command; quoting keeps a word whole", function () {
    expect(shellWords(`node "./with space/p.js" 'a b' c\\ d`)).to.deep.equal(["node", "./with space/p.js", "a b", "c d"]);
    expect(shellWords("python -u -m pulumi.dynamic")).to.deep.equal(["python", "-u", "-m", "pulumi.dynamic"]);
    for (const more of ["node $HOME/p.js", "a; b", "a | b", "a && b", "a > f", "`x`", 'node "$X"']) expect(shellWords(more), more).to.equal(undefined);
    expect(shellQuote("it's")).to.equal(`'it'\\''s'`);
    expect(shellWords(shellQuote("it's a"))).to.deep.equal(["it's a"]);
  });

  it("the README's commands: relative paths are the user's folder's, made absolute", function () {
    expect(resolve("node ./my-host/plugin.js").words).to.deep.equal(["node", path.join(dir, "my-host/plugin.js")]);
    expect(resolve("./bin/pulumi-resource-pulumi-python").words).to.deep.equal([path.join(dir, "bin/pulumi-resource-pulumi-python")]);
    expect(resolve("./my-plugin").words).to.deep.equal([path.join(dir, "my-plugin")]);
    // A path without ./ that exists here is the user's too; other words are left alone.
    expect(resolve("node my-host/plugin.js --flag=1 -m x.y @scope/name").words).to.deep.equal(["node", path.join(dir, "my-host/plugin.js"), "--flag=1", "-m", "x.y", "@scope/name"]);
    expect(resolve(`sh "./with space/p.js"`).command).to.equal(`sh '${path.join(dir, "with space/p.js")}'`);
    expect(resolve("~/my-plugin").words).to.deep.equal([path.join(dir, "my-plugin")]);
    // More of sh than words and quotes is passed on as it is.
    expect(resolve("sh -c 'exec ./my-plugin \"$@\"' x; true")).to.deep.equal({ command: "sh -c 'exec ./my-plugin \"$@\"' x; true" });
  });

  it("refuses, naming the word and the folder: a file that is not there, one that cannot be run, a command not on PATH", function () {
    expect(refusal("./nope")).to.equal(`--plugin: ./nope does not exist (a relative path is taken from the current folder, ${dir})`);
    expect(refusal("node ./my-host/nope.js")).to.equal(`--plugin: ./my-host/nope.js does not exist (a relative path is taken from the current folder, ${dir})`);
    expect(refusal("./not-executable")).to.match(/^--plugin: \.\/not-executable \(.*\) is not an executable file; to run a script, name its interpreter first/);
    expect(refusal("no-such-command-here")).to.equal("--plugin: no-such-command-here is not a command found on PATH");
    expect(refusal("reference")).to.equal(
      `--plugin: reference is not a command found on PATH (the word "reference" names Pulumi's own plugin for --language python only; ` +
        `for Node give its command, e.g. "node node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js")`,
    );
  });

  it("the SDK release a plugin comes from: the @pulumi/pulumi folder it is in, Pulumi's launcher script, else unknown", function () {
    const sdk = path.join(REPO, "node_modules/@pulumi/pulumi");
    const version = JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8")).version;
    expect(pluginSdkVersion("nodejs", `node ${path.join(sdk, "cmd/dynamic-provider/index.js")}`, dir)).to.equal(version);
    // Pulumi's Node launcher script resolves @pulumi/pulumi from the program's folder: the project's.
    const launcher = path.join(dir, "pulumi-resource-pulumi-nodejs");
    fs.writeFileSync(launcher, `#!/bin/sh\nP=$(node -e "console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))")\nnode "$P" $@\n`, { mode: 0o755 });
    expect(pluginSdkVersion("nodejs", launcher, REPO)).to.equal(version);
    expect(pluginSdkVersion("nodejs", path.join(dir, "my-plugin"), REPO)).to.equal(undefined);
  });

  it("the expectations' SDK release is the one the repository pins (package.json, test/python-requirements.txt)", function () {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"));
    expect(RECORDED_WITH.nodejs).to.equal(pkg.devDependencies["@pulumi/pulumi"]);
    expect(RECORDED_WITH.python).to.equal(/^pulumi==(\S+)$/m.exec(fs.readFileSync(path.join(REPO, "test/python-requirements.txt"), "utf8"))?.[1]);
  });
});
