"""A declared Python provider: a counter whose id carries its start, so read can
serve an import given only the id. Every result says which process ran it."""
import os
import sys

from pulumi.dynamic import CreateResult, DiffResult, ReadResult, ResourceProvider, UpdateResult


def ran_by():
    """The worker's interpreter, and the plugin that started it: the PULUMI_DYNAMIC_HOST_SERVE our shell
    launcher starts the host with, or, where the plugin's name is the Node entry (bin/python-entry.mjs,
    which sets it only inside the host), the plugin file the host's Node was started on."""
    try:
        with open(f"/proc/{os.getppid()}/environ", "rb") as f:
            parent_env = dict(a.decode().split("=", 1) for a in f.read().split(b"\0") if b"=" in a)
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
            parent_argv = [a.decode() for a in f.read().split(b"\0")]
    except OSError:
        parent_env, parent_argv = {}, []
    launched_as = parent_env.get("PULUMI_DYNAMIC_HOST_SERVE")
    if launched_as is None and len(parent_argv) > 1 and os.path.basename(parent_argv[0]) == "node" and os.path.basename(parent_argv[1]) == "pulumi-resource-pulumi-python":
        launched_as = parent_argv[1]
    return {"script": sys.argv[0], "python": sys.executable, "launchedAs": launched_as, "pid": os.getpid()}


class CounterProvider(ResourceProvider):
    def diff(self, _id, olds, news):
        # olds are the state's outputs, which always hold step (1 by default): a
        # program that passes no step has not changed it.
        return DiffResult(changes=olds.get("start") != news.get("start") or olds.get("step", 1) != news.get("step", 1))

    def create(self, props):
        start = int(props["start"])
        return CreateResult(f"counter-{start}", {"start": start, "step": props.get("step", 1), "value": start, "ranBy": ran_by()})

    def read(self, id_, props):
        start = int(props.get("start", id_.rsplit("-", 1)[1]))
        step = props.get("step", 1)
        return ReadResult(id_, {"start": start, "step": step, "value": start, "ranBy": ran_by()}, inputs={"start": start, "step": step})

    def update(self, _id, _olds, news):
        start = int(news["start"])
        return UpdateResult({"start": start, "step": news.get("step", 1), "value": start + news.get("step", 1), "ranBy": ran_by()})

    def delete(self, _id, _props):
        pass
