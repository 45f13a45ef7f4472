"""The end-to-end program of provider output under its resource (issue 20):
run by test/e2e/provider-logs.test.ts as program.py is (same settings, same
one JSON document on stdout), with program.py's driver. Its providers live in
this __main__, so dill pickles them by value.

usage: python logs.py <scenario> <settings JSON>
"""
import logging
import os
import subprocess
import sys
import threading
import time

import program  # noqa: E402 - the driver (and fd 1 kept for the result)
import pulumi  # noqa: E402
from pulumi import automation as auto  # noqa: E402
from pulumi.dynamic import CreateResult, ResourceProvider  # noqa: E402

CONCURRENT = 20
LINES = 5


class Printer(ResourceProvider):
    """Prints LINES numbered lines naming its resource, pausing between them so that concurrent calls interleave."""

    def create(self, props):
        name = props["name"]
        started = time.time()
        for i in range(int(props["lines"])):
            print(f"{name} says {i}")
            time.sleep(((i * 7 + len(name)) % 5) / 1000)
        return CreateResult(name, {"started": started, "ended": time.time()})


class Levels(ResourceProvider):
    """Every way a Python provider writes but pulumi.log.error: each must reach the engine once, at
    its severity, and none may make the resource look failed."""

    def configure(self, req):
        self.secret = req.config.require("secret")

    def create(self, props):
        print("print line")
        sys.stdout.write("sys.stdout line\n")
        sys.stderr.write("sys.stderr line\n")
        print("print to stderr line", file=sys.stderr)
        log = logging.getLogger("levels-provider")
        log.warning("logging warning")
        log.error("logging error")
        # The module's functions configure the root logger (basicConfig: "LEVEL:logger:message" on stderr).
        logging.warning("root logging warning")
        logging.error("root logging error")
        logging.critical("root logging critical")
        pulumi.log.debug("pulumi.log debug")
        pulumi.log.info("pulumi.log info")
        pulumi.log.warn("pulumi.log warn")
        print(f"the secret config is {self.secret}")
        os.write(1, b"raw fd 1 line\n")
        subprocess.run(["echo", "child process line"], check=True)
        thread = threading.Thread(target=print, args=("own thread line",))
        thread.start()
        thread.join()
        sys.stdout.write("partial line without newline")
        return CreateResult("levels", {})


class ExplicitError(ResourceProvider):
    """Succeeds, but says through pulumi.log.error that something is wrong: the one print that is an error."""

    def create(self, props):
        print("stderr before the explicit error", file=sys.stderr)
        pulumi.log.error("pulumi.log error")
        return CreateResult("explicit-error", {})


class Raises(ResourceProvider):
    def create(self, props):
        return helper_that_raises(props)


def helper_that_raises(props):
    return props["no-such-input"]


class ReturnsNothing(ResourceProvider):
    def create(self, props):
        pass


async def fetch_outputs():
    return {"fetched": True}


class UnawaitedCoroutine(ResourceProvider):
    def create(self, props):
        return CreateResult("unawaited", fetch_outputs())


def logs(settings):
    def prog():
        for i in range(CONCURRENT):
            program.Dyn(Printer(), f"printer-{i:02d}", {"name": f"printer-{i:02d}", "lines": LINES})
        program.Dyn(Levels(), "levels", {})

    stack = program.make_stack(settings, "logs", prog)
    stack.set_config("secret", auto.ConfigValue("s3cr3t-value", secret=True))
    return [program.step(stack, "up", stack.up, parallel=CONCURRENT + 4), program.step(stack, "destroy", stack.destroy)]


def explicit_error(settings):
    def prog():
        program.Dyn(ExplicitError(), "explicit-error", {})

    stack = program.make_stack(settings, "explicit-error", prog)
    return [program.step(stack, "up", stack.up), program.step(stack, "destroy", stack.destroy)]


def raises(settings):
    def prog():
        program.Dyn(Raises(), "raises", {"present": 1})
        program.Dyn(ReturnsNothing(), "returns-nothing", {})
        program.Dyn(UnawaitedCoroutine(), "unawaited", {})

    stack = program.make_stack(settings, "raises", prog)
    # continue_on_error: every create runs, whichever fails first.
    return [program.step(stack, "up", stack.up, continue_on_error=True), program.step(stack, "destroy", stack.destroy)]


program.SCENARIOS.clear()
program.SCENARIOS.update({"logs": logs, "explicit_error": explicit_error, "raises": raises})

if __name__ == "__main__":
    program.main()
