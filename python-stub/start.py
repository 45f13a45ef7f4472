"""How the host starts its worker: `python -u start.py <worker.py>`.

Runs the worker script as `python -u <worker.py>` would (as __main__, with
sys.argv[0] the script, and its file name in every traceback), but from
compiled code kept between starts (bytecode.py) instead of compiling the
script afresh each time. worker.py loads its siblings, the modules the worker
is made of, the same way.
"""

# As worker.py's first lines: the engine SIGINTs the whole process group on shutdown.
try:
    import _signal
except ImportError:  # pragma: no cover - not CPython
    import signal as _signal
_signal.signal(_signal.SIGINT, lambda signum, frame: None)

import os  # noqa: E402
import sys  # noqa: E402


def _bytecode():
    """bytecode.py, imported by path under a private name that worker.py looks for."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_pulumi_dynamic_host_bytecode", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bytecode.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[spec.name] = module
    return module


def _run():
    script = os.path.abspath(sys.argv[1])
    code = _bytecode().code_of(script)
    sys.argv[:] = [script, *sys.argv[2:]]
    main = sys.modules["__main__"].__dict__
    keep = ("__name__", "__builtins__", "__doc__", "__package__", "__loader__", "__spec__")
    for name in [n for n in main if n not in keep]:
        del main[name]
    main.update(__file__=script, __cached__=None, __doc__=None)
    exec(code, main)


_run()
