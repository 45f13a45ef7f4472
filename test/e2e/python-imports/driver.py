"""Runs a program whose dynamic provider class lives in one of its own modules
(gadgets.py, pickled by reference) as the Python language host would run it,
as an Automation API inline program under the real engine: up, refresh, destroy.

The language host (pulumi-language-python-exec) starts the program with cwd =
the engine's pwd (the project directory, or the directory `main:` names) and
runs it with runpy.run_path("."), which puts "." first on sys.path. Inline, the
program runs in this process, so the driver does the same before importing the
module; a program that put more on its path itself (settings "program_path")
gets that too. The engine starts the plugin in the same pwd.

usage: python driver.py <settings JSON>
settings: {"root", "backend", "home", "env": as for ../python-program/program.py,
           "project": <project root, holding Pulumi.yaml>, "main": <Pulumi.yaml main, or null>,
           "module": <import name of the module holding GadgetProvider>,
           "program_path": [<directories the program adds to sys.path itself>],
           "runtime_env": {<PULUMI_RUNTIME_* the engine derives from the runtime options>}}
Prints one JSON document on stdout, as program.py does.
"""
import importlib
import json
import os
import sys
import traceback

sys.dont_write_bytecode = True
# program.py's recording of operations (it keeps fd 1 for the result alone from here on).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python-program"))
import program as recorder  # noqa: E402

from pulumi import automation as auto  # noqa: E402
from pulumi.dynamic import Resource  # noqa: E402

PROJECT = "e2e-python-imports"


class Gadget(Resource, name="Gadget"):
    """pulumi-python:dynamic:Gadget."""


def run(settings):
    root = settings["project"]
    main = settings.get("main")
    pwd = os.path.join(root, main) if main else root
    # As the language host: cwd = pwd, "." first on sys.path; then the program's own additions.
    os.chdir(pwd)
    sys.path.insert(0, ".")
    for p in settings.get("program_path") or []:
        sys.path.insert(0, p)
    module = importlib.import_module(settings["module"])

    def program():
        Gadget(module.GadgetProvider(), "gadget", {"label": "g1"})

    env = {**settings["env"], "PYTHONDONTWRITEBYTECODE": "1", **settings["runtime_env"]}
    stack = auto.create_or_select_stack(
        stack_name="imports",
        project_name=PROJECT,
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=root,
            pulumi_home=settings["home"],
            env_vars=env,
            pulumi_command=auto.PulumiCommand(root=settings["root"], skip_version_check=True),
            project_settings=auto.ProjectSettings(
                name=PROJECT,
                # The Automation API sets main to the driver's cwd when it is not given: the project root then.
                main=main or root,
                runtime=auto.ProjectRuntimeInfo(name="python"),
                backend=auto.ProjectBackend(url=f"file://{settings['backend']}"),
            ),
        ),
    )
    step = recorder.step
    return [step(stack, "up", stack.up), step(stack, "refresh", stack.refresh), step(stack, "destroy", stack.destroy)]


def main():
    settings = json.loads(sys.argv[1])
    document = {"scenario": "imports"}
    try:
        document["steps"] = run(settings)
    except Exception:  # noqa: BLE001 - a driver failure is reported, not hidden
        document["driver_error"] = traceback.format_exc()
    json.dump(document, recorder._result_out)
    recorder._result_out.write("\n")
    recorder._result_out.flush()


if __name__ == "__main__":
    main()
