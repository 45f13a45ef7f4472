// The error for a pickle of another Python that nothing found can run (src/python-bridge/other-pythons.ts):
// what it says for a minor it looked for, with and without candidates, and for code whose minor it cannot tell.
import { expect } from "chai";
import { driftMessage } from "../../src/python-bridge/other-pythons.js";

const WAYS_OUT_TAIL =
  " or run `pulumi up` once under the program's current Python: every resource the program still declares and whose update runs gets a " +
  "__provider pickled by it, but resources whose diff reports no change keep the old pickle in their outputs, and resources removed from " +
  "the program, replaced resources' old copies, `pulumi refresh` and `pulumi destroy` still need the old one";

describe("python drift: the error when no interpreter can run the pickle", function () {
  const base = { subject: "Read urn:x: the __main__.P provider", dill: "dill ≥ 0.3", mine: "3.11.7 (/p/venv/bin/python, dill 0.4.1)" };
  const py312 = { describe: "Python 3.12", minors: ["3.12"], accepts: () => false };

  it("names every interpreter tried and why each could not serve", function () {
    const text = driftMessage({
      ...base,
      origin: py312,
      search: { minors: ["3.12"], tried: [{ python: "/s/python3.12", problem: "exited with code 127: pyenv: python3.12: command not found" }] },
    });
    expect(text).to.equal(
      "Read urn:x: the __main__.P provider was pickled by Python 3.12 (dill ≥ 0.3), but this program's Python is 3.11.7 (/p/venv/bin/python, dill 0.4.1), " +
        "and bytecode from another Python version cannot run. No Python 3.12 with pulumi and dill was found; tried /s/python3.12: exited with code 127: " +
        "pyenv: python3.12: command not found (the host looks in virtualenvs beside the program's, `uv python find`, python3.12 on PATH and pyenv's versions). " +
        "Either install Python 3.12 with pulumi and dill in one of those places (for example a virtualenv next to the program's), and the host runs this " +
        "resource's provider there;" + WAYS_OUT_TAIL,
    );
  });

  it("nothing to try: says where it looked", function () {
    const text = driftMessage({ ...base, origin: py312, search: { minors: ["3.12"], tried: [] } });
    expect(text).to.include("cannot run. No Python 3.12 with pulumi and dill was found (the host looks in virtualenvs beside the program's,");
  });

  it("code of a minor it cannot tell (3.14 or later): does not pretend to have looked", function () {
    const text = driftMessage({ ...base, origin: { describe: "Python 3.14 or later", accepts: () => false } });
    expect(text).to.equal(
      "Read urn:x: the __main__.P provider was pickled by Python 3.14 or later (dill ≥ 0.3), but this program's Python is 3.11.7 (/p/venv/bin/python, dill 0.4.1), " +
        "and bytecode from another Python version cannot run. The host cannot tell which minor of 3.14 or later that is, so it does not look for one. " +
        "Either run the program with the Python that wrote it;" + WAYS_OUT_TAIL,
    );
  });
});
