"""The Python worker of pulumi-resource-pulumi-python.

Started by the host in the program's own interpreter (the one the Python
reference's launcher would pick), with cwd = the program directory. It loads
providers with the user's own `pulumi` and `dill`, calls their methods with the
values the Python reference would pass (the SDK's deserialize_properties /
serialize_properties on real Struct messages), and answers the host over the
socket on fd 3 (see protocol.py). fd 1 and fd 2 are the host's stdout and
stderr: whatever user code prints, and its child processes, goes there and
never touches the channel.

Semantics live in the host; this returns normalized results or structured
errors. What differs from the reference on purpose: no cap of 4 concurrent
requests, no global lock across unrelated providers, `async def` methods are
awaited, and a request can be cancelled.
"""

# On shutdown the engine SIGINTs the plugin's whole process group, this worker
# included. The host decides when the worker stops (it kills it, or closes the
# channel); a KeyboardInterrupt traceback here would reach the user as error
# output the reference never prints (its main thread catches KeyboardInterrupt
# and stops quietly). First thing, with the builtin _signal (signal.py imports
# enum, which is slow), to leave no window; a Python-level handler, not
# SIG_IGN, so that the user's child processes still get the default
# disposition, as under the reference.
try:
    import _signal
except ImportError:  # pragma: no cover - not CPython
    import signal as _signal
_signal.signal(_signal.SIGINT, lambda signum, frame: None)

import os  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402

# The program's import paths, before anything is imported. sys.path[0] is this
# file's directory (unless PYTHONSAFEPATH): it never stays. The host sends what
# the language host gives the program (src/python-bridge/program-paths.ts):
# the program directory first (also under PYTHONSAFEPATH: the language host's
# runpy.run_path puts it there regardless), and fallbacks that shadow nothing
# (the project root and its src/) last. The variable is removed so that user
# code and its child processes never see it. Without it (the worker started by
# hand), the cwd takes sys.path[0], as `python -m pulumi.dynamic` would have it.
import json as _json  # noqa: E402

_here = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == _here:
    del sys.path[0]
# A worker the launcher started before the host (python-stub/prestart.py) gets them in its first
# message instead ($/program-path, set_program_path below); until then it has the program
# directory first, which is what `first` always holds.
_program_path = os.environ.pop("PULUMI_DYNAMIC_HOST_PROGRAM_PATH", None)
_PRESTARTED = os.environ.pop("PULUMI_DYNAMIC_HOST_PRESTARTED", None) is not None
if _program_path is not None:
    _program_path = _json.loads(_program_path)
    sys.path[0:0] = _program_path["first"]
    sys.path.extend(p for p in _program_path["last"] if p not in sys.path)
elif _PRESTARTED or not os.environ.get("PYTHONSAFEPATH"):
    sys.path.insert(0, os.getcwd())
del _program_path

# The reference helper, pulumi_dynamic_host.reference, which programs import from the
# pulumi-dynamic-host wheel: pickles of its ProviderReference name it, so unpickling them
# imports it. Our own copy (a namespace-package portion) goes last on sys.path, so the
# copy installed in the program's environment, if any, is the one imported.
_HELPER_FILE = os.path.join(_here, "helper", "pulumi_dynamic_host", "reference.py")
_HELPER_PATH = os.path.join(_here, "helper")
sys.path.append(_HELPER_PATH)


def set_program_path(value):
    """$/program-path: a prestarted worker's program paths, placed as the variable would have placed them."""
    paths = _json.loads(value)
    if sys.path[:1] == [os.getcwd()]:
        del sys.path[0]
    sys.path[0:0] = paths["first"]
    at = sys.path.index(_HELPER_PATH) if _HELPER_PATH in sys.path else len(sys.path)
    sys.path[at:at] = [p for p in paths["last"] if p not in sys.path]


