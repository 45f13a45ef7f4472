"""Registering a declared dynamic type from a Python program, with no provider in it.

A project's Pulumi.yaml can declare, per dynamic type token, where the
type's provider lives (the pulumi-dynamic-host section). pulumi-dynamic-host
then serves a resource of that type from the declaration alone: the program
sends only its inputs, never a serialized provider. So the program needs no
provider object, no dill and no `__provider`, and the provider may be written
in another language than the program::

    # Pulumi.yaml
    pulumi-dynamic-host:
      providers:
        pulumi-python:dynamic:Counter: counters:CounterProvider
        pulumi-nodejs:dynamic/files:TextFile: ./text-file#textFileProvider

    # __main__.py
    from pulumi_dynamic_host.declared import DeclaredResource

    counter = DeclaredResource("pulumi-python:dynamic:Counter", "c", {"start": 1}, outputs=["value"])
    pulumi.export("value", counter.value)

Nothing is pickled, so a program may register as many of them as it likes:
the SDK's dynamic Resource pickles its provider once per resource and, past a
few hundred, can stop with RecursionError.

Only pulumi-dynamic-host serves these: Pulumi's own dynamic-provider plugins
cannot run a resource that carries no `__provider`.

This module imports only the pulumi SDK; programs get it from the
pulumi-dynamic-host wheel.
"""

from typing import Any, Mapping, Optional, Sequence

import pulumi

__all__ = ["DeclaredResource"]

# The packages whose plugins pulumi-dynamic-host is installed as.
_PACKAGES = ("pulumi-python:dynamic", "pulumi-nodejs:dynamic")
# Properties the SDK keeps for itself on a custom resource.
_RESERVED = ("id", "urn")
_PROVIDER_KEY = "__provider"


class DeclaredResource(pulumi.CustomResource):
    """
    A resource of a dynamic type that the project declares in Pulumi.yaml.

    ``type_`` is the type token the declaration names, e.g.
    ``"pulumi-python:dynamic:Counter"`` or
    ``"pulumi-nodejs:dynamic/files:TextFile"``. ``inputs`` are sent as they
    are (they may hold Outputs); ``outputs`` names the provider's outputs the
    program wants to read. Each is registered as an unknown property, so the
    engine's answer fills it in.

    Reading outputs: every input and every named output is an
    ``Output`` of this resource, read in either of two ways:

    - ``resource["value"]``, or ``resource.output("value")``: any name, including
      ones that are not Python identifiers (``"ran-by"``) or that collide with
      the resource's own attributes;
    - ``resource.value``: as an attribute, for a name that is an identifier and
      not already an attribute of ``pulumi.CustomResource`` (or of this class:
      an input named ``output`` hides the method, ``resource["output"]`` still works).

    A name neither given as an input nor named in ``outputs`` raises KeyError
    (the SDK drops outputs it was not told of). ``id`` and ``urn`` are the
    resource's own, as for any custom resource.
    """

    def __init__(
        self,
        type_: str,
        name: str,
        inputs: Mapping[str, "pulumi.Input[Any]"],
        outputs: Sequence[str] = (),
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        if not isinstance(type_, str) or not type_.startswith(_PACKAGES):
            raise ValueError(
                f"DeclaredResource type {type_!r}: a declared dynamic type's token starts with "
                f"{' or '.join(repr(p) for p in _PACKAGES)} (the key of its entry in Pulumi.yaml's pulumi-dynamic-host.providers)"
            )
        if isinstance(outputs, str):
            raise TypeError(f"DeclaredResource {name!r}: outputs is a sequence of names, not the string {outputs!r}")
        props = dict(inputs)
        if _PROVIDER_KEY in props:
            raise ValueError(
                f"DeclaredResource {name!r}: inputs hold {_PROVIDER_KEY!r}; a declared type is served by its declaration, "
                f"so no provider is sent (use pulumi.dynamic.Resource to send one)"
            )
        for out in outputs:
            if out in _RESERVED:
                raise ValueError(f"DeclaredResource {name!r}: {out!r} is the resource's own property, not an output to name")
            props.setdefault(out, None)
        # Before registration: the SDK sets each property's Output in the instance's __dict__ while registering.
        self._declared_names = tuple(props)
        super().__init__(type_, name, props, opts)

    def output(self, name: str) -> "pulumi.Output[Any]":
        """The Output of the input or named output ``name``; KeyError for any other name."""
        if name not in self._declared_names:
            known = ", ".join(self._declared_names) or "none"
            raise KeyError(
                f"{name!r} is neither an input of this DeclaredResource nor one of its named outputs ({known}): "
                f"add it to outputs=[...] to read it"
            )
        return self.__dict__[name]

    def __getitem__(self, name: str) -> "pulumi.Output[Any]":
        return self.output(name)
