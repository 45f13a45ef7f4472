"""The end-to-end Python program: the real engine (the pulumi CLI in .cache/e2e)
runs it as an Automation API inline program, and starts our
pulumi-resource-pulumi-python in this directory to run its dynamic providers.

The providers below live in __main__, so dill pickles them BY VALUE; the one
in provider.py is pickled BY REFERENCE and the plugin imports it from here.
The project's runtime options (pip toolchain, the test virtualenv) are written
to Pulumi.yaml, but under an inline program the engine does not pass them on
(see cli_env): the settings say how the plugin finds the virtualenv instead.

The scenarios of providers by reference (issue 18) run another project,
../python-references, whose own modules hold the providers its Pulumi.yaml
declares; the program passes them with the host's helper, imported from
settings["helper_dir"] as the pulumi-dynamic-host wheel would make it importable.

usage: python program.py <scenario> <settings JSON>
settings: {"root": <dir holding bin/pulumi>, "backend": <state dir>, "home": <PULUMI_HOME>,
           "venv": <virtualenv>, "env": {<environment of every CLI run>},
           "python_from": "runtime-options" | "activated-venv",
           "after_create": [argv of a command run once the stack exists] (optional),
           "helper_dir": <directory holding pulumi_dynamic_host/reference.py> (reference scenarios),
           "marker": <a file path the Repaired provider's fixed delete writes> (repair scenario)}

Prints ONE JSON document on stdout: {"scenario", "steps": [{"name", "events",
"summary", "error", "resources"}...]}, events and summaries turned into plain
dicts (the Automation API's attribute names), "resources" the dynamic
resources of `stack export` after the step; a step that runs the CLI itself
has "cli": {"args", "code", "stdout", "stderr"} instead of events. Everything
else (the Automation API, the program, pulumi.log) is sent to stderr.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to provider.py

import datetime  # noqa: E402
import enum  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import traceback  # noqa: E402
import uuid  # noqa: E402

# fd 1 is kept for the result alone: anything else written to it goes to stderr.
_result_out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

import pulumi  # noqa: E402
from pulumi import automation as auto  # noqa: E402
from pulumi.dynamic import (  # noqa: E402
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    Resource,
    ResourceProvider,
    UpdateResult,
)
from pulumi.output import Unknown  # noqa: E402

from provider import LocalModuleProvider  # noqa: E402

PROJECT = "e2e-python"
HERE = os.path.dirname(os.path.abspath(__file__))


def whoami():
    """
    Which process runs this provider: our worker, whose parent is our host started by the engine.
    The Python plugin's launcher runs the host with its own path, as the engine ran it, in
    PULUMI_DYNAMIC_HOST_SERVE (the host's starting environment).
    """
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
        host = [a.decode() for a in f.read().split(b"\0") if a]
    with open(f"/proc/{os.getppid()}/environ", "rb") as f:
        host_env = dict(a.decode().split("=", 1) for a in f.read().split(b"\0") if b"=" in a)
    return {
        "host_cmdline": host,
        "launched_as": host_env.get("PULUMI_DYNAMIC_HOST_SERVE"),
        "worker": sys.argv[0],
        "python": sys.executable,
        "prefix": sys.prefix,
        "runtime_toolchain": os.environ.get("PULUMI_RUNTIME_TOOLCHAIN"),
        "runtime_virtualenv": os.environ.get("PULUMI_RUNTIME_VIRTUALENV"),
        "runtime_address": os.environ.get("PULUMI_RUNTIME_ADDRESS"),
        "cwd": os.getcwd(),
    }


def without_provider(props):
    return {k: v for k, v in props.items() if k != "__provider"}


# --- providers, pickled by value ------------------------------------------------


class Basic(ResourceProvider):
    """Updates in place when `value` changes; replaces (create before delete) when `key` changes."""

    def diff(self, _id, olds, news):
        replaces = ["key"] if olds["key"] != news["key"] else []
        return DiffResult(changes=olds["value"] != news["value"] or bool(replaces), replaces=replaces)

    def create(self, props):
        return CreateResult(f"{props['key']}-{uuid.uuid4().hex[:8]}", {**without_provider(props), "ran_by": whoami()})

    def update(self, _id, olds, news):
        return UpdateResult({**without_provider(news), "ran_by": whoami(), "updated_from": olds["value"]})


class DeleteFirst(ResourceProvider):
    """Replaces with deleteBeforeReplace when `key` changes."""

    def diff(self, _id, olds, news):
        replace = olds["key"] != news["key"]
        return DiffResult(changes=replace, replaces=["key"] if replace else [], delete_before_replace=replace)

    def create(self, props):
        return CreateResult(f"dbr-{props['key']}", without_provider(props))


class Configured(ResourceProvider):
    """Reads plain and secret stack config in configure."""

    def configure(self, req):
        self.plain = req.config.get("plain")
        self.secret = req.config.require("secret")

    def create(self, props):
        return CreateResult("configured", {"plain": self.plain, "secret_length": len(self.secret)})


class Reader(ResourceProvider):
    """Refresh reads the state back and reports the inputs it implies, so refresh changes nothing."""

    def create(self, props):
        return CreateResult(f"reader-{props['value']}", {"value": props["value"]})

    def read(self, id_, props):
        return ReadResult(id_, {"value": props["value"]}, inputs={"value": props["value"]})


class Chatty(ResourceProvider):
    """Prints from create: the engine shows it as an info diagnostic."""

    def create(self, props):
        print(f"hello from create: {props['greeting']}")
        return CreateResult("chatty", {"greeting": props["greeting"]})


class Dependent(ResourceProvider):
    """Check sees the upstream id as Unknown during the first preview, and says so in its inputs."""

    def check(self, _olds, news):
        return CheckResult({**news, "upstream_unknown_at_check": isinstance(news.get("upstream"), Unknown)}, [])

    def create(self, props):
        return CreateResult(f"dependent-of-{props['upstream']}", {"upstream": props["upstream"]})


class CapturingSecret(ResourceProvider):
    """Captures a secret Output: the serialized provider is then a secret although it does not ask to be."""

    serialize_as_secret_always = False

    def __init__(self, secret):
        super().__init__()
        self.secret = secret

    def create(self, props):
        return CreateResult("captured", {"secret_length": len(self.secret.get())})


class Plain(ResourceProvider):
    """serialize_as_secret_always = False and no secret captured: `__provider` is a plain string."""

    serialize_as_secret_always = False

    def create(self, props):
        return CreateResult("plain", {"label": props["label"]})


class CheckFails(ResourceProvider):
    def check(self, _olds, news):
        return CheckResult(news, [CheckFailure("value", "value must not be 'bad'")])

    def create(self, props):
        return CreateResult("never", {})


class CreateRaises(ResourceProvider):
    def create(self, props):
        raise Exception("create exploded on purpose")


def kept_provider(version):
    """
    A provider with create alone (no update, no diff) as first written (1) and
    reformatted (2): the same code, at other lines, so another pickle (issue 19).
    """
    if version == 1:
        class Kept(ResourceProvider):
            serialize_as_secret_always = False

            def create(self, props):
                return CreateResult("kept", {"label": props["label"], "serial": 42, "made_by": "create", "nested": {"list": [1, "two", True]}})

    else:
        class Kept(ResourceProvider):
            serialize_as_secret_always = False

            # Reformatted: its lines wrapped.
            def create(self, props):
                return CreateResult(
                    "kept",
                    {"label": props["label"], "serial": 42, "made_by": "create", "nested": {"list": [1, "two", True]}},
                )

    return Kept()


class Dyn(Resource):
    """The default type token, pulumi-python:dynamic:Resource (the SDK sets it for subclasses only)."""


class CustomResource(Resource, module="custom-provider", name="CustomResource"):
    """A custom type token: pulumi-python:dynamic/custom-provider:CustomResource."""


# --- programs -------------------------------------------------------------------

phase = {"n": 1}


def lifecycle_program():
    p = phase["n"]
    basic = Dyn(Basic(), "basic", {"key": "k1", "value": "v1" if p == 1 else "v2"})
    Dyn(Basic(), "replaced", {"key": "a" if p == 1 else "b", "value": "same"})
    Dyn(DeleteFirst(), "deleted-first", {"key": "a" if p == 1 else "b"})
    Dyn(Configured(), "configured", {})
    Dyn(Reader(), "reader", {"value": "steady"})
    Dyn(Chatty(), "chatty", {"greeting": "hi there"})
    Dyn(Dependent(), "dependent", {"upstream": basic.id})
    Dyn(CapturingSecret(pulumi.Output.secret("hush-hush")), "captured", {})
    Dyn(Plain(), "plain", {"label": "in the clear"})
    Dyn(LocalModuleProvider(), "local-module", {"label": "by reference"})
    custom = CustomResource(Basic(), "custom", {"key": "c", "value": "typed"})
    pulumi.export("custom_urn", custom.urn)


def check_fails_program():
    Dyn(CheckFails(), "refused", {"value": "bad"})


def create_raises_program():
    Dyn(CreateRaises(), "exploding", {})


def whoami_program():
    Dyn(Basic(), "whoami", {"key": "w", "value": "python"})


# --- the driver -----------------------------------------------------------------


def plain(value):
    """The Automation API's event and summary objects as JSON-able values."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "__dict__"):
        return {k: plain(v) for k, v in vars(value).items() if not k.startswith("_")}
    return value


def cli_env(settings):
    """
    The environment of every CLI run, which the plugin inherits, and how the
    plugin is to find the virtualenv. Under an inline program the engine runs
    with `--client` and replaces the project's runtime by `client {address}`
    (readProjectForUpdate, pkg/cmd/pulumi/operations/io.go), so the runtime
    options below never reach the plugin: it gets PULUMI_RUNTIME_ADDRESS and no
    PULUMI_RUNTIME_VIRTUALENV/TOOLCHAIN. So either
    - "runtime-options": set the two variables the engine derives from those
      options for a program it runs itself (pkg/resource/plugin/provider_plugin.go), or
    - "activated-venv": the driver's virtualenv activated (PATH, VIRTUAL_ENV), as
      a user runs an Automation API driver; the plugin then runs `python3`.
    """
    env = {**settings["env"], "PYTHONDONTWRITEBYTECODE": "1"}
    venv = settings["venv"]
    if settings["python_from"] == "runtime-options":
        env.update(PULUMI_RUNTIME_TOOLCHAIN="pip", PULUMI_RUNTIME_VIRTUALENV=venv)
    elif settings["python_from"] == "activated-venv":
        env.update(PATH=f"{venv}/bin:{env['PATH']}", VIRTUAL_ENV=venv)
    else:
        raise ValueError(f"python_from: {settings['python_from']!r}")
    return env


def make_stack(settings, stack_name, program, work_dir=HERE):
    stack = auto.create_or_select_stack(
        stack_name=stack_name,
        project_name=PROJECT,
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=work_dir,
            pulumi_home=settings["home"],
            env_vars=cli_env(settings),
            pulumi_command=auto.PulumiCommand(root=settings["root"], skip_version_check=True),
            project_settings=auto.ProjectSettings(
                name=PROJECT,
                # The Python Automation API sets main to the driver's cwd when it is not given;
                # the engine starts the plugin in main, which must be the work directory.
                main=work_dir,
                runtime=auto.ProjectRuntimeInfo(
                    name="python", options={"toolchain": "pip", "virtualenv": settings["venv"]}
                ),
                backend=auto.ProjectBackend(url=f"file://{settings['backend']}"),
            ),
        ),
    )
    # The Automation API has just written Pulumi.yaml: a command that edits it
    # (pulumi-dynamic-host install --project) runs now, before any operation.
    if settings.get("after_create"):
        subprocess.run(settings["after_create"], check=True, cwd=work_dir, env={**os.environ, **cli_env(settings)}, stdout=sys.stderr)
    return stack


