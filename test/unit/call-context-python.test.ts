// python-stub/call_context.py's rule for which Python methods get the call
// context, and python-stub/secret_outputs.py, run in the test virtualenv: the
// table of signatures users write (docs/call-context.md).
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { REPO, VENV_PYTHON } from "../helpers/paths.js";

const SCRIPT = String.raw`
import json, sys
sys.path.insert(0, "${REPO}python-stub")
import call_context, secret_outputs
from pulumi import Output

class P:
    def create_plain(self, props): pass
    def create_positional(self, props, ctx): pass
    def create_named(self, props, context=None): pass
    def create_keyword_only(self, props, *, context): pass
    def create_kwargs(self, props, **kwargs): pass
    def create_default(self, props, retries=3): pass
    def create_args(self, props, *args): pass
    def create_two_extra(self, props, a, b): pass
    def diff_positional(self, id, olds, news, ctx): pass
    def diff_named(self, id, olds, news, context): pass
    def diff_too_few(self, id, olds): pass

p = P()
decisions = {}
for name in dir(P):
    if name.startswith(("create_", "diff_")):
        decisions[name] = call_context.how_to_pass(getattr(p, name), name.split("_")[0])

import asyncio
asyncio.set_event_loop(asyncio.new_event_loop())
plain = {"a": [1, {"b": "c"}]}
resolved = secret_outputs.resolve_outputs({"s": Output.secret("pw"), "o": Output.from_input({"x": 1}), "n": [Output.secret(2)]})
json.dump({"decisions": decisions, "same": secret_outputs.resolve_outputs(plain) is plain, "resolved": resolved}, sys.stdout)
`;

describe("python-stub: which methods get the call context, and secret Outputs resolved", function () {
  let doc: any;
  before(function () {
    doc = JSON.parse(execFileSync(VENV_PYTHON, ["-c", SCRIPT], { encoding: "utf8" }));
  });

  it("a named `context`, **kwargs or one required extra positional get it; defaults, *args and others do not", function () {
    expect(doc.decisions).to.deep.equal({
      create_plain: null,
      create_positional: "positional",
      create_named: "keyword",
      create_keyword_only: "keyword",
      create_kwargs: "keyword",
      create_default: null,
      create_args: null,
      create_two_extra: null,
      diff_positional: "positional",
      diff_named: "keyword",
      diff_too_few: null,
    });
  });

  it("values without Outputs are returned as they are; secret Outputs become secret signature dicts", function () {
    expect(doc.same).to.equal(true);
    const secret = (value: unknown) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value });
    expect(doc.resolved).to.deep.equal({ s: secret("pw"), o: { x: 1 }, n: [secret(2)] });
  });
});
