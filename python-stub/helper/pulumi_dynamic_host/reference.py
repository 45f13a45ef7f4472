"""Pass a dynamic provider by reference instead of pickling its code.

    from pulumi.dynamic import Resource
    from pulumi_dynamic_host.reference import provider_reference

    class Counter(Resource, module="", name="Counter"):
        def __init__(self, name, props, opts=None):
            super().__init__(provider_reference("providers.counter:CounterProvider"), name, props, opts)

The SDK pickles the object `provider_reference` returns: this class, by
reference (it lives in an importable module, so dill writes its module and
name, no bytecode), and one attribute, the reference string. Nothing of the
program is captured, no machine path is written, and the pickle stays the same
across changes to the provider's own code. The pulumi-dynamic-host plugin
recognises the object and runs the provider it names, imported from the
program's sys.path; the import of a resource and latestCode run it too (see
the project's Pulumi.yaml section pulumi-dynamic-host).

Under Pulumi's own Python plugin (`python -m pulumi.dynamic`), the methods
below do the same themselves, so a program using this works with either
plugin, as long as this module is importable there (the pulumi-dynamic-host
wheel installed in the program's environment).

The pulumi-dynamic-host worker imports this file under a private name for
`resolve` (python-stub/provider_cache.py): keep it free of state that must be shared
with the importable copy, and of imports beyond the standard library and pulumi.
"""
import importlib
import os
import re
import sys
import threading

from pulumi.dynamic import ResourceProvider

__all__ = ["provider_reference", "ProviderReference", "ReferenceProblem", "REFERENCE_ATTRIBUTE"]

# The one attribute a ProviderReference holds; the plugin recognises a provider by it.
REFERENCE_ATTRIBUTE = "pulumi_dynamic_host_reference"

# "<module>:<attribute>", both dotted identifiers (the syntax Pulumi.yaml declarations use too).
_SYNTAX = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", re.ASCII)
_EXAMPLE = "providers.counter:CounterProvider"

# A provider is a ResourceProvider, or has at least one of these methods. `update` alone does not
# count: every mapping and set has one.
PROVIDER_METHODS = ("check", "diff", "create", "read", "delete")


class ReferenceProblem(Exception):
    """
    A reference that cannot give a provider. `detail` says what was wrong,
    without the reference (the plugin puts where it was written first);
    `cause` is the exception behind it, if any, whose traceback is worth showing.
    """

    def __init__(self, reference, detail, cause=None):
        super().__init__(f'provider reference "{reference}": {detail}')
        self.reference = reference
        self.detail = detail
        self.cause = cause


def check_syntax(reference):
    """Raises ReferenceProblem unless `reference` is "<module>:<attribute>"."""
    if not isinstance(reference, str) or _SYNTAX.fullmatch(reference) is None:
        raise ReferenceProblem(
            reference,
            f'a provider reference is "<module>:<attribute>", e.g. "{_EXAMPLE}" (a module importable with the '
            f"program's sys.path, and a ResourceProvider subclass or instance in it), not {reference!r}",
        )


