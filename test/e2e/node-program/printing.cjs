// Providers of the end-to-end test of provider output under its resource
// (test/e2e/provider-logs.test.ts, issue 20).
"use strict";

const childProcess = require("child_process");
const fs = require("fs");
const pulumi = require("@pulumi/pulumi");

/** Prints `lines` numbered lines naming its resource, pausing between them so that concurrent calls interleave. */
const printer = {
  async create(inputs) {
    const started = Date.now();
    for (let i = 0; i < inputs.lines; i++) {
      console.log(`${inputs.name} says ${i}`);
      await new Promise((resolve) => setTimeout(resolve, (i * 7 + inputs.name.length) % 5));
    }
    return { id: inputs.name, outs: { started, ended: Date.now() } };
  },
};

/**
 * Every way a Node provider writes but pulumi.log.error: each must reach the engine once, at its
 * severity, and none may make the resource look failed.
 */
const levels = {
  async configure(req) {
    this.secret = req.config.require("secret");
  },
  async create() {
    console.log("console.log line");
    console.info("console.info line");
    console.warn("console.warn line");
    console.error("console.error line");
    console.debug("console.debug line");
    process.stdout.write("process.stdout.write line\n");
    // A library writing through a console of its own on the process's streams.
    new console.Console(process.stdout, process.stderr).log("a library's own console line");
    pulumi.log.info("pulumi.log info");
    pulumi.log.warn("pulumi.log warn");
    process.stderr.write("process.stderr.write line\n");
    // Printed from a callback the call started, after an await.
    await new Promise((resolve) => setTimeout(() => resolve(console.log("after a timer line")), 1));
    console.log(`the secret config is ${this.secret}`);
    fs.writeSync(1, "raw fd 1 line\n");
    childProcess.execFileSync("echo", ["child process line"], { stdio: ["ignore", "inherit", "inherit"] });
    process.stdout.write("partial line without newline");
    return { id: "levels", outs: {} };
  },
};

/** Succeeds, but says through pulumi.log.error that something is wrong: the one print that is an error. */
const explicitError = {
  async create() {
    console.error("console.error before the explicit error");
    pulumi.log.error("pulumi.log error");
    return { id: "explicit-error", outs: {} };
  },
};

/** Fails inside a function of the program's, called from create. */
function helperThatThrows(inputs) {
  return inputs.settings.retries;
}
const throws = {
  async create(inputs) {
    return { id: String(helperThatThrows(inputs)), outs: {} };
  },
};

/** Throws from check (an echoing method: the reference prints the stack to stderr). */
const checkThrows = {
  async check() {
    throw new Error("check exploded on purpose");
  },
};

module.exports = { printer, levels, explicitError, throws, checkThrows };
