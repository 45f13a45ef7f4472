// The debugger (issue 20): `pulumi-dynamic-host debug nodejs` serves the
// project's providers for the engine's attach mode with the Node inspector
// open; a debugger client (test/helpers/inspector-client.mjs, the DevTools
// protocol over the inspector's WebSocket, as VS Code speaks it) sets a
// breakpoint in a provider method, and `pulumi up` with the printed
// PULUMI_DEBUG_PROVIDERS stops there, under the real engine, until the client
// resumes. Steps for people: docs/debugging.md.
import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { DapClient } from "../helpers/dap-client.js";
import { REPO, TEST_VENV } from "../helpers/paths.js";
import { nodeProvider } from "../helpers/payloads.js";
import { E2E_ROOT, OUR_ENTRY, prepareEngine, sandbox, type Sandbox } from "./harness.js";
import { drive, PYTHON_WORK_DIR } from "./python-driver.js";
import { inlineStack } from "../helpers/inline-stack.js";

const require = createRequire(import.meta.url);
const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
const { providers } = require(`${REPO}test/fixtures/node-providers-secrets.cjs`);

const WORK_DIR = `${REPO}test/e2e/node-program`;

/** The lines a child writes on stdout, as they come; `next(match)` resolves with the first (later) line matching. */
function lines(child: ChildProcess) {
  const seen: string[] = [];
  const wanted: { match: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  readline.createInterface({ input: child.stdout! }).on("line", (l) => {
    seen.push(l);
    const i = wanted.findIndex((w) => w.match(l));
    if (i >= 0) wanted.splice(i, 1)[0].resolve(l);
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    seen,
    stderr: () => stderr,
    exited,
    /** Resolves with the first match of `pattern` in stderr, checked as stderr comes. */
    inStderr(pattern: RegExp, what: string): Promise<RegExpExecArray> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(stderr);
          if (!m) return false;
          child.stderr!.off("data", check);
          resolve(m);
          return true;
        };
        if (check()) return;
        child.stderr!.on("data", check);
        void exited.then((code) => reject(new Error(`exited (${code}) before ${what}; stderr ${stderr}`)));
      });
    },
    next(match: (l: string) => boolean, what: string): Promise<string> {
      const already = seen.find(match);
      if (already !== undefined) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        wanted.push({ match, resolve });
        void exited.then((code) => reject(new Error(`exited (${code}) before ${what}; stdout ${JSON.stringify(seen)} stderr ${stderr}`)));
      });
    },
  };
}

