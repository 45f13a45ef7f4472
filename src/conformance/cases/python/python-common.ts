// What the Python cases share: reading grpc-python tracebacks with the plugin's
// own plumbing frames left out, the no-__provider message of ours, the output
// a request printed (stdout and stderr, up to a barrier), payload makers.
//
// Errors are grpc-python's `context.abort(UNKNOWN, traceback.format_exc())`.
// Tracebacks differ only in the plugin's own plumbing frames: the reference's
// pulumi/dynamic/__main__.py (its wrapper and RPC method, get_provider, …);
// ours leaves its own (python-stub/worker.py and its modules) out, so that the
// text opens with the user's frames, but for its op_<method> frame
// (python-stub/operations.py) when the error was raised there (on what the user's method returned). A case does not know which plugin
// it talks to: it accepts either shape and checks, and compares, the rest (the
// first line, every user and SDK frame, the final exception lines).
import { readFileSync } from "node:fs";
import path from "node:path";
import { equal, ok, type CaseContext } from "../../case.js";
import type { Outcome } from "../../client.js";
import { noProviderMessage as providerMessage } from "../project-file.js";
import { pythonPayloadsFor, type PythonPayloads } from "../../payloads-python.js";

export const PY_TYPE = "pulumi-python:dynamic:Resource";

/** The environment every Python session starts from: nothing left over from the kit's shell. */
export const BASE_ENV: Record<string, string | undefined> = {
  PULUMI_PROJECT: undefined,
  PULUMI_CONFIG: undefined,
  PULUMI_PYTHON_CMD: undefined,
  PULUMI_RUNTIME_TOOLCHAIN: undefined,
  PYTHONHOME: undefined,
  PYTHONSAFEPATH: undefined,
  TEST_CONFIGURE_RAISE_ONCE: undefined,
  TEST_CONFIGURE_REQUIRE: undefined,
};

/** The payload maker of the run (scenario modules, scripts, by-reference pickles). */
export const py = (ctx: CaseContext): PythonPayloads => pythonPayloadsFor(ctx.program);

/** The path of a scenario module, as the plugins' tracebacks name it. */
export const scenarioFile = (ctx: CaseContext, scenario: string): string => py(ctx).file(scenario);

// ---------------------------------------------------------------- tracebacks

export interface Frame {
  file: string;
  line: number;
  name: string;
  /** The frame's whole text: the File line, the source line and any caret line. */
  text: string;
}

export interface Traceback {
  first: string;
  frames: Frame[];
  final: string[];
}

const FRAME = /^ {2}File "(.*)", line (\d+), in (.*)$/;

/** A traceback whose frames follow its first line directly (no chained cause). */
export function parseTraceback(details: string): Traceback {
  const lines = details.replace(/\n$/, "").split("\n");
  const frames: Frame[] = [];
  let i = 1;
  while (i < lines.length) {
    const m = FRAME.exec(lines[i]);
    if (!m) break;
    const body = [lines[i++]];
    while (i < lines.length && lines[i].startsWith("    ")) body.push(lines[i++]);
    frames.push({ file: m[1], line: Number(m[2]), name: m[3], text: body.join("\n") });
  }
  return { first: lines[0], frames, final: lines.slice(i) };
}

export const REFERENCE_MAIN = /\/pulumi\/dynamic\/__main__\.py$/;
/**
 * Our worker's file that a traceback may show (the operations', op_<method>): in the checkout or npm
 * package, or extracted from the single executable. Before the worker was split into modules its
 * operations were in worker.py: either is ours.
 */
export const OUR_WORKER = /\/python-stub\/(operations|worker)\.py$/;

/** The names of the frames of `file` in a traceback (anywhere, chained causes too), in order. */
export function plumbing(details: string, file: RegExp): string[] {
  return details
    .split("\n")
    .map((l) => FRAME.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && file.test(m[1]))
    .map((m) => m[3]);
}

