// A state whose __provider was pickled by value under another CPython minor
// (test/python-drift.test.ts has the details), sent to the Python reference
// (`python -u -m pulumi.dynamic` in the test virtualenv) and to our
// pulumi-resource-pulumi-python, both in the program directory beside which
// scripts/setup.sh keeps a virtualenv of a second Python.
//
// [difference] The reference unpickles the other minor's bytecode and runs it:
// the plugin process dies of SIGSEGV, the request fails UNAVAILABLE and every
// later request of the deployment with it.
// Ours runs that resource in a worker of the second Python, which answers.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { REPO, SCENARIOS } from "../helpers/paths.js";
import { launchPair, type Plugin } from "../helpers/plugin.js";

const OTHER_PYTHON = `${REPO}.cache/test-venv-other/bin/python`;
const URN = "urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::old";

describe("differential (Python): a pickle of another Python minor", function () {
  let ours: Plugin;
  let ref: Plugin;
  before(async function () {
    ({ ours, ref } = await launchPair({ language: "python" }));
  });
  after(async function () {
    await Promise.all([ours?.stop(), ref?.stop()]);
  });

  it("— python_version_drift [difference]: the reference segfaults; ours runs it with that Python", async function () {
    const other = execFileSync(OTHER_PYTHON, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).trim();
    const payload = execFileSync(OTHER_PYTHON, [`${SCENARIOS}python_drift_provider.py`], { cwd: SCENARIOS, encoding: "utf8" }).trim();
    const [mine, theirs] = await Promise.all([ours.client.create({ urn: URN, properties: { __provider: payload } }), ref.client.create({ urn: URN, properties: { __provider: payload } })]);

    // UNAVAILABLE; grpc-js words the dropped connection as the timing falls ("Connection dropped",
    // "read ECONNRESET"); the engine says `error reading from server: EOF` (test/e2e/python-drift.test.ts).
    expect(theirs.code, theirs.details).to.equal(14);
    expect(await ref.exited).to.deep.equal({ code: null, signal: "SIGSEGV" });

    expect(mine.code, mine.details).to.equal(0);
    expect(mine.view.properties).to.include({ python: other, executable: `${REPO}.cache/test-venv-other/bin/python${other}` });
  });
});
