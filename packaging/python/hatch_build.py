"""The wheel holds a native executable: tag it for the platform it was built for.

scripts/dist.mjs computes the tag from the executable itself (for Linux, the
newest glibc symbol version it needs: manylinux_2_<N>_<arch>) and passes it in
PULUMI_DYNAMIC_HOST_WHEEL_PLATFORM; without it the build stops rather than
guess.
"""
import os

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        platform = os.environ.get("PULUMI_DYNAMIC_HOST_WHEEL_PLATFORM")
        if not platform:
            raise RuntimeError("PULUMI_DYNAMIC_HOST_WHEEL_PLATFORM is not set: build the wheel with `npm run dist`")
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{platform}"
