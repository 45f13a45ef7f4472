// Faults, each run against our plugin (asserted) and the reference of the same
// language (recorded): a worker killed mid-request with new requests racing
// its death, a worker stopped past its health check, the engine going away
// with requests in flight, Cancel with requests in flight, timeouts short and
// long, a worker killed between requests. For ours every request must be
// answered within the bound (none lost), every error must name its resource,
// and the plugin must print nothing of its own; each fault adds its own rules.
import { expect } from "chai";
import fs from "node:fs";
import { pythonProvider } from "../helpers/payloads.js";
import type { LaunchOptions, PluginKind } from "../helpers/plugin.js";
import type { Language } from "./cases.js";
import { FaultBench, figures, figuresTable, sleeping, writeFigures, type FaultFigures, type Timed } from "./fault-bench.js";
import { ANSWER_BOUND_MS, CODE, REFERENCE_BOUND_MS } from "./limits.js";
import { fuzzPayloads } from "./suite.js";

interface Run {
  answers: Timed[];
  /** What became of the plugin. */
  outcome: string;
  /** performance.now() when the fault struck; answer times are counted from it. */
  faultAt?: number;
}

interface Fault {
  name: string;
  languages: Language[];
  launch?: (who: PluginKind) => LaunchOptions;
  run: (b: FaultBench) => Promise<Run>;
  /** The fault's own rules for our plugin, beyond the common ones; returns what was broken. */
  rules: (b: FaultBench, r: Run) => string[];
  /** The plugin is meant to end: its in-flight calls fail on the client's side, without a text of ours. */
  ends?: boolean;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a condition no event announces (a process reaped); gives up quietly after `ms`. */
async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!cond() && performance.now() < until) await delay(20);
}
const whereAnnounced = (b: FaultBench, tags: string[]) => b.announced(...tags).then(() => true, () => false);

/** Each rule's failures for the answers of one role. */
function each(r: Run, role: string, rule: (a: Timed) => string | undefined): string[] {
  return r.answers.filter((a) => a.role === role).flatMap((a) => {
    const broken = rule(a);
    return broken ? [`${role} ${a.urn}: ${broken} (code ${a.code}: ${a.details.slice(0, 300)})`] : [];
  });
}

/** Requests sent `every` ms apart from now, each a Create to the good provider. */
function racing(b: FaultBench, prefix: string, n: number, every: number): Promise<Timed>[] {
  return Array.from({ length: n }, (_, i) => delay(i * every).then(() => b.send("racing", "Create", `${prefix}-${i}`, [])));
}

/** Signals our workers, or the reference's one process; returns the pids. */
function signalVictims(b: FaultBench, signal: NodeJS.Signals): number[] {
  // The reference has no workers: its one process is what dies or stops.
  const victims = b.who === "ours" ? b.workerPids() : [b.plugin.child.pid!];
  for (const pid of victims) process.kill(pid, signal);
  return victims;
}

