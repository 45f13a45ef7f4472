"""A stand-in for pulumi-language-python, for the CLI commands of the
end-to-end tests that are not Automation API operations (`pulumi import`).

The Python language host cannot be built here (scripts/engine.sh: the module
proxy does not serve it), and the engine loads the project's language plugin
before any non-inline operation, although `pulumi import --generate-code=false`
never asks it to run or generate anything. This serves the LanguageRuntime
service with the generated servicer's answers (UNIMPLEMENTED) for everything
but what the engine asks while loading it: its plugin info, and the packages
a program needs (none: dynamic providers are the engine's own plugins). It
runs no program; Run says so.

Started by the engine like any plugin: it prints its port, then serves.
"""
import sys
from concurrent import futures

import grpc
from pulumi.runtime.proto import language_pb2, language_pb2_grpc, plugin_pb2


class StandIn(language_pb2_grpc.LanguageRuntimeServicer):
    def GetPluginInfo(self, request, context):
        return plugin_pb2.PluginInfo(version="0.0.0-stand-in")

    def GetRequiredPackages(self, request, context):
        return language_pb2.GetRequiredPackagesResponse()

    def GetRequiredPlugins(self, request, context):
        return language_pb2.GetRequiredPluginsResponse()

    def Run(self, request, context):
        context.abort(grpc.StatusCode.UNIMPLEMENTED, "the end-to-end tests' stand-in language host runs no program")


def main():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    language_pb2_grpc.add_LanguageRuntimeServicer_to_server(StandIn(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:  # the engine's SIGINT when it is done: stop quietly, as a language host does
        server.stop(0)


if __name__ == "__main__":
    main()
