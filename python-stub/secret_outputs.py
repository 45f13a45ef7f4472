"""Outputs a Python provider returns: `Output.secret(v)` (or any pulumi.Output)
in the outs, inputs or props of its result.

The Python reference hands them to the SDK's serialize_properties, which awaits
an Output but wraps a secret one only when a resource monitor says it supports
secrets; a dynamic provider has no monitor, so the secret is stored in plain
text (and `Output.secret` in a synchronous method fails before that, with no
event loop in the gRPC thread: pulumi#6860). Here each Output is awaited on
the loop its futures belong to and replaced by its value; a secret one by the
secret signature dict {"4dabf…": "1b470…", "value": v}, which serialize_properties
passes through and the engine reads back as a secret whatever the plugin said
in Configure (docs/parity.md, "Secrets out").

Who calls: the worker's serialize() (values.py), on every value a provider method returns,
from the request's thread (never from a loop's own thread). Guarantees: a value
without Outputs is returned as it is (the same object); with Outputs, the dicts
and lists on the way to them are copied, the user's objects are left alone.
"""

import asyncio
from collections.abc import Mapping

from pulumi import Output

_SIG_KEY = "4dabf18193072939515e22adb298388d"
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"

# As deep as the host lets a Python value nest; deeper ones are left to the SDK to refuse.
_MAX_DEPTH = 490


class UnknownOutput(ValueError):
    """A provider returned an Output whose value is not known: nothing the engine can store."""


def resolve_outputs(value):
    """`value` with every Output replaced by its value (a secret one wrapped); `value` itself when it holds none."""
    if not _holds_output(value, 0, set()):
        return value
    return _resolve(value, "", 0)


_SCALARS = frozenset((str, int, float, bool, type(None), bytes))


def _holds_output(v, level, seen):
    # Exact types first: this walk runs on every result, and ABC checks cost more than the rest of it.
    t = type(v)
    if t in _SCALARS:
        return False
    if t is dict:
        children = v.values()
    elif t is list or t is tuple:
        children = v
    elif isinstance(v, Output):
        return True
    elif isinstance(v, Mapping):
        children = v.values()
    elif isinstance(v, (list, tuple)):
        children = v
    else:
        return False
    if level >= _MAX_DEPTH or id(v) in seen:
        return False
    seen.add(id(v))
    for c in children:
        if _holds_output(c, level + 1, seen):
            return True
    return False


def _resolve(v, path, level):
    if isinstance(v, Output):
        known, secret, inner = _await(v)
        if not known:
            raise UnknownOutput(
                f"the provider returned an Output whose value is not known at {path or 'the top'}; "
                "the engine stores only known values, so return the value itself (or an Output of it)"
            )
        inner = _resolve(inner, path, level)
        return {_SIG_KEY: _SECRET_SIG, "value": inner} if secret else inner
    if level >= _MAX_DEPTH or not _holds_output(v, 0, set()):
        return v
    if isinstance(v, Mapping):
        return {k: _resolve(c, f"{path}[{k!r}]", level + 1) for k, c in v.items()}
    return [_resolve(c, f"{path}[{i}]", level + 1) for i, c in enumerate(v)]


def _await(output):
    """(is_known, is_secret, value) of `output`, awaited on the loop its futures belong to."""

    async def read():
        return await output.is_known(), await output.is_secret(), await output.future()

    loop = _loop_of(output)
    if loop is not None and loop.is_running():
        # An async method's Output: its loop runs in the worker's loop thread, never this one.
        return asyncio.run_coroutine_threadsafe(read(), loop).result()
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(read())
        finally:
            loop.close()
    return loop.run_until_complete(read())


def _loop_of(output):
    """The event loop an Output's futures are bound to (SDKs since 3.2xx keep one `_data` future; older, several)."""
    for name in ("_data", "_future", "_is_known", "_is_secret"):
        fut = getattr(output, name, None)
        get_loop = getattr(fut, "get_loop", None)
        if callable(get_loop):
            return get_loop()
    return None
