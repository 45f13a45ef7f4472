"""Secrets out, the call context and the debugger under the real engine (issue
20), for test/e2e/secrets-context.test.ts and debug-attach.test.ts: an Automation API driver like program.py
(whose helpers it imports: stack set-up, steps, the one JSON document), with
providers of its own in __main__, so dill pickles them by value.

usage: python secrets_context.py <secrets-context | debuggee> <settings JSON>  (settings as program.py's,
plus "report": a file the provider's delete writes its call context to)
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ for program.py, imported below

import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402

import program  # noqa: E402 - program.py's driver helpers (it also keeps fd 1 for the result)
from pulumi import Output, ResourceOptions, CustomTimeouts, export  # noqa: E402
from pulumi.dynamic import CheckResult, CreateResult, ResourceProvider, UpdateResult  # noqa: E402


def summary(context):
    if context is None:
        return "no context"
    return {
        "operation": context.operation,
        "urn": context.urn,
        "name": context.name,
        "type": context.type,
        "preview": "unset" if context.preview is None else context.preview,
        "deadline": "unset" if context.deadline is None else context.deadline.isoformat(),
        "cancelled": context.cancelled.is_set(),
        "oldInputs": "unset" if context.old_inputs is None else context.old_inputs,
    }


class Minted(ResourceProvider):
    """Makes a secret of its own (its plaintext is in no input) beside plain outputs, and echoes `echo`."""

    def create(self, props):
        return CreateResult(
            "m1",
            {
                "password": Output.secret(f"{props['seed']}-minted"),
                "note": Output.from_input("plain-note"),
                "plain": "visible",
                "echo": props["echo"],
            },
        )


class ContextEcho(ResourceProvider):
    def check(self, olds, news, context):
        return CheckResult({**news, "checkContext": summary(context)}, [])

    def create(self, props, context):
        return CreateResult("c1", {**props, "createContext": summary(context)})

    def update(self, id, olds, news, context=None):
        return UpdateResult({**news, "updateContext": summary(context)})

    def delete(self, id, props, context):
        with open(props["reportTo"], "w") as f:
            json.dump(summary(context), f)


phase = {"n": 1}


def export_step(settings):
    """`pulumi stack export` run as a user runs it, in this project: secrets stay ciphertext."""
    argv = [os.path.join(settings["root"], "bin", "pulumi"), "stack", "export", "--stack", "secrets", "--non-interactive"]
    proc = subprocess.run(argv, cwd=program.HERE, env={**os.environ, **program.cli_env(settings)}, capture_output=True, text=True)
    cli = {"args": argv[1:], "code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
    return {"name": "export", "cli": cli, "events": [], "resources": {}}


def secrets_context(settings):
    def prog():
        program.Dyn(Minted(), "minted", {"seed": "py-s33d", "echo": Output.secret("py-ech0-secret")})
        ctx = program.Dyn(
            ContextEcho(),
            "ctx",
            {"a": "x" if phase["n"] == 1 else "y", "reportTo": settings["report"]},
            ResourceOptions(custom_timeouts=CustomTimeouts(create="2m", delete="3m")),
        )
        export("ctxUrn", ctx.urn)

    stack = program.make_stack(settings, "secrets", prog)
    steps = [program.step(stack, "up", stack.up)]
    # As a user exports (the Automation API's export_stack decrypts secrets).
    steps.append(export_step(settings))
    phase["n"] = 2
    steps.append(program.step(stack, "up-change", stack.up))
    steps.append(program.step(stack, "destroy", stack.destroy))
    return steps


class Debuggee(ResourceProvider):
    """For the debugger test (test/e2e/debug-attach.test.ts): a breakpoint goes on the marked line."""

    def create(self, props):
        greeting = f"hello {props['who']}"  # breakpoint-here
        return CreateResult("d1", {"greeting": greeting})


def debuggee(settings):
    """One up, with the engine attaching to the debug host (PULUMI_DEBUG_PROVIDERS in settings["env"])."""

    def prog():
        program.Dyn(Debuggee(), "debuggee", {"who": "debugger"})

    stack = program.make_stack(settings, "debug", prog)
    return [program.step(stack, "up", stack.up)]


program.SCENARIOS["secrets-context"] = secrets_context
program.SCENARIOS["debuggee"] = debuggee

if __name__ == "__main__":
    program.main()
