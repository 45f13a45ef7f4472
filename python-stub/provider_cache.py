"""The providers a request runs: loaded from their serialized text (the
`__provider` the SDK's serialize_provider wrote) or imported by reference,
configured, and cached (PROVIDERS); a text that cannot be a provider is a
LoadError that says what was wrong with it (error_shape.py).

Who calls: the operations (operations.py: provider_for), and configure, which
sets the configuration providers are configured with (PROVIDERS.config).
"""

import asyncio
import base64
import os
import sys
import threading

import dill

from pulumi.runtime import configure as configure_settings, Settings
from pulumi.metadata import get_project

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

import _pulumi_dynamic_host_error_shape as error_shape
import _pulumi_dynamic_host_user_code as user_code

# Our own copy of the reference helper, for resolving references (whichever copy the program
# imports, the resolution is this host's): under a private name, so it never stands in for the
# importable pulumi_dynamic_host.reference.
import _pulumi_dynamic_host_reference as references

LoadError = error_shape.LoadError


class Providers:
    """
    Provider objects by serialized text, and by reference. As the reference:
    unpickle, then configure, then cache; a failure caches nothing and the next
    request tries again. Unlike it: one lock per text, so unrelated providers
    load in parallel; and a text is kept only while the host names it by an id
    or a request runs it (serving.py: drop), so the cache is as bounded as the
    host's ids of the texts it sent (worker-process.ts).

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

    def drop(self, text):
        """
        Forgets the provider of `text` (serving.py calls it once no id names the
        text and no request runs it): a request that sends the text again loads
        and configures it again, as a fresh worker would.
        """
        with self._guard:
            self._cache.pop(text, None)
            self._locks.pop(text, None)

    def held(self):
        """How many providers (by text or by reference) this worker keeps anything for: a loaded provider or its lock."""
        with self._guard:
            return len(self._cache.keys() | self._locks.keys())

    def get(self, text):
        return self._cached(text, lambda: self._from_text(text))

    def by_reference(self, reference, origin, paths=()):
        """
        The provider `reference` names; `origin` says where it was written, for errors ("declared for …").
        `paths`: a provider package's folder and its dependencies' folder, put first on sys.path, in that
        order, before its module is imported.
        """
        return self._cached(("reference", paths, reference), lambda: self._from_reference(reference, origin, paths))

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

    def _from_reference(self, reference, origin, paths=()):
        for path in reversed(paths):
            if path not in sys.path:
                sys.path.insert(0, path)
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
            raise LoadError(f"it is not valid base64 ({error_shape.describe(e)})", e) from e

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
            user_code.run_async(result)


# What the SDK's serialize_provider writes: dill.dumps at pickle.DEFAULT_PROTOCOL (2 or more on
# every Python 3), so its first byte is the PROTO opcode and its second the protocol.
_PROTO = 0x80


def _unpickling_problem(e, data):
    """What was wrong with a payload that dill could not load, in words; the traceback goes below."""
    import pickle

    what = error_shape.describe(e)
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
    if isinstance(e, EOFError) or (isinstance(e, pickle.UnpicklingError) and "truncated" in error_shape.safe_str(e)):
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
        return PROVIDERS.by_reference(reference["reference"], origin, tuple(reference.get("paths", ())))
    return PROVIDERS.get(p["provider"])
