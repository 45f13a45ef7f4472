// The conformance case format (docs/conformance.md, "Writing a case").
//
// A case is a plain object in a table (src/conformance/cases): what it asks a
// plugin (`ask`: a request sequence sent through the context, returning what
// was observed), what the spec says the answer is (`expect`, checked on every
// plugin, so that two equally wrong answers fail), what must be equal between
// two plugins side by side (`compare`), and for a deliberate difference from
// the reference plugins what each side must answer (`difference`). Cases of one
// session share one plugin process, started once and asked in table order, as
// one mocha `describe` shares a pair of plugins.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import type { Outcome, ProviderClient, Props } from "./client.js";

export type Language = "nodejs" | "python";

/** How a plugin process is started, beyond the command under test: as the engine starts it. */
export interface LaunchSpec {
  /** The arguments after the command; default: the engine address alone. */
  args?: string[];
  /** Added to (or, when undefined, removed from) the environment the kit runs in. */
  env?: Record<string, string | undefined>;
  /** The working directory; default: the language's program directory (CaseContext.programDir); a relative one is under it. */
  cwd?: string;
  /** Start a stand-in for the engine's Log service and pass its address (CaseContext.logs). */
  engine?: boolean;
  /**
   * Give the plugin a real pipe (a FIFO) on stdin, as the engine does, so that closeStdin()
   * plays "the engine went away". Otherwise stdin is a socket pair (Node's "pipe").
   */
  pipeStdin?: boolean;
}

/** How CaseContext.run runs the plugin to its end. */
export type RunSpec = Omit<LaunchSpec, "args" | "engine" | "pipeStdin"> & {
  /** Killed (with its group) after this long; default 30 s. */
  ms?: number;
  /**
   * Killed (with its group) as soon as it wrote its first stdout line: a plugin that starts
   * serving where the case expects it to refuse need not be waited out (status null, SIGKILL).
   */
  stopAtPort?: boolean;
};