def dynamic_resources(stack):
    deployment = stack.export_stack().deployment or {}
    return {
        r["urn"].split("::")[-1]: r
        for r in deployment.get("resources") or []
        if r["type"].startswith("pulumi-python:")
    }


def step(stack, name, operation, **kwargs):
    """Runs one operation, recording its events, its summary or its error, and the state after it."""
    events = []
    record = {"name": name}
    try:
        result = operation(on_event=lambda e: events.append(plain(e)), **kwargs)
        summary = getattr(result, "summary", None)
        record["summary"] = plain(summary) if summary is not None else {"resource_changes": plain(result.change_summary)}
        # What the CLI displayed (an up's or a preview's): "failed" and "errored" are read there.
        if isinstance(getattr(result, "stdout", None), str):
            record["stdout"] = result.stdout
    except Exception as e:  # noqa: BLE001 - recorded for the test to assert on
        record["error"] = {"type": type(e).__name__, "message": str(e)}
    record["events"] = events
    record["resources"] = dynamic_resources(stack)
    return record


def lifecycle(settings):
    stack = make_stack(settings, "dev", lifecycle_program)
    stack.set_config("plain", auto.ConfigValue("plain-value"))
    stack.set_config("secret", auto.ConfigValue("s3cr3t-value", secret=True))
    steps = [step(stack, "preview", stack.preview, diff=True), step(stack, "up", stack.up)]
    phase["n"] = 2
    steps.append(step(stack, "up-change", stack.up))
    steps.append(step(stack, "up-unchanged", stack.up))
    steps.append(step(stack, "refresh", stack.refresh, expect_no_changes=True))
    steps.append(step(stack, "destroy", stack.destroy))
    return steps


