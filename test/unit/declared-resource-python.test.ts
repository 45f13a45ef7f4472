// python-stub/helper/pulumi_dynamic_host/declared.py (the wheel's
// pulumi_dynamic_host.declared), run in the test virtualenv under the pulumi
// SDK's mocks: what DeclaredResource registers (its inputs and each named
// output, no __provider, nothing pickled), how its outputs are read, that a
// thousand of them register (the SDK's dynamic Resource pickles one provider
// per resource), and what it refuses.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { REPO, VENV_PYTHON } from "../helpers/paths.js";

const SCRIPT = String.raw`
import json, sys
sys.path.insert(0, "${REPO}python-stub/helper")
import pulumi
from pulumi_dynamic_host.declared import DeclaredResource

registered = []

class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        registered.append({"type": args.typ, "name": args.name, "inputs": dict(args.inputs)})
        start = args.inputs.get("start", 0)
        return [f"counter-{int(start)}", {**args.inputs, "value": start + 1, "ran-by": "mock", "unasked": True}]

    def call(self, args):
        return {}

pulumi.runtime.set_mocks(Mocks(), preview=False)

pickled = []
import dill
_dumps = dill.dumps
dill.dumps = lambda *a, **k: pickled.append(1) or _dumps(*a, **k)

refused = {}
for label, make in {
    "other package": lambda: DeclaredResource("aws:s3:Bucket", "b", {}),
    "__provider": lambda: DeclaredResource("pulumi-python:dynamic:Counter", "p", {"__provider": "x"}),
    "id output": lambda: DeclaredResource("pulumi-python:dynamic:Counter", "i", {}, outputs=["id"]),
    "string outputs": lambda: DeclaredResource("pulumi-python:dynamic:Counter", "s", {}, outputs="value"),
}.items():
    try:
        make()
        refused[label] = None
    except (ValueError, TypeError) as e:
        refused[label] = f"{type(e).__name__}: {e}"

state = {}

@pulumi.runtime.test
def check():
    c = DeclaredResource("pulumi-python:dynamic:Counter", "c", {"start": 1, "label": pulumi.Output.from_input("x")}, outputs=["value", "ran-by"])
    t = DeclaredResource("pulumi-nodejs:dynamic/files:TextFile", "t", {"path": "/tmp/f", "content": c.value.apply(lambda v: str(int(v)))}, outputs=["ranBy"])
    many = [DeclaredResource("pulumi-python:dynamic:Counter", f"n{i}", {"start": i}, outputs=["value"]) for i in range(1000)]
    try:
        c.output("unasked")
    except KeyError as e:
        state["missing"] = str(e)
    state["attribute_is_output"] = isinstance(c.value, pulumi.Output)
    return pulumi.Output.all(c.id, c.value, c["ran-by"], c.output("start"), c.label, t.content, many[-1].value, many[-1].id).apply(
        lambda v: state.__setitem__("got", v)
    )

check()
got, missing, attribute_is_output = state.get("got"), state.get("missing"), state.get("attribute_is_output")
json.dump({
    "got": got,
    "registered": [r for r in registered if r["name"] in ("c", "t")],
    "count": len(registered),
    "none_with_provider": all("__provider" not in r["inputs"] for r in registered),
    "pickled": len(pickled),
    "refused": refused,
    "missing": missing,
    "attribute_is_output": attribute_is_output,
}, sys.stdout)
`;

describe("pulumi_dynamic_host.declared.DeclaredResource, under the pulumi SDK's mocks", function () {
  this.timeout(120_000);
  let doc: any;
  before(function () {
    doc = JSON.parse(execFileSync(VENV_PYTHON, ["-c", SCRIPT], { encoding: "utf8", maxBuffer: 64 << 20 }));
  });

  it("registers the declared type with its inputs and nothing else: no __provider, nothing pickled", function () {
    expect(doc.registered[0]).to.deep.equal({ type: "pulumi-python:dynamic:Counter", name: "c", inputs: { start: 1, label: "x" } });
    expect(doc.registered[1]).to.deep.equal({ type: "pulumi-nodejs:dynamic/files:TextFile", name: "t", inputs: { path: "/tmp/f", content: "2" } });
    expect(doc.none_with_provider).to.equal(true);
    expect(doc.pickled, "dill.dumps calls").to.equal(0);
  });

  it("each named output is an Output of the resource, read as an attribute, by index or with output(name); inputs too", function () {
    expect(doc.attribute_is_output).to.equal(true);
    expect(doc.got).to.deep.equal(["counter-1", 2, "mock", 1, "x", "2", 1000, "counter-999"]);
  });

  it("a name neither an input nor a named output is a KeyError saying how to read it", function () {
    expect(doc.missing).to.equal(`"'unasked' is neither an input of this DeclaredResource nor one of its named outputs (start, label, value, ran-by): add it to outputs=[...] to read it"`);
  });

  it("registers a thousand and more without pickling anything", function () {
    expect(doc.count).to.equal(1002);
  });

  it("refuses another package's token, a __provider, id or urn as outputs, and a string for outputs", function () {
    expect(doc.refused["other package"]).to.match(/^ValueError: DeclaredResource type 'aws:s3:Bucket': a declared dynamic type's token starts with 'pulumi-python:dynamic' or 'pulumi-nodejs:dynamic'/);
    expect(doc.refused.__provider).to.match(/^ValueError: DeclaredResource 'p': inputs hold '__provider'/);
    expect(doc.refused["id output"]).to.equal("ValueError: DeclaredResource 'i': 'id' is the resource's own property, not an output to name");
    expect(doc.refused["string outputs"]).to.equal("TypeError: DeclaredResource 's': outputs is a sequence of names, not the string 'value'");
  });
});