def resolve(reference):
    """
    The provider `reference` names: the attribute of the module, imported with
    importlib from sys.path; a class is instantiated with no arguments, any other
    object is used as it is. Raises ReferenceProblem saying what was wrong.
    """
    check_syntax(reference)
    module_name, _, attribute = reference.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and (module_name == e.name or module_name.startswith(e.name + ".")):
            # Said whole here: the import system's frames would add nothing.
            raise ReferenceProblem(
                reference, f"module {module_name} was not found ({_describe(e)}); looked on sys.path: {_search_path()}"
            ) from e
        raise ReferenceProblem(reference, f"importing module {module_name} raised {_describe(e)}", e) from e
    except BaseException as e:  # noqa: BLE001 - a module's top level can raise anything, SystemExit included
        raise ReferenceProblem(reference, f"importing module {module_name} raised {_describe(e)}", e) from e
    found = module
    parts = attribute.split(".")
    for i, part in enumerate(parts):
        if not hasattr(found, part):
            where = f"module {module_name} ({getattr(module, '__file__', None) or 'no file'})" if i == 0 else ".".join(parts[:i])
            raise ReferenceProblem(reference, f"{where} has no attribute {part}; {_names(found)}")
        found = getattr(found, part)
    if isinstance(found, type):
        try:
            provider = found()
        except BaseException as e:  # noqa: BLE001
            raise ReferenceProblem(
                reference, f"{attribute} is a class, and constructing it with no arguments raised {_describe(e)}", e
            ) from e
        what = "a class whose instances have"
    else:
        provider = found
        what = f"a {type(found).__module__}.{type(found).__qualname__}, with"
    if isinstance(getattr(provider, REFERENCE_ATTRIBUTE, None), str):
        raise ReferenceProblem(reference, f"{attribute} is itself a provider reference; name the provider it stands for")
    if not isinstance(provider, ResourceProvider) and not any(callable(getattr(provider, m, None)) for m in PROVIDER_METHODS):
        raise ReferenceProblem(
            reference,
            f"{attribute} is not a dynamic provider: it is {what} none of the methods {', '.join(PROVIDER_METHODS)}; "
            f"name a pulumi.dynamic.ResourceProvider subclass (constructed with no arguments) or instance",
        )
    return provider


def _describe(e):
    try:
        return f"{type(e).__name__}: {e}"
    except Exception:  # noqa: BLE001
        return f"{type(e).__name__}: <unprintable exception>"


def _search_path():
    """sys.path as the import system reads it, its first entry (the program directory) named as such."""
    entries = [os.path.abspath(p or ".") for p in sys.path]
    if not entries:
        return "(sys.path is empty)"
    first = f"{entries[0]} (the program directory, sys.path[0])" if entries[0] == os.getcwd() else entries[0]
    return ", ".join([first, *entries[1:]])


def _names(obj):
    names = sorted(n for n in dir(obj) if not n.startswith("_"))
    if not names:
        return "it has no public attributes"
    shown = ", ".join(names[:20])
    return f"it has {shown}{', …' if len(names) > 20 else ''}"


# Providers by reference string, resolved once per process: the module is imported and a class
# instantiated once, as for a provider unpickled once per __provider text.
_targets = {}
_targets_lock = threading.Lock()


def _target(reference):
    provider = _targets.get(reference)
    if provider is None:
        with _targets_lock:
            provider = _targets.get(reference)
            if provider is None:
                provider = _targets[reference] = resolve(reference)
    return provider


class ProviderReference(ResourceProvider):
    """
    A stand-in for the provider a reference names. It holds only the reference
    (in REFERENCE_ATTRIBUTE), so its pickle holds only that and this class's
    name; each method runs the named provider's, or the ResourceProvider
    default when it has none.
    """

    # The SDK wraps a pickle in a secret unless a provider asks otherwise: this one holds no secret.
    serialize_as_secret_always = False

    def __init__(self, reference):
        super().__init__()
        check_syntax(reference)
        setattr(self, REFERENCE_ATTRIBUTE, reference)

    def __repr__(self):
        return f"provider_reference({getattr(self, REFERENCE_ATTRIBUTE)!r})"

    def _run(self, method, *args):
        target = _target(getattr(self, REFERENCE_ATTRIBUTE))
        own = getattr(target, method, None)
        if callable(own):
            return own(*args)
        return getattr(ResourceProvider, method)(self, *args)

    def check(self, _olds, news):
        return self._run("check", _olds, news)

    def diff(self, _id, _olds, _news):
        return self._run("diff", _id, _olds, _news)

    def create(self, props):
        return self._run("create", props)

    def read(self, id_, props):
        return self._run("read", id_, props)

    def update(self, _id, _olds, _news):
        return self._run("update", _id, _olds, _news)

    def delete(self, _id, _props):
        return self._run("delete", _id, _props)

    def configure(self, req):
        return self._run("configure", req)


def provider_reference(reference: str) -> ProviderReference:
    """
    A provider to pass to pulumi.dynamic.Resource in place of a provider
    object: "<module>:<attribute>" names a ResourceProvider subclass
    (constructed with no arguments) or instance in a module importable with
    the program's sys.path, e.g. "providers.counter:CounterProvider".
    """
    return ProviderReference(reference)