describe("debugger: a breakpoint in a provider method stops during `pulumi up` (attach mode, real engine)", function () {
  this.timeout(10 * 60 * 1000);
  let sb: Sandbox;
  let host: ChildProcess | undefined;
  let client: ChildProcess | undefined;
  let dap: DapClient | undefined;

  before(function () {
    prepareEngine();
    sb = sandbox("e2e-debug");
  });
  after(function () {
    client?.kill();
    dap?.close();
    host?.kill("SIGKILL");
    sb?.cleanup();
  });

  it("debug nodejs prints what to export; the inspector's breakpoint is hit in create with the call's values", async function () {
    const program = async () => {
      new pulumi.dynamic.Resource(providers.debuggee, "debuggee", { who: "debugger" });
    };
    const pulumiCommand = await automation.PulumiCommand.get({ root: E2E_ROOT, skipVersionCheck: true });
    // Creating the stack writes the project's Pulumi.yaml, which the debug command reads.
    const stack = await inlineStack(
      { stackName: "debug", projectName: "e2e-node", program },
      {
        workDir: WORK_DIR,
        pulumiHome: sb.home,
        envVars: sb.env,
        pulumiCommand,
        projectSettings: { name: "e2e-node", runtime: "nodejs", backend: { url: `file://${sb.backend}` } },
      },
    );

    host = spawn(process.execPath, [OUR_ENTRY, "debug", "nodejs", "--debugger-port", "0"], { cwd: WORK_DIR, stdio: ["ignore", "pipe", "pipe"] });
    const hostOut = lines(host);
    const exportLine = await hostOut.next((l) => l.includes("export PULUMI_DEBUG_PROVIDERS="), "the export line");
    const debugProviders = /export PULUMI_DEBUG_PROVIDERS=(pulumi-nodejs:\d+)$/.exec(exportLine.trim())?.[1];
    expect(debugProviders, exportLine).to.be.a("string");
    const inspectorUrl = /Node inspector: (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(hostOut.seen.join("\n"))?.[1];
    expect(inspectorUrl, hostOut.seen.join("\n")).to.be.a("string");

    // The line of the provider's text the breakpoint goes on: the program's SDK serializes the same provider to the same text.
    const text = await nodeProvider("debuggee", "node-providers-secrets.cjs");
    const line = text.split("\n").findIndex((l) => l.includes("// breakpoint-here"));
    expect(line).to.be.greaterThan(0);

    client = spawn(process.execPath, ["--experimental-websocket", `${REPO}test/helpers/inspector-client.mjs`, inspectorUrl!, "^pulumi-dynamic-provider/", String(line), "props.who"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const clientOut = lines(client);
    await clientOut.next((l) => l.startsWith('{"ready"'), "the breakpoint to be set");

    stack.workspace.envVars.PULUMI_DEBUG_PROVIDERS = debugProviders!;
    const [up, pausedLine] = await Promise.all([
      stack.up({ onOutput: () => {} }),
      clientOut.next((l) => l.startsWith('{"paused"'), "the breakpoint to be hit"),
    ]);
    const paused = JSON.parse(pausedLine).paused;
    expect(paused.url).to.match(/^pulumi-dynamic-provider\/[0-9a-f]{12}\.js$/);
    expect(paused.line).to.equal(line);
    expect(paused.hitBreakpoints).to.have.length(1);
    expect(paused.value, "props.who in the paused frame").to.equal("debugger");
    expect(up.summary.result).to.equal("succeeded");
    const state = (await stack.exportStack()).deployment.resources.find((r: any) => r.urn.endsWith("::debuggee"));
    expect(state.outputs.greeting).to.equal("hello debugger");

    // The host outlives the engine's run (attach mode: the engine does not stop it), and stops on Ctrl-C.
    host.kill("SIGINT");
    expect(await hostOut.exited).to.equal(0);
    host = undefined;
  });

  it("debug python: debugpy in the worker; a DAP client's breakpoint in the program's file is hit in create", async function () {
    // A project of its own whose Pulumi.yaml names the test virtualenv, as a user's would (debugpy is there: the
    // pulumi SDK requires it).
    const project = fs.mkdtempSync(path.join(sb.dir, "python-project-"));
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), `name: e2e-python\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: ${TEST_VENV}\n`);
    host = spawn(process.execPath, [OUR_ENTRY, "debug", "python", "--debugger-port", "0", "--cwd", project], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const hostOut = lines(host);
    const exportLine = await hostOut.next((l) => l.includes("export PULUMI_DEBUG_PROVIDERS="), "the export line");
    const debugProviders = /export PULUMI_DEBUG_PROVIDERS=(pulumi-python:\d+)$/.exec(exportLine.trim())?.[1];
    expect(debugProviders, exportLine).to.be.a("string");
    const listening = await hostOut.inStderr(/debugpy listening on 127\.0\.0\.1:(\d+)/, "the worker's debugpy to listen");

    dap = await DapClient.connect("127.0.0.1", Number(listening[1]));
    await dap.request("initialize", { clientID: "pulumi-dynamic-host-test", adapterID: "debugpy", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
    const attached = dap.request("attach", { justMyCode: false });
    await dap.event("initialized");
    // By-value pickled code keeps the file and lines it was written at: the breakpoint goes in the program's own file.
    const driver = `${PYTHON_WORK_DIR}/secrets_context.py`;
    const line = fs.readFileSync(driver, "utf8").split("\n").findIndex((l) => l.includes("# breakpoint-here")) + 1;
    expect(line).to.be.greaterThan(1);
    await dap.request("setBreakpoints", { source: { path: driver }, breakpoints: [{ line }] });
    await dap.request("configurationDone");
    await attached;

    const running = drive({ ...sb, env: { ...sb.env, PULUMI_DEBUG_PROVIDERS: debugProviders! } }, "debuggee", "runtime-options", { driver: "secrets_context.py" });
    const stopped = await Promise.race([
      dap.event("stopped"),
      running.then((steps) => {
        throw new Error(`the up ended without stopping: ${JSON.stringify(steps.up?.error ?? steps.up?.summary)}`);
      }),
    ]);
    expect(stopped.body.reason).to.equal("breakpoint");
    const trace = await dap.request("stackTrace", { threadId: stopped.body.threadId, levels: 1 });
    const frame = trace.body.stackFrames[0];
    const value = await dap.request("evaluate", { expression: "props['who']", frameId: frame.id, context: "watch" });
    await dap.request("continue", { threadId: stopped.body.threadId });
    const steps = await running;

    expect(frame.source.path).to.equal(driver);
    expect(frame.line).to.equal(line);
    expect(frame.name).to.equal("create");
    expect(value.body.result, "props['who'] in the stopped frame").to.equal("'debugger'");
    expect(steps.up.error, JSON.stringify(steps.up.error)).to.equal(undefined);
    expect(steps.up.resources.debuggee.outputs.greeting).to.equal("hello debugger");

    await dap.request("disconnect", { terminateDebuggee: false }).catch(() => undefined);
    dap.close();
    dap = undefined;
    host.kill("SIGINT");
    expect(await hostOut.exited).to.equal(0);
    host = undefined;
  });
});
