"""Secret resource inputs under the real engine (issue 20), for
test/e2e/secret-inputs.test.ts: an Automation API driver like program.py (whose
helpers it imports), with providers of its own in __main__, so dill pickles
them by value. Each method of Echo prints the secret inputs it is given (print,
logging, pulumi.log, sys.stderr); Thrower quotes one in the error it raises.

usage: python secret_inputs.py secret-inputs <settings JSON>  (settings as program.py's,
plus "suffix": appended to the stack names, to run beside another plugin's run)
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ for program.py, imported below

import logging  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402

import program  # noqa: E402 - program.py's driver helpers (it also keeps fd 1 for the result)
import pulumi  # noqa: E402
from pulumi import Output  # noqa: E402
from pulumi.dynamic import CheckResult, CreateResult, DiffResult, ResourceProvider, UpdateResult  # noqa: E402

TOKEN = "tok-9f3a-secret"
NESTED = "nested-k3y-secret"
PIN = 40417.25
LISTED = "l1st-item-secret"


def outs_of(inputs):
    keys = ("token", "nested", "pin", "list", "flag", "plain", "round")
    return {**{k: inputs[k] for k in keys if k in inputs}, "typeOfToken": type(inputs["token"]).__name__}


class Echo(ResourceProvider):
    def check(self, olds, news):
        print(f"check sees token {news['token']}")
        return CheckResult(news, [])

    def diff(self, id, olds, news):
        print(f"diff sees token {news['token']}, was {olds['token']}")
        return DiffResult(changes=olds["round"] != news["round"])

    def create(self, props):
        print(f"token is {props['token']}")
        pulumi.log.info(f"nested key is {props['nested']['key']}")
        logging.getLogger("echo-provider").warning(f"pin is {props['pin']}")
        sys.stderr.write(f"list holds {props['list'][1]}\n")
        pulumi.log.error(f"list holds {props['list'][1]}")
        pulumi.log.debug(f"in a sentence: the-{props['token']}-suffix")
        print(f"flag is {props['flag']}, a plain value is {props['plain']}")
        return CreateResult("echo", outs_of(props))

    def update(self, id, olds, news):
        print(f"update sees token {news['token']}")
        return UpdateResult(outs_of(news))

    def delete(self, id, props):
        print(f"delete sees token {props['token']}")


class Thrower(ResourceProvider):
    def create(self, props):
        raise Exception(f"cannot log in with token {props['token']}")


phase = {"round": 1}


def export_step(settings, stack_name):
    """`pulumi stack export` run as a user runs it, in this project: secrets stay ciphertext."""
    argv = [os.path.join(settings["root"], "bin", "pulumi"), "stack", "export", "--stack", stack_name, "--non-interactive"]
    proc = subprocess.run(argv, cwd=program.HERE, env={**os.environ, **program.cli_env(settings)}, capture_output=True, text=True)
    cli = {"args": argv[1:], "code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
    return {"name": "export", "cli": cli, "events": [], "resources": {}}


def secret_inputs(settings):
    suffix = settings.get("suffix", "")

    def prog():
        program.Dyn(
            Echo(),
            "echo",
            {
                "token": Output.secret(TOKEN),
                "nested": {"key": Output.secret(NESTED), "other": "shown"},
                "pin": Output.secret(PIN),
                "list": ["plain-item", Output.secret(LISTED)],
                "flag": Output.secret(True),
                "plain": "visible",
                "round": phase["round"],
            },
        )

    def throwing():
        program.Dyn(Thrower(), "thrower", {"token": Output.secret(TOKEN)})

    name = f"secret-inputs{suffix}"
    stack = program.make_stack(settings, name, prog)
    steps = [program.step(stack, "up", stack.up), export_step(settings, name)]
    phase["round"] = 2
    steps.append(program.step(stack, "up-change", stack.up))
    steps.append(program.step(stack, "destroy", stack.destroy))
    failing = program.make_stack(settings, f"{name}-throws", throwing)
    steps.append(program.step(failing, "throws", failing.up))
    steps.append(program.step(failing, "throws-destroy", failing.destroy))
    return steps


program.SCENARIOS.clear()
program.SCENARIOS["secret-inputs"] = secret_inputs

if __name__ == "__main__":
    program.main()