const FAULTS: Fault[] = [
  {
    name: "a worker killed mid-request, with new requests racing its death",
    languages: ["python"],
    run: async (b) => {
      const answers: Timed[] = [];
      let faultAt: number | undefined;
      for (let round = 0; round < 3 && b.alive; round++) {
        const tags = [0, 1, 2, 3].map((i) => `k${round}-${i}`);
        const inFlight = tags.map((t) => b.send("in flight", "Create", t, sleeping(60_000, t)));
        await whereAnnounced(b, tags);
        signalVictims(b, "SIGKILL");
        faultAt ??= performance.now();
        answers.push(...(await Promise.all([...inFlight, ...racing(b, `r${round}`, 16, 1.5)])));
      }
      if (b.alive) answers.push(await b.send("after", "Create", "after", []));
      const raced = answers.filter((a) => a.role === "racing");
      return { answers, faultAt, outcome: `${b.state}; ${raced.filter((a) => a.code === 0).length} of ${raced.length} racing requests served` };
    },
    rules: (b, r) => [
      ...each(r, "in flight", (a) => (a.code === CODE.UNAVAILABLE && /SIGKILL/.test(a.details) ? undefined : "not UNAVAILABLE naming SIGKILL")),
      // A racing request the dead worker never acknowledged goes to a fresh one: none fails.
      ...each(r, "racing", (a) => (a.code === 0 ? undefined : `failed: ${a.details.slice(0, 300)}`)),
      ...each(r, "after", (a) => (a.code === 0 ? undefined : "the next request failed")),
    ],
  },
  {
    name: "a worker stopped (SIGSTOP) past its health check, with new requests racing",
    languages: ["python"],
    launch: () => ({ env: { PULUMI_DYNAMIC_HOST_PING_INTERVAL_MS: "200", PULUMI_DYNAMIC_HOST_PING_TIMEOUT_MS: "1000" } }),
    run: async (b) => {
      const tags = ["s0", "s1"];
      const inFlight = tags.map((t) => b.send("in flight", "Create", t, sleeping(60_000, t)));
      await whereAnnounced(b, tags);
      const stopped = signalVictims(b, "SIGSTOP");
      const faultAt = performance.now();
      const answers = await Promise.all([...inFlight, ...racing(b, "rs", 4, 10)]);
      if (b.alive) answers.push(await b.send("after", "Create", "after", []));
      const gone = stopped.filter((pid) => !b.plugin.groupPids().includes(pid)).length;
      return { answers, faultAt, outcome: `${b.state}; ${gone} of ${stopped.length} stopped processes gone` };
    },
    rules: (b, r) => [
      ...each(r, "in flight", (a) => (a.code === CODE.UNAVAILABLE && /health check/.test(a.details) ? undefined : "not UNAVAILABLE naming the missed health check")),
      ...each(r, "racing", (a) => (a.code === 0 || a.details.includes(a.urn) ? undefined : "failed without naming the resource")),
      ...each(r, "after", (a) => (a.code === 0 ? undefined : "the next request failed")),
      ...(/; (\d+) of \1 stopped/.test(r.outcome) ? [] : [`the stopped worker was not replaced: ${r.outcome}`]),
    ],
  },
  {
    name: "the engine goes away (stdin closes) with requests in flight",
    languages: ["nodejs", "python"],
    launch: () => ({ pipeStdin: true }),
    ends: true,
    run: async (b) => {
      const tags = ["e0", "e1", "e2"];
      const inFlight = tags.map((t) => b.send("in flight", "Create", t, sleeping(60_000, t)));
      await whereAnnounced(b, tags);
      const faultAt = performance.now();
      b.plugin.closeStdin();
      const exit = await Promise.race([b.plugin.exited, delay(b.bound).then(() => undefined)]);
      const ms = Math.round(performance.now() - faultAt);
      const answers = await Promise.all(inFlight);
      const left = b.plugin.groupPids().length;
      return { answers, faultAt, outcome: exit ? `exited in ${ms} ms (code ${exit.code}, signal ${exit.signal}), ${left} processes left` : `still running ${ms} ms later` };
    },
    rules: (b, r) => (/^exited in \d+ ms \(code 0, signal null\), 0 processes left$/.test(r.outcome) ? [] : [`did not exit cleanly: ${r.outcome}`]),
  },
  {
    name: "Cancel with requests in flight",
    languages: ["nodejs", "python"],
    run: async (b) => {
      // Python: two async creates (interruptible) and a synchronous one (which finishes); Node: three async creates.
      const py = b.language === "python";
      const inFlight = [
        b.send(py ? "async" : "in flight", "Create", "c0", sleeping(py ? 60_000 : 1_500, "c0"), { async: py }),
        b.send(py ? "async" : "in flight", "Create", "c1", sleeping(py ? 60_000 : 1_500, "c1"), { async: py }),
        b.send(py ? "sync" : "in flight", "Create", "c2", sleeping(1_500, "c2")),
      ];
      await whereAnnounced(b, ["c0", "c1", "c2"]);
      const faultAt = performance.now();
      const answers = [await b.cancel(), ...(await Promise.all(inFlight))];
      answers.push(await b.send("after", "Create", "after", []));
      return { answers, faultAt, outcome: b.state };
    },
    rules: (b, r) => [
      ...each(r, "Cancel", (a) => (a.code === 0 ? undefined : "Cancel failed")),
      ...each(r, "in flight", (a) => (a.code === 0 ? undefined : "a Node create (not interruptible) did not finish")),
      ...each(r, "async", (a) => (a.code === CODE.CANCELLED && /cancel/.test(a.details) ? undefined : "not CANCELLED")),
      ...each(r, "sync", (a) => (a.code === 0 ? undefined : "a synchronous create did not finish")),
      ...each(r, "after", (a) => (a.code === 0 ? undefined : "the next request failed")),
    ],
  },
  {
    name: "customTimeouts of 1 s, 720 h and 1e9 s on Create, Update and Delete",
    languages: ["nodejs", "python"],
    run: async (b) => {
      const sends = (["Create", "Update", "Delete"] as const).flatMap((method) => [
        b.send("1 s", method, `t1-${method}`, sleeping(4_000), { timeout: 1 }),
        b.send("720 h", method, `t720h-${method}`, sleeping(200), { timeout: 2_592_000 }),
        b.send("1e9 s", method, `t1e9-${method}`, sleeping(200), { timeout: 1e9 }),
      ]);
      return { answers: await Promise.all(sends), outcome: b.state };
    },
    rules: (b, r) => [
      // Not before the deadline: a timer that fired early is as wrong as one that never fires.
      ...each(r, "1 s", (a) => (a.code === CODE.DEADLINE_EXCEEDED && /timeout/.test(a.details) && a.ms >= 950 ? undefined : "not DEADLINE_EXCEEDED at the 1 s deadline")),
      ...each(r, "720 h", (a) => (a.code === 0 ? undefined : "a 720 h timeout did not let a 200 ms operation finish")),
      ...each(r, "1e9 s", (a) => (a.code === 0 ? undefined : "a 1e9 s timeout did not let a 200 ms operation finish")),
    ],
  },
  {
    name: "a worker killed between requests",
    languages: ["python"],
    run: async (b) => {
      const answers = [await b.send("before", "Create", "before", [])];
      const victims = signalVictims(b, "SIGKILL");
      const faultAt = performance.now();
      // Reaped (gone from /proc, not a zombie): the host has seen the exit before the next request comes.
      await waitFor(() => victims.every((pid) => !fs.existsSync(`/proc/${pid}`)), b.bound);
      answers.push(await b.send("after", "Create", "after", []));
      return { answers, faultAt, outcome: b.state };
    },
    rules: (b, r) => each(r, "after", (a) => (a.code === 0 ? undefined : "the next request failed")),
  },
];