/** What a process that ran to its end left behind. */
export interface RunResult {
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** A plugin process of the case's own (CaseContext.launch): stopped by the driver after the case. */
export interface LaunchedPlugin {
  readonly client: ProviderClient;
  /** The port it serves on (its first stdout line). */
  readonly port: number;
  /** Every stdout line, the port line first. */
  readonly stdout: string[];
  /** Lines written to stdout after the port line. */
  readonly userStdout: string[];
  readonly stderr: string;
  /**
   * As the engine stops a plugin: closes the connection, SIGINT to its process
   * group, SIGKILL 5 s later (or `graceMs` later, for a case that judges what a
   * plugin does with SIGINT rather than how soon).
   */
  stop(graceMs?: number): Promise<{ code: number | null; signal: string | null }>;
  /** Resolves when the process exits. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** The exit code once it exited, else null. */
  exitCode(): number | null;
  /** Closes the write end of its stdin (a pipeStdin FIFO, or the socket); resolves once closed. */
  closeStdin(): Promise<void>;
  /** Resolves once `cond` holds, re-checked on every chunk of output. */
  until(cond: () => boolean, what: string, ms?: number): Promise<void>;
  /** Every live process in the plugin's process group. */
  groupPids(): number[];
}

/** Where a language's program files and scenario modules are, for one run (made by ./payloads.ts, prepareProgram). */
export interface Program {
  language: Language;
  /** The working directory plugins start in. */
  programDir: string;
  /** Where the scenario modules are loaded from (their SDK resolves from here). */
  scenarioDir: string;
  /** The Python that makes Python payloads; unset: the one the plugin would run (payloads-python.ts). */
  python?: string;
  /** A Python of another CPython minor with pulumi and dill (the version-drift case); unset: that case says it needs one. */
  otherPython?: string;
  /** Removes what was made for the run. */
  cleanup(): void;
}

/** What a case can use; the same for every plugin the case is run against. */
export interface CaseContext {
  readonly language: Language;
  /** The session's plugin's client (the plugin is started once for every case of the session). */
  readonly client: ProviderClient;
  /** The session's plugin process: its stdout, stderr, until(), groupPids(). */
  readonly plugin: LaunchedPlugin;
  /** The program and scenario folders, and the Python payloads are made with (payload makers of a language's own build on it). */
  readonly program: Program;
  /** The program directory the plugins run in (scenario program files, the project's SDK above it). */
  readonly programDir: string;
  /** The `__provider` payload of a scenario's provider, made with the project's SDK. */
  payload(name: string, scenario?: string): Promise<string>;
  /** A Node scenario module itself (for payloads made another way than serialize(name)). */
  scenarioModule(scenario: string): any;
  /** A URN of the language's dynamic resource type. */
  urn(name: string, type?: string): string;
  /** A stderr position of the session's plugin, for stderrSince. */
  mark(): number;
  /**
   * What the session's plugin printed on stderr since `mark`: a barrier request
   * whose provider prints a unique marker is sent and awaited, so whatever
   * earlier requests printed lies before it, and "" proves nothing was printed.
   */
  stderrSince(mark: number): Promise<string>;
  /** The session's plugin's stdout lines after the port line. */
  userStdout(): string[];
  /** The session's plugin's whole stderr so far. */
  stderr(): string;
  /** Messages the session's plugin sent to the engine's Log (sessions with `engine: true`). */
  logs(): { severity: number; urn: string; message: string }[];
  /** Starts another process of the plugin under test, as the engine would; stopped after the case. */
  launch(spec?: LaunchSpec): Promise<LaunchedPlugin>;
  /** Runs the plugin under test with `args` (no engine address added) until it exits (killed after `ms`). */
  run(args: string[], spec?: RunSpec): Promise<RunResult>;
  /** Removes a temporary thing after the case (a directory the case made). */
  defer(cleanup: () => void | Promise<void>): void;
}

/** A deliberate difference from the reference plugin: each side's recorded answer. */
export interface Difference<O> {
  /** Where it is documented, e.g. "docs/parity.md#check-without-__provider". */
  doc: string;
  /** Our answer (what this project's plugin does). */
  ours(obs: O, ctx: CaseContext): void;
  /** The reference plugin's answer. */
  reference(obs: O, ctx: CaseContext): void;
}

export interface Session {
  /** Stable id prefix of its cases, e.g. "node/check". */
  id: string;
  language: Language;
  /** The mocha describe path of its cases, outermost first. */
  suite: string[];
  launch?: LaunchSpec;
  /** Run once after the plugin starts (e.g. a Configure); throws if the plugin does not accept it. */
  setup?(ctx: CaseContext): Promise<void>;
}

export interface Case<O = any> {
  /** Stable: session id + "/" + a slug, e.g. "node/check/15-default-passthrough". */
  id: string;
  /** The test's title (mocha's `it` title; the table's row name). */
  title: string;
  session: Session;
  /** The session's language. */
  language: Language;
  /** Spec §9 row numbers or names (docs/parity.md and the reference-behaviour spec). */
  spec?: string[];
  /** Sends the requests and returns what is observed (Outcomes, texts, exit codes). */
  ask(ctx: CaseContext): Promise<O>;
  /** The spec's answer, asserted on every plugin's observation, with a difference too (what both sides share). */
  expect?(obs: O, ctx: CaseContext): void;
  /**
   * The part that must be equal between two plugins side by side: by default the whole
   * observation; `false` when the answers legitimately differ in ways `expect` covers (a stack trace).
   * With a `difference`, only an explicit function is checked: the part both sides still share.
   */
  compare?: ((obs: O) => unknown) | false;
  difference?: Difference<O>;
  /**
   * Side by side only: a relation the plugin's observation must bear to the reference's
   * (a measurement within a bound of the reference's), checked after expect and compare.
   * With a difference, it is checked when the plugin answered as ours recorded (how our
   * deliberate answer derives from the reference's, e.g. its text with secrets redacted).
   */
  relate?(plugin: O, reference: O): void;
  /** How long the case may take (default 60 s in mocha, 300 s in the kit). */
  timeoutMs?: number;
  /** Side by side, ask the reference first and the plugin after it, never both at once (measurements). */
  sequential?: boolean;
  /** Packages the case's scenarios require from the program besides @pulumi/pulumi (the kit checks them first). */
  needs?: string[];
  /**
   * "plugin": side by side, only the plugin under test is asked (the reference command cannot
   * play the part: e.g. the reference's launcher script resolves the interpreter, the command
   * we run it with does not). Give the reason in `onlyWhy`.
   */
  only?: "plugin";
  onlyWhy?: string;
  /**
   * The case records behaviour that Pulumi's SDK brought in release `since` (the table's answers are
   * those of RECORDED_WITH, sdk-version.ts): a plugin known to come from an earlier release is judged
   * by `before` instead of expect and difference (its release's answer), or, without one, not run.
   */
  sdk?: { since: string; before?(obs: O, ctx: CaseContext): void };
}

/**
 * Thrown by a case's `ask` (or a helper it calls) when the machine lacks something the case
 * needs besides the plugin and the SDK (a Python of another CPython minor, a virtualenv): the
 * kit reports the case `not run` with `needs <what>`, which is not a failure. The mocha suites,
 * whose environment scripts/setup.sh makes complete, fail on it instead.
 */
export class Needs extends Error {
  constructor(readonly what: string) {
    super(`needs ${what}`);
    this.name = "Needs";
  }
}

/** A session and a function that declares its cases (ids made from the session's). */
export function session(s: Session): Session & { case<O>(slug: string, c: Omit<Case<O>, "id" | "session" | "language">): Case<O> } {
  return {
    ...s,
    case<O>(slug: string, c: Omit<Case<O>, "id" | "session" | "language">): Case<O> {
      if (!c.expect && !c.difference) throw new Error(`conformance case ${s.id}/${slug} has neither expect nor difference`);
      return { ...c, id: `${s.id}/${slug}`, session: s, language: s.language };
    },
  };
}

/** A case asking one request and observing its Outcome, the usual shape. */
export function one(send: (c: ProviderClient, ctx: CaseContext) => Promise<Outcome>): (ctx: CaseContext) => Promise<Outcome> {
  return (ctx) => send(ctx.client, ctx);
}

// ---------------------------------------------------------------- assertions for expect / difference

/** Deep equality (own enumerable properties, strict), with the two values shown on failure. */
export function equal(actual: unknown, expected: unknown, what?: string): void {
  assert.deepStrictEqual(actual, expected, what);
}

/** `actual` has at least the given properties, deeply equal. */
export function includes(actual: unknown, expected: Props, what?: string): void {
  assert.ok(actual !== null && typeof actual === "object", `${what ?? "value"}: expected an object, got ${JSON.stringify(actual)}`);
  const picked: Props = {};
  for (const k of Object.keys(expected)) if (k in (actual as Props)) picked[k] = (actual as Props)[k];
  assert.deepStrictEqual(picked, expected, what);
}

export function matches(actual: string, re: RegExp, what?: string): void {
  assert.match(actual, re, what);
}

export function ok(cond: unknown, what: string): void {
  assert.ok(cond, what);
}

export function contains(actual: string, part: string, what?: string): void {
  assert.ok(typeof actual === "string" && actual.includes(part), `${what ?? "text"}: expected ${JSON.stringify(actual)} to include ${JSON.stringify(part)}`);
}

export function notContains(actual: string, part: string, what?: string): void {
  assert.ok(typeof actual === "string" && !actual.includes(part), `${what ?? "text"}: expected ${JSON.stringify(actual)} not to include ${JSON.stringify(part)}`);
}

/** The sentinel the engine sends for a value unknown during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The special-signature key and the secret, asset and resource signatures of the wire format. */
export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17";
export const ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7";
export const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
export const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });

