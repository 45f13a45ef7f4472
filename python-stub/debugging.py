"""debugpy in the worker, for `pulumi-dynamic-host debug python` (src/cli/debug.ts).

When PULUMI_DYNAMIC_HOST_DEBUGPY is "host:port", the worker listens there for a
debugger (VS Code's "Python Debugger: Remote Attach", or any DAP client) before
it serves a request: breakpoints in a provider's methods, which run on the
worker's threads (or its event loop thread, for `async def`), then stop during
`pulumi up`. debugpy is the program's own (the pulumi SDK requires it); the
debug command checks that first. Without the variable nothing is imported.
"""

import os
import sys


def listen_if_asked():
    where = os.environ.get("PULUMI_DYNAMIC_HOST_DEBUGPY")
    if not where:
        return
    host, _, port = where.rpartition(":")
    import debugpy

    listening = debugpy.listen((host or "127.0.0.1", int(port)))
    # The port actually bound (the debug command may have asked for any free one, 0).
    bound = listening[1] if isinstance(listening, tuple) else port
    sys.stderr.write(f"pulumi-dynamic-host worker {os.getpid()}: debugpy listening on {host}:{bound}\n")
    sys.stderr.flush()