const rpcName = (op: string) => op[0].toUpperCase() + op.slice(1).toLowerCase();

/**
 * The plugin's own frames are one of the two known shapes, never a mix: the
 * reference's __main__.py frames starting with its wrapper and the RPC method
 * (`exactRef`: exactly those), or ours: none, or the op_<method> frame alone
 * as the last frame, when the error was raised there.
 */
export function expectPlumbing(details: string, op: string, exactRef?: string[]): void {
  const ref = plumbing(details, REFERENCE_MAIN);
  const ours = plumbing(details, OUR_WORKER);
  ok(ref.length === 0 || ours.length === 0, `the plugin's own frames are the reference's __main__.py or our worker's, not both: ${JSON.stringify({ ref, ours })}`);
  if (ours.length > 0) {
    equal(ours, [`op_${op.toLowerCase()}`], "our worker's frames (only the operation's, where it raised)");
    const files = details.split("\n").flatMap((l) => FRAME.exec(l)?.[1] ?? []);
    ok(OUR_WORKER.test(files[files.length - 1]), "our operation's frame is the last: where the error was raised");
  }
  if (ref.length === 0) return;
  if (exactRef) equal(ref, exactRef, "the reference's plumbing frames");
  else equal(ref.slice(0, 2), ["wrapper", rpcName(op)], "the reference's plumbing frames");
}

/** The traceback without the plugin's plumbing frames (after checking they are plumbing indeed). */
export function userTraceback(details: string, op: string): Traceback {
  expectPlumbing(details, op);
  const tb = parseTraceback(details);
  return { ...tb, frames: tb.frames.filter((f) => !REFERENCE_MAIN.test(f.file) && !OUR_WORKER.test(f.file)) };
}

/** A frame of the user's (or the SDK's) code: file, the line holding `code` (its nth occurrence), function name. */
export interface UserFrame {
  file: string;
  code: string;
  name: string;
  nth?: number;
}

export function lineOf(file: string, code: string, nth = 1): number {
  const lines = readFileSync(file, "utf8").split("\n");
  let seen = 0;
  for (let i = 0; i < lines.length; i++) if (lines[i].trim() === code && ++seen === nth) return i + 1;
  throw new Error(`${file} has no line ${JSON.stringify(code)} (occurrence ${nth})`);
}

/**
 * UNKNOWN with a traceback (no init-failure detail) whose frames, plumbing left
 * out, are exactly `frames` (file, line, function, source line) and whose final
 * exception lines are `final`.
 */
export function expectTraceback(o: Outcome, op: string, frames: UserFrame[], final: string[]): void {
  equal(o.code, 2, `the status code (details: ${o.details})`);
  equal(o.initFailed, undefined, "no init-failure detail");
  const tb = userTraceback(o.details, op);
  equal(tb.first, "Traceback (most recent call last):", "the traceback's first line");
  equal(
    tb.frames.map(({ file, line, name }) => ({ file, line, name })),
    frames.map((f) => ({ file: f.file, line: lineOf(f.file, f.code, f.nth), name: f.name })),
    "the user's frames",
  );
  for (const [i, f] of tb.frames.entries()) equal(f.text.split("\n")[1]?.trim(), frames[i].code, "a frame's source line");
  equal(tb.final, final, "the exception lines");
}

/** What two plugins' tracebacks must share: everything but the plumbing frames. */
export function tracebackView(o: Outcome, op: string): unknown {
  if (o.code !== 2) return o;
  const tb = userTraceback(o.details, op);
  return { code: o.code, first: tb.first, frames: tb.frames.map((f) => f.text), final: tb.final };
}

/** The traceback as lines, with the plumbing frames (of either plugin) left out; chained causes kept. */
export function userView(details: string): string[] {
  const out: string[] = [];
  let skipping = false;
  for (const line of details.split("\n")) {
    const m = FRAME.exec(line);
    if (m) {
      skipping = REFERENCE_MAIN.test(m[1]) || OUR_WORKER.test(m[1]);
      if (!skipping) out.push(line);
      continue;
    }
    if (skipping && line.startsWith("    ")) continue;
    skipping = false;
    out.push(line);
  }
  return out;
}