def _load_sibling(name, path=None):
    """Imports python-stub/<name>.py (or `path`) by path, so our modules never shadow or are shadowed by the user's."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_pulumi_dynamic_host_{name}", path or os.path.join(_here, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    # Started by start.py: from the compiled code it keeps between starts (bytecode.py).
    bytecode = sys.modules.get("_pulumi_dynamic_host_bytecode")
    if bytecode is not None:
        exec(bytecode.code_of(spec.origin), module.__dict__)
    else:
        spec.loader.exec_module(module)
    return module


protocol = _load_sibling("protocol")
threads = _load_sibling("threads")
output_capture = _load_sibling("output_capture")
error_hints = _load_sibling("error_hints")



def _unusable_interpreter():
    """
    When this interpreter cannot import what the worker needs (a Python chosen
    for a project of another language may have no pulumi), says so to the host
    in $/unusable instead of $/ready, with one line on stderr and no
    traceback, and exits: the host answers each request with an error naming
    the resource and the fix (src/python-bridge/unusable-interpreter.ts).
    """
    import importlib

    # By the name pip installs each under.
    for module, package in (("dill", "dill"), ("google.protobuf", "protobuf"), ("pulumi", "pulumi")):
        try:
            importlib.import_module(module)
        except ImportError as e:
            fd = int(os.environ.get("PULUMI_DYNAMIC_HOST_CHANNEL_FD", "3"))
            params = {"python": sys.executable, "module": package, "error": str(e)}
            try:
                protocol.Channel(fd).write({"jsonrpc": "2.0", "method": "$/unusable", "params": params})
            finally:
                sys.stderr.write(f"pulumi-dynamic-host worker: {sys.executable} cannot import {module}: {e}\n")
                sys.stderr.flush()
                os._exit(4)


_unusable_interpreter()

import asyncio  # noqa: E402
import base64  # noqa: E402
import concurrent.futures  # noqa: E402
import contextvars  # noqa: E402
import importlib  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import dill  # noqa: E402
from google.protobuf import struct_pb2  # noqa: E402

from pulumi.runtime import rpc, proto  # noqa: E402
from pulumi.runtime import configure as configure_settings, Settings  # noqa: E402
from pulumi.metadata import get_project  # noqa: E402

try:  # before v3.128
    from pulumi.runtime._serialization import _deserialize
except ImportError:  # pragma: no cover - old SDKs
    _deserialize = None
try:  # before v3.139 providers were never configured
    from pulumi.dynamic import ConfigureRequest, Config
except ImportError:  # pragma: no cover - old SDKs
    ConfigureRequest = Config = None
try:
    from pulumi.dynamic import ResourceProvider
except ImportError:  # pragma: no cover - not an SDK we know
    ResourceProvider = None

# Outputs in what providers return: awaited, and secret ones kept secret.
secret_outputs = _load_sibling("secret_outputs")
# The call context a method may ask for.
call_context = _load_sibling("call_context")

# Our own copy of the reference helper, for resolving references (whichever copy the program
# imports, the resolution is this host's): under a private name, so it never stands in for the
# importable pulumi_dynamic_host.reference.
references = _load_sibling("reference", _HELPER_FILE)

PROVIDER_KEY = "__provider"
# Our frames, left out of the tracebacks shown to users.
_WORKER_FILE = os.path.abspath(__file__)
_PLUMBING_FILES = frozenset([_WORKER_FILE, os.path.abspath(_HELPER_FILE), call_context.__file__, secret_outputs.__file__])


class Cancelled(Exception):
    pass


class UserError(Exception):
    """The user's code raised: carries the gRPC code and details the Python reference would send."""

    def __init__(self, code, details, exc):
        super().__init__(details)
        self.code = code
        self.details = details
        self.type = type(exc).__name__
        self.message = _safe_str(exc)
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
        self.details = _user_traceback(exc) if exc is not None else ""
        self.type = type(exc).__name__ if exc is not None else "NotAProvider"
        self.message = _safe_str(exc) if exc is not None else reason
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
        self.message = _safe_str(exc)


def _safe_str(e):
    try:
        return str(e)
    except Exception:  # noqa: BLE001
        return "<unprintable exception>"


def _is_plumbing(filename):
    """A file of this worker's own (its files, the import system above an imported module): never the user's code."""
    return filename in _PLUMBING_FILES or _is_import_machinery(filename)


# The first line of a frame as the traceback module formats it.
_FRAME_LINE = re.compile(r'  File "(.*)", line \d+, in ')


def _user_traceback(exc):
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
    if code.co_filename != _WORKER_FILE or not code.co_name.startswith("op_"):
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


def _user_frames(exc):
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


# --- the provider cache ------------------------------------------------------


