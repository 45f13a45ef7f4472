"""The declared provider of the real-engine benchmark's Python program
(bench/engine-run.ts copies this module into the program's directory, and the
program's Pulumi.yaml declares `pulumi-python:dynamic:BenchTrivial:
bench_declared:Trivial`): the trivial provider of python_engine_bench.py,
imported from the project instead of pickled into every resource. It reports
the script its process runs, as that one does."""
import sys

from pulumi.dynamic import CreateResult, ReadResult, ResourceProvider, UpdateResult


class Trivial(ResourceProvider):
    def create(self, props):
        return CreateResult(f"trivial-{props['name']}", {**props, "ranBy": sys.argv[0]})

    def read(self, id, props):
        return ReadResult(id, props)

    def update(self, id, olds, news):
        return UpdateResult({**news, "ranBy": sys.argv[0]})

    def delete(self, id, props):
        pass
