// What a Node provider prints during a call, handed to that call's output
// (src/host/engine/call-output.ts) so the engine shows it under the resource.
//
// Provider code runs in this process's main context (./loader.ts), so its
// `console` is the process's console, and so is that of every library it
// requires. Each call runs its method in an AsyncLocalStorage context holding
// the call's output; everything the call starts (awaits, timers, callbacks)
// inherits it, so output is attributed to its call however many run at once.
// Two process-wide patches, installed once:
// - process.stdout.write / process.stderr.write: inside a call's context the
//   text goes to the call's output, outside it to the stream as before. Every
//   console method writes through these, and so do libraries that write to
//   the streams themselves (a logger, `debug`) or kept a console method bound
//   before the patch.
// - console.log/info/debug/warn/error: set the severity of what they write
//   (info, info, debug, warning, info: `consoleSeverity`); other console
//   methods write through these or straight to a stream (console.dir: info;
//   console.trace and console.assert: through error and warn). The lines the
//   SDK's pulumi.log prints through them (`info: [runtime] …`) go at their own
//   level, unprefixed: pulumi.log.error is the one way of printing that is
//   an error (docs/provider-output.md, "Severities").
//
// Not attributed, and left on the plugin's stdout/stderr as before: writes to
// the file descriptors themselves (fs.writeSync(1, …)), child processes'
// output, and output of work started outside any call. Output of a call's
// leftovers after the call answered (a timer it did not wait for) is still
// attributed to it. The host's own writes happen outside any call's context.
import { AsyncLocalStorage } from "node:async_hooks";
import type { CallOutput, OutputStream } from "../host/engine/call-output.js";
import type { Severity } from "../host/engine/engine-log.js";

const context = new AsyncLocalStorage<CallOutput>();

/** The severity of what a console method is writing; undefined: a raw write (info). */
let writingAt: Severity | undefined;

let installed = false;

/**
 * The SDK's pulumi.log.* with no engine configured (as in this process) print
 * through the console with these prefixes (`@pulumi/pulumi/log`): inside a
 * call, the line is sent at that level without them.
 */
const SDK_LOG_PREFIXES: [string, Severity][] = [
  ["debug: [runtime] ", "debug"],
  ["info: [runtime] ", "info"],
  ["warning: [runtime] ", "warning"],
  ["error: [runtime] ", "error"],
];

/**
 * The severity each console method's lines are sent at. An error of the
 * engine's Log under a resource makes the CLI show the resource as failed
 * ("creating failed", "1 errored") though its step succeeded, so a program's
 * own stderr (console.error, console.trace, process.stderr.write) is info,
 * as the engine shows a plugin's stderr (info#err, which Log cannot carry);
 * a warning fails nothing, so console.warn keeps its meaning. Only
 * pulumi.log.error and a thrown error mark the resource errored.
 */
const CONSOLE_SEVERITIES: [keyof Console, Severity][] = [
  ["log", "info"],
  ["info", "info"],
  ["debug", "debug"],
  ["warn", "warning"],
  ["error", "info"],
];

/**
 * The severity and the arguments of a console method's line inside a call:
 * the method's own severity, or for a line the SDK's pulumi.log printed
 * through it (`error: [runtime] …`), that level and the text without the prefix.
 */
export function consoleSeverity(method: string, args: readonly unknown[]): { severity: Severity; args: readonly unknown[] } {
  const own = CONSOLE_SEVERITIES.find(([name]) => name === method)?.[1] ?? "info";
  const first = args[0];
  if (typeof first === "string" && first.includes(": [runtime] ")) {
    const sdk = SDK_LOG_PREFIXES.find(([prefix]) => first.startsWith(prefix));
    if (sdk) return { severity: sdk[1], args: [first.slice(sdk[0].length), ...args.slice(1)] };
  }
  return { severity: own, args };
}

/** Installs the patches (once per process). */
export function installConsoleCapture(): void {
  if (installed) return;
  installed = true;
  patchStream(process.stdout, "stdout");
  patchStream(process.stderr, "stderr");
  for (const [name, severity] of CONSOLE_SEVERITIES) {
    const original = console[name] as (...args: unknown[]) => void;
    (console as unknown as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
      const outer = writingAt;
      writingAt = severity;
      if (context.getStore()) {
        const line = consoleSeverity(name, args);
        writingAt = line.severity;
        args = [...line.args];
      }
      try {
        return original.apply(this, args);
      } finally {
        writingAt = outer;
      }
    };
  }
}

/** Runs `body` with what it prints going to `output`; with no output, as it is. */
export function captured<T>(output: CallOutput | undefined, body: () => Promise<T>): Promise<T> {
  return output ? context.run(output, body) : body();
}

type Write = (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;

function patchStream(stream: NodeJS.WriteStream, name: OutputStream): void {
  const original = stream.write as Write;
  stream.write = function (this: NodeJS.WriteStream, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    const output = context.getStore();
    if (!output) return original.call(this, chunk, encoding, callback);
    const done = typeof encoding === "function" ? encoding : callback;
    const text = typeof chunk === "string" && !isOtherEncoding(encoding) ? chunk : Buffer.from(chunk as string, encoding as BufferEncoding).toString("utf8");
    const severity = writingAt ?? "info";
    // Outside the call's context: what the output does to send it (a gRPC call, a fallback write) is the host's, not the call's.
    context.exit(() => output.write(name, severity, text));
    if (typeof done === "function") process.nextTick(done as () => void);
    return true;
  } as typeof stream.write;
}

/** A string chunk written with an encoding other than UTF-8 (`write("aGk=", "base64")`) stands for other bytes. */
function isOtherEncoding(encoding: unknown): encoding is BufferEncoding {
  return typeof encoding === "string" && Buffer.isEncoding(encoding) && !/^utf-?8$/i.test(encoding);
}
