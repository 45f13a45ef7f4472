// pulumi-resource-pulumi-python's launcher (bin/pulumi-resource-pulumi-python,
// python-stub/launch.sh and prestart.py; the single executable's twin in
// src/cli/install/python-launcher.ts): the worker starts beside the host, and the host
// takes it only if it is exactly the worker it would have started itself
// (src/python-bridge/worker/prestarted.ts). Started as the engine starts the plugin.
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pythonProvider } from "../helpers/payloads.js";
import { REPO, TEST_VENV, VENV_PYTHON } from "../helpers/paths.js";
import { ENGINE_ADDRESS, Plugin, type LaunchOptions } from "../helpers/plugin.js";
import { environOf, processState } from "../helpers/proc.js";

const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const LOUD = ["--logtostderr", "-v=2", ENGINE_ADDRESS];
/** A file Node can read as extra CA certificates (Debian's bundle), so that moving it aside is observable. */
const CA_CERTS = process.env.NODE_EXTRA_CA_CERTS || "/etc/ssl/certs/ca-certificates.crt";

interface Facts {
  sysPath: string[];
  environ: Record<string, string>;
  pid: number;
  ppid: number;
}

async function facts(p: Plugin, name: string): Promise<Facts> {
  const a = await p.client.create({ urn: urn(name), properties: { __provider: pythonProvider("facts", "python_launcher_providers.py") } });
  expect(a.code, a.details).to.equal(0);
  return a.view.properties as Facts;
}

describe("pulumi-resource-pulumi-python's launcher: the worker starts beside the host", function () {
  const started: Plugin[] = [];
  const launch = async (opts: LaunchOptions) => {
    const p = await Plugin.launch("ours", { language: "python", args: LOUD, ...opts, env: { NODE_EXTRA_CA_CERTS: CA_CERTS, ...opts.env } });
    started.push(p);
    return p;
  };
  let scratch: string;
  before(function () {
    expect(fs.existsSync(CA_CERTS), CA_CERTS).to.equal(true);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "python-launcher-"));
  });
  afterEach(async function () {
    await Promise.all(started.splice(0).map((p) => p.stop()));
  });
  after(function () {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("the host takes the launcher's worker: its child, with the sys.path and environment of a worker the host starts itself", async function () {
    const own = await launch({ env: { PULUMI_DYNAMIC_HOST_PRESTART: "0" } });
    const pre = await launch({});
    const [a, b] = [await facts(own, "own"), await facts(pre, "pre")];
    expect(pre.stderr).to.match(new RegExp(`python worker \\(pid ${b.pid}\\) started by the launcher`));
    expect(own.stderr).to.not.contain("started by the launcher");
    expect(b.ppid, "the launcher's worker is the host's child").to.equal(pre.child.pid);
    expect(b.sysPath).to.deep.equal(a.sysPath);
    delete a.environ.PULUMI_DYNAMIC_HOST_PRESTART;
    expect(b.environ).to.deep.equal(a.environ);
    // Both workers have the extra CA certificates; the host's Node started without them.
    expect(b.environ.NODE_EXTRA_CA_CERTS).to.equal(CA_CERTS);
    const hostEnv = environOf(pre.child.pid!);
    expect(hostEnv.filter((e) => e.startsWith("NODE_EXTRA_CA_CERTS="))).to.deep.equal([]);
    expect(hostEnv).to.include(`PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS=${CA_CERTS}`);
    expect(pre.stderr).to.not.match(/Warning|extra certs/i);
  });

  for (const [label, python, venv, why] of [
    ["another interpreter", "python3", "", /it runs python3, the host would run .*\/bin\/python/],
    ["another environment", VENV_PYTHON, "", /its environment differs in PATH$/m],
  ] as const) {
    it(`a worker the host would not have started (${label}) is killed, and the host starts its own`, async function () {
      // A launcher that picks other than the host: prestart.py given `python` and `venv` as they are.
      const launcher = path.join(scratch, `launcher-${started.length}`);
      const stub = `${REPO}python-stub`;
      fs.writeFileSync(
        launcher,
        `#!/bin/sh\nPULUMI_DYNAMIC_HOST_SERVE=pulumi-resource-pulumi-python\nexport PULUMI_DYNAMIC_HOST_SERVE\n` +
          `exec "${VENV_PYTHON}" -I -S "${stub}/prestart.py" "${python}" "${venv}" "${stub}" "${process.execPath}" "${REPO}bin/launch.mjs" "$@"\n`,
        { mode: 0o755 },
      );
      const p = await launch({ executable: launcher, env: { PULUMI_RUNTIME_VIRTUALENV: TEST_VENV } });
      const f = await facts(p, "fallback");
      const m = /the launcher's python worker \(pid (\d+)\) is not used: (.*); starting one/.exec(p.stderr);
      expect(m, p.stderr).to.not.equal(null);
      expect(m![2]).to.match(why);
      const rejected = Number(m![1]);
      expect(f.pid).to.not.equal(rejected);
      expect(processState(rejected), "the rejected worker").to.be.oneOf([undefined, "Z"]);
      expect(f.environ.PATH.split(":")[0]).to.equal(`${TEST_VENV}/bin`);
    });
  }

  it("toolchain poetry: the launcher asks poetry for the virtualenv once, as the reference's launcher does, and its worker runs there", async function () {
    // A poetry that answers the test virtualenv and counts how often it is asked.
    const bin = path.join(scratch, "poetry-bin");
    const asked = path.join(scratch, "poetry-asked");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, "poetry"), `#!/bin/sh\necho "$*" >> "${asked}"\necho "${TEST_VENV}/"\n`, { mode: 0o755 });
    const p = await launch({ env: { PULUMI_RUNTIME_TOOLCHAIN: "poetry", PULUMI_RUNTIME_VIRTUALENV: "", PATH: `${bin}:${process.env.PATH}` } });
    const f = await facts(p, "poetry");
    expect(p.stderr).to.contain(`python worker (pid ${f.pid}) started by the launcher`);
    expect(fs.readFileSync(asked, "utf8")).to.equal("env info --path\n");
    expect(f.environ.PATH.split(":")[0]).to.equal(`${TEST_VENV}/bin`);
    expect(Object.keys(f.environ).filter((k) => k.includes("POETRY_ENV"))).to.deep.equal([]);
  });

  it("the launcher's worker killed: reported as any worker's death, replaced, and reaped once the host exits", async function () {
    const p = await launch({});
    const first = await facts(p, "first");
    expect(p.stderr).to.contain(`python worker (pid ${first.pid}) started by the launcher`);
    process.kill(first.pid, "SIGKILL");
    await p.until(() => p.stderr.includes(`(pid ${first.pid}) exited: was killed by SIGKILL`), "the host to see the worker's death");
    const second = await facts(p, "second");
    expect(second.pid).to.not.equal(first.pid);
    expect(second.ppid).to.equal(p.child.pid);
    await p.stop();
    for (let i = 0; i < 100 && processState(first.pid) !== undefined; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processState(first.pid), "the killed worker after the host exited").to.equal(undefined);
  });
});
