"""The providers the end-to-end reference project declares in its Pulumi.yaml
(pulumi-dynamic-host.providers) and its program passes with the host's helper,
provider_reference("counters:CounterProvider"). They live in the project, so
the plugin imports them from the program directory, whichever plugin it is.

Every result says which process ran it (whoami): the host's worker under our
plugin, `python -m pulumi.dynamic` under Pulumi's own.

Neither provider has a diff: the engine then compares old and new inputs
itself, `__provider` included, so an import whose `__provider` differs from
the one the program writes would show as a change.
"""
import os
import sys

from pulumi.dynamic import CreateResult, ReadResult, ResourceProvider, UpdateResult


def whoami():
    """The process that runs this provider, and the one that started it (the plugin the engine launched)."""
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
        parent = [a.decode() for a in f.read().split(b"\0") if a]
    # Our Python plugin's launcher passes its own path, as the engine ran it, in the host's environment.
    with open(f"/proc/{os.getppid()}/environ", "rb") as f:
        parent_env = dict(a.decode().split("=", 1) for a in f.read().split(b"\0") if b"=" in a)
    return {
        "parent_cmdline": parent,
        "launched_as": parent_env.get("PULUMI_DYNAMIC_HOST_SERVE"),
        "process": sys.argv[0],
        "python": sys.executable,
        "cwd": os.getcwd(),
        "module_file": os.path.abspath(__file__),
        "helper_file": getattr(sys.modules.get("pulumi_dynamic_host.reference"), "__file__", None),
    }


def _number(id_):
    return int(id_.rsplit("-", 1)[1])


class CounterProvider(ResourceProvider):
    """A counter whose id carries its start: read can serve an import, given only the id."""

    def create(self, props):
        return CreateResult(f"counter-{int(props['start'])}", {"start": props["start"], "ran_by": whoami()})

    def read(self, id_, props):
        start = props.get("start", _number(id_))
        return ReadResult(id_, {"start": start, "ran_by": whoami()}, inputs={"start": start})

    def update(self, _id, _olds, news):
        return UpdateResult({"start": news["start"], "ran_by": whoami()})

    def delete(self, _id, _props):
        pass


class TallyProvider(ResourceProvider):
    """A second declared type, for `pulumi import --file` of several types at once."""

    def create(self, props):
        return CreateResult(f"tally-{int(props['count'])}", {"count": props["count"], "ran_by": whoami()})

    def read(self, id_, props):
        count = props.get("count", _number(id_))
        return ReadResult(id_, {"count": count, "ran_by": whoami()}, inputs={"count": count})
