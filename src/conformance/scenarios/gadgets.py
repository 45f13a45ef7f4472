"""A provider class in a module of the program's own (not __main__), so dill
pickles it BY REFERENCE: the state's __provider names `<module>.GadgetProvider`
and the plugin must import that module. The end-to-end import tests copy this
file into each project layout: beside the program, or in a package under src/.

Every result says which process ran it and from where it imported this module.
"""
import os
import sys

from pulumi.dynamic import CreateResult, ReadResult, ResourceProvider


def whoami():
    return {
        "process": sys.argv[0],
        "python": sys.executable,
        "cwd": os.getcwd(),
        "module": __name__,
        "module_file": os.path.abspath(__file__),
    }


class GadgetProvider(ResourceProvider):
    # The state's __provider in the clear, so the test can see what it names.
    serialize_as_secret_always = False

    def create(self, props):
        return CreateResult(f"gadget-{props['label']}", {"label": props["label"], "ran_by": whoami()})

    def read(self, id_, props):
        return ReadResult(id_, {"label": props["label"], "ran_by": whoami()})

    def delete(self, _id, _props):
        pass
