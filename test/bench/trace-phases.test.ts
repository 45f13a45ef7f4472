// The whole-command trace's reading of its instrument's events
// (bench/trace-phases.ts): the command told apart from the Automation API's
// other CLI runs, the marks of the plugin's life placed from the calls going
// past, and the phases between them. Pure: the events are written here.
import { expect } from "chai";
import { MARKS, outOfOrder, PHASES, traceCommand, type TraceEvent } from "../../bench/trace-phases.js";

const MS = 1e6;
// Small, so the arithmetic is exact (real Unix nanoseconds are past 2^53: the reading is good to a microsecond, not a nanosecond).
const T0 = 5_000 * MS;
const at = (ms: number) => T0 + ms * MS;
const cli = (ev: string, ms: number, pid: number, args: string[], extra: Partial<TraceEvent> = {}): TraceEvent => ({ ev, t: at(ms), role: "cli", pid, args, ...extra });
const plug = (ev: string, ms: number, extra: Partial<TraceEvent> = {}): TraceEvent => ({ ev, t: at(ms), role: "plugin", pid: 900, ...extra });
const call = (method: string, stream: number, from: number, to: number): TraceEvent[] => [
  plug("call_start", from, { conn: 1, stream, method: `/pulumirpc.ResourceProvider/${method}` }),
  plug("call_end", to, { conn: 1, stream }),
];

function upEvents(): TraceEvent[] {
  return [
    cli("cli_start", -300, 10, ["version"], { at: at(-300) }),
    cli("cli_end", -290, 10, ["version"]),
    cli("cli_start", -250, 11, ["--non-interactive", "stack", "select"], { at: at(-250) }),
    cli("cli_end", -200, 11, ["--non-interactive", "stack", "select"]),
    cli("cli_start", 0.5, 12, ["--non-interactive", "up", "--yes"], { at: at(0) }),
    plug("exec", 400.2, { at: at(400) }),
    plug("child_started", 401.5),
    plug("port", 520),
    plug("port_out", 521),
    ...call("GetPluginInfo", 1, 525, 526),
    ...call("Configure", 3, 527, 700),
    ...call("Check", 5, 701, 705),
    ...call("Diff", 7, 720, 724),
    ...call("Create", 9, 730, 760),
    ...call("Cancel", 11, 780, 781),
    plug("signal", 783, { signal: "interrupt" }),
    // The pipes reach end of file before the exit is reaped: the plugin is gone only at its exit.
    plug("stdout_eof", 795),
    plug("stderr_eof", 796),
    plug("exit", 800, { code: 0 }),
    plug("done", 801),
    cli("cli_end", 850, 12, ["--non-interactive", "up", "--yes"]),
    cli("cli_start", 900, 13, ["--non-interactive", "stack", "export"], { at: at(900) }),
    cli("cli_end", 950, 13, ["--non-interactive", "stack", "export"]),
  ];
}

describe("bench trace: the phases of one engine command, from the instrument's events", function () {
  it("places every mark of `pulumi up` and measures each phase from one mark to the next", function () {
    const t = traceCommand(upEvents(), "up");
    expect(t.marks).to.deep.equal({ start: 0, exec: 400, port: 520, configured: 700, firstRequest: 701, lastAnswered: 760, shutdown: 780, exit: 800, pipesClosed: 800, end: 850 });
    expect(t.phases).to.deep.equal({
      "start-exec": 400,
      "exec-port": 120,
      "port-configured": 180,
      "configured-firstRequest": 1,
      "firstRequest-lastAnswered": 59,
      "lastAnswered-shutdown": 20,
      "shutdown-exit": 20,
      "exit-pipesClosed": 0,
      "pipesClosed-end": 50,
      whole: 850,
      ready: 300,
      life: 400,
    });
    expect(t.sigintMs).to.equal(783);
    expect(t.instrument).to.deep.equal({ spawnMs: 1.5, portMs: 1 });
    expect(t.launches).to.equal(1);
    expect(t.exitCode).to.equal(0);
    expect(t.calls.map((c) => c.method)).to.deep.equal(["GetPluginInfo", "Configure", "Check", "Diff", "Create", "Cancel"]);
    expect(outOfOrder(t)).to.deep.equal([]);
    expect(PHASES.map((p) => p.from)).to.deep.equal(MARKS.slice(0, -1));
  });

  it("pipes that close after the exit are the last mark before the command's end", function () {
    const events = upEvents().map((e) => (e.ev === "stderr_eof" ? { ...e, t: at(830) } : e));
    const t = traceCommand(events, "up");
    expect(t.marks.pipesClosed).to.equal(830);
    expect(t.phases["exit-pipesClosed"]).to.equal(30);
  });

  it("ignores plugin events outside the command, and says which CLI runs there were when the command is missing", function () {
    const events = [...upEvents(), plug("exec", 2000, { at: at(2000), pid: 901 } as Partial<TraceEvent>)];
    expect(traceCommand(events, "up").launches).to.equal(1);
    expect(() => traceCommand(upEvents(), "refresh")).to.throw(/no `pulumi refresh`.*version, stack, up, stack/);
    expect(() => traceCommand(upEvents(), "stack")).to.throw(/not an engine command/);
  });

  it("a command whose plugin never started has no plugin marks, and the phases say so (undefined), not zero", function () {
    const events = upEvents().filter((e) => e.role === "cli");
    const t = traceCommand(events, "up");
    expect(t.launches).to.equal(0);
    expect(t.marks.exec).to.equal(undefined);
    expect(t.phases["start-exec"]).to.equal(undefined);
    expect(t.phases.whole).to.equal(850);
  });

  it("outOfOrder names a mark that comes before the one it follows", function () {
    const t = traceCommand(upEvents(), "up");
    t.marks.configured = 510;
    expect(outOfOrder(t)).to.deep.equal(["configured at 510.0 ms is before port at 520.0 ms"]);
  });
});
