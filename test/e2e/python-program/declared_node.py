"""A Python program using a Node provider: the Automation API driver of
test/e2e/declared-node-provider.test.ts. Its inline program registers
pulumi-nodejs:dynamic/files:TextFile, which the project's Pulumi.yaml declares
as ./text-file#textFileProvider (test/e2e/declared-project/text-file.js), with
plain pulumi.CustomResource: inputs and the outputs to read (None), no
provider object, nothing serialized. The project is Python (runtime python),
holds text-file.js and no node_modules; the engine starts the Node plugin for
the type, whichever plugin answers under that name.

The "counter-lifecycle" scenario is a Python program using a Python provider
the same way: the host's DeclaredResource helper registers
pulumi-python:dynamic:Counter (counters.py in the project), nothing pickled.

usage: python declared_node.py <scenario> <settings JSON>
scenario: "lifecycle" (up, up again, refresh, up with changed content,
          `pulumi import` of an existing file, destroy), or "up" alone;
          "counter-lifecycle" (the same steps with the Counter; import of counter-7)
settings: as program.py's (root, backend, home, venv, env, python_from), and
          "work_dir": the project directory, "file": the file the program
          manages, "adopted": an existing file for `pulumi import`

Prints ONE JSON document on stdout: {"scenario", "steps": [{"name", "events",
"summary", "error", "resources", "outputs", "file"}...]}, "resources" the
pulumi-nodejs resources of `stack export` after the step, "outputs" the
stack's outputs, "file" the managed file's content then (None: none); the
import step has "cli": {"args", "code", "stdout", "stderr"} and no events.
Everything else goes to stderr.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the drivers

import os  # noqa: E402
import subprocess  # noqa: E402

import program  # noqa: E402 - the driver (and fd 1 kept for the result)
import pulumi  # noqa: E402
from pulumi import automation as auto  # noqa: E402

from program import cli_env, plain  # noqa: E402 - the main driver's environment and event conversion

PROJECT = "declared-node"
TYPE = "pulumi-nodejs:dynamic/files:TextFile"
COUNTER = "pulumi-python:dynamic:Counter"

# Appended to the Pulumi.yaml the Automation API writes (it writes only the settings it knows).
# The Counter, a Python provider (counters.py), serves the "counter-lifecycle" scenario.
DECLARATIONS = f"""
pulumi-dynamic-host:
  providers:
    {TYPE}: ./text-file#textFileProvider
    {COUNTER}: counters:CounterProvider
"""

content = {"value": "first"}
start = {"value": 1}


def make_program(settings):
    def program():
        # The outputs the program reads are registered as None: the SDK resolves only registered names, and sends no None.
        motd = pulumi.CustomResource(TYPE, "motd", {"path": settings["file"], "content": content["value"], "size": None, "ranBy": None})
        pulumi.export("size", motd.size)
        pulumi.export("ranBy", motd.ranBy)

    return program


def counter_program():
    """A Python program using a Python provider declared in Pulumi.yaml, through the host's DeclaredResource helper."""
    from pulumi_dynamic_host.declared import DeclaredResource

    counter = DeclaredResource(COUNTER, "c", {"start": start["value"]}, outputs=["value", "ranBy"])
    pulumi.export("value", counter.value)


def make_stack(settings, program=None):
    work_dir = settings["work_dir"]
    stack = auto.create_or_select_stack(
        stack_name="py",
        project_name=PROJECT,
        program=program or make_program(settings),
        opts=auto.LocalWorkspaceOptions(
            work_dir=work_dir,
            pulumi_home=settings["home"],
            env_vars=cli_env(settings),
            pulumi_command=auto.PulumiCommand(root=settings["root"], skip_version_check=True),
            project_settings=auto.ProjectSettings(
                name=PROJECT,
                main=work_dir,
                runtime=auto.ProjectRuntimeInfo(name="python", options={"toolchain": "pip", "virtualenv": settings["venv"]}),
                backend=auto.ProjectBackend(url=f"file://{settings['backend']}"),
            ),
        ),
    )
    with open(os.path.join(work_dir, "Pulumi.yaml"), "a") as f:
        f.write(DECLARATIONS)
    return stack


def node_resources(stack):
    """The dynamic resources of the stack (both packages), by name."""
    deployment = stack.export_stack().deployment or {}
    return {r["urn"].split("::")[-1]: r for r in deployment.get("resources") or [] if r["type"].startswith(("pulumi-nodejs:", "pulumi-python:"))}


def file_content(settings):
    path = settings["file"]
    return open(path).read() if os.path.exists(path) else None


def finish(settings, stack, record):
    record["resources"] = node_resources(stack)
    record["outputs"] = {k: plain(v.value) for k, v in stack.outputs().items()}
    record["file"] = file_content(settings)
    return record


def step(settings, stack, name, operation, **kwargs):
    """Runs one operation, recording its events, its summary or its error, and the state after it."""
    events = []
    record = {"name": name}
    try:
        result = operation(on_event=lambda e: events.append(plain(e)), **kwargs)
        record["summary"] = plain(result.summary)
    except Exception as e:  # noqa: BLE001 - recorded for the test to assert on
        record["error"] = {"type": type(e).__name__, "message": str(e)}
    record["events"] = events
    return finish(settings, stack, record)


def cli_step(settings, stack, name, args):
    """Runs the CLI itself (what the Automation API does not offer), in the project, with the sandbox's environment."""
    argv = [os.path.join(settings["root"], "bin", "pulumi"), *args, "--stack", stack.name, "--non-interactive"]
    proc = subprocess.run(argv, cwd=settings["work_dir"], env={**os.environ, **cli_env(settings)}, capture_output=True, text=True)
    sys.stderr.write(proc.stdout + proc.stderr)
    cli = {"args": args, "code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
    return finish(settings, stack, {"name": name, "cli": cli, "events": []})


def lifecycle(settings):
    stack = make_stack(settings)
    steps = [step(settings, stack, "up", stack.up)]
    steps.append(step(settings, stack, "up-again", stack.up))
    steps.append(step(settings, stack, "refresh", stack.refresh, expect_no_changes=True))
    content["value"] = "second"
    steps.append(step(settings, stack, "up-change", stack.up))
    flags = ["--yes", "--generate-code=false", "--protect=false"]
    steps.append(cli_step(settings, stack, "import", ["import", TYPE, "adopted", settings["adopted"], *flags]))
    steps.append(step(settings, stack, "destroy", stack.destroy))
    return steps


def counter_lifecycle(settings):
    """The Python provider from a Python program: the same steps, `pulumi import` of counter-7."""
    sys.path.append(settings["helper_dir"])
    stack = make_stack(settings, counter_program)
    steps = [step(settings, stack, "up", stack.up)]
    steps.append(step(settings, stack, "up-again", stack.up))
    steps.append(step(settings, stack, "refresh", stack.refresh, expect_no_changes=True))
    start["value"] = 2
    steps.append(step(settings, stack, "up-change", stack.up))
    flags = ["--yes", "--generate-code=false", "--protect=false"]
    steps.append(cli_step(settings, stack, "import", ["import", COUNTER, "adopted", "counter-7", *flags]))
    steps.append(step(settings, stack, "destroy", stack.destroy))
    return steps


def up_only(settings):
    stack = make_stack(settings)
    return [step(settings, stack, "up", stack.up)]


program.SCENARIOS.clear()
program.SCENARIOS.update({"lifecycle": lifecycle, "up": up_only, "counter-lifecycle": counter_lifecycle})

if __name__ == "__main__":
    program.main()
