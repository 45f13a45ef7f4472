// The whole-command trace's reading of its instrument (bench/tracer): the
// events one engine command left, turned into the marks of the plugin's life
// and the phases between them. Pure functions; bench/trace-run.ts runs the
// commands, test/bench/trace-phases.test.ts checks the reading.

/** One line of bench/tracer's events file. Times are Unix nanoseconds. */
export interface TraceEvent {
  ev: string;
  t: number;
  role: "cli" | "plugin";
  pid: number;
  /** cli_start, exec: when the tracer's main() began (t is when the line was written). */
  at?: number;
  args?: string[];
  method?: string;
  conn?: number;
  stream?: number;
  signal?: string;
  code?: number;
}

/** The moments of one command, in the order they happen. */
export const MARKS = [
  "start", // the engine command (the CLI process) starts
  "exec", // the plugin process is exec'd
  "port", // its port line is on its stdout
  "configured", // Configure answered
  "firstRequest", // the first resource request (Check, Diff, Create, Read, Update, Delete) sent
  "lastAnswered", // the last resource request answered
  "shutdown", // the engine's shutdown of the plugin begins: its Cancel sent
  "exit", // the plugin process exits
  "pipesClosed", // the plugin's stdout and stderr at end of file (every process holding them has closed them), and it has exited
  "end", // the engine command ends
] as const;
export type Mark = (typeof MARKS)[number];

/** The phases: each from one mark to the next. */
export const PHASES: { id: string; label: string; from: Mark; to: Mark }[] = MARKS.slice(1).map((to, i) => ({
  id: `${MARKS[i]}-${to}`,
  label: `${LABELS()[MARKS[i]]} → ${LABELS()[to]}`,
  from: MARKS[i],
  to,
}));

function LABELS(): Record<Mark, string> {
  return {
    start: "command start",
    exec: "plugin exec'd",
    port: "port line",
    configured: "Configure answered",
    firstRequest: "first request",
    lastAnswered: "last request answered",
    shutdown: "Cancel (shutdown)",
    exit: "plugin exit",
    pipesClosed: "pipes closed",
    end: "command end",
  };
}

export const RESOURCE_METHODS = ["Check", "Diff", "Create", "Read", "Update", "Delete"];

export interface Call {
  method: string;
  /** ms after the command's start */
  startMs: number;
  endMs?: number;
}

export interface CommandTrace {
  /** The CLI's subcommand (preview, up, refresh, destroy). */
  command: string;
  /** ms after the command's start; undefined where the instrument saw no such moment. */
  marks: Partial<Record<Mark, number>>;
  /** ms from each phase's start mark to its end mark; also `whole` (the command), `ready` (exec → Configure answered), `life` (exec → pipes closed). */
  phases: Record<string, number | undefined>;
  /** The engine's SIGINT to the plugin's group, ms after the command's start, if the plugin was still there to get it. */
  sigintMs?: number;
  /** How many plugin processes the engine started during the command. */
  launches: number;
  calls: Call[];
  /** The plugin's exit status. */
  exitCode?: number;
  /** What the instrument itself put on the plugin's path, ms: its own start to the real plugin's start, and its port line after the real one's. */
  instrument?: { spawnMs?: number; portMs?: number };
}

const DEPLOY_COMMANDS = new Set(["preview", "up", "refresh", "destroy"]);

/**
 * The trace of the engine command `command` among `events` (everything one
 * step's program left: its other CLI runs, such as `stack select`, are told
 * apart by their arguments). Throws when the command is not there.
 */
