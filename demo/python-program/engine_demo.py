"""The Python half of the real-engine demo: an Automation API inline program
whose FileProvider (python-program/file_provider.py, imported from the program
directory) manages a text file, taken through up -> change -> up -> refresh ->
destroy by the pulumi CLI, which runs the provider in our
pulumi-resource-pulumi-python. The engine's own output is printed as it comes.

usage: engine_demo.py <e2e root (holds bin/pulumi)> <state dir> <pulumi home> <virtualenv>
"""
import os
import sys

import pulumi
from pulumi import automation as auto
from pulumi.dynamic import Resource

from file_provider import FileProvider

root, state, home, venv = sys.argv[1:5]
target = os.path.join(state, "greeting-from-python.txt")
content = {"value": "hello from a Python program\n"}


class TextFile(Resource, module="demo", name="TextFile"):
    def __init__(self, name, path, text):
        super().__init__(FileProvider(), name, {"path": path, "content": text})


def program():
    f = TextFile("greeting", target, content["value"])
    pulumi.export("path", f.id)


here = os.path.dirname(os.path.abspath(__file__))
stack = auto.create_or_select_stack(
    stack_name="demo",
    project_name="demo-engine-python",
    program=program,
    opts=auto.LocalWorkspaceOptions(
        work_dir=here,
        pulumi_home=home,
        env_vars={k: v for k, v in os.environ.items() if k.startswith("PULUMI_") or k == "PATH"},
        pulumi_command=auto.PulumiCommand(root=root, skip_version_check=True),
        project_settings=auto.ProjectSettings(
            name="demo-engine-python",
            runtime=auto.ProjectRuntimeInfo(name="python", options={"toolchain": "pip", "virtualenv": venv}),
            backend=auto.ProjectBackend(url=f"file://{state}"),
        ),
    ),
)
show = lambda line: print(f"   | {line}", flush=True)  # noqa: E731
for title, run in [
    ("pulumi up", lambda: stack.up(on_output=show)),
    ("change the content, pulumi up", lambda: (content.update(value="hello again\n"), stack.up(on_output=show))[1]),
    ("pulumi refresh", lambda: stack.refresh(on_output=show)),
    ("pulumi destroy", lambda: stack.destroy(on_output=show)),
]:
    print(f"\n── Python program: {title}", flush=True)
    run()
stack.workspace.remove_stack("demo")