/** The rules every fault shares, for our plugin. */
function common(f: Fault, b: FaultBench, r: Run): string[] {
  const out = r.answers.filter((a) => a.lost).map((a) => `${a.role} ${a.urn}: no answer within ${b.bound} ms`);
  if (!f.ends) {
    out.push(...r.answers.filter((a) => !a.lost && a.code !== 0 && a.urn && !a.details.includes(a.urn)).map((a) => `${a.role} ${a.urn}: the error does not name the resource: ${a.details.slice(0, 300)}`));
    if (!b.alive) out.push(`the plugin ended: ${r.outcome}`);
  }
  out.push(...b.noise().map((n) => `printed ${n.slice(0, 300)}`));
  return out;
}

const withReferences = process.env.PULUMI_DYNAMIC_HOST_FUZZ_REFERENCES !== "0";

describe("faults: our plugins answer every request through worker deaths, stops, Cancel, timeouts and the engine leaving", function () {
  const all: FaultFigures[] = [];

  after(function () {
    if (all.length > 0) console.log(`${figuresTable(all)}\n  (written to ${writeFigures(all)})`);
  });

  async function runOn(who: PluginKind, f: Fault, language: Language, bound: number): Promise<{ b: FaultBench; r: Run; broken: string[] }> {
    const payloads = { ...(await fuzzPayloads(language)), async: language === "python" ? pythonProvider("async_echo", "python_providers_fuzz.py") : "" };
    const b = await FaultBench.open(who, language, payloads, bound, f.launch?.(who));
    try {
      const r = await f.run(b);
      all.push(figures(f.name, b, r.answers, r.outcome, r.faultAt));
      return { b, r, broken: who === "ours" ? [...common(f, b, r), ...f.rules(b, r)] : [] };
    } finally {
      await b.close();
    }
  }

  for (const f of FAULTS) {
    for (const language of f.languages) {
      it(`${f.name} [${language}]`, async function () {
        this.timeout(8 * (ANSWER_BOUND_MS + REFERENCE_BOUND_MS) + 60_000);
        const { broken } = await runOn("ours", f, language, ANSWER_BOUND_MS);
        if (withReferences) await runOn("reference", f, language, REFERENCE_BOUND_MS).catch((e) => all.push({ fault: f.name, language, who: "reference", requests: 0, ok: 0, failed: 0, lost: 0, medianMs: 0, maxMs: 0, outcome: `could not run: ${String(e).slice(0, 200)}` }));
        if (broken.length > 0) expect.fail(`${f.name} [${language}]:\n  ${broken.join("\n  ")}`);
      });
    }
  }
});
