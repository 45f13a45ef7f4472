// How the kit judges and reports, with small tables of its own run in process
// against our Node plugin from the checkout: a case that needs what the machine
// lacks (it throws Needs, as the version-drift case does without a second Python,
// and the uv cases without a virtualenv) is `not run` with what it needs and is
// no failure; a failed case fails the run; the JUnit report shows each as CI
// reads it (<skipped>, <failure>), escaped.
import { expect } from "chai";
import { equal, Needs, session, type Case } from "../../src/conformance/case.js";
import { toJunit, xmlText } from "../../src/conformance/junit.js";
import { exitCode, summary } from "../../src/conformance/report.js";
import { runConformance } from "../../src/conformance/run.js";
import { testCommands, testProgram } from "../helpers/conformance.js";

const s = session({ id: "kit/verdicts", language: "nodejs", suite: ["the kit's verdicts"] });
const answers = s.case("answers", { title: "GetPluginInfo answers", ask: (ctx) => ctx.client.getPluginInfo(), expect: (o) => equal(o.code, 0) });
const needs = s.case<unknown>("needs", {
  title: "a case that needs <a second Python> & more",
  ask: async () => {
    throw new Needs("a Python of another CPython minor with pulumi and dill; name one with --other-python <path>");
  },
  expect: () => undefined,
});
const fails = s.case("fails", { title: "a case the plugin fails", ask: (ctx) => ctx.client.getPluginInfo(), expect: (o) => equal(o.code, 5, "the status code") });

const run = (table: Case[]) => runConformance({ language: "nodejs", plugin: testCommands("nodejs").ours, program: testProgram("nodejs"), table });

describe("the conformance kit's verdicts and reports", function () {
  this.timeout(120_000);

  it("a case that needs what is absent is `not run: needs …`, and the run still conforms (exit 0)", async function () {
    const report = await run([answers, needs]);
    expect(report.verdicts.map((v) => [v.id, v.status, v.message])).to.deep.equal([
      ["kit/verdicts/answers", "pass", undefined],
      ["kit/verdicts/needs", "not run", "needs a Python of another CPython minor with pulumi and dill; name one with --other-python <path>"],
    ]);
    expect(report.counts).to.deep.equal({ pass: 1, fail: 0, deliberate: 0, notRun: 1 });
    expect(report.ok).to.equal(true);
    expect(exitCode(report)).to.equal(0);
    expect(summary(report)).to.equal(
      "2 cases: 1 pass, 0 deliberate (answered as recorded), 0 fail, 1 not run (each needs something this machine lacks; not a failure) — conforms",
    );
    const xml = toJunit(report);
    expect(xml).to.include('<testsuites name="conformance (nodejs): ours" tests="2" failures="0" errors="0" skipped="1" ');
    expect(xml).to.include(
      '<skipped message="not run: needs a Python of another CPython minor with pulumi and dill; name one with --other-python &lt;path&gt;"/>',
    );
    expect(xml).to.include('name="kit/verdicts/needs  a case that needs &lt;a second Python&gt; &amp; more"');
  });

  it("a failed case fails the run (exit 1), and the JUnit report carries what differed", async function () {
    const report = await run([answers, needs, fails]);
    expect(report.verdicts.map((v) => v.status)).to.deep.equal(["pass", "not run", "fail"]);
    expect(report.ok).to.equal(false);
    expect(exitCode(report)).to.equal(1);
    const xml = toJunit(report);
    expect(xml).to.match(/<testsuite name="kit\/verdicts" tests="3" failures="1" errors="0" skipped="1" time="[\d.]+">/);
    expect(xml).to.match(/<failure message="the status code" type="does-not-conform">the status code\n/);
  });

  it("only cases not run is no conformance either: nothing was shown to pass", async function () {
    const report = await run([needs]);
    expect(report.counts.notRun).to.equal(1);
    expect(report.ok).to.equal(false);
  });

  it("XML text: the five escapes, and characters XML 1.0 cannot hold replaced", function () {
    expect(xmlText(`a<b>&"c'`)).to.equal("a&lt;b&gt;&amp;&quot;c&apos;");
    expect(xmlText("tab\tnl\nesc\u001b nul\u0000 lone\ud800 ok\u{1f600}")).to.equal("tab\tnl\nesc\ufffd nul\ufffd lone\ufffd ok\u{1f600}");
  });
});
