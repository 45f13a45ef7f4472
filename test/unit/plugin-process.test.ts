// How the conformance kit and the tests start a plugin (src/conformance/plugin-process.ts)
// when it never gets to its port line: each way says what happened, at once, and
// leaves nothing waiting (a file that cannot be run used to leave the caller
// waiting for an exit that never comes, and Node then ended it with no word).
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PluginProcess } from "../../src/conformance/plugin-process.js";

describe("starting a plugin that never prints its port (plugin-process.ts)", function () {
  // Far below the port timeout below: a failure must be seen, not waited out.
  this.timeout(10_000);
  let dir: string;
  const start = (file: string) => PluginProcess.start("the plugin", file, ["127.0.0.1:1"], { cwd: dir, env: process.env, portTimeoutMs: 60_000 });
  const refusal = async (file: string): Promise<string> => {
    try {
      const p = await start(file);
      await p.stop();
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error(`${file} was taken for a plugin`);
  };
  const script = (name: string, text: string, mode = 0o755) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `#!/bin/sh\n${text}\n`, { mode });
    return file;
  };

  before(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-process-"));
  });
  after(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a file that does not exist: could not be started, and why", async function () {
    const message = await refusal(path.join(dir, "missing"));
    expect(message).to.contain("the plugin exited before the port line");
    expect(message).to.contain("could not be started");
    expect(message).to.contain("ENOENT");
  });

  it("a file that is not executable: the same, with the system's reason", async function () {
    const message = await refusal(script("not-executable", "echo 1", 0o644));
    expect(message).to.contain("could not be started");
    expect(message).to.contain("EACCES");
  });

  it("a plugin that exits first: its stderr", async function () {
    const message = await refusal(script("exits", "echo 'no engine for me' >&2\nexit 3"));
    expect(message).to.contain("the plugin exited before the port line");
    expect(message).to.contain("no engine for me");
    expect(message).not.to.contain("could not be started");
  });

  it("a plugin that prints something else first: what it printed", async function () {
    const message = await refusal(script("chatty", "echo hello\nexec sleep 30"));
    expect(message).to.contain('wrote "hello" instead of a port');
  });
});