def check_fails(settings):
    stack = make_stack(settings, "check-fails", check_fails_program)
    return [step(stack, "preview", stack.preview)]


def create_raises(settings):
    stack = make_stack(settings, "create-raises", create_raises_program)
    return [step(stack, "up", stack.up)]


def whoami_scenario(settings):
    stack = make_stack(settings, "whoami", whoami_program)
    return [step(stack, "up", stack.up), step(stack, "destroy", stack.destroy)]


# --- providers by reference (issue 18) -------------------------------------------

REFERENCES_DIR = os.path.join(os.path.dirname(HERE), "python-references")

# Appended to the Pulumi.yaml the Automation API writes (it writes only the settings it knows).
DECLARATIONS = """
pulumi-dynamic-host:
  providers:
    pulumi-python:dynamic:Counter: counters:CounterProvider
    pulumi-python:dynamic:Tally: counters:TallyProvider
    pulumi-python:dynamic:Repaired:
      provider: repairs:FixedProvider
      latestCode: true
"""


class Counter(Resource, name="Counter"):
    """pulumi-python:dynamic:Counter, declared as counters:CounterProvider."""


class Tally(Resource, name="Tally"):
    """pulumi-python:dynamic:Tally, declared as counters:TallyProvider."""


class Repaired(Resource, name="Repaired"):
    """pulumi-python:dynamic:Repaired, declared as repairs:FixedProvider with latestCode."""