/**
 * UNKNOWN, no init-failure detail, a traceback that ends with `last` once the
 * plumbing frames are left out (returned: the normalised traceback), and the
 * plugin's plumbing one of the two known shapes.
 */
export function sameTraceback(o: Outcome, rpc: string, last: string[], exactRef?: string[]): string[] {
  equal(o.code, 2, `the status code (details: ${o.details})`);
  equal(o.initFailed, undefined, "no init-failure detail");
  const view = userView(o.details);
  equal(view[0], "Traceback (most recent call last):", "the traceback's first line");
  equal(view[view.length - 1], "", "the traceback ends with a newline");
  equal(view.slice(-1 - last.length, -1), last, "the exception lines");
  expectPlumbing(o.details, rpc, exactRef);
  return view;
}

/** The `File …, in <name>` frames of a normalised traceback that come from `file`. */
export const framesIn = (view: string[], file: string): string[] =>
  view
    .map((l) => FRAME.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && m[1].endsWith(file))
    .map((m) => m[3]);

/** The reference's answer shape: UNKNOWN with a traceback whose last line is `final`. */
export function expectBareTraceback(r: Outcome, finalLine: string): void {
  equal(r.code, 2, `the status code (details: ${r.details})`);
  const tb = parseTraceback(r.details);
  equal(tb.first, "Traceback (most recent call last):", "the traceback's first line");
  ok(tb.frames.length > 0, "the traceback has frames");
  equal(tb.final, [finalLine], "the exception line");
}

/** Ours' message for a request without a usable `__provider` (docs/parity.md); `dir`: the program folder the plugin runs in (../project-file.ts). */
export function noProviderMessage(op: string, urn: string, bag: string, problem = "has no", dir?: string): string {
  return providerMessage("python", op, urn, bag, problem, dir);
}

// ---------------------------------------------------------------- output

export interface Printed<T> {
  value: T;
  /** stdout lines and stderr text the plugin wrote while `action` ran (up to the marker that follows). */
  stdout: string[];
  stderr: string;
}

let markers = 0;

/**
 * Runs `action`, then a create whose provider prints a unique marker to stdout
 * and stderr (python_providers' scripted provider, act "print"), and waits for
 * it on both streams: whatever precedes the marker is exactly what `action`
 * printed, so silence is proven without sleeping.
 */
export async function printed<T>(ctx: CaseContext, action: () => Promise<T>): Promise<Printed<T>> {
  const p = ctx.plugin;
  const scripted = await ctx.payload("scripted");
  const out0 = p.stdout.length;
  const err0 = p.stderr.length;
  const value = await action();
  const tag = `marker-${++markers}`;
  const m = await p.client.create({ urn: ctx.urn("marker"), properties: { __provider: scripted, act: "print", msg: tag } });
  if (m.code !== 0) throw new Error(`the output marker's create failed: ${m.details}`);
  const errLine = `stderr from create ${tag}\n`;
  const outLine = `child process from create ${tag}`;
  await p.until(() => p.stderr.slice(err0).includes(errLine) && p.stdout.slice(out0).includes(outLine), `the output marker ${tag}`);
  const out = p.stdout.slice(out0);
  const err = p.stderr.slice(err0);
  return { value, stdout: out.slice(0, out.indexOf(`print from create ${tag}`)), stderr: err.slice(0, err.indexOf(errLine)) };
}

/** Nothing printed on either stream. */
export function silent(x: Printed<unknown>, what = "output"): void {
  equal(x.stderr + x.stdout.join("\n"), "", what);
}

/** A scenario's program-local file path under the program directory. */
export const inProgram = (ctx: CaseContext, ...parts: string[]): string => path.join(ctx.programDir, ...parts);
