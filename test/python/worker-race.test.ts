// A Python worker killed while requests keep arriving, against our
// pulumi-resource-pulumi-python started like the engine starts it. Requests
// the dead worker had already read fail naming their resource; requests sent
// after its death must reach a fresh worker and succeed, whether the host has
// noticed the death yet (it routes them elsewhere) or not (its write to the
// dead worker fails, and the request is sent again, once, to a live worker).
//
// The race is driven by events, never sleeps: the test waits until the worker
// is inside its in-flight requests (their stderr markers), kills it, waits
// until the kernel has closed the worker's files (it is a zombie: from then on
// a write to its channel fails), and only then starts a burst of requests in
// one tick without awaiting any. In even rounds the host is stopped (SIGSTOP)
// from before the kill until the burst sits in its socket, so it meets the
// burst and the worker's death in the same wake-up, in whatever order the
// kernel reports them; in odd rounds it runs throughout and usually learns of
// the death first. Both must give the same answers.
//
// "After its death", not "after the kill": SIGKILL takes a few milliseconds to
// close a many-threaded worker's files on a busy machine, and a request the
// host writes meanwhile is accepted by the socket. The worker acknowledges each
// request it takes before running it ($/ack, src/python-bridge/channel/connection.ts),
// so such a request, never acknowledged, goes to a fresh worker too: the
// second case (issue 34's race) sends its burst right after the kill, or into
// the socket of a worker stopped first, so that it lies there unread when the
// worker dies.
import { expect } from "chai";
import fs from "node:fs";
import { pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";
import { environOf, parentOf, processState, unixReceiveQueue } from "../helpers/proc.js";
import type { Outcome } from "../helpers/client.js";

const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const UNAVAILABLE = 14;
/** No answer may take longer than this: a hung request fails the test instead of stalling it. */
const ANSWER_BOUND_MS = 30_000;
const ROUNDS = 10;
const BURST = 50;
const IN_FLIGHT = 3;
/** The race of issue 34: 4 creates in flight when the worker is killed, 24 sent at once around its death. */
const RACE_ROUNDS = 6;
const RACE_IN_FLIGHT = 4;
const RACE_BURST = 24;

/** The worker processes of a plugin: its process group less the host itself. */
function workerPids(p: Plugin): number[] {
  return p.groupPids().filter((pid) => pid !== p.child.pid);
}

/**
 * Blocks (synchronously, so that nothing else runs in between) until every
 * thread of `pid` has exited: a zombie with no other thread left, or reaped.
 * Its files, the channel included, are closed then (a zombie leader alone is
 * not enough: its other threads may still hold them).
 */
function awaitDeathSync(pid: number, ms = 10_000): void {
  const until = Date.now() + ms;
  for (;;) {
    const state = processState(pid);
    let threads = 0;
    try {
      threads = fs.readdirSync(`/proc/${pid}/task`).length;
    } catch {
      return;
    }
    if (state === undefined || ((state === "Z" || state === "X") && threads <= 1)) return;
    if (Date.now() > until) throw new Error(`worker ${pid} still in state ${state} with ${threads} threads ${ms} ms after SIGKILL`);
  }
}

/** The bytes waiting in the receive queue of the host's accepted TCP connection(s) on `port`. */
function hostReceiveQueue(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  let queued = 0;
  for (const line of fs.readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local rem st tx:rx …; 01 = ESTABLISHED
    if (f[1] === local && f[3] === "01") queued += parseInt(f[4].split(":")[1], 16);
  }
  return queued;
}

/**
 * Resolves once the requests just started have reached the stopped host's
 * socket: its receive queue holds bytes and stops growing while this process's
 * event loop (where the gRPC client writes them) turns over 20 times.
 */
async function burstQueued(port: number): Promise<void> {
  let last = -1;
  let still = 0;
  const until = Date.now() + 10_000;
  while (still < 20) {
    if (Date.now() > until) throw new Error(`the burst did not reach the host's socket (receive queue ${last})`);
    await new Promise((r) => setImmediate(r));
    const now = hostReceiveQueue(port);
    still = now > 0 && now === last ? still + 1 : 0;
    last = now;
  }
}

/**
 * Resolves once the receive queue of `pid`'s channel (fd 3) holds bytes and has
 * not changed for 200 ms: a stopped worker's socket, holding what the host wrote to it.
 */
async function queueSettled(pid: number, what: string): Promise<void> {
  const until = Date.now() + 10_000;
  let last = -1;
  let since = Date.now();
  for (;;) {
    const now = unixReceiveQueue(pid, 3) ?? 0;
    if (now !== last) (last = now), (since = Date.now());
    else if (now > 0 && Date.now() - since >= 200) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what} (receive queue ${now})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `answer`, or a failure naming `what` if it does not come within the bound. */
function bounded(answer: Promise<Outcome>, what: string): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Outcome>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ANSWER_BOUND_MS} ms`)), ANSWER_BOUND_MS);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** Polls `cond` (for a state no output announces, such as a process being reaped). */
async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function count(haystack: string, needle: string, from = 0): number {
  let n = 0;
  for (let i = haystack.indexOf(needle, from); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

describe("python worker killed while requests race it", function () {
  this.timeout(300_000);
  let p: Plugin;

  before(async function () {
    p = await Plugin.launch("ours", { language: "python", env: { PULUMI_DYNAMIC_HOST_PYTHON_WORKERS: "2" } });
    // As the engine: Configure first, so every fresh worker is configured before it serves.
    expect((await p.client.configure({})).code).to.equal(0);
  });
  after(async function () {
    if (!p) return;
    const group = () => p.groupPids();
    await p.stop();
    expect(group(), "processes left in the plugin's group").to.deep.equal([]);
  });

  type Sent = { name: string; answer: Promise<Outcome> }[];

  /** `n` creates named `<prefix><i>` of the scripted provider: "hang" ones never answer; "echo" ones answer their `n`. */
  const sendCreates = (scripted: string, prefix: string, n: number, act: "hang" | "echo"): Sent =>
    Array.from({ length: n }, (_, i) => {
      const name = `${prefix}${i}`;
      const properties = act === "hang" ? { __provider: scripted, act } : { __provider: scripted, act, n: i };
      return { name, answer: bounded(p.client.create({ urn: urn(name), properties }), name) };
    });

  /** `n` hanging creates, once all are running inside the worker. */
  async function hangingCreates(scripted: string, prefix: string, n: number, round: number): Promise<Sent> {
    const mark = p.stderr.length;
    const sent = sendCreates(scripted, prefix, n, "hang");
    await p.until(() => count(p.stderr, "hanging in create", mark) >= n, `round ${round}: ${n} creates inside the worker`);
    return sent;
  }

  /** Every echo create succeeded with its own answer. */
  async function expectServed(burst: Sent, round: number): Promise<void> {
    for (const [i, a] of (await Promise.all(burst.map((b) => b.answer))).entries()) {
      expect(a.code, `round ${round}, ${burst[i].name}: ${a.details}`).to.equal(0);
      expect(a.view.properties.n).to.equal(i);
    }
  }

  /** Every in-flight create failed UNAVAILABLE, naming its URN and the killed worker. */
  async function expectKilledWith(inFlight: Sent, victim: number, round: number): Promise<void> {
    for (const { name, answer } of inFlight) {
      const a = await answer;
      expect(a.code, `round ${round}, ${name}: ${a.details}`).to.equal(UNAVAILABLE);
      expect(a.details).to.match(new RegExp(`^Create ${urn(name)}: the Python worker running it \\(pid ${victim}\\) was killed by SIGKILL`));
    }
  }

  it(`${ROUNDS} rounds: kill the worker under ${IN_FLIGHT} requests, then ${BURST} creates in one tick once it is dead (the host stopped meanwhile in every other round); in-flight ones fail naming their URN, every later one succeeds`, async function () {
    const scripted = pythonProvider("scripted");
    const warm = await p.client.create({ urn: urn("warm"), properties: { __provider: scripted, act: "echo" } });
    expect(warm.code, warm.details).to.equal(0);
    const killed: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Requests the worker has read and is running when it is killed.
      const inFlight = await hangingCreates(scripted, `r${round}-inflight`, IN_FLIGHT, round);
      const workers = workerPids(p);
      expect(workers, `round ${round}: the worker processes`).to.have.length(1);
      const [victim] = workers;
      const launchers = environOf(victim).includes("PULUMI_DYNAMIC_HOST_PRESTARTED=1");
      const frozen = round % 2 === 0;
      const host = p.child.pid!;
      let burst: Sent = [];
      if (frozen) process.kill(host, "SIGSTOP");
      try {
        process.kill(victim, "SIGKILL");
        awaitDeathSync(victim);
        killed.push(victim);
        // Sent after the worker's death, all in this tick, none awaited before the last is sent.
        burst = sendCreates(scripted, `r${round}-after`, BURST, "echo");
        if (frozen) await burstQueued(p.port);
      } finally {
        if (frozen) process.kill(host, "SIGCONT");
      }
      await expectServed(burst, round);
      await expectKilledWith(inFlight, victim, round);
      // The killed worker is gone and one fresh worker serves. A worker the host spawned is reaped;
      // the first one, which the launcher started beside the host (src/python-bridge/worker/prestarted.ts),
      // is the host's child without being its spawn, so it stays a zombie until the host exits.
      await waitFor(() => processState(victim) === undefined || (launchers && processState(victim) === "Z" && parentOf(victim) === host), `round ${round}: worker ${victim} to be reaped`);
      expect(workerPids(p)).to.have.length(1).and.not.include(victim);
    }
    expect(new Set(killed).size).to.equal(ROUNDS);
    expect(p.userStdout).to.deep.equal([]);
  });

  it(`${RACE_ROUNDS} rounds: the worker is SIGKILLed with ${RACE_IN_FLIGHT} creates in flight and ${RACE_BURST} more sent at once, lying unread in its socket (it was stopped first: even rounds) or racing its death (odd rounds); none of the ${RACE_BURST} fails, and the ${RACE_IN_FLIGHT} in flight fail naming their URN and are not run again`, async function () {
    const scripted = pythonProvider("scripted");
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const mark = p.stderr.length;
      const inFlight = await hangingCreates(scripted, `race${round}-inflight`, RACE_IN_FLIGHT, round);
      const [victim] = workerPids(p);
      const stopped = round % 2 === 0;
      const send = () => sendCreates(scripted, `race${round}-burst`, RACE_BURST, "echo");
      let burst: Sent;
      if (stopped) {
        // The host writes the burst to the worker, which reads none of it; then the worker dies.
        process.kill(victim, "SIGSTOP");
        burst = send();
        await queueSettled(victim, `round ${round}: the burst to lie in the stopped worker's socket`);
        process.kill(victim, "SIGKILL");
      } else {
        process.kill(victim, "SIGKILL");
        burst = send();
      }
      await expectServed(burst, round);
      await expectKilledWith(inFlight, victim, round);
      // Each in-flight create ran once: sent again, it would hang in the fresh worker (and never be answered).
      expect(count(p.stderr, "hanging in create", mark), `round ${round}`).to.equal(RACE_IN_FLIGHT);
      await waitFor(() => workerPids(p).length === 1 && !workerPids(p).includes(victim), `round ${round}: one fresh worker`);
    }
  });

  it("a worker whose own child process keeps its stderr open: its request fails when the worker dies, not when that child ends", async function () {
    const mark = p.stderr.length;
    const name = "spawner";
    const answer = bounded(p.client.create({ urn: urn(name), properties: { __provider: pythonProvider("spawner", "python_fault_providers.py"), seconds: 600 } }), name);
    await p.until(() => /spawned \d+ from create/.test(p.stderr.slice(mark)), "the create to start its child process");
    const sleeper = Number(/spawned (\d+) from create/.exec(p.stderr.slice(mark))![1]);
    const worker = parentOf(sleeper)!;
    expect(workerPids(p)).to.include(worker);
    // The worker's channel is not handed down to processes its user code starts; its stdio is.
    const held = Object.fromEntries(fs.readdirSync(`/proc/${sleeper}/fd`).map((fd) => [fd, fs.readlinkSync(`/proc/${sleeper}/fd/${fd}`)]));
    expect(held, "the child's files").to.not.have.property("3");
    expect(held["2"], "the child's stderr").to.match(/^(socket|pipe):/);
    try {
      process.kill(worker, "SIGKILL");
      const a = await answer;
      // The child still runs, holding the worker's stderr: the answer did not wait for it.
      expect(processState(sleeper), "the worker's child").to.be.oneOf(["S", "R"]);
      expect(a.code, a.details).to.equal(UNAVAILABLE);
      expect(a.details).to.match(new RegExp(`^Create ${urn(name)}: the Python worker running it \\(pid ${worker}\\) was killed by SIGKILL; its last stderr lines:\n`));
      expect(a.details).to.contain(`spawned ${sleeper} from create`);
      const next = await p.client.create({ urn: urn("after-spawner"), properties: { __provider: pythonProvider("scripted"), act: "echo" } });
      expect(next.code, next.details).to.equal(0);
    } finally {
      process.kill(sleeper, "SIGKILL");
    }
  });
});
