// Telling apart the CPython minors that dill pickles code for with one layout
// (src/python-bridge/pickle/bytecode-versions.ts), on real bytecode: the code objects
// of stdlib modules compiled by the test virtualenv's Python and by the second
// Python scripts/setup.sh provides, and the provider pickles each one's SDK writes.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { bytecodeFits, KNOWN_MINORS } from "../../src/python-bridge/pickle/bytecode-versions.js";
import { inspectPayload } from "../../src/python-bridge/pickle/pickle-inspect.js";
import { REPO, SCENARIOS, VENV_PYTHON } from "../helpers/paths.js";

const PYTHONS = [VENV_PYTHON, `${REPO}.cache/test-venv-other/bin/python`];

/** co_code of every code object in a few stdlib modules, as `python` compiles them. */
const DUMP = [
  "import importlib, json, sys, types",
  "out = []",
  "def walk(c):",
  "    out.append(c.co_code.hex())",
  "    for k in c.co_consts:",
  "        if isinstance(k, types.CodeType): walk(k)",
  "for m in ['json.decoder', 'argparse', 'dataclasses', 'typing']:",
  "    f = importlib.import_module(m).__file__",
  "    walk(compile(open(f).read(), f, 'exec'))",
  "print(json.dumps({'minor': '%d.%d' % sys.version_info[:2], 'codes': out}))",
].join("\n");

describe("bytecode versions (which CPython compiled a pickled code object)", function () {
  for (const python of PYTHONS) {
    it(`${python.slice(REPO.length)}: every code object fits its own minor, and the module's code as a whole fits no other`, function () {
      const { minor, codes } = JSON.parse(execFileSync(python, ["-c", DUMP], { encoding: "utf8" })) as { minor: string; codes: string[] };
      expect(KNOWN_MINORS).to.include(minor);
      const bytes = codes.map((h) => Buffer.from(h, "hex"));
      expect(bytes.filter((b) => !bytecodeFits(minor, b)).length).to.equal(0);
      for (const m of KNOWN_MINORS.filter((m) => m !== minor)) {
        expect(bytes.every((b) => bytecodeFits(m, b)), `all of ${minor}'s code fits ${m}`).to.equal(false);
      }
    });

    it(`${python.slice(REPO.length)}: a provider pickled by its SDK is said to be of that minor alone`, function () {
      const minor = execFileSync(python, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).trim();
      const payload = execFileSync(python, [`${SCENARIOS}python_drift_provider.py`], { cwd: SCENARIOS, encoding: "utf8" }).trim();
      const inspection = inspectPayload(payload);
      expect(inspection.ok).to.equal(true);
      const code = inspection.ok ? inspection.facts.code : undefined;
      expect(code?.describe).to.equal(`Python ${minor}`);
      expect(code?.minors).to.deep.equal([minor]);
      for (const m of ["3.10", "3.11", "3.12", "3.13"]) expect(code?.accepts(m.split(".").map(Number) as [number, number]), m).to.equal(m === minor);
    });
  }
});
