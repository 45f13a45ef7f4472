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
import { compareVersions, RECORDED_WITH } from "../../src/conformance/sdk-version.js";
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

// A case that records what a later release brought (the name answers "v2" from 3.268.0 on; "v1" before).
const versioned = s.case<{ name: string }>("versioned", {
  title: "a case that records an answer a later SDK release brought",
  ask: async (ctx) => ({ name: (await ctx.client.getPluginInfo()).code === 0 ? "v1" : "other" }),
  expect: (o) => equal(o.name, "v2"),
  sdk: { since: "3.268.0", before: (o) => equal(o.name, "v1") },
});
const withSdk = (sdkVersion: string | undefined) => ({ ...testCommands("nodejs").ours, sdkVersion });
const runAs = (sdkVersion: string | undefined, table: Case[]) =>
  runConformance({ language: "nodejs", plugin: withSdk(sdkVersion), program: testProgram("nodejs"), table });

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

  it("a case recorded at a later SDK release is judged by what earlier releases answer, for a plugin known to come from one", async function () {
    const old = await runAs("3.248.0", [versioned]);
    expect(old.verdicts.map((v) => [v.status, v.message])).to.deep.equal([
      ["pass", "answered as releases before @pulumi/pulumi 3.268.0 do (the plugin is from 3.248.0); @pulumi/pulumi 3.268.0 and later answer as recorded"],
    ]);
    expect(old.recordedWith).to.equal(RECORDED_WITH.nodejs);
    expect(old.pluginSdk).to.equal("3.248.0");
    // The same answer from a plugin of 3.268.0 or later, or of no known release, is judged as recorded: it fails.
    for (const v of ["3.268.0", "3.270.0"]) expect((await runAs(v, [versioned])).verdicts[0].status, v).to.equal("fail");
    const unknown = (await runAs(undefined, [versioned])).verdicts[0];
    expect(unknown.status).to.equal("fail");
    expect(unknown.message).to.include("(this case records the answer of @pulumi/pulumi 3.268.0 and later; a plugin of an earlier release answers otherwise: name its release with --sdk-version)");
    // Without a recorded earlier answer, the case is not run for an older plugin.
    const noBefore = s.case<{ name: string }>("versioned-only", { title: "t", ask: versioned.ask, expect: versioned.expect, sdk: { since: "3.268.0" } });
    expect((await runAs("3.248.0", [noBefore])).verdicts[0]).to.include({ status: "not run" });
  });

  it("versions compare as releases: numerically, a pre-release before its release", function () {
    expect(compareVersions("3.248.0", "3.268.0")).to.equal(-1);
    expect(compareVersions("3.1000.0", "3.268.0")).to.equal(1);
    expect(compareVersions("3.268.0", "3.268.0")).to.equal(0);
    expect(compareVersions("3.268.0-alpha.1", "3.268.0")).to.equal(-1);
  });

  it("a plugin that does not start is reported once, with its stderr, and no case is run (exit 1)", async function () {
    const broken = { label: "broken", argv: ["/bin/sh", "-c", "echo 'no such module: plugin.js' >&2; exit 3", "sh"] };
    const report = await runConformance({ language: "nodejs", plugin: broken, program: testProgram("nodejs"), table: [answers, fails, versioned] });
    expect(report.verdicts).to.have.length(1);
    expect(report.verdicts[0]).to.include({ id: "nodejs/start", status: "fail" });
    expect(report.verdicts[0].message).to.match(/^the plugin did not start, so no case was run: broken exited before the port line; stderr=.*no such module: plugin\.js/);
    expect(exitCode(report)).to.equal(1);
  });

  it("XML text: the five escapes, and characters XML 1.0 cannot hold replaced", function () {
    expect(xmlText(`a<b>&"c'`)).to.equal("a&lt;b&gt;&amp;&quot;c&apos;");
    expect(xmlText("tab\tnl\nesc\u001b nul\u0000 lone\ud800 ok\u{1f600}")).to.equal("tab\tnl\nesc\ufffd nul\ufffd lone\ufffd ok\u{1f600}");
  });
});
