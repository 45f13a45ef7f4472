// Every command's help and usage errors (src/cli/usage.ts), as a user meets
// them: the built bin/pulumi-dynamic-host run as a process. Help (--help, -h,
// `help <command>`) prints that command's usage to stdout and exits 0; a
// missing or wrong argument names the argument and what it needs, on stderr,
// followed by the command's usage, and exits 2.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CONTRIBUTOR_DOCUMENTS } from "../../src/cli/docs.js";
import { COMMAND_USAGE, type CommandName } from "../../src/cli/usage.js";
import { REPO } from "../helpers/paths.js";

const ENTRY = `${REPO}bin/pulumi-dynamic-host`;

function cli(args: string[]) {
  // An empty HOME and folder: nothing here may touch the user's installation.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "cli-usage-"));
  try {
    const r = spawnSync(process.execPath, [ENTRY, ...args], { cwd: home, env: { ...process.env, HOME: home, PATH: path.dirname(process.execPath) }, encoding: "utf8", timeout: 60_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const COMMANDS = Object.keys(COMMAND_USAGE) as CommandName[];

describe("pulumi-dynamic-host: help and usage errors for every command", function () {
  this.timeout(120_000);

  const helps: [string[], CommandName][] = COMMANDS.flatMap((c): [string[], CommandName][] => [
    [[c, "--help"], c],
    [[c, "-h"], c],
    [["help", c], c],
  ]);
  for (const [args, command] of helps) {
    it(`${args.join(" ")}: ${command}'s usage on stdout, exit 0`, function () {
      const r = cli(args);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal(`${COMMAND_USAGE[command]}\n`);
      expect(r.stdout.startsWith(`usage: pulumi-dynamic-host ${command}`)).to.equal(true);
      expect(r.stderr).to.equal("");
    });
  }

  for (const args of [["help"], ["--help"], ["-h"]]) {
    it(`${args.join(" ")}: every command's usage on stdout, exit 0`, function () {
      const r = cli(args);
      expect(r.code).to.equal(0);
      for (const c of COMMANDS) expect(r.stdout).to.include(COMMAND_USAGE[c]);
    });
  }

  // [arguments, the command whose usage follows, what the message must say]
  const errors: [string[], CommandName, string][] = [
    [["install", "--dir"], "install", "install: --dir needs a folder (DIR)"],
    [["uninstall", "--dir"], "uninstall", "uninstall: --dir needs a folder (DIR)"],
    [["install", "--dir", "a", "b"], "install", `install: --dir takes one folder, got also "b"`],
    [["install", "--project", "a", "b"], "install", "install: --project takes at most one folder (DIR)"],
    // Every option of the usage's table, --package too (usage.ts REGISTRATION_OPTIONS).
    [["install", "--frobnicate"], "install", `install: unknown argument "--frobnicate": expected nothing, --project [DIR], --dir DIR or --package NAME (with --project [DIR] or --dir DIR)`],
    [["uninstall", "--bogus"], "uninstall", `uninstall: unknown argument "--bogus": expected nothing, --project [DIR], --dir DIR or --package NAME (with --project [DIR] or --dir DIR)`],
    [["serve"], "serve", "serve: needs a language: nodejs or python"],
    [["serve", "ruby"], "serve", `serve: the language must be nodejs or python, not "ruby"`],
    [["debug"], "debug", "debug: needs a language: nodejs or python"],
    [["debug", "nodejs", "--port"], "debug", "debug: --port needs a port number (N)"],
    [["debug", "nodejs", "--cwd"], "debug", "debug: --cwd needs a folder (DIR)"],
    [["debug", "nodejs", "--port", "x"], "debug", `debug: --port must be a port number`],
    [["debug", "python", "--nope", "1"], "debug", `debug: unknown option "--nope"`],
    [["doctor", "--stack-export"], "doctor", "doctor: --stack-export needs a FILE"],
    [["doctor", "--nope"], "doctor", `doctor: unknown option "--nope"`],
    [["inspect"], "inspect", "inspect: needs a stack export file (or - for stdin)"],
    [["inspect", "a.json", "b.json"], "inspect", "inspect: takes one stack export file"],
    [["conformance"], "conformance", "conformance: needs --plugin <command>"],
    [["conformance", "--plugin"], "conformance", "conformance: --plugin needs a command"],
    [["conformance", "--plugin", "x"], "conformance", "conformance: needs --language <nodejs|python>"],
    [["conformance", "--plugin", "x", "--language", "cobol"], "conformance", `conformance: --language must be nodejs or python, not "cobol"`],
    [["docs", "no-such-doc"], "docs", `docs: no document "no-such-doc"; there are: `],
    [["docs", "a", "b"], "docs", "docs: takes at most one NAME"],
    [["version", "extra"], "version", `version: takes no arguments, got "extra"`],
    [["help", "nope"], "help", `help: no command "nope"`],
  ];
  for (const [args, command, message] of errors) {
    it(`${args.join(" ")}: "${message}" and ${command}'s usage on stderr, exit 2`, function () {
      const r = cli(args);
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stdout).to.equal("");
      expect(r.stderr).to.include(`pulumi-dynamic-host ${message}`);
      expect(r.stderr.endsWith(`${COMMAND_USAGE[command]}\n`), r.stderr).to.equal(true);
    });
  }

  it("no command, or an unknown one: the global usage on stderr, exit 2", function () {
    for (const args of [[], ["frobnicate"]]) {
      const r = cli(args);
      expect(r.code).to.equal(2);
      expect(r.stdout).to.equal("");
      for (const c of COMMANDS) expect(r.stderr).to.include(COMMAND_USAGE[c]);
    }
  });

  it("every `pulumi-dynamic-host docs NAME` a usage or a message of the host names is a document the host has", function () {
    const sources = ["src/cli/usage.ts", "src/host/references/provider-references.ts"].map((f) => fs.readFileSync(path.join(REPO, f), "utf8"));
    const named = new Set([...Object.values(COMMAND_USAGE), ...sources].flatMap((t) => [...t.matchAll(/pulumi-dynamic-host docs ([a-z][\w-]*)/g)].map((m) => m[1])));
    expect(named).to.include("import-and-repair");
    for (const name of named) expect(fs.existsSync(path.join(REPO, "docs", `${name}.md`)), name).to.equal(true);
  });

  it("docs lists every user document with its title, none of the contributors'; docs NAME prints any, as the package holds it", function () {
    const list = cli(["docs"]);
    expect(list.code, list.stderr).to.equal(0);
    const names = fs.readdirSync(path.join(REPO, "docs")).filter((f) => f.endsWith(".md"));
    expect(names).to.include("import-and-repair.md");
    for (const n of names) {
      const listed = new RegExp(`^${n.slice(0, -3)} +\\S`, "m").test(list.stdout);
      expect(listed, n).to.equal(!CONTRIBUTOR_DOCUMENTS.has(n.slice(0, -3)));
    }
    for (const dev of ["layout", "testing", "test-suites"]) expect(CONTRIBUTOR_DOCUMENTS.has(dev), dev).to.equal(true);
    expect(cli(["docs", "test-suites"]).stdout).to.equal(fs.readFileSync(path.join(REPO, "docs/test-suites.md"), "utf8"));
    for (const name of ["import-and-repair", "docs/import-and-repair.md"]) {
      const one = cli(["docs", name]);
      expect(one.code, one.stderr).to.equal(0);
      expect(one.stdout).to.equal(fs.readFileSync(path.join(REPO, "docs/import-and-repair.md"), "utf8"));
    }
  });

  it("docs conformance opens with what the kit does for its user, not with source paths an install does not have", function () {
    const text = cli(["docs", "conformance"]).stdout;
    const opening = text.slice(0, text.indexOf("\n## "));
    expect(opening).to.include("pulumi-dynamic-host conformance");
    expect(opening).not.to.match(/\b(src|test|scripts|python-stub)\//);
  });

  it("a reader that closes the pipe early (`docs | head -1`) ends the command quietly: exit 0, nothing on stderr", function () {
    // bash prints the command's own exit status (PIPESTATUS) after head's line.
    const r = spawnSync("bash", ["-c", `"${process.execPath}" "${ENTRY}" docs | head -1; echo "exit \${PIPESTATUS[0]}"`], { encoding: "utf8", timeout: 60_000 });
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines).to.have.length(2);
    expect(lines[1]).to.equal("exit 0");
    expect(r.stderr).to.equal("");
  });
});
