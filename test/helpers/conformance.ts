// The differential suites as a thin loop over the conformance table
// (src/conformance/cases): each session a describe (its suite path) with our
// plugin and the reference started side by side before it and stopped after it;
// each case an `it` with its title, judged strictly: a case passes when both
// meet its expectation and answer alike, a [difference] when the reference
// answers as recorded for it and ours as recorded for us.
import { expect } from "chai";
import type { Case, Language, Program } from "../../src/conformance/case.js";
import { CASES } from "../../src/conformance/cases/index.js";
import { bySession, judgeOne, judgePair, observe, SessionRun, target, type PluginCommand, type Target } from "../../src/conformance/driver.js";
import { pythonReferenceCommand } from "../../src/conformance/python-reference.js";
import { NODE_PROGRAM, OTHER_PYTHON, OUR_NODE_PLUGIN, OUR_PYTHON_PLUGIN, PYTHON_PROGRAM, REFERENCE_NODE_PLUGIN, SCENARIOS, TEST_VENV, VENV_PYTHON } from "./paths.js";

/** The program the tests run the plugins in: the scenarios in place, the repository's SDK above them. */
export function testProgram(language: Language): Program {
  return language === "nodejs"
    ? { language, programDir: NODE_PROGRAM, scenarioDir: `${SCENARIOS}node`, cleanup() {} }
    : { language, programDir: PYTHON_PROGRAM, scenarioDir: SCENARIOS, python: VENV_PYTHON, otherPython: OTHER_PYTHON, cleanup() {} };
}

/** Our plugin and the reference as the tests run them (test/helpers/plugin.ts starts them the same way). */
export function testCommands(language: Language): { ours: PluginCommand; reference: PluginCommand } {
  if (language === "nodejs") {
    return {
      ours: { label: "ours", argv: [OUR_NODE_PLUGIN] },
      reference: { label: "reference", argv: [process.execPath, REFERENCE_NODE_PLUGIN] },
    };
  }
  // The program's virtualenv, as Pulumi.yaml's runtime.options.virtualenv would give it; the reference is
  // `<python> -u -m pulumi.dynamic` with the interpreter and environment its launcher picks for the launch.
  const env = { PULUMI_RUNTIME_VIRTUALENV: TEST_VENV };
  return {
    ours: { label: "ours", argv: [OUR_PYTHON_PLUGIN], env },
    reference: pythonReferenceCommand("reference", env, VENV_PYTHON),
  };
}

export function testTargets(language: Language): { ours: Target; reference: Target } {
  const program = testProgram(language);
  const { ours, reference } = testCommands(language);
  return { ours: target(ours, program), reference: target(reference, program) };
}

/** Declares, for every session with cases `pick` selects, its describe path and one `it` per case. */
export function describeCases(pick: (c: Case) => boolean): void {
  const picked = CASES.filter(pick);
  if (picked.length === 0) throw new Error("no conformance case selected");
  nest([...bySession(picked)].map(([session, cases]) => ({ path: session.suite, body: () => sessionSuite(session.language, cases) })));
}

/** One describe per distinct path element, in table order, so sessions under one suite share its describe. */
function nest(entries: { path: readonly string[]; body: () => void }[]): void {
  const groups = new Map<string, typeof entries>();
  const order: (string | (() => void))[] = [];
  for (const e of entries) {
    if (e.path.length === 0) order.push(e.body);
    else if (groups.has(e.path[0])) groups.get(e.path[0])!.push(e);
    else {
      groups.set(e.path[0], [e]);
      order.push(e.path[0]);
    }
  }
  for (const item of order) {
    if (typeof item === "function") item();
    else {
      const list = groups.get(item)!;
      describe(item, function () {
        nest(list.map((x) => ({ path: x.path.slice(1), body: x.body })));
      });
    }
  }
}

function sessionSuite(language: Language, cases: Case[]): void {
  const runs: { ours?: SessionRun; reference?: SessionRun } = {};
  before(async function () {
    const t = testTargets(language);
    const [o, r] = await Promise.allSettled([SessionRun.start(cases[0].session, t.ours), SessionRun.start(cases[0].session, t.reference)]);
    if (o.status === "fulfilled") runs.ours = o.value;
    if (r.status === "fulfilled") runs.reference = r.value;
    if (o.status === "rejected") throw o.reason;
    if (r.status === "rejected") throw r.reason;
  });
  after(async function () {
    await Promise.all([runs.ours?.stop(), runs.reference?.stop()]);
  });
  for (const c of cases) {
    it(c.title, async function () {
      if (c.timeoutMs) this.timeout(c.timeoutMs);
      if (c.only === "plugin") {
        const o = await observe(c, runs.ours!, c.timeoutMs);
        const verdict = judgeOne(c, o.obs, o.ctx);
        expect(verdict.status, `${c.id}: ${verdict.message ?? ""}`).to.equal(c.difference ? "deliberate" : "pass");
        if (c.difference) expect(verdict.side).to.equal("ours");
        return;
      }
      let o, r;
      if (c.sequential) {
        r = await observe(c, runs.reference!, c.timeoutMs);
        o = await observe(c, runs.ours!, c.timeoutMs);
      } else [o, r] = await Promise.all([observe(c, runs.ours!, c.timeoutMs), observe(c, runs.reference!, c.timeoutMs)]);
      const verdict = judgePair(c, o, r, true);
      expect(verdict.status, `${c.id}: ${verdict.message ?? ""}`).to.equal(c.difference ? "deliberate" : "pass");
      if (c.difference) expect(verdict.side).to.equal("ours");
    });
  }
}
