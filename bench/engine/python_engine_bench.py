"""
The Python side of the real-engine benchmark (bench/engine-run.ts): steps of one
stack's life under the engine, each timed. An Automation API inline program with
N dynamic resources whose provider class is defined here, in __main__, so the
SDK pickles it by value, as most programs' providers are.

The benchmark runs this once per step, as the CLI runs a program once per
command: the SDK's serialize_provider (pulumi 3.270.0) wraps pickle's
_Pickler._batch_setitems once more on every call and never unwraps it, so one
process that serializes a few hundred providers (here, N = 100 through
preview, up and up again) dies of RecursionError in the program, whichever
plugin serves it.

The "declared" provider is bench_declared.Trivial, declared in the project's
Pulumi.yaml: the program registers its type with plain inputs (a
CustomResource), so nothing is pickled, at any N.

usage: python python_engine_bench.py '<settings JSON>'
settings: {"root": <dir holding bin/pulumi>, "backend": <state dir>, "home": <PULUMI_HOME>,
           "env": {<every CLI run's environment>}, "venv": <the plugin's virtualenv>,
           "work_dir": <program directory>, "stack": <stack name>, "n": <resources>,
           "provider": "trivial" | "waiting" | "distinct" | "declared" | "none", "steps": [<step names>],
           "generation": <the inputs' generation: 1, then 2 from up-update on>,
           "remove": <remove the stack after the steps>,
           "runtime_env": <optional: the PULUMI_RUNTIME_* to give the plugin instead of toolchain pip and "venv">,
           "runtime_options": <optional: Pulumi.yaml's runtime options instead of toolchain pip and "venv">,
           "declare": <optional, default true: add the declared provider to Pulumi.yaml>}
Prints one JSON object: {"seconds": {<step>: s}, "ran_by": <what the provider reported>, "changes": {<step>: {...}}}.
"""

import json
import os
import sys
import time

import pulumi
from pulumi import automation as auto
from pulumi.dynamic import CreateResult, ReadResult, Resource, ResourceProvider, UpdateResult

PROJECT = "bench-engine-python"
DECLARED_TYPE = "pulumi-python:dynamic:BenchTrivial"


def ran_by():
    # The reference runs `python -m pulumi.dynamic` (argv[0]: its __main__.py); ours runs its worker script.
    return sys.argv[0]


class Trivial(ResourceProvider):
    def create(self, props):
        return CreateResult(f"trivial-{props['name']}", {**props, "ranBy": ran_by()})

    def read(self, id, props):
        return ReadResult(id, props)

    def update(self, id, olds, news):
        return UpdateResult({**news, "ranBy": ran_by()})

    def delete(self, id, props):
        pass


class Waiting(ResourceProvider):
    def create(self, props):
        time.sleep(0.1)
        return CreateResult(f"waiting-{props['name']}", {**props, "ranBy": ran_by()})

    def read(self, id, props):
        return ReadResult(id, props)

    def update(self, id, olds, news):
        time.sleep(0.1)
        return UpdateResult({**news, "ranBy": ran_by()})

    def delete(self, id, props):
        time.sleep(0.1)


class Distinct(Trivial):
    """The trivial provider made for one resource: its instance holds the resource's number, so every pickle differs."""

    def __init__(self, made):
        super().__init__()
        self.made = made


class Thing(Resource):
    def __init__(self, name, provider, props):
        super().__init__(provider, name, props)


def main():
    settings = json.loads(sys.argv[1])
    state = {"generation": settings.get("generation", 1)}
    declared = settings["provider"] == "declared"
    provider = {"trivial": lambda i: Trivial(), "waiting": lambda i: Waiting(), "distinct": Distinct, "declared": None, "none": None}[settings["provider"]]

    def program():
        if declared:
            for i in range(settings["n"]):
                pulumi.CustomResource(DECLARED_TYPE, f"r{i}", {"name": f"r{i}", "generation": state["generation"], "ranBy": None})
            return
        if provider is None:
            return
        for i in range(settings["n"]):
            Thing(f"r{i}", provider(i), {"name": f"r{i}", "generation": state["generation"]})

    venv = settings["venv"]
    env = dict(settings["env"])
    # Under an inline program the engine passes the plugin no runtime options: the two
    # variables it derives from them for a program it runs itself stand in for them.
    # The whole-command trace (bench/trace-run.ts) names its own: uv, poetry, no virtualenv.
    runtime_env = settings.get("runtime_env")
    env.update(runtime_env if runtime_env is not None else {"PULUMI_RUNTIME_TOOLCHAIN": "pip", "PULUMI_RUNTIME_VIRTUALENV": venv})
    runtime_options = settings.get("runtime_options")
    if runtime_options is None:
        runtime_options = {"toolchain": "pip", "virtualenv": venv}
    stack = auto.create_or_select_stack(
        stack_name=settings["stack"],
        project_name=PROJECT,
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=settings["work_dir"],
            pulumi_home=settings["home"],
            env_vars=env,
            pulumi_command=auto.PulumiCommand(root=settings["root"], skip_version_check=True),
            project_settings=auto.ProjectSettings(
                name=PROJECT,
                main=settings["work_dir"],
                runtime=auto.ProjectRuntimeInfo(name="python", options=runtime_options),
                backend=auto.ProjectBackend(url=f"file://{settings['backend']}"),
            ),
        ),
    )

    # The Automation API has written Pulumi.yaml from the settings above: the declaration goes after them.
    project_file = os.path.join(settings["work_dir"], "Pulumi.yaml")
    with open(project_file) as f:
        written = f.read()
    # (Not for the whole-command trace, "declare": false: a project that declares nothing, as most.)
    if settings.get("declare", True) and "pulumi-dynamic-host:" not in written:
        with open(project_file, "a") as f:
            f.write(f"pulumi-dynamic-host:\n  providers:\n    {DECLARED_TYPE}: bench_declared:Trivial\n")

    seconds = {}
    changes = {}
    ran = None
    for step in settings["steps"]:
        t0 = time.perf_counter()
        if step == "preview":
            result = stack.preview()
            changes[step] = result.change_summary
        elif step in ("up-create", "up-nochange", "up-update"):
            result = stack.up()
            changes[step] = result.summary.resource_changes
        elif step == "refresh":
            result = stack.refresh()
            changes[step] = result.summary.resource_changes
        elif step == "destroy":
            result = stack.destroy()
            changes[step] = result.summary.resource_changes
        else:
            raise ValueError(f"unknown step {step!r}")
        seconds[step] = time.perf_counter() - t0
        if step == "up-create" and (provider is not None or declared):
            # Outside the clock: which plugin served the resources.
            resources = stack.export_stack().deployment.get("resources", [])
            ran = next((r["outputs"].get("ranBy") for r in resources if r["type"].startswith("pulumi-python:")), None)
    if settings.get("remove"):
        stack.workspace.remove_stack(settings["stack"])
    print(json.dumps({"seconds": seconds, "ran_by": ran, "changes": changes}))


if __name__ == "__main__":
    main()