class Unlisted(Resource, name="Unlisted"):
    """pulumi-python:dynamic:Unlisted: declared nowhere."""


class BrokenProvider(ResourceProvider):
    """The Repaired type's code as it was at the last up, pickled by value: its read and delete raise."""

    serialize_as_secret_always = False

    def create(self, props):
        return CreateResult("fragile-1", {**without_provider(props), "code": "state", "ran_by": whoami()})

    def read(self, id_, props):
        raise Exception("the read serialized in the state is broken")

    def delete(self, _id, _props):
        raise Exception("the delete serialized in the state is broken")


class ByValueReader(ResourceProvider):
    """A get (read by id) with a provider pickled by value, as before references existed."""

    def read(self, id_, props):
        return ReadResult(id_, {"start": int(id_.rsplit("-", 1)[1]), "code": "by value", "ran_by": whoami()})


class ByValueCounter(ResourceProvider):
    """The program's own counter, pickled by value: what a program that does not use the helper passes."""

    serialize_as_secret_always = False

    def create(self, props):
        return CreateResult(f"counter-{int(props['start'])}", {"start": props["start"], "ran_by": whoami()})

    def update(self, _id, _olds, news):
        return UpdateResult({"start": news["start"], "ran_by": whoami()})


def ref(reference):
    """The host's helper in place of a provider object (the driver put its directory on sys.path)."""
    from pulumi_dynamic_host.reference import provider_reference

    return provider_reference(reference)


def reference_stack(settings, stack_name, program):
    """A stack of the reference project, whose Pulumi.yaml gets the declarations."""
    sys.path.append(settings["helper_dir"])
    stack = make_stack(settings, stack_name, program, work_dir=REFERENCES_DIR)
    with open(os.path.join(REFERENCES_DIR, "Pulumi.yaml"), "a") as f:
        f.write(DECLARATIONS)
    return stack


