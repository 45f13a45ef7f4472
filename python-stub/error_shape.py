"""How errors leave the worker: the kinds of failure a request can end in, and
the traceback a user sees of an error their code raised.

A traceback is shaped as the Python reference sends it
(`traceback.format_exc()`), less the worker's own frames (where the
reference shows its own: its RPC method and wrapper), so that it opens with the
user's code. The worker's own frames are those of its files (OUR_FILES: the
modules that make up the worker and the ones it calls user code through) and
of the import system above a module that raised when a provider reference
imported it. One stays: the operation's (operations.py, op_<method>), when it
is where the error was raised. The whole traceback goes to the host beside it,
which shows it at -v.

Who calls: every module that raises these, and the serving loop
(serving.py), which turns each into its answer (error_data).
"""

import importlib
import os
import re
import traceback

_HERE = os.path.dirname(os.path.abspath(__file__))

# The worker's files whose frames are left out of the tracebacks shown to users: worker.py and
# the modules it is made of, the call context and Outputs modules user code is called through,
# and our copy of the reference helper.
OUR_FILES = (
    "worker.py",
    "program_path.py",
    "unusable_interpreter.py",
    "error_shape.py",
    "values.py",
    "user_code.py",
    "provider_cache.py",
    "operations.py",
    "serving.py",
    "call_context.py",
    "secret_outputs.py",
    os.path.join("helper", "pulumi_dynamic_host", "reference.py"),
)
_PLUMBING_FILES = frozenset(os.path.join(_HERE, f) for f in OUR_FILES)
# The operations' file: its op_<method> frame stays where the error was raised (_operation_failure).
_OPERATIONS_FILE = os.path.join(_HERE, "operations.py")


class Cancelled(Exception):
    pass


class UserError(Exception):
    """The user's code raised: carries the gRPC code and details the Python reference would send."""

    def __init__(self, code, details, exc):
        super().__init__(details)
        self.code = code
        self.details = details
        self.type = type(exc).__name__
        self.message = safe_str(exc)
        self.trace = _whole_traceback(exc)


class LoadError(UserError):
    """
    The `__provider` text could not be turned into a provider. `reason` says
    what was wrong with it, in words (the host puts the method and resource
    before it); `details` is the traceback, or "" when there was no exception.
    """

    def __init__(self, reason, exc=None, reference=None):
        Exception.__init__(self, reason)
        self.code = 2
        self.details = user_traceback(exc) if exc is not None else ""
        self.type = type(exc).__name__ if exc is not None else "NotAProvider"
        self.message = safe_str(exc) if exc is not None else reason
        self.trace = _whole_traceback(exc) if exc is not None else None
        self.reason = reason
        # Set when a provider reference failed: `reason` then names it and where it was written.
        self.reference = reference


class UnsetValue(Exception):
    """A request bag holds a Value with no kind set: the request's fault, not the user's code's."""

    def __init__(self, field, path):
        super().__init__(f"the request's {field} holds a Value with no kind set")
        self.field = field
        self.path = path


class BadValue(Exception):
    """
    The SDK's deserialize_properties refused a value of a request bag (an asset
    signature without path, text or uri, an unknown signature, …): the
    request's fault, not the user's code's. `path` leads to the innermost value
    it refuses on its own.
    """

    def __init__(self, field, path, exc):
        super().__init__(f"the request's {field} holds a value the SDK cannot deserialize")
        self.field = field
        self.path = path
        self.type = type(exc).__name__
        self.message = safe_str(exc)


# Named as when worker.py, run as __main__, defined them: user code can meet one (a BadValue from
# context.old_inputs, say), and a traceback that chains it below the user's own error, or a
# repr of its class, shows it as before, with no module name.
for _kind in (Cancelled, UserError, LoadError, UnsetValue, BadValue):
    _kind.__module__ = "__main__"
del _kind


def safe_str(e):
    try:
        return str(e)
    except Exception:  # noqa: BLE001
        return "<unprintable exception>"


def describe(e):
    return f"{type(e).__name__}: {safe_str(e)}"


def error_data(e):
    """The data of a UserError's (or LoadError's) answer."""
    data = {"grpcCode": e.code, "details": e.details, "type": e.type, "message": e.message}
    if e.trace is not None:
        data["trace"] = e.trace
    if isinstance(e, LoadError):
        data["reason"] = e.reason
        if e.reference is not None:
            data["reference"] = e.reference
    return data


_IMPORTLIB_FILE = os.path.abspath(importlib.__file__)


def _is_import_machinery(filename):
    return filename.startswith("<frozen importlib.") or filename == _IMPORTLIB_FILE


def _is_plumbing(filename):
    """A file of this worker's own (its files, the import system above an imported module): never the user's code."""
    return filename in _PLUMBING_FILES or _is_import_machinery(filename)


# The first line of a frame as the traceback module formats it.
_FRAME_LINE = re.compile(r'  File "(.*)", line \d+, in ')


def user_traceback(exc):
    """
    traceback.format_exc() as the reference sends it, less this worker's
    frames (where the reference shows its own: its RPC method and wrapper), so
    that it opens with the user's code; chained exceptions too. One stays: the
    operation's, when it is where the error was raised (_operation_failure). The import
    system's frames, above a module that raised when a provider reference
    imported it, go too. Each frame is one piece of the formatted traceback
    (its File line, source line and carets): the pieces of ours are left out,
    and the "Traceback (most recent call last):" lines stay even when none of
    the user's frames is left, as in the reference's text. The whole traceback
    goes to the host beside it (_whole_traceback), which shows it at -v.
    """
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    failed_at = _operation_failure(exc)
    kept = []
    for piece in te.format():
        frame = _FRAME_LINE.match(piece)
        if frame is None or not _is_plumbing(frame[1]) or (failed_at is not None and piece.startswith(failed_at)):
            kept.append(piece)
    return "".join(kept)


def _operation_failure(exc):
    """
    When the operation itself raised, on what the user's method returned (None
    for outs, say): the first line of its frame, which stays as the failing
    statement (the reference's traceback shows the same statement in its RPC
    method). None when the error was raised anywhere else.
    """
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return None
    code = tb.tb_frame.f_code
    if code.co_filename != _OPERATIONS_FILE or not code.co_name.startswith("op_"):
        return None
    return f'  File "{code.co_filename}", line {tb.tb_lineno}, in {code.co_name}\n'


def _whole_traceback(exc):
    """The traceback with every frame, the worker's own included: what the host logs at -v."""
    try:
        return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except Exception:  # noqa: BLE001 - a diagnostic is never worth a second error
        return None


def _library_dirs():
    import sysconfig

    paths = sysconfig.get_paths()
    dirs = {os.path.join(os.path.abspath(paths[k]), "") for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)}
    return tuple(sorted(dirs))


_LIBRARY_DIRS = _library_dirs()


def user_frames(exc):
    """
    The frames of the user's code in `exc`'s traceback, most recent first (as
    the where block lists them, like Node mode's): not this worker's, not the
    standard library's or an installed package's (the pulumi SDK, dill). A
    file in the program directory is named relative to it.
    """
    cwd = os.path.join(os.getcwd(), "")
    frames = []
    for f in traceback.extract_tb(exc.__traceback__):
        name = f.filename
        if _is_plumbing(name) or name.startswith("<frozen ") or os.path.abspath(name).startswith(_LIBRARY_DIRS):
            continue
        shown = name[len(cwd) :] if name.startswith(cwd) else name
        frames.append((f.name, shown, f.lineno))
    frames.reverse()
    return frames
