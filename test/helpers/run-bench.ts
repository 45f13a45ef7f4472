// Runs the compiled benchmark (dist/bench/run.js) with `args` from the repo, to
// its exit, and collects what it printed; the smoke tests assert on both.
import { spawn } from "node:child_process";
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