def cli_step(settings, stack, name, args):
    """Runs the CLI itself (what the Automation API does not offer), in the project, with the sandbox's environment."""
    argv = [os.path.join(settings["root"], "bin", "pulumi"), *args, "--stack", stack.name, "--non-interactive"]
    proc = subprocess.run(argv, cwd=REFERENCES_DIR, env={**os.environ, **cli_env(settings)}, capture_output=True, text=True)
    sys.stderr.write(proc.stdout + proc.stderr)
    cli = {"args": args, "code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
    return {"name": name, "cli": cli, "events": [], "resources": dynamic_resources(stack)}


def up_changed_destroy(stack, changed):
    """Steps "up" of the program's phase 1, `changed` (an up of phase 2), then "destroy"."""
    phase["n"] = 1
    steps = [step(stack, "up", stack.up)]
    phase["n"] = 2
    steps.append(step(stack, changed, stack.up))
    steps.append(step(stack, "destroy", stack.destroy))
    return steps


def import_option(settings):
    """The import resource option in an up, then an up of the same program without it."""

    def program():
        opts = pulumi.ResourceOptions(import_="counter-7") if phase["n"] == 1 else None
        Counter(ref("counters:CounterProvider"), "imported", {"start": 7}, opts)
        Counter(ref("counters:CounterProvider"), "created", {"start": 3})

    return up_changed_destroy(reference_stack(settings, "import-option", program), "up-again")


def import_by_value(settings):
    """The import option with a program that passes its provider object itself, not the helper's."""

    def program():
        Counter(ByValueCounter(), "adopted", {"start": 8}, pulumi.ResourceOptions(import_="counter-8"))

    stack = reference_stack(settings, "import-by-value", program)
    return [step(stack, "up", stack.up), step(stack, "up-again", stack.up), step(stack, "destroy", stack.destroy)]


def cli_import(settings):
    """`pulumi import` of one resource, then of a file of several, then an up of the program declaring them."""

    def program():
        Counter(ref("counters:CounterProvider"), "one", {"start": 11})
        Counter(ref("counters:CounterProvider"), "two", {"start": 12})
        Tally(ref("counters:TallyProvider"), "three", {"count": 13})

    stack = reference_stack(settings, "cli-import", program)
    flags = ["--yes", "--generate-code=false", "--protect=false"]
    steps = [cli_step(settings, stack, "import-one", ["import", "pulumi-python:dynamic:Counter", "one", "counter-11", *flags])]
    imports = {
        "resources": [
            {"type": "pulumi-python:dynamic:Counter", "name": "two", "id": "counter-12"},
            {"type": "pulumi-python:dynamic:Tally", "name": "three", "id": "tally-13"},
        ]
    }
    file = os.path.join(settings["home"], "cli-import-resources.json")
    with open(file, "w") as f:
        json.dump(imports, f)
    steps.append(cli_step(settings, stack, "import-file", ["import", "--file", file, *flags]))
    steps.append(step(stack, "up", stack.up))
    steps.append(step(stack, "destroy", stack.destroy))
    return steps


def import_undeclared(settings):
    """The import option for a type the project declares nowhere."""

    def program():
        Unlisted(ref("counters:CounterProvider"), "stray", {"start": 1}, pulumi.ResourceOptions(import_="counter-1"))

    stack = reference_stack(settings, "import-undeclared", program)
    return [step(stack, "up", stack.up)]


def get_scenario(settings):
    """Reads by id (a get): with the helper's object, and with a provider pickled by value."""

    def program():
        Counter(ref("counters:CounterProvider"), "got", {}, pulumi.ResourceOptions(id="counter-5"))
        Counter(ByValueReader(), "got-by-value", {}, pulumi.ResourceOptions(id="counter-6"))

    stack = reference_stack(settings, "get", program)
    return [step(stack, "up", stack.up), step(stack, "destroy", stack.destroy)]


def repair(settings):
    """The state's code is broken, the project's fixed, latestCode declared: refresh and destroy run the fix."""

    def program():
        Repaired(BrokenProvider(), "fragile", {"value": "v1", "marker": settings["marker"]})

    stack = reference_stack(settings, "repair", program)
    return [step(stack, "up", stack.up), step(stack, "refresh", stack.refresh), step(stack, "destroy", stack.destroy)]


def helper_lifecycle(settings):
    """The helper in a program through create, update, refresh and destroy."""

    def program():
        Counter(ref("counters:CounterProvider"), "counted", {"start": phase["n"]})

    phase["n"] = 1
    stack = reference_stack(settings, "helper-lifecycle", program)
    steps = [step(stack, "up", stack.up)]
    phase["n"] = 2
    steps.append(step(stack, "up-change", stack.up))
    steps.append(step(stack, "refresh", stack.refresh))
    steps.append(step(stack, "destroy", stack.destroy))
    return steps


def kept_outputs(settings):
    """A provider without update, deployed, then its code reformatted: the engine runs Update."""

    def program():
        Dyn(kept_provider(phase["n"]), "kept", {"label": "k1"})

    return up_changed_destroy(make_stack(settings, "kept-outputs", program), "up-reformatted")


SCENARIOS = {
    "lifecycle": lifecycle,
    "check-fails": check_fails,
    "create-raises": create_raises,
    "whoami": whoami_scenario,
    "import-option": import_option,
    "import-by-value": import_by_value,
    "cli-import": cli_import,
    "import-undeclared": import_undeclared,
    "get": get_scenario,
    "repair": repair,
    "helper-lifecycle": helper_lifecycle,
    "kept-outputs": kept_outputs,
}


def main():
    scenario, settings = sys.argv[1], json.loads(sys.argv[2])
    document = {"scenario": scenario}
    try:
        document["steps"] = SCENARIOS[scenario](settings)
    except Exception:  # noqa: BLE001 - a driver failure is reported, not hidden
        document["driver_error"] = traceback.format_exc()
    json.dump(document, _result_out)
    _result_out.write("\n")
    _result_out.flush()


if __name__ == "__main__":
    main()
