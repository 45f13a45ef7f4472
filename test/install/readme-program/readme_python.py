"""The README's Python example (Quick start step 3), run by the real engine as an
Automation API inline program, for test/install/readme-routes.test.ts.

The provider is the README's, word for word, defined here in __main__ so that dill
pickles it by value as it pickles the one in a user's __main__.py; its create and
update also return which process ran them (the e2e program's whoami: the host the
engine started, and the plugin name it ran; a copy of it here, as dill pickles what a
provider in __main__ refers to). The stack, the steps and the JSON
document on stdout are those of ../../e2e/python-program/program.py (its
make_stack, step and main), whose settings this takes, plus "work_dir": the
project's folder, where hello.txt is written.

usage: python readme_python.py readme <settings JSON>
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "e2e", "python-program"))

import program  # noqa: E402  (its import keeps fd 1 for the result alone)
import pulumi  # noqa: E402
from pulumi.dynamic import CreateResult, Resource, ResourceProvider, UpdateResult  # noqa: E402


def whoami():
    """The e2e program's whoami: the host that started this worker, and the plugin name the engine ran."""
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
        host = [a.decode() for a in f.read().split(b"\0") if a]
    with open(f"/proc/{os.getppid()}/environ", "rb") as f:
        host_env = dict(a.decode().split("=", 1) for a in f.read().split(b"\0") if b"=" in a)
    return {"host_cmdline": host, "launched_as": host_env.get("PULUMI_DYNAMIC_HOST_SERVE"), "python": sys.executable, "prefix": sys.prefix, "cwd": os.getcwd()}


class TextFileProvider(ResourceProvider):
    """Manages a text file; the host runs it in a worker in the project's virtualenv."""

    def create(self, props):
        with open(props["path"], "w") as f:
            f.write(props["content"])
        return CreateResult(props["path"], {**props, "ran_by": whoami()})

    def update(self, id, olds, news):
        with open(news["path"], "w") as f:
            f.write(news["content"])
        return UpdateResult({**news, "ran_by": whoami()})

    def delete(self, id, props):
        if os.path.exists(id):
            os.remove(id)


class TextFile(Resource):
    def __init__(self, name, path, content, opts=None):
        super().__init__(TextFileProvider(), name, {"path": path, "content": content}, opts)


def readme_program():
    pulumi.export("file", TextFile("greeting", "hello.txt", "hello\n").id)


def hello(settings):
    """What hello.txt in the project's folder holds, or None when there is none."""
    try:
        with open(os.path.join(settings["work_dir"], "hello.txt")) as f:
            return f.read()
    except FileNotFoundError:
        return None


def readme(settings):
    stack = program.make_stack(settings, "readme", readme_program, work_dir=settings["work_dir"])
    steps = []
    for name, operation in (("up", stack.up), ("destroy", stack.destroy)):
        steps.append(program.step(stack, name, operation))
        steps[-1]["hello"] = hello(settings)
    return steps


program.SCENARIOS["readme"] = readme

if __name__ == "__main__":
    program.main()
