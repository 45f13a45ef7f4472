// The severity each way of printing reaches the engine at, in both languages
// (docs/provider-output.md, "Severities"): a program's own stderr and error
// logging are info, since an error under a resource makes the CLI show it
// failed; warnings stay warnings; only pulumi.log.error is an error. Node:
// src/node-dynamic/console-capture.ts, through the real patches; Python:
// python-stub/output_capture.py in the test virtualenv, with a fake channel.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import type { CallOutput } from "../../src/host/engine/call-output.js";
import { captured, consoleSeverity, installConsoleCapture } from "../../src/node-dynamic/console-capture.js";
import { REPO, VENV_PYTHON } from "../helpers/paths.js";

describe("output severities: what fails a resource is only pulumi.log.error (and a thrown error)", function () {
  describe("Node", function () {
    it("consoleSeverity: console.error is info, warn warning, debug debug; the SDK's pulumi.log lines at their own level, unprefixed", function () {
      const table = [
        ["log", ["x"]],
        ["info", ["x"]],
        ["debug", ["x"]],
        ["warn", ["x"]],
        ["error", ["x"]],
        ["log", ["info: [runtime] x"]],
        ["warn", ["warning: [runtime] x"]],
        ["error", ["error: [runtime] x"]],
        ["error", ["not: [runtime] x"]],
      ] as const;
      expect(table.map(([m, args]) => [m, consoleSeverity(m, args).severity, consoleSeverity(m, args).args[0]])).to.deep.equal([
        ["log", "info", "x"],
        ["info", "info", "x"],
        ["debug", "debug", "x"],
        ["warn", "warning", "x"],
        ["error", "info", "x"],
        ["log", "info", "x"],
        ["warn", "warning", "x"],
        ["error", "error", "x"],
        ["error", "info", "not: [runtime] x"],
      ]);
    });

    it("inside a call, through the installed patches: every way of printing, and only pulumi.log.error's line is an error", async function () {
      installConsoleCapture();
      const written: [string, string, string][] = [];
      const output = { write: (stream: string, severity: string, text: string) => written.push([stream, severity, text]) } as unknown as CallOutput;
      await captured(output, async () => {
        console.log("log");
        console.info("info");
        console.debug("debug");
        console.warn("warn");
        console.error("error");
        console.trace("trace");
        process.stdout.write("stdout\n");
        process.stderr.write("stderr\n");
        console.error("error: [runtime] pulumi.log.error");
      });
      const firstLines = written.map(([stream, severity, text]) => [stream, severity, text.split("\n")[0]]);
      expect(firstLines).to.deep.equal([
        ["stdout", "info", "log"],
        ["stdout", "info", "info"],
        ["stdout", "debug", "debug"],
        ["stderr", "warning", "warn"],
        ["stderr", "info", "error"],
        ["stderr", "info", "Trace: trace"],
        ["stdout", "info", "stdout"],
        ["stderr", "info", "stderr"],
        ["stderr", "error", "pulumi.log.error"],
      ]);
    });
  });

  describe("Python", function () {
    const SCRIPT = String.raw`
import json, logging, sys
sys.path.insert(0, "${REPO}python-stub")
import output_capture

class Channel:
    def __init__(self): self.sent = []
    def write(self, message): self.sent.append(message["params"])

real_stdout = sys.stdout
output_capture.install()
import pulumi
channel = Channel()
out = output_capture.begin(channel, 7)
print("print")
sys.stderr.write("stderr\n")
print("print to stderr", file=sys.stderr)
named = logging.getLogger("named")
named.warning("named warning, last resort")
named.error("named error, last resort")
logging.basicConfig(level=logging.DEBUG)
logging.debug("root debug")
logging.info("root info")
logging.warning("root warning")
logging.error("root error")
logging.critical("root critical")
named.warning("named warning")
logging.warning("two\nlines")
pulumi.log.debug("pulumi.log.debug")
pulumi.log.info("pulumi.log.info")
pulumi.log.warn("pulumi.log.warn")
pulumi.log.error("pulumi.log.error")
output_capture.end(out)
real_stdout.write(json.dumps([[p["stream"], p["severity"], p["text"]] for p in channel.sent]))
`;
    let sent: [string, string, string][];
    before(function () {
      sent = JSON.parse(execFileSync(VENV_PYTHON, ["-c", SCRIPT], { encoding: "utf8" }));
    });

    it("print and sys.stderr are info; logging's error and critical are info, keeping the level in their text; its warning a warning", function () {
      expect(sent).to.deep.equal([
        ["stdout", "info", "print\n"],
        ["stderr", "info", "stderr\n"],
        ["stderr", "info", "print to stderr\n"],
        ["stderr", "warning", "named warning, last resort\n"],
        ["stderr", "info", "named error, last resort\n"],
        ["stderr", "debug", "root debug\n"],
        ["stderr", "info", "root info\n"],
        ["stderr", "warning", "root warning\n"],
        ["stderr", "info", "ERROR:root:root error\n"],
        ["stderr", "info", "CRITICAL:root:root critical\n"],
        ["stderr", "warning", "named: named warning\n"],
        ["stderr", "warning", "two\nlines\n"],
        ["stderr", "debug", "pulumi.log.debug\n"],
        ["stderr", "info", "pulumi.log.info\n"],
        ["stderr", "warning", "pulumi.log.warn\n"],
        ["stderr", "error", "pulumi.log.error\n"],
      ]);
    });

    it("no line is an error but pulumi.log.error's", function () {
      expect(sent.filter(([, severity]) => severity === "error").map(([, , text]) => text)).to.deep.equal(["pulumi.log.error\n"]);
    });
  });
});
