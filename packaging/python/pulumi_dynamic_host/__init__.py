"""pulumi-dynamic-host: the plugins the Pulumi engine runs for dynamic providers.

The wheel's payload is its scripts (pulumi-resource-pulumi-nodejs,
pulumi-resource-pulumi-python and pulumi-dynamic-host, one self-contained
executable under three names); this package says where they are, and holds
the helper programs use to pass a dynamic provider by reference
(pulumi_dynamic_host.reference.provider_reference).
"""
import os
import sysconfig

from importlib.metadata import version as _version

__version__ = _version("pulumi-dynamic-host")


def scripts_dir() -> str:
    """The directory pip installed the plugins into (the environment's bin/ or Scripts/)."""
    return sysconfig.get_path("scripts")


def executable() -> str:
    """The path of the pulumi-dynamic-host command of this environment."""
    return os.path.join(scripts_dir(), "pulumi-dynamic-host")
