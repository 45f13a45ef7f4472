// Deadlines of any length, against a fake clock and timer queue: no real
// waiting, and every delay handed to the timers is recorded.
import { expect } from "chai";
import { armDeadline, MAX_TIMER_MS, systemScheduler, type Scheduler } from "../../src/host/limits/deadline.js";
import { workerSettings } from "../../src/python-bridge/worker/worker-settings.js";

/** A clock that moves only when told, and the timers due on it. */
class FakeScheduler implements Scheduler {
  time = 1_000;
  delays: number[] = [];
  private timers = new Map<number, { due: number; fn: () => void }>();
  private next = 1;

  now(): number {
    return this.time;
  }
  set(fn: () => void, ms: number): unknown {
    expect(ms, "a delay Node would overflow").to.be.at.most(MAX_TIMER_MS).and.above(0);
    this.delays.push(ms);
    const id = this.next++;
    this.timers.set(id, { due: this.time + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  get pending(): number {
    return this.timers.size;
  }
  /** Moves the clock to `to`, firing each timer due by then in order (a timer may add another). */
  advanceTo(to: number): void {
    for (;;) {
      let first: [number, { due: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].due <= to && (!first || entry[1].due < first[1].due)) first = entry;
      if (!first) break;
      this.timers.delete(first[0]);
      this.time = Math.max(this.time, first[1].due);
      first[1].fn();
    }
    this.time = to;
  }
}

const DAY = 24 * 3600 * 1000;

describe("deadline: a time limit of any length", function () {
  for (const [what, ms] of [
    ["720h (customTimeouts of 30 days)", 720 * 3600 * 1000],
    ["2^31 ms, one past the longest timer", 2 ** 31],
    ["1e9 s (≈ 31.7 years)", 1e12],
  ] as const) {
    it(`${what}: fires once, exactly at the deadline, never before, in steps Node can time`, function () {
      const clock = new FakeScheduler();
      let fired = 0;
      armDeadline(ms, () => fired++, clock);
      clock.advanceTo(1_000 + ms - 1);
      expect(fired, "fired early").to.equal(0);
      expect(clock.pending).to.equal(1);
      clock.advanceTo(1_000 + ms);
      expect(fired).to.equal(1);
      expect(clock.pending).to.equal(0);
      expect(clock.delays.length).to.equal(Math.ceil(ms / MAX_TIMER_MS));
      clock.advanceTo(1_000 + ms + 10 * DAY);
      expect(fired).to.equal(1);
    });
  }

  it("a timer that fires late re-arms for what is left, by the clock, not by the steps taken", function () {
    const clock = new FakeScheduler();
    let firedAt = -1;
    armDeadline(3 * MAX_TIMER_MS, () => (firedAt = clock.now()), clock);
    // The machine slept: the first step's timer runs a whole step late.
    clock.time += 2 * MAX_TIMER_MS;
    clock.advanceTo(clock.time);
    expect(clock.delays).to.deep.equal([MAX_TIMER_MS, MAX_TIMER_MS]);
    clock.advanceTo(1_000 + 3 * MAX_TIMER_MS);
    expect(firedAt).to.equal(1_000 + 3 * MAX_TIMER_MS);
  });

  it("disarmed before the deadline, it never fires and leaves no timer; disarming twice or after firing is harmless", function () {
    const clock = new FakeScheduler();
    let fired = 0;
    const disarm = armDeadline(40 * DAY, () => fired++, clock);
    clock.advanceTo(1_000 + 30 * DAY);
    disarm();
    disarm();
    expect(clock.pending).to.equal(0);
    clock.advanceTo(1_000 + 100 * DAY);
    expect(fired).to.equal(0);
    const disarmLater = armDeadline(5, () => fired++, clock);
    clock.advanceTo(clock.time + 5);
    expect(fired).to.equal(1);
    disarmLater();
  });

  it("short deadlines are one timer of their own length", function () {
    const clock = new FakeScheduler();
    let fired = 0;
    armDeadline(500, () => fired++, clock);
    expect(clock.delays).to.deep.equal([500]);
    clock.advanceTo(1_500);
    expect(fired).to.equal(1);
  });

  it("no limit: 0, negative, NaN and infinite delays arm nothing", function () {
    const clock = new FakeScheduler();
    for (const ms of [0, -5, NaN, Infinity, -Infinity]) armDeadline(ms, () => expect.fail(`fired for ${ms}`), clock);
    expect(clock.pending).to.equal(0);
  });

  it("with the real timers, a deadline past 2^31 ms raises no TimeoutOverflowWarning and does not fire", async function () {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      let fired = false;
      const disarm = armDeadline(2_592_000 * 1000, () => (fired = true), systemScheduler);
      // An overflowed delay becomes 1 ms, and timers armed after it with a longer delay run after it:
      // once this 5 ms one has run, an overflowed step would have fired (and its warning been emitted).
      await new Promise((r) => setTimeout(r, 5));
      disarm();
      expect(fired).to.equal(false);
      expect(warnings.map((w) => w.name)).to.not.include("TimeoutOverflowWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("the Python workers' health-check intervals from the environment are held to what one timer can wait", function () {
    const set = workerSettings({ PULUMI_DYNAMIC_HOST_PING_INTERVAL_MS: "1e12", PULUMI_DYNAMIC_HOST_PING_TIMEOUT_MS: String(2 ** 31) });
    expect(set.pingIntervalMs).to.equal(MAX_TIMER_MS);
    expect(set.pingTimeoutMs).to.equal(MAX_TIMER_MS);
    expect(workerSettings({ PULUMI_DYNAMIC_HOST_PING_INTERVAL_MS: "250" }).pingIntervalMs).to.equal(250);
  });
});