class Providers:
    """
    Provider objects by serialized text, and by reference. As the reference:
    unpickle, then configure, then cache; a failure caches nothing and the next
    request tries again. Unlike it: one lock per text, so unrelated providers
    load in parallel.

    A reference ("<module>:<attribute>", declared in Pulumi.yaml or held by the
    helper's ProviderReference) is imported from the program's sys.path and
    cached by its string: a text that unpickles to a ProviderReference runs the
    provider it names, the same object a declaration of that reference runs.
    """

    def __init__(self):
        self._cache = {}
        self._locks = {}
        self._guard = threading.Lock()
        self.config = {}

    def get(self, text):
        return self._cached(text, lambda: self._from_text(text))

    def by_reference(self, reference, origin):
        """The provider `reference` names; `origin` says where it was written, for errors ("declared for …")."""
        return self._cached(("reference", reference), lambda: self._from_reference(reference, origin))

    def _cached(self, key, make):
        provider = self._cache.get(key)
        if provider is not None:
            return provider
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            provider = self._cache.get(key)
            if provider is None:
                provider = make()
                self._cache[key] = provider
        return provider

    def _from_text(self, text):
        provider = self._load(text)
        reference = getattr(provider, references.REFERENCE_ATTRIBUTE, None)
        if isinstance(reference, str):
            return self.by_reference(reference, "that the program passed with provider_reference()")
        self._configure(provider)
        return provider

    def _from_reference(self, reference, origin):
        try:
            provider = references.resolve(reference)
        except references.ReferenceProblem as e:
            raise LoadError(f'the provider reference "{reference}" {origin}: {e.detail}', e.cause, reference) from e
        # As the helper's ProviderReference.configure does: a provider without configure is not configured.
        if callable(getattr(provider, "configure", None)):
            self._configure(provider)
        return provider

    def _load(self, text):
        try:
            data = base64.b64decode(text)
        except Exception as e:  # noqa: BLE001 - binascii.Error, or a text that is not ASCII
            raise LoadError(f"it is not valid base64 ({_describe(e)})", e) from e

        def deserialize():
            return dill.loads(data)

        try:
            provider = _deserialize(deserialize) if _deserialize else deserialize()
        except Exception as e:  # noqa: BLE001
            raise LoadError(_unpickling_problem(e, data), e) from e
        problem = _not_a_provider(provider)
        if problem:
            raise LoadError(problem)
        return provider

    def _configure(self, provider):
        if ConfigureRequest is None:
            return
        dyn_config = Config(raw_config=self.config, project_name=get_project())
        result = provider.configure(ConfigureRequest(config=dyn_config))
        if asyncio.iscoroutine(result):
            run_async(result)


def _describe(e):
    return f"{type(e).__name__}: {_safe_str(e)}"


_IMPORTLIB_FILE = os.path.abspath(importlib.__file__)


def _is_import_machinery(filename):
    return filename.startswith("<frozen importlib.") or filename == _IMPORTLIB_FILE


# What the SDK's serialize_provider writes: dill.dumps at pickle.DEFAULT_PROTOCOL (2 or more on
# every Python 3), so its first byte is the PROTO opcode and its second the protocol.
_PROTO = 0x80


def _unpickling_problem(e, data):
    """What was wrong with a payload that dill could not load, in words; the traceback goes below."""
    import pickle

    what = _describe(e)
    if not data:
        return f"it is empty ({what})"
    if data[0] != _PROTO:
        return f"it is not a pickle the pulumi Python SDK wrote: it does not start with a pickle protocol header ({what})"
    if len(data) > 1 and data[1] > pickle.HIGHEST_PROTOCOL:
        return f"it is a pickle of protocol {data[1]}, newer than this Python ({sys.version.split()[0]}) reads ({what})"
    if isinstance(e, ModuleNotFoundError) and e.name:
        return (
            f"it needs the module '{e.name}', which is not on the program's path ({what}); put the module in the "
            f"program directory ({os.getcwd()}, first on sys.path) or install it in the program's environment"
        )
    if isinstance(e, EOFError) or (isinstance(e, pickle.UnpicklingError) and "truncated" in _safe_str(e)):
        return f"the pickle is cut short: it ends before it is complete ({what})"
    if isinstance(e, pickle.UnpicklingError):
        return f"it is a damaged pickle ({what})"
    return f"unpickling it raised {what}"


