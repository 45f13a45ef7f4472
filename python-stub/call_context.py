"""The call context a Python provider's methods may ask for: which resource the
call serves, whether the engine said it is a preview, when the call's time is
up, and a cancellation event. Described for users in docs/call-context.md;
its Node twin is src/node-dynamic/call-context.ts.

A method gets it only when its signature asks (existing providers, which the
reference calls with exactly the standard arguments, are called the same way):

1. a parameter named `context` after the standard ones (or keyword-only):
   passed as `context=`;
2. else a `**kwargs` parameter: passed as `context=`;
3. else exactly one more positional parameter, with no default, after the
   standard ones: passed positionally (a method with a required extra
   parameter cannot have worked under the reference, which never fills it).

Anything else (an extra parameter with a default, `*args` only) gets nothing.
The standard arguments (after self): check(olds, news), diff(id, olds, news),
create(props), read(id, props), update(id, olds, news), delete(id, props).

Who calls: the worker's call_user (user_code.py), on the request's thread, which also holds
the request's cancel hooks: the context's `cancelled` event is set when the
host cancels the request (the engine cancelled the call, or its timeout
passed), for synchronous code to poll or wait on; `async def` methods are
cancelled as before (asyncio.CancelledError).
"""

import datetime
import inspect
import threading

# The standard positional arguments of each method, after self.
STANDARD_ARGUMENTS = {"check": 2, "diff": 3, "create": 1, "read": 2, "update": 3, "delete": 2}

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)

# How each function takes the context: "keyword", "positional" or None; by the function itself.
_how = {}


def how_to_pass(fn, method):
    """How `fn` (a bound method or function, called with the standard arguments of `method`) takes a context."""
    key = getattr(fn, "__func__", fn)
    try:
        return _how[key]
    except (KeyError, TypeError):
        pass
    how = _decide(fn, STANDARD_ARGUMENTS[method])
    try:
        _how[key] = how
    except TypeError:  # an unhashable callable: decided each time
        pass
    return how


def _decide(fn, standard):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin or other callable without a signature
        return None
    positional = [p for p in params if p.kind in _POSITIONAL]
    extra = positional[standard:]
    named = [p for p in params if p.name == "context"]
    if named and (named[0].kind == inspect.Parameter.KEYWORD_ONLY or named[0] in extra):
        return "keyword"
    if any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params):
        return "keyword"
    if len(extra) == 1 and extra[0].default is inspect.Parameter.empty:
        return "positional"
    return None


class CallContext:
    """
    operation: "check", "diff", "create", "read", "update" or "delete".
    urn, name, type: the resource's.
    preview: True or False when the engine said (Create and Update carry the
        flag; a Delete never runs in a preview); None where it does not say.
    deadline: when the call's timeout (customTimeouts) passes, an aware UTC
        datetime; None when it has none.
    cancelled: a threading.Event, set when the call is cancelled or its time is up.
    old_inputs: Delete: the resource's inputs as last deployed (as the other
        bags are given to methods); None elsewhere.
    """

    __slots__ = ("operation", "urn", "name", "type", "preview", "deadline", "cancelled", "_old_inputs", "_load_old_inputs")

    def __init__(self, operation, urn, params, cancel_hooks, load_old_inputs):
        self.operation = operation
        self.urn = urn
        self.name = params.get("name", "")
        self.type = params.get("type", "")
        self.preview = params.get("preview")
        deadline = params.get("deadline")
        self.deadline = None if deadline is None else datetime.datetime.fromtimestamp(deadline / 1000, datetime.timezone.utc)
        self.cancelled = threading.Event()
        if cancel_hooks is not None:
            cancel_hooks.append(self.cancelled.set)
        self._old_inputs = None
        self._load_old_inputs = load_old_inputs

    @property
    def old_inputs(self):
        if self._old_inputs is None and self._load_old_inputs is not None:
            self._old_inputs = self._load_old_inputs()
            self._load_old_inputs = None
        return self._old_inputs

    def __repr__(self):
        return (
            f"CallContext(operation={self.operation!r}, urn={self.urn!r}, name={self.name!r}, type={self.type!r}, "
            f"preview={self.preview!r}, deadline={self.deadline!r}, cancelled={self.cancelled.is_set()})"
        )


def call(fn, method, args, make_context):
    """Calls `fn(*args)`, with a context from `make_context()` when its signature asks for one."""
    how = how_to_pass(fn, method)
    if how is None:
        return fn(*args)
    if how == "keyword":
        return fn(*args, context=make_context())
    return fn(*args, make_context())
