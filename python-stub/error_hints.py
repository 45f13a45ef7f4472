"""What the worker puts below the traceback of an error a provider's method
raised (serving.py): the operation and the resource ("where: Create urn:…"),
and a hint for the common mistakes ("hint: …"), each after a blank line that
the host's tests know (test/helpers/client.ts). Only names (input keys,
methods) are quoted, never values.
"""

# What each method must return, for a method that returned None.
_RESULTS = {
    "check": "CheckResult(inputs, failures)",
    "diff": "DiffResult(...)",
    "create": "CreateResult(id, outs)",
    "read": "ReadResult(id, outs)",
    "update": "UpdateResult(outs)",
}
# The attributes the worker reads of each method's result.
_RESULT_FIELDS = ("inputs", "failures", "changes", "replaces", "delete_before_replace", "id", "outs")


def where(method, urn, frames=()):
    """
    The operation and the resource, as the host names them in its own errors
    ("Create urn:…"), and the user's frames, most recent first: the block
    Node mode puts below its errors (src/node-dynamic/user-frames.ts), the
    same shape. `frames` are (function, file, line). "" without a urn.
    """
    if not urn:
        return ""
    block = f"\n\n  where: {method[:1].upper()}{method[1:]} {urn}"
    if frames:
        block += ", in the provider's code:" + "".join(f"\n    at {name} ({file}:{line})" for name, file, line in frames)
    return block


def hint(exc, method, input_keys):
    """The hint for `exc` raised by the provider's `method`, or ""; `input_keys()` gives the call's input keys (or None)."""
    text = _hint(exc, method, input_keys)
    return f"\n\n  hint: {text}" if text else ""


def _hint(exc, method, input_keys):
    message = _safe_str(exc)
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        key = exc.args[0]
        keys = _keys(input_keys)
        if keys is not None and key not in keys:
            have = ", ".join(repr(k) for k in sorted(keys)) or "none"
            return (
                f"{method} read the key {key!r}, which the resource's inputs do not have (they have: {have}): "
                f"an input the program did not set or misspelt; props.get({key!r}) gives None instead"
            )
    if isinstance(exc, (TypeError, AttributeError)) and "'coroutine' object" in message:
        return (
            f"{method} used a coroutine as a value: a call to an async function was not awaited; await it "
            "(an async def method is awaited by the host; what it returns must not be a coroutine)"
        )
    if (
        isinstance(exc, AttributeError)
        and _raised_in_operation(exc)
        and any(message == f"'NoneType' object has no attribute '{f}'" for f in _RESULT_FIELDS)
    ):
        result = _RESULTS.get(method)
        if result:
            return f"{method} returned None; it must return {result}"
    return ""


def _raised_in_operation(exc):
    """Raised by the worker's op_<method> itself (reading what the method returned), not in the user's code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_name.startswith("op_")


def _keys(input_keys):
    try:
        keys = input_keys()
    except Exception:  # noqa: BLE001 - a hint is never worth a second error
        return None
    return None if keys is None else [k for k in keys if k != "__provider"]


def _safe_str(e):
    try:
        return str(e)
    except Exception:  # noqa: BLE001
        return ""