def _not_a_provider(obj):
    """
    Why an unpickled object cannot be a provider, or None. Only what the
    reference could not run either is refused: an object that is no
    ResourceProvider and lacks `configure`, which the reference calls on every
    provider it loads (on SDKs without configure: lacks every resource method).
    """
    if ResourceProvider is not None and isinstance(obj, ResourceProvider):
        return None
    needed = ("configure",) if ConfigureRequest is not None else ("check", "diff", "create", "read", "delete")
    if any(callable(getattr(obj, m, None)) for m in needed):
        return None
    cls = type(obj)
    return f"it holds a {cls.__module__}.{cls.__qualname__}, not a pulumi.dynamic.ResourceProvider (it has no {' or '.join(needed)} method)"


PROVIDERS = Providers()

# --- running user code -------------------------------------------------------

_LOOP = asyncio.new_event_loop()
_LOOP_THREAD = threading.Thread(target=_LOOP.run_forever, name="pulumi-dynamic-host-loop", daemon=True)
_LOOP_THREAD.start()

_request_state = threading.local()


def run_async(coro):
    """Awaits a coroutine of the user's on the worker's long-lived loop, in the request's context."""
    ctx = contextvars.copy_context()
    done = concurrent.futures.Future()
    # Read on the request's thread: the loop thread has no request state of its own.
    cancel_hooks = getattr(_request_state, "cancel_hooks", None)

    def start():
        task = _LOOP.create_task(coro)
        if cancel_hooks is not None:
            cancel_hooks.append(lambda: _LOOP.call_soon_threadsafe(task.cancel))

        def finish(t):
            if t.cancelled():
                done.set_exception(Cancelled())
            elif t.exception() is not None:
                done.set_exception(t.exception())
            else:
                done.set_result(t.result())

        task.add_done_callback(finish)

    _LOOP.call_soon_threadsafe(start, context=ctx)
    return done.result()


def call_user(fn, *args):
    # A loop for this thread, so that Output.secret() and other Outputs work in synchronous methods (secret_outputs.py).
    asyncio.set_event_loop(_thread_loop())
    result = call_context.call(fn, _request_state.method, args, _make_context)
    if asyncio.iscoroutine(result):
        result = run_async(result)
    return result


def _make_context():
    """The request's CallContext (call_context.py), for a method that asks for one."""
    method, params = _request_state.method, _request_state.params
    load = (lambda: request_bag(params, "oldInputs")) if params.get("oldInputs") is not None else None
    return call_context.CallContext(method, params["urn"], params.get("context") or {}, _request_state.cancel_hooks, load)


def struct_of(raw):
    s = struct_pb2.Struct()
    if raw is not None:
        s.ParseFromString(bytes(raw))
    return s


def request_bag(p, field, keep_unknowns=None):
    """
    The request param `field` as the SDK's deserialize_properties gives it to
    the user's methods. A value the SDK refuses is the request's fault, and
    answered so, with where it is (looked for only then): a Value with no kind
    set (the SDK's bare `ValueError: Value not set`) as UnsetValue, anything
    else (an asset signature with nothing to load, an unknown signature, …)
    as BadValue.
    """
    try:
        return rpc.deserialize_properties(struct_of(p.get(field)), keep_unknowns)
    except Exception as e:  # noqa: BLE001 - whatever the SDK raises on a value it refuses
        # Looked for in the bag as sent: reading a missing key of a Struct (as the SDK does, for a
        # secret's "value") adds an empty Value to it, which would pass for one that was sent.
        path = _unset_value_path(struct_of(p.get(field))) if isinstance(e, ValueError) else None
        if path is not None:
            raise UnsetValue(field, path) from None
        raise BadValue(field, _bad_value_path(struct_of(p.get(field)), keep_unknowns), e) from None


_SIG_KEY = "4dabf18193072939515e22adb298388d"

# How far _bad_value_path descends: each step deserializes the subtree again.
_BAD_VALUE_MAX_STEPS = 32


