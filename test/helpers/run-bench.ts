// Runs the compiled benchmark (dist/bench/run.js) with `args` from the repo, to
// its exit, and collects what it printed; the smoke tests assert on both.
import { expect } from "chai";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "./paths.js";

export interface BenchRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runBench(args: string[]): Promise<BenchRun> {
  const child = spawn(process.execPath, [`${REPO}dist/bench/run.js`, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { code, stdout, stderr };
}

/**
 * Runs the benchmark with `args` and `--out` a file in a temporary directory,
 * which is removed once read; fails unless it exits 0 (its stderr in the
 * message). What it printed, and the JSON it wrote.
 */
export async function runBenchJson<T>(args: string[]): Promise<{ stdout: string; doc: T }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-run-"));
  try {
    const out = path.join(dir, "result.json");
    const run = await runBench([...args, "--out", out]);
    expect(run.code, `bench exited with ${run.code}; stderr:\n${run.stderr}`).to.equal(0);
    return { stdout: run.stdout, doc: JSON.parse(fs.readFileSync(out, "utf8")) as T };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