export function traceCommand(events: TraceEvent[], command: string): CommandTrace {
  if (!DEPLOY_COMMANDS.has(command)) throw new Error(`traceCommand: ${command} is not an engine command that runs plugins`);
  // The Automation API puts its flags (--non-interactive) before the subcommand.
  const subcommand = (e: TraceEvent) => e.args?.find((a) => !a.startsWith("-"));
  const isIt = (e: TraceEvent) => subcommand(e) === command;
  const start = events.find((e) => e.ev === "cli_start" && isIt(e));
  if (!start) throw new Error(`the trace has no \`pulumi ${command}\` (CLI runs seen: ${events.filter((e) => e.ev === "cli_start").map(subcommand).join(", ") || "none"})`);
  const end = events.find((e) => e.ev === "cli_end" && e.pid === start.pid);
  const t0 = start.at ?? start.t;
  const tEnd = end?.t ?? Infinity;
  const ms = (t: number) => (t - t0) / 1e6;
  // The command's plugins: those exec'd while it ran. Everything they noted is theirs, also after the
  // command's end (a plugin the engine did not wait for shows as one that outlived the command).
  const pids = [...new Set(events.filter((e) => e.role === "plugin" && e.ev === "exec" && (e.at ?? e.t) >= t0 && e.t <= tEnd).map((e) => e.pid))];
  const during = events.filter((e) => e.role === "plugin" && pids.includes(e.pid));
  const calls: Call[] = [];
  const open = new Map<string, Call>();
  for (const e of during) {
    const key = `${e.pid}/${e.conn}/${e.stream}`;
    if (e.ev === "call_start") {
      const c: Call = { method: (e.method ?? "").split("/").pop() ?? "", startMs: ms(e.t) };
      calls.push(c);
      open.set(key, c);
    } else if (e.ev === "call_end") {
      const c = open.get(key);
      if (c && c.endMs === undefined) c.endMs = ms(e.t);
    }
  }
  const first = (pred: (e: TraceEvent) => boolean) => {
    const e = during.find(pred);
    return e ? ms(e.at ?? e.t) : undefined;
  };
  const last = (pred: (e: TraceEvent) => boolean) => {
    const found = during.filter(pred);
    return found.length ? ms(found[found.length - 1].t) : undefined;
  };
  const resource = calls.filter((c) => RESOURCE_METHODS.includes(c.method));
  const configure = calls.find((c) => c.method === "Configure");
  const cancel = calls.find((c) => c.method === "Cancel");
  const answered = resource.filter((c) => c.endMs !== undefined).map((c) => c.endMs!);
  const stdoutEof = last((e) => e.ev === "stdout_eof");
  const stderrEof = last((e) => e.ev === "stderr_eof");
  const exitAt = last((e) => e.ev === "exit");
  const marks: Partial<Record<Mark, number>> = {
    start: 0,
    exec: first((e) => e.ev === "exec"),
    port: first((e) => e.ev === "port"),
    configured: configure?.endMs,
    firstRequest: resource[0]?.startMs,
    lastAnswered: answered.length ? Math.max(...answered) : undefined,
    shutdown: cancel?.startMs,
    exit: exitAt,
    // What the engine waits for after its SIGINT: the process's exit, then both pipes at end of file (which can come first).
    pipesClosed: stdoutEof !== undefined && stderrEof !== undefined ? Math.max(stdoutEof, stderrEof, exitAt ?? -Infinity) : undefined,
    end: end ? ms(end.t) : undefined,
  };
  const phases: Record<string, number | undefined> = {};
  for (const p of PHASES) {
    const a = marks[p.from];
    const b = marks[p.to];
    phases[p.id] = a !== undefined && b !== undefined ? b - a : undefined;
  }
  phases.whole = marks.end;
  // Two sums the explanation reads: the plugin's start until it can answer, and its whole life as the engine sees it.
  const span = (a: Mark, b: Mark) => (marks[a] !== undefined && marks[b] !== undefined ? marks[b]! - marks[a]! : undefined);
  phases.ready = span("exec", "configured");
  phases.life = span("exec", "pipesClosed");
  const exit = during.filter((e) => e.ev === "exit").pop();
  const childStarted = first((e) => e.ev === "child_started");
  const portOut = first((e) => e.ev === "port_out");
  const instrument = {
    spawnMs: childStarted !== undefined && marks.exec !== undefined ? childStarted - marks.exec : undefined,
    portMs: portOut !== undefined && marks.port !== undefined ? portOut - marks.port : undefined,
  };
  return { command, marks, phases, instrument, sigintMs: first((e) => e.ev === "signal" && e.signal === "interrupt"), launches: pids.length, calls, exitCode: exit?.code };
}

/** Where `trace`'s marks are out of order (each must be at or after the one before), one sentence each. */
export function outOfOrder(trace: CommandTrace): string[] {
  const wrong: string[] = [];
  let prev: { mark: Mark; at: number } | undefined;
  for (const m of MARKS) {
    const at = trace.marks[m];
    if (at === undefined) continue;
    if (prev && at < prev.at) wrong.push(`${m} at ${at.toFixed(1)} ms is before ${prev.mark} at ${prev.at.toFixed(1)} ms`);
    prev = { mark: m, at };
  }
  return wrong;
}
