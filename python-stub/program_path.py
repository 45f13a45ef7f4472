"""The program's import paths (sys.path), placed before anything of the user's is imported.

sys.path[0] is the worker's directory (unless PYTHONSAFEPATH): it never
stays. The host sends what the language host gives the program
(src/python-bridge/interpreter/program-paths.ts): the program directory first (also under
PYTHONSAFEPATH: the language host's runpy.run_path puts it there regardless),
and fallbacks that shadow nothing (the project root and its src/) last. The
variable is removed so that user code and its child processes never see it.
Without it (the worker started by hand), the cwd takes sys.path[0], as
`python -m pulumi.dynamic` would have it.

A worker the launcher started before the host (python-stub/prestart.py) gets
them in its first message instead ($/program-path, set_program_path below);
until then it has the program directory first, which is what `first` always
holds.

The reference helper, pulumi_dynamic_host.reference, which programs import
from the pulumi-dynamic-host wheel: pickles of its ProviderReference name it,
so unpickling them imports it. Our own copy (a namespace-package portion,
python-stub/helper) goes last on sys.path, so the copy installed in the
program's environment, if any, is the one imported.

Who calls: worker.py, first thing (place), and the serving loop on
$/program-path (set_program_path).
"""

import json
import os
import sys

_helper_path = None


def place(here):
    """Places the program's paths around sys.path as the worker starts; `here` is the worker's directory."""
    global _helper_path
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]
    program_path = os.environ.pop("PULUMI_DYNAMIC_HOST_PROGRAM_PATH", None)
    prestarted = os.environ.pop("PULUMI_DYNAMIC_HOST_PRESTARTED", None) is not None
    if program_path is not None:
        program_path = json.loads(program_path)
        sys.path[0:0] = program_path["first"]
        sys.path.extend(p for p in program_path["last"] if p not in sys.path)
    elif prestarted or not os.environ.get("PYTHONSAFEPATH"):
        sys.path.insert(0, os.getcwd())
    _helper_path = os.path.join(here, "helper")
    sys.path.append(_helper_path)


def set_program_path(value):
    """$/program-path: a prestarted worker's program paths, placed as the variable would have placed them."""
    paths = json.loads(value)
    if sys.path[:1] == [os.getcwd()]:
        del sys.path[0]
    sys.path[0:0] = paths["first"]
    at = sys.path.index(_helper_path) if _helper_path in sys.path else len(sys.path)
    sys.path[at:at] = [p for p in paths["last"] if p not in sys.path]
