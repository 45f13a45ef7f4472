"""Values in and out of a provider's methods, converted as the Python reference converts them.

In: a request's property bag (a protobuf Struct, as the host sends it) as the
SDK's deserialize_properties gives it to the user's methods (request_bag); a
value the SDK refuses is the request's fault, answered with where it is
(error_shape.UnsetValue, error_shape.BadValue). Out: what a method returned,
through the SDK's serialize_properties (serialize), with Outputs awaited and
secret ones kept secret first (secret_outputs.py). Each request thread keeps
one event loop for it (thread_loop), which is also the thread's event loop
while the user's method runs (user_code.py).
"""

import asyncio
import threading

from google.protobuf import struct_pb2

from pulumi.runtime import rpc

import _pulumi_dynamic_host_error_shape as error_shape
import _pulumi_dynamic_host_secret_outputs as secret_outputs


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
            raise error_shape.UnsetValue(field, path) from None
        raise error_shape.BadValue(field, _bad_value_path(struct_of(p.get(field)), keep_unknowns), e) from None


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
    return thread_loop().run_until_complete(rpc.serialize_properties(value, {})).SerializeToString()


def thread_loop():
    """The request thread's own event loop, made on first need and kept for the thread's life."""
    loop = getattr(_thread_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _thread_loops.loop = asyncio.new_event_loop()
    return loop
