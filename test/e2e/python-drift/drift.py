"""Automation API driver for the Python-version-drift engine test
(test/e2e/python-drift.test.ts): one inline program whose provider class is
defined here, in __main__, so the SDK pickles it by value with the bytecode of
the Python running this script. Run as

    python drift.py <operation> <settings JSON>

with operation "up", "refresh" or "destroy", against a stack that persists
between runs (the settings name its file backend and work directory), so a
stack deployed under one Python can be refreshed and destroyed under another.
Prints one JSON document on stdout: the operation's summary or error, the
diagnostics the engine reported (severity, urn, message), and the dynamic
resources of `stack export --show-secrets` after it (secrets unwrapped). Everything else goes to stderr.
"""
import json
import os
import subprocess
import sys

_result_out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

import pulumi  # noqa: E402
from pulumi import automation as auto  # noqa: E402
from pulumi.dynamic import CreateResult, ReadResult, Resource, ResourceProvider  # noqa: E402

PROJECT = "e2e-python-drift"


class Echo(ResourceProvider):
    """Reports which Python created and last read the resource."""

    def create(self, props):
        return CreateResult("echo-1", {**props, "created_by": "%d.%d" % sys.version_info[:2]})

    def read(self, id_, props):
        return ReadResult(id_, {**props, "read_by": "%d.%d" % sys.version_info[:2]})

    def delete(self, id_, props):
        pass


class EchoResource(Resource):
    def __init__(self, name, props, opts=None):
        super().__init__(Echo(), name, props, opts)


def program():
    EchoResource("echo", {"a": "x"})


SECRET_SIG = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")


def unwrap_secret(obj):
    if obj.get(SECRET_SIG[0]) == SECRET_SIG[1] and "plaintext" in obj:
        return json.loads(obj["plaintext"])
    return obj


def main():
    operation, settings = sys.argv[1], json.loads(sys.argv[2])
    env = {
        **settings["env"],
        "PYTHONDONTWRITEBYTECODE": "1",
        # What the engine derives from Pulumi.yaml's runtime options for a program it runs itself;
        # under an inline program they must be set by hand (see cli_env in ../python-program/program.py).
        "PULUMI_RUNTIME_TOOLCHAIN": "pip",
        "PULUMI_RUNTIME_VIRTUALENV": settings["venv"],
    }
    stack = auto.create_or_select_stack(
        stack_name="dev",
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
                runtime=auto.ProjectRuntimeInfo(name="python", options={"toolchain": "pip", "virtualenv": settings["venv"]}),
                backend=auto.ProjectBackend(url=f"file://{settings['backend']}"),
            ),
        ),
    )
    diagnostics = []

    def on_event(e):
        d = e.diagnostic_event
        if d is not None:
            diagnostics.append({"severity": d.severity, "urn": d.urn, "message": d.message})

    record = {"operation": operation, "python": "%d.%d" % sys.version_info[:2]}
    try:
        result = getattr(stack, operation)(on_event=on_event)
        summary = getattr(result, "summary", None)
        record["changes"] = (summary.resource_changes if summary is not None else None) or {}
    except Exception as e:  # noqa: BLE001 - recorded for the test to assert on
        record["error"] = {"type": type(e).__name__, "message": str(e)}
    record["diagnostics"] = diagnostics
    # With secrets shown (the SDK stores __provider as a secret), each unwrapped to its value.
    exported = subprocess.run(
        [f"{settings['root']}/bin/pulumi", "stack", "export", "--show-secrets", "--stack", "dev"],
        cwd=settings["work_dir"], env={**os.environ, **env, "PULUMI_HOME": settings["home"]},
        check=True, capture_output=True, text=True,
    )
    deployment = json.loads(exported.stdout, object_hook=unwrap_secret).get("deployment") or {}
    record["resources"] = {
        r["urn"].split("::")[-1]: r for r in deployment.get("resources") or [] if r["type"].startswith("pulumi-python:")
    }
    json.dump(record, _result_out, default=str)
    _result_out.write("\n")
    _result_out.flush()


if __name__ == "__main__":
    main()
