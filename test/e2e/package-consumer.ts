// What the provider-package suites share (test/e2e/provider-packages.test.ts,
// test/e2e/provider-package-registries.test.ts): the pulumi CLI run in a
// sandbox the way a user runs it (Pulumi YAML's host is placed by the harness's
// placeYamlHost).
import { expect } from "chai";
import { execFile } from "node:child_process";
import { E2E_BIN, type Sandbox } from "./harness.js";

/** The pulumi CLI in a sandbox: run, or run and required to succeed with no warning of any kind (its stdout and stderr). */
export function pulumiIn(sb: Sandbox) {
  const cli = (args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> => {
    const env = { ...process.env, ...sb.env };
    return new Promise((resolve) => {
      execFile(`${E2E_BIN}/pulumi`, args, { cwd, env, encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  };
  const ok = async (args: string[], cwd: string): Promise<string> => {
    const res = await cli(args, cwd);
    expect(res.code, `pulumi ${args.join(" ")}:\n${res.stdout}\n${res.stderr}`).to.equal(0);
    expect(res.stdout + res.stderr, `pulumi ${args.join(" ")}`).to.not.match(/warning:/);
    return res.stdout + res.stderr;
  };
  return { cli, ok };
}

