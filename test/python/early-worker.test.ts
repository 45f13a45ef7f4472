// The first Python worker starts with the host, before the port line (issue
// 21: its interpreter start and `import pulumi` then overlap the host's own
// start and the engine's handshake). Nothing may come before the port line on
// the host's stdout, so that worker's stdout is held in a pipe until the port
// line is out, then forwarded: a worker script that prints the moment it
// starts shows the order holds, and that its later output still arrives.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Plugin } from "../helpers/plugin.js";

describe("python: the first worker starts before the port line", function () {
  this.timeout(120_000);
  let dir: string;
  let plugins: Plugin[] = [];

  before(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "early-worker-"));
  });
  after(async function () {
    await Promise.all(plugins.map((p) => p.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a worker printing at once: the port line is still first on stdout, and every line follows in order", async function () {
    // Prints before the host could have written its port, then more after a pause, then stays.
    const script = path.join(dir, "printing_worker.py");
    fs.writeFileSync(
      script,
      ["import sys, time", "print('early 1'); print('early 2')", "time.sleep(0.5)", "print('late')", "sys.stdout.flush()", "time.sleep(60)", ""].join("\n"),
    );
    for (let i = 0; i < 3; i++) {
      const p = await Plugin.launch("ours", { language: "python", env: { PULUMI_DYNAMIC_HOST_WORKER_SCRIPT: script } });
      plugins.push(p);
      await p.until(() => p.stdout.length >= 4, "the worker's three lines after the port line", 30_000);
      expect(Number(p.stdout[0]), `launch ${i}: ${JSON.stringify(p.stdout)}`).to.equal(p.port);
      expect(p.stdout.slice(1)).to.deep.equal(["early 1", "early 2", "late"]);
    }
  });
});