def _bad_value_path(s, keep_unknowns):
    """
    Keys and list indexes down to the innermost value the SDK refuses on its
    own (sorted keys, first match): a signature object is itself the value.
    """
    path = []
    value = s
    while len(path) < _BAD_VALUE_MAX_STEPS:
        if isinstance(value, struct_pb2.Struct):
            if _SIG_KEY in value.fields:
                return path
            children = [(k, value[k]) for k in sorted(value.fields)]
        elif isinstance(value, struct_pb2.ListValue):
            children = list(enumerate(value))
        else:
            return path
        for key, child in children:
            try:
                rpc.deserialize_property(child, keep_unknowns)
            except Exception:  # noqa: BLE001
                path.append(key)
                value = child
                break
        else:
            return path
    return path


def _unset_value_path(s):
    """Keys and list indexes down to the first Value with no kind set (sorted keys, depth first), or None."""
    pending = [(s.fields[k], [k]) for k in sorted(s.fields, reverse=True)]
    while pending:
        value, path = pending.pop()
        kind = value.WhichOneof("kind")
        if kind is None:
            return path
        if kind == "struct_value":
            fields = value.struct_value.fields
            pending.extend((fields[k], path + [k]) for k in sorted(fields, reverse=True))
        elif kind == "list_value":
            values = value.list_value.values
            pending.extend((values[i], path + [i]) for i in range(len(values) - 1, -1, -1))
    return None


_thread_loops = threading.local()


def serialize(value):
    """
    The SDK's serialize_properties, run to completion. For plain values (what
    providers return) it never waits on anything, so it is stepped once, with
    no event loop: a loop turn doubled its cost (24 vs 12 µs for a small bag).
    If it waits (an Output's future, say) or fails, that run is dropped, having
    only read `value`, and it runs again on an event loop of the request's
    thread: so a failure carries the traceback the reference shows (its loop's
    frames included). The reference makes a new loop per call; reusing one per
    thread does the same work without a selector and socketpair each time.
    """
    value = secret_outputs.resolve_outputs(value)
    coro = rpc.serialize_properties(value, {})
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value.SerializeToString()
    except Exception:  # noqa: BLE001 - raised again, the reference's way, below
        pass
    else:
        coro.close()
    return _thread_loop().run_until_complete(rpc.serialize_properties(value, {})).SerializeToString()


