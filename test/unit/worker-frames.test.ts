// python-stub/error_shape.py's list of the worker's own files (OUR_FILES), whose frames are left out
// of the tracebacks users see: each names a file that exists, and worker.py and every module it
// loads that stands between the serving loop and the user's code is among them. A name that no
// longer matches a file would let that file's frames into users' tracebacks. And its errors are
// named in tracebacks as they were when worker.py (run as __main__) defined them.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { REPO, VENV_PYTHON } from "../helpers/paths.js";
import { workerModules } from "../helpers/worker-modules.js";

const SCRIPT = String.raw`
import json, sys
sys.path.insert(0, "${REPO}python-stub")
import traceback
import error_shape
shown = {k.__name__: traceback.format_exception_only(k, k.__new__(k))[0].split(":")[0].strip() for k in (error_shape.Cancelled, error_shape.UserError, error_shape.LoadError, error_shape.UnsetValue, error_shape.BadValue)}
json.dump({"ours": list(error_shape.OUR_FILES), "shown": shown}, sys.stdout)
`;

// The modules worker.py loads whose code never runs between the serving loop and the user's code
// (the channel, the threads below the loop, output capture, the where/hint text, the debugger).
const NOT_ON_THE_WAY = ["protocol.py", "threads.py", "output_capture.py", "error_hints.py", "debugging.py", "preloader.py"];

describe("python-stub: the worker's own files, left out of users' tracebacks", function () {
  let ours: string[];
  let shown: Record<string, string>;
  before(function () {
    ({ ours, shown } = JSON.parse(execFileSync(VENV_PYTHON, ["-c", SCRIPT], { encoding: "utf8" })));
  });

  it("each file it names exists", function () {
    for (const f of ours) expect(fs.existsSync(`${REPO}python-stub/${f}`), f).to.equal(true);
  });

  it("names worker.py, every module worker.py loads on the way to the user's code, and our copy of the reference helper", function () {
    const onTheWay = workerModules().filter((f) => !NOT_ON_THE_WAY.includes(f));
    expect(onTheWay).to.include.members(["worker.py", "operations.py", "serving.py", "values.py", "user_code.py", "provider_cache.py"]);
    expect(ours).to.include.members([...onTheWay, "helper/pulumi_dynamic_host/reference.py"]);
  });

  it("its errors, which user code can meet (a BadValue from context.old_inputs), show in a chained traceback by their name alone, as when worker.py defined them", function () {
    expect(shown).to.deep.equal({ Cancelled: "Cancelled", UserError: "UserError", LoadError: "LoadError", UnsetValue: "UnsetValue", BadValue: "BadValue" });
  });
});