/**
 * Whether a process that ended as `exit` died of `signal`: killed by it, or a wrapper that runs the plugin
 * as its child (a `sh` script without `exec`, as Pulumi's Python launcher) and exits 128 + the signal's
 * number, as shells report a child killed by a signal. Both are the same outcome of the plugin.
 */
export function diedOf(exit: { code: number | null; signal: string | null } | undefined, signal: NodeJS.Signals): boolean {
  if (!exit) return false;
  return exit.signal === signal || (exit.signal === null && exit.code === 128 + os.constants.signals[signal]);
}

/**
 * The program the leader of a launched plugin's process group runs (Linux /proc: the executable's name,
 * which for a `#!/bin/sh` script is the shell's, e.g. `dash`; else its comm), undefined when it is gone.
 */
export function groupLeaderCommand(p: Pick<LaunchedPlugin, "groupPids">): string | undefined {
  for (const pid of p.groupPids()) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp !== pid) continue;
      try {
        return fs.readlinkSync(`/proc/${pid}/exe`).split("/").pop()!.replace(/ \(deleted\)$/, "");
      } catch {
        return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      }
    } catch {
      // ended while we looked
    }
  }
  return undefined;
}

/** Whether `command` (a process's comm) is a POSIX shell. */
export const isShell = (command: string | undefined): boolean => command !== undefined && /^(sh|dash|bash|ash|ksh|mksh|zsh|busybox)$/.test(command);