def _thread_loop():
    """The request thread's own event loop, made on first need and kept for the thread's life."""
    loop = getattr(_thread_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _thread_loops.loop = asyncio.new_event_loop()
    return loop


def _settings():
    configure_settings(
        Settings(project=os.environ.get("PULUMI_PROJECT", "project"), stack="stack", organization="organization")
    )


def provider_for(p):
    """The request's provider: by its declared reference, or from its serialized text."""
    _settings()
    reference = p.get("reference")
    if reference is not None:
        origin = f"declared for {reference['typeToken']} in {reference['declaredIn']}"
        return PROVIDERS.by_reference(reference["reference"], origin)
    return PROVIDERS.get(p["provider"])


# --- operations: each mirrors the Python reference's RPC method ---------------
#
# Each carries the request bag's __provider into its result with the reference's
# own statement (so a failure there shows the reference's line). A bag without one
# is an import served by a declared reference: the host adds the text a program
# passing that reference writes.


def op_configure(p):
    config = request_bag(p, "args")
    PROVIDERS.config = {k: rpc.unwrap_rpc_secret(v) for k, v in config.items()}
    return {}


def op_check(p):
    olds = request_bag(p, "olds", True)
    news = request_bag(p, "news", True)
    provider = provider_for(p)
    result = call_user(provider.check, olds, news)
    inputs = result.inputs
    failures = result.failures
    if PROVIDER_KEY in news:
        inputs[PROVIDER_KEY] = news[PROVIDER_KEY]
    checked = serialize(inputs)
    # The real messages, so protobuf's type rules apply to what the user returned.
    failures_proto = [proto.CheckFailure(property=f.property, reason=f.reason) for f in failures]
    resp = proto.CheckResponse(failures=failures_proto)
    return {"inputs": checked, "failures": [{"property": f.property, "reason": f.reason} for f in resp.failures]}


def has_own(provider, name):
    """
    Whether the provider has a `name` method of its own: one its class (or the
    object itself) defines, not ResourceProvider's default nor none at all.
    """
    if callable(getattr(provider, "__dict__", {}).get(name)):
        return True
    method = getattr(type(provider), name, None)
    return callable(method) and (ResourceProvider is None or method is not getattr(ResourceProvider, name, None))


def op_diff(p):
    olds = request_bag(p, "olds", True)
    news = request_bag(p, "news", True)
    provider = provider_for(p)
    if not has_own(provider, "diff"):
        # The default's answer, said to be one: the host may settle a __provider layout change itself.
        return {"changes": "unknown", "replaces": [], "deleteBeforeReplace": False, "byDefault": True}
    result = call_user(provider.diff, p["id"], olds, news)
    fields = {}
    if result.changes is not None:
        fields["changes"] = proto.DiffResponse.DIFF_SOME if result.changes else proto.DiffResponse.DIFF_NONE
    else:
        fields["changes"] = proto.DiffResponse.DIFF_UNKNOWN
    if result.replaces is not None:
        fields["replaces"] = result.replaces
    if result.delete_before_replace is not None:
        fields["deleteBeforeReplace"] = result.delete_before_replace
    # Building the real message applies protobuf's own type rules to what the user returned.
    resp = proto.DiffResponse(**fields)
    changes = {proto.DiffResponse.DIFF_SOME: "some", proto.DiffResponse.DIFF_NONE: "none"}.get(resp.changes, "unknown")
    return {"changes": changes, "replaces": list(resp.replaces), "deleteBeforeReplace": bool(resp.deleteBeforeReplace)}


def op_create(p):
    props = request_bag(p, "props")
    provider = provider_for(p)
    result = call_user(provider.create, props)
    outs = result.outs if result.outs is not None else {}
    if PROVIDER_KEY in props:
        outs[PROVIDER_KEY] = props[PROVIDER_KEY]
    outs_proto = serialize(outs)
    resp = proto.CreateResponse(id=result.id)
    return {"id": resp.id, "outs": outs_proto}


def op_read(p):
    props = request_bag(p, "props")
    provider = provider_for(p)
    result = call_user(provider.read, p["id"], props)
    outs = result.outs
    if PROVIDER_KEY in props:
        outs[PROVIDER_KEY] = props[PROVIDER_KEY]
    answer = {"outs": serialize(outs)}
    result_inputs = getattr(result, "inputs", None)  # ReadResult has no inputs before v3.216
    if result_inputs is not None:
        inputs = result_inputs.copy()
        if PROVIDER_KEY in props:
            inputs[PROVIDER_KEY] = props[PROVIDER_KEY]
        answer["inputs"] = serialize(inputs)
    answer["id"] = proto.ReadResponse(id=result.id).id
    return answer


def op_update(p):
    olds = request_bag(p, "olds")
    news = request_bag(p, "news")
    provider = provider_for(p)
    if not has_own(provider, "update"):
        # No outs: the host keeps the old outputs (the reference keeps only __provider: docs/parity.md).
        return {}
    result = call_user(provider.update, p["id"], olds, news)
    outs = {}
    if result.outs is not None:
        outs = result.outs
    if PROVIDER_KEY in news:
        outs[PROVIDER_KEY] = news[PROVIDER_KEY]
    return {"outs": serialize(outs)}


def op_delete(p):
    props = request_bag(p, "props")
    provider = provider_for(p)
    call_user(provider.delete, p["id"], props)
    return {}


OPERATIONS = {
    "configure": op_configure,
    "check": op_check,
    "diff": op_diff,
    "create": op_create,
    "read": op_read,
    "update": op_update,
    "delete": op_delete,
}
assert set(OPERATIONS) | {"ping"} == set(protocol.METHODS), "worker operations and protocol.METHODS disagree"
# At most this many requests are acknowledged in one $/ack (and started together).
_ACK_BATCH = 64
# The methods that run a provider: each names it by providerId (its text) or by reference.
_PROVIDER_METHODS = frozenset(("check", "diff", "create", "read", "update", "delete"))

# --- the serving loop --------------------------------------------------------


class Worker:
    def __init__(self, channel):
        self.channel = channel
        # Threads, not a small pool: the engine's parallelism is the limit, as it should be.
        self.pool = threads.Threads(int(os.environ.get("PULUMI_DYNAMIC_HOST_THREADS", "256")))
        self.cancel_hooks = {}
        self.cancelled = set()
        self.lock = threading.Lock()
        # Provider texts by the id the host gave each (protocol.py); only the reading thread uses it.
        self.provider_texts = {}

    def report_load(self, interval):
        """Sends $/load every `interval` seconds while requests run, and once more when they stop."""
        last_cpu, last_wall, was_active = time.process_time(), time.monotonic(), False
        while True:
            time.sleep(interval)
            cpu, wall = time.process_time(), time.monotonic()
            permille = int(1000 * (cpu - last_cpu) / max(wall - last_wall, 1e-6))
            last_cpu, last_wall = cpu, wall
            with self.lock:
                active = len(self.cancel_hooks)
            if active or was_active:
                self.channel.write({"jsonrpc": "2.0", "method": "$/load", "params": {"cpu": permille, "active": active}})
            was_active = active > 0

    def serve(self):
        self.channel.write(
            {
                "jsonrpc": "2.0",
                "method": "$/ready",
                "params": {
                    "protocol": protocol.PROTOCOL_VERSION,
                    "python": sys.version.split()[0],
                    "pulumi": _version("pulumi"),
                    "dill": getattr(dill, "__version__", "unknown"),
                    "pid": os.getpid(),
                },
            }
        )
        interval = float(os.environ.get("PULUMI_DYNAMIC_HOST_LOAD_INTERVAL_MS", "250")) / 1000
        threading.Thread(target=self.report_load, args=(interval,), name="pulumi-dynamic-host-load", daemon=True).start()
        # Requests taken and not yet started: acknowledged together ($/ack), then started together.
        taken = []
        while True:
            try:
                msg = self.channel.read()
            except protocol.ProtocolError as e:
                # The stream can no longer be trusted: say why and stop; the host restarts us.
                sys.stderr.write(f"pulumi-dynamic-host worker: channel broken: {e}\n")
                os._exit(3)
            if msg is None:
                os._exit(0)  # the host went away
            self.take(msg, taken)
            # Requests that arrived together (already buffered) are taken together: one $/ack for all.
            if taken and (len(taken) >= _ACK_BATCH or not self.channel.has_frame()):
                self.start(taken)
                taken = []

    def take(self, msg, taken):
        """Handles one message from the host; a request to run is appended to `taken`, to be started by start()."""
        try:
            req_id, method, params = protocol.check_request(msg)
        except protocol.ProtocolError as e:
            rid = msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), int) else None
            self.reply_error(rid, e.code, str(e), None)
            return
        if req_id is None:
            if method == "$/cancel":
                self.cancel(params["id"])
            elif method == "$/program-path":
                set_program_path(params["paths"])
            return
        if method == "ping":
            self.channel.write({"jsonrpc": "2.0", "id": req_id, "result": {"pid": os.getpid()}})
            return
        if method in _PROVIDER_METHODS and not self.resolve_provider(req_id, method, params):
            return
        with self.lock:
            self.cancel_hooks[req_id] = []
        taken.append((req_id, method, params))

    def start(self, taken):
        """
        Acknowledges the requests taken, and starts them once the socket holds
        the acknowledgement: if this process dies at any point after, the host
        can read that they were taken (and fails them, naming each: they may
        have run); a request it never saw acknowledged never ran here, and it
        sends it to another worker.
        """
        try:
            self.channel.write({"jsonrpc": "2.0", "method": "$/ack", "params": {"ids": [t[0] for t in taken]}}, sent=True)
        except OSError:
            os._exit(0)  # the host went away: nothing may run unacknowledged
        for req_id, method, params in taken:
            self.pool.submit(self.run, req_id, method, params)

    def resolve_provider(self, req_id, method, params):
        """
        Fills params["provider"] from its id, keeping a text sent for the first
        time; False (answered) for an unknown id, or a request that names its
        provider neither by id nor by reference.
        """
        if params.get("reference") is not None:
            return True
        provider_id = params.get("providerId")
        if provider_id is None:
            self.reply_error(req_id, protocol.INVALID_PARAMS, f"{method} params: neither providerId nor reference names the provider", None)
            return False
        text = params.get("provider")
        if text is not None:
            self.provider_texts[provider_id] = text
            return True
        text = self.provider_texts.get(provider_id)
        if text is None:
            self.reply_error(req_id, protocol.INVALID_PARAMS, f"{method} params: providerId {provider_id} names no provider sent to this worker", None)
            return False
        params["provider"] = text
        return True

    def cancel(self, req_id):
        with self.lock:
            hooks = self.cancel_hooks.get(req_id)
            if hooks is None:
                return
            self.cancelled.add(req_id)
            hooks = list(hooks)
        for hook in hooks:
            hook()

    def run(self, req_id, method, params):
        # A fresh, empty context per request, as grpcio gives each RPC of the reference.
        contextvars.Context().run(self._run, req_id, method, params)

    def _run(self, req_id, method, params):
        _request_state.cancel_hooks = self.cancel_hooks.get(req_id)
        _request_state.method, _request_state.params = method, params
        try:
            result = self._operate(req_id, method, params)
            protocol.check_fields(f"{method} result", protocol.METHODS[method][1], result)
            self.channel.write({"jsonrpc": "2.0", "id": req_id, "result": result})
        except Cancelled:
            self.reply_error(req_id, protocol.CANCELLED, f"{method} was cancelled", None)
        except UnsetValue as e:
            self.reply_error(req_id, protocol.UNSET_VALUE, str(e), {"field": e.field, "path": e.path})
        except BadValue as e:
            data = {"field": e.field, "path": e.path, "type": e.type, "message": e.message}
            self.reply_error(req_id, protocol.BAD_VALUE, str(e), data)
        except LoadError as e:
            self.reply_error(req_id, protocol.LOAD_ERROR, e.message, _error_data(e))
        except UserError as e:
            self.reply_error(req_id, protocol.USER_ERROR, e.message, _error_data(e))
        except Exception as e:  # noqa: BLE001 - anything the user's code raised
            if req_id in self.cancelled and isinstance(e, asyncio.CancelledError):
                self.reply_error(req_id, protocol.CANCELLED, f"{method} was cancelled", None)
            else:
                where = error_hints.where(method, params.get("urn"), _user_frames(e))
                hint = error_hints.hint(e, method, lambda: _input_keys(method, params))
                err = UserError(2, _user_traceback(e) + where + hint, e)
                self.reply_error(req_id, protocol.USER_ERROR, err.message, _error_data(err))
        except BaseException as e:  # SystemExit / KeyboardInterrupt from user code
            err = UserError(2, _user_traceback(e), e)
            self.reply_error(req_id, protocol.USER_ERROR, err.message, _error_data(err))
        finally:
            _request_state.cancel_hooks = None
            _request_state.method = _request_state.params = None
            with self.lock:
                self.cancel_hooks.pop(req_id, None)
                self.cancelled.discard(req_id)

    def _operate(self, req_id, method, params):
        """The operation, with what it prints sent to the host under its id when asked (output_capture.py)."""
        if not params.get("logs"):
            return OPERATIONS[method](params)
        output = output_capture.begin(self.channel, req_id)
        try:
            return OPERATIONS[method](params)
        finally:
            # Before the answer: the host shows the last lines under the resource before its step ends.
            output_capture.end(output)

    def reply_error(self, req_id, code, message, data):
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.channel.write({"jsonrpc": "2.0", "id": req_id, "error": error})


def _input_keys(method, params):
    """The keys of the inputs the failed method was given (for a hint), or None."""
    field = {"check": "news", "diff": "news", "update": "news", "create": "props", "read": "props", "delete": "props"}.get(method)
    return None if field is None else list(request_bag(params, field))


def _error_data(e):
    data = {"grpcCode": e.code, "details": e.details, "type": e.type, "message": e.message}
    if e.trace is not None:
        data["trace"] = e.trace
    if isinstance(e, LoadError):
        data["reason"] = e.reason
        if e.reference is not None:
            data["reference"] = e.reference
    return data


def _version(dist):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # noqa: BLE001
        return "unknown"


def main():
    fd = int(os.environ.get("PULUMI_DYNAMIC_HOST_CHANNEL_FD", "3"))
    # The channel came inherited; processes the user's code starts must not inherit it in turn: one
    # that outlived this worker would hold the channel open, and the host would learn of the
    # worker's death only from its exit.
    os.set_inheritable(fd, False)
    output_capture.install()
    # `pulumi-dynamic-host debug python`: a debugger can attach before any request is served.
    _load_sibling("debugging").listen_if_asked()
    Worker(protocol.Channel(fd)).serve()


if __name__ == "__main__":
    main()
