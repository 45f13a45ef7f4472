"""A dynamic provider in a program-local module of the end-to-end Python program.

dill pickles a class of an importable module BY REFERENCE (module name and
class name, no code), so the plugin has to import `provider` itself, from the
program directory it was started in. The outputs say which file it imported.

serialize_as_secret_always is False so that `__provider` is a plain string in
state and the test can read what was pickled (a reference, not the code).
"""
import os
import sys

from pulumi.dynamic import CreateResult, ResourceProvider


class LocalModuleProvider(ResourceProvider):
    serialize_as_secret_always = False

    def create(self, props):
        return CreateResult(
            "local-module",
            {
                "label": props["label"],
                "module": __name__,
                "module_file": os.path.abspath(__file__),
                "worker": sys.argv[0],
            },
        )
