"""The benchmark's Python dynamic providers that src/conformance/scenarios/python_providers.py
does not have. Run as a script in the test virtualenv, it prints
{name: __provider payload} as JSON for the names given, each made by the SDK's
own pulumi.dynamic.dynamic.serialize_provider; classes defined here live in
__main__ and are pickled by value, as in a program.

Names: `crud`, `echo`, and `distinct:<a>-<b>` for the distinct providers a..b-1
(instances of one class, each with its own `n`: a distinct pickle for each).
"""
import json
import pickle
import sys

from pulumi.dynamic import CheckResult, CreateResult, DiffResult, ResourceProvider, UpdateResult
from pulumi.dynamic.dynamic import serialize_provider


class Crud(ResourceProvider):
    """Every resource method, each answering at once: the check → create → diff → update → delete cycle."""

    def check(self, olds, news):
        return CheckResult(news, [])

    def diff(self, id, olds, news):
        return DiffResult(changes=olds.get("n") != news.get("n"))

    def create(self, props):
        return CreateResult(f"crud-{props.get('n')}", {"n": props.get("n")})

    def update(self, id, olds, news):
        return UpdateResult({"n": news.get("n")})

    def delete(self, id, props):
        pass


class Echo(ResourceProvider):
    """Echoes the whole property bag back: the payload-size workload moves it both ways."""

    def create(self, props):
        return CreateResult("echo", dict(props))


class Distinct(ResourceProvider):
    def __init__(self, n):
        self.n = n

    def create(self, props):
        return CreateResult(f"distinct-{self.n}", {"n": self.n})


PROVIDERS = {"crud": Crud, "echo": Echo}


def serialize(provider):
    """
    serialize_provider, leaving pickle as it found it: the SDK wraps
    pickle._Pickler._batch_setitems on every call and never restores it, so a
    few hundred calls in one process nest deeper than the recursion limit.
    """
    batch_setitems = pickle._Pickler._batch_setitems
    try:
        return serialize_provider(provider)
    finally:
        pickle._Pickler._batch_setitems = batch_setitems


def payloads(name):
    if name.startswith("distinct:"):
        a, b = (int(x) for x in name[len("distinct:"):].split("-"))
        return {f"distinct:{n}": serialize(Distinct(n)) for n in range(a, b)}
    return {name: serialize(PROVIDERS[name]())}


if __name__ == "__main__":
    out = {}
    for arg in sys.argv[1:]:
        out.update(payloads(arg))
    json.dump(out, sys.stdout)
