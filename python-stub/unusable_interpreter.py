"""An interpreter the worker cannot run in: said to the host, then the worker exits.

When this interpreter cannot import what the worker needs (a Python chosen
for a project of another language may have no pulumi), the worker says so to
the host in $/unusable instead of $/ready (one line on stderr only when there
is no host to tell), with no traceback, and exits: the host answers each request with an error naming the
resource and the fix (src/python-bridge/interpreter/unusable-interpreter.ts).

Who calls: worker.py, before it loads anything that imports them.
"""

import importlib
import os
import sys


def exit_if_unusable(protocol):
    """Returns when dill, protobuf and pulumi import; else tells the host (over protocol.Channel) and exits."""
    # By the name pip installs each under.
    for module, package in (("dill", "dill"), ("google.protobuf", "protobuf"), ("pulumi", "pulumi")):
        try:
            importlib.import_module(module)
        except ImportError as e:
            fd = int(os.environ.get("PULUMI_DYNAMIC_HOST_CHANNEL_FD", "3"))
            params = {"python": sys.executable, "module": package, "error": str(e)}
            try:
                protocol.Channel(fd).write({"jsonrpc": "2.0", "method": "$/unusable", "params": params})
            except Exception:
                # No host to tell (started by hand): the one line on stderr. With a host, it says this at -v=1
                # and in the error of each request that needed Python; a plugin asked only for a schema is quiet.
                sys.stderr.write(f"pulumi-dynamic-host worker: {sys.executable} cannot import {module}: {e}\n")
                sys.stderr.flush()
            finally:
                os._exit(4)
