"""The operations: each mirrors the Python reference's RPC method (its
Configure, Check, Diff, Create, Read, Update and Delete), on the values the
reference would pass (values.py) and the provider the request names
(provider_cache.py), calling the user's method as user_code.py does.

Each carries the request bag's __provider into its result with the reference's
own statement (so a failure there shows the reference's line: the op_<method>
frame is the one frame of the worker's that a user's traceback keeps, where it
raised; error_shape.py). A bag without one is an import served by a declared
reference: the host adds the text a program passing that reference writes.

Who calls: the serving loop (serving.py), by method name (OPERATIONS).
"""

from pulumi.runtime import rpc, proto

try:
    from pulumi.dynamic import ResourceProvider
except ImportError:  # pragma: no cover - not an SDK we know
    ResourceProvider = None

import _pulumi_dynamic_host_protocol as protocol
from _pulumi_dynamic_host_provider_cache import PROVIDERS, provider_for
from _pulumi_dynamic_host_user_code import call_user
from _pulumi_dynamic_host_values import request_bag, serialize

PROVIDER_KEY = "__provider"

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
