// What a provider prints while one of its methods runs, shown under the
// resource the call is for: each line goes to the engine's Log with the
// call's URN and a severity (console.warn a warning, print an info line, …),
// instead of the plugin's stdout/stderr, which the engine shows as anonymous
// lines under the stack (shared/engine.md §1.8).
//
// The language adapters feed a call's output here (Node: its console and
// process.stdout/stderr while the call's async context runs; Python: the
// worker's per-request capture, over the channel); they capture nothing when
// `CallOutputs.open` gives no CallOutput, and the output then goes where it
// always went.
//
// Guarantees:
// - a call's lines reach the engine in the order written: one Log call at a
//   time per call (the engine serves Log calls concurrently, so two in flight
//   may be shown in either order); lines written while one is in flight go
//   together in the next message (one line each in the CLI);
// - `close` (at the end of the call, before its answer) sends a partial last
//   line and waits until every line so far was sent: the CLI shows them under
//   the resource before the resource's step ends;
// - a line the engine could not take goes to the plugin's stdout or stderr,
//   where it was written, as it would have without capture, and so does every
//   later line of the process: nothing is lost and nothing is shown twice;
// - the secrets the call knows (CallInfo.secrets, ../secrets/redaction.ts) are
//   replaced by "[secret]" in every line, sent or passed through.
import type { EngineLog, Severity } from "./engine-log.js";
import { redact } from "../secrets/redaction.js";

export type OutputStream = "stdout" | "stderr";

interface Line {
  stream: OutputStream;
  severity: Severity;
  text: string;
}

/** Lines written while a message is in flight are joined into the next one, up to this many characters. */
const MAX_MESSAGE_CHARS = 64 * 1024;

/** Where the host writes a line the engine cannot take: its own stdout or stderr, as without capture. */
function passThrough(line: Line): void {
  (line.stream === "stdout" ? process.stdout : process.stderr).write(`${line.text}\n`);
}

/** The host's router of call output: one per plugin process. */
export class CallOutputs {
  /** Set once a Log call failed: from then on everything goes to stdout and stderr. */
  private down = false;

  constructor(private readonly engine: EngineLog) {}

  /**
   * The output of a call about `urn`, or undefined when the engine's Log
   * cannot be reached (no engine address, nothing answering there, or an
   * earlier message that failed): the adapter then captures nothing.
   */
  async open(urn: string, secrets: () => readonly string[]): Promise<CallOutput | undefined> {
    if (this.down || urn === "" || !(await this.engine.reachable())) return undefined;
    return new CallOutput(this, urn, secrets);
  }

  /** @internal */
  get engineDown(): boolean {
    return this.down;
  }

  /** @internal Sends one message; false (and everything later passes through) when the engine did not take it. */
  async send(severity: Severity, urn: string, message: string): Promise<boolean> {
    if (this.down) return false;
    const ok = await this.engine.send(severity, urn, message);
    if (!ok) this.down = true;
    return ok;
  }
}

export class CallOutput {
  private readonly partial: Record<OutputStream, Line | undefined> = { stdout: undefined, stderr: undefined };
  private readonly queue: Line[] = [];
  private pumping?: Promise<void>;
  private secrets?: readonly string[];

  constructor(
    private readonly router: CallOutputs,
    readonly urn: string,
    private readonly secretsOf: () => readonly string[],
  ) {}

  /**
   * Text the call wrote to `stream`, at `severity`. Complete lines are
   * queued at once; the rest waits for its newline or for close(). A line
   * keeps the severity of its first part.
   */
  write(stream: OutputStream, severity: Severity, text: string): void {
    if (text === "") return;
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      const head = this.partial[stream];
      this.partial[stream] = undefined;
      const piece = text.slice(start, nl);
      this.enqueue(head ? { ...head, text: head.text + piece } : { stream, severity, text: piece });
      start = nl + 1;
    }
    if (start < text.length) {
      const head = this.partial[stream];
      this.partial[stream] = head ? { ...head, text: head.text + text.slice(start) } : { stream, severity, text: text.slice(start) };
    }
  }

  /** Sends the partial last lines and settles once every line written so far has been sent or passed through. */
  async close(): Promise<void> {
    for (const stream of ["stdout", "stderr"] as const) {
      const line = this.partial[stream];
      this.partial[stream] = undefined;
      if (line) this.enqueue(line);
    }
    while (this.pumping) await this.pumping;
  }

  private enqueue(line: Line): void {
    // The engine shows no blank line of a plugin's output either.
    if (line.text.trim() === "") return;
    line.text = redact(line.text, (this.secrets ??= this.secretsOf()));
    if (this.router.engineDown && !this.pumping) return passThrough(line);
    this.queue.push(line);
    this.pumping ??= this.pump().finally(() => (this.pumping = undefined));
  }

  private async pump(): Promise<void> {
    while (this.queue.length > 0) {
      const first = this.queue[0];
      let n = 1;
      let size = first.text.length;
      while (n < this.queue.length && this.queue[n].severity === first.severity && size + this.queue[n].text.length < MAX_MESSAGE_CHARS) {
        size += this.queue[n].text.length + 1;
        n++;
      }
      const lines = this.queue.slice(0, n);
      const sent = await this.router.send(first.severity, this.urn, lines.map((l) => l.text).join("\n"));
      this.queue.splice(0, n);
      if (!sent) {
        for (const line of lines) passThrough(line);
        for (const line of this.queue.splice(0)) passThrough(line);
      }
    }
  }
}
