"""The end-to-end program of many dynamic resources in one Python program
(one provider, every language): run by test/e2e/declared-scale.test.ts as
program.py is (same settings, one JSON document on stdout), with program.py's
driver, in a project directory of its own whose Pulumi.yaml declares
`pulumi-python:dynamic:Counter: counters:CounterProvider` (a copy of
test/e2e/declared-project/counters.py beside it).

Two ways to make N counters:
- "declared": the host's DeclaredResource helper registers the declared type
  with plain inputs; nothing is serialized.
- "pickled": the way Pulumi's docs write a dynamic provider, a provider class
  in this __main__ passed to dynamic.Resource; the SDK pickles it into every
  resource's __provider (and its serializer nests one wrapper per call).

Each step records its wall time, its summary or error, and what the state
holds after it (counts, any __provider, one resource's outputs), not its
events: at N = 1,000 they would be most of the output.

usage: python declared_scale.py scale <settings JSON>
settings: program.py's, plus "project_dir", "n", "mode" ("declared" | "pickled").
"""
import os
import sys
import time

import program  # noqa: E402 - the driver (and fd 1 kept for the result)
import pulumi  # noqa: E402
from pulumi.dynamic import CreateResult, Resource, ResourceProvider  # noqa: E402

TYPE = "pulumi-python:dynamic:Counter"


class PickledCounter(ResourceProvider):
    """The same counter, defined in the program: pickled by value into each resource."""

    def create(self, props):
        return CreateResult(f"counter-{int(props['start'])}", {"start": props["start"], "value": props["start"]})


class Counter(Resource, module="", name="Counter"):
    def __init__(self, name, start):
        super().__init__(PickledCounter(), name, {"start": start, "value": None})


def counters_program(n, mode):
    def run():
        if mode == "declared":
            from pulumi_dynamic_host.declared import DeclaredResource

            for i in range(n):
                DeclaredResource(TYPE, f"c{i}", {"start": i}, outputs=["value", "ranBy"])
        else:
            for i in range(n):
                Counter(f"c{i}", i)

    return run


def state_facts(stack):
    resources = [r for r in (stack.export_stack().deployment or {}).get("resources") or [] if r["type"] == TYPE]
    with_provider = [r for r in resources if "__provider" in (r.get("inputs") or {}) or "__provider" in (r.get("outputs") or {})]
    sample = next((r for r in resources if r["urn"].endswith("::c1")), None)
    return {
        "count": len(resources),
        "with_provider": len(with_provider),
        "sample": {"inputs": sample.get("inputs"), "outputs": sample.get("outputs")} if sample else None,
    }


def timed(stack, name, operation, **kwargs):
    record = {"name": name}
    started = time.monotonic()
    try:
        result = operation(**kwargs)
        record["summary"] = program.plain(result.summary)
    except Exception as e:  # noqa: BLE001 - recorded for the test to assert on
        message = str(e)
        record["error"] = {"type": type(e).__name__, "message": message[-4000:]}
    record["seconds"] = round(time.monotonic() - started, 3)
    record["events"] = []
    record["resources"] = {}
    record["state"] = state_facts(stack)
    return record


def scale(settings):
    sys.path.append(settings["helper_dir"])
    work_dir = settings["project_dir"]
    stack = program.make_stack(settings, "scale", counters_program(int(settings["n"]), settings["mode"]), work_dir=work_dir)
    with open(os.path.join(work_dir, "Pulumi.yaml"), "a") as f:
        f.write(f"pulumi-dynamic-host:\n  providers:\n    {TYPE}: counters:CounterProvider\n")
    steps = [timed(stack, "up", stack.up)]
    if "error" not in steps[0]:
        steps.append(timed(stack, "up-again", stack.up))
    steps.append(timed(stack, "destroy", stack.destroy))
    return steps


if __name__ == "__main__":
    program.SCENARIOS["scale"] = scale
    program.main()
