// A call's output on its way to the engine's Log (src/host/engine/call-output.ts):
// lines cut and kept in order, one Log call at a time, a partial last line
// sent at close, secrets redacted, and everything passed through to
// stdout/stderr, once, when the engine does not take a message.
import { expect } from "chai";
import { CallOutputs } from "../../src/host/engine/call-output.js";
import type { EngineLog, Severity } from "../../src/host/engine/engine-log.js";

/** An engine whose Log answers when the test says, or fails from the `failFrom`-th message on. */
class FakeEngine implements EngineLog {
  sent: { severity: Severity; urn: string; message: string }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private waiting: (() => void)[] = [];
  constructor(private readonly reachableAnswer = true, private readonly failFrom = Infinity) {}
  log() {}
  send(severity: Severity, urn: string, message: string): Promise<boolean> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const index = this.sent.length;
    this.sent.push({ severity, urn, message });
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.inFlight--;
        resolve(index < this.failFrom);
      }),
    );
  }
  /** Answers every Log call in flight. */
  answer(): void {
    for (const w of this.waiting.splice(0)) w();
  }
  async reachable() {
    return this.reachableAnswer;
  }
  async close() {}
}

/** Runs `body` with process.stdout/stderr writes recorded instead of written. */
async function passedThrough(body: () => Promise<void>): Promise<{ stdout: string; stderr: string }> {
  const out = { stdout: "", stderr: "" };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  process.stdout.write = ((s: string) => ((out.stdout += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((out.stderr += s), true)) as typeof process.stderr.write;
  try {
    await body();
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  }
  return out;
}

/** Closes `output`, answering the engine until every line went. */
async function closing(engine: FakeEngine, close: Promise<void>): Promise<void> {
  let done = false;
  void close.then(() => (done = true));
  while (!done) {
    engine.answer();
    await new Promise((r) => setImmediate(r));
  }
}

const URN = "urn:pulumi:s::p::pulumi-nodejs:dynamic:Resource::r";

describe("call output: a call's lines to the engine's Log under its URN", function () {
  it("cuts lines across writes, keeps each line's first severity, sends one message at a time in order, and the partial last line at close", async function () {
    const engine = new FakeEngine();
    const output = (await new CallOutputs(engine).open(URN, () => []))!;
    output.write("stdout", "info", "one\ntw");
    output.write("stdout", "warning", "o\nthree\n");
    output.write("stderr", "error", "err line\n\n   \n");
    output.write("stdout", "info", "no newline");
    // The first line is in flight alone; the rest wait for its answer.
    expect(engine.sent).to.deep.equal([{ severity: "info", urn: URN, message: "one" }]);
    await closing(engine, output.close());
    expect(engine.maxInFlight).to.equal(1);
    expect(engine.sent).to.deep.equal([
      { severity: "info", urn: URN, message: "one" },
      { severity: "info", urn: URN, message: "two" },
      { severity: "warning", urn: URN, message: "three" },
      { severity: "error", urn: URN, message: "err line" },
      { severity: "info", urn: URN, message: "no newline" },
    ]);
  });

  it("joins the lines of one severity written while a message is in flight", async function () {
    const engine = new FakeEngine();
    const output = (await new CallOutputs(engine).open(URN, () => []))!;
    for (let i = 0; i < 5; i++) output.write("stdout", "info", `line ${i}\n`);
    await closing(engine, output.close());
    expect(engine.sent.map((s) => s.message)).to.deep.equal(["line 0", "line 1\nline 2\nline 3\nline 4"]);
  });

  it("replaces the call's secrets in every line", async function () {
    const engine = new FakeEngine();
    const output = (await new CallOutputs(engine).open(URN, () => ["hunter22"]))!;
    output.write("stdout", "info", "the password is hunter22\n");
    await closing(engine, output.close());
    expect(engine.sent.map((s) => s.message)).to.deep.equal(["the password is [secret]"]);
  });

  it("no engine to reach, or no URN: no output, so nothing is captured", async function () {
    expect(await new CallOutputs(new FakeEngine(false)).open(URN, () => [])).to.equal(undefined);
    expect(await new CallOutputs(new FakeEngine(true)).open("", () => [])).to.equal(undefined);
  });

  it("a message the engine does not take goes to the stream it was written to, with every later line, once; later calls capture nothing", async function () {
    const engine = new FakeEngine(true, 1);
    const outputs = new CallOutputs(engine);
    const output = (await outputs.open(URN, () => ["hunter22"]))!;
    const out = await passedThrough(async () => {
      output.write("stdout", "info", "sent\n");
      output.write("stdout", "info", "refused hunter22\n");
      output.write("stderr", "error", "after\n");
      await closing(engine, output.close());
      output.write("stdout", "info", "late\n");
      await output.close();
    });
    expect(engine.sent.map((s) => s.message)).to.deep.equal(["sent", "refused [secret]"]);
    expect(out).to.deep.equal({ stdout: "refused [secret]\nlate\n", stderr: "after\n" });
    expect(await outputs.open(URN, () => [])).to.equal(undefined);
  });
});
