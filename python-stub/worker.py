"""The Python worker of pulumi-resource-pulumi-python.

Started by the host in the program's own interpreter (the one the Python
reference's launcher would pick), with cwd = the program directory. It loads
providers with the user's own `pulumi` and `dill`, calls their methods with the
values the Python reference would pass (the SDK's deserialize_properties /
serialize_properties on real Struct messages), and answers the host over the
socket on fd 3 (see protocol.py). fd 1 and fd 2 are the host's stdout and
stderr: whatever user code prints, and its child processes, goes there and
never touches the channel.

This file is the entry point: it sets the process up and loads the worker's
modules, its siblings in python-stub/, in order (each imports those before it):

    program_path          the program's sys.path
    protocol              the channel's framing and messages
    threads               the request threads
    output_capture        what a request prints, sent to the host
    error_hints           the where and hint blocks below a user's error
    unusable_interpreter  an interpreter without dill, protobuf or pulumi
    secret_outputs        Outputs in what providers return
    call_context          the call context a method may ask for
    reference             our copy of the reference helper (helper/)
    error_shape           the errors a request ends in, tracebacks as users see them
    values                request bags in, results out (the SDK's conversions)
    user_code             calling the user's methods, awaiting their coroutines
    provider_cache        providers loaded, configured and cached
    operations            configure, check, diff, create, read, update, delete
    serving               the serving loop: requests in, answers out

and, started as the preloader (prestart.py sets PULUMI_DYNAMIC_HOST_PRELOADER),
preloader, which forks a worker for each plugin start and returns in it.
"""

# On shutdown the engine SIGINTs the plugin's whole process group, this worker
# included. The host decides when the worker stops (it kills it, or closes the
# channel); a KeyboardInterrupt traceback here would reach the user as error
# output the reference never prints (its main thread catches KeyboardInterrupt
# and stops quietly). First thing, with the builtin _signal (signal.py imports
# enum, which is slow), to leave no window; a Python-level handler, not
# SIG_IGN, so that the user's child processes still get the default
# disposition, as under the reference.
try:
    import _signal
except ImportError:  # pragma: no cover - not CPython
    import signal as _signal
_signal.signal(_signal.SIGINT, lambda signum, frame: None)

import os  # noqa: E402
import sys  # noqa: E402

_here = os.path.dirname(os.path.abspath(__file__))


def _load_sibling(name, path=None):
    """
    Imports python-stub/<name>.py (or `path`) by path, so our modules never
    shadow or are shadowed by the user's, under the private name
    _pulumi_dynamic_host_<name> in sys.modules: the modules loaded after it
    import it by that name.
    """
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_pulumi_dynamic_host_{name}", path or os.path.join(_here, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    # Started by start.py: from the compiled code it keeps between starts (bytecode.py).
    bytecode = sys.modules.get("_pulumi_dynamic_host_bytecode")
    if bytecode is not None:
        exec(bytecode.code_of(spec.origin), module.__dict__)
    else:
        spec.loader.exec_module(module)
    return module


# What the interpreter loaded before the program directory is on sys.path: nothing there can shadow it
# (the preloader declines only for the others: preloader.py).
_BEFORE_PROGRAM_PATH = frozenset(sys.modules)

# The program's import paths, before anything is imported.
_load_sibling("program_path").place(_here)

protocol = _load_sibling("protocol")
_load_sibling("threads")
output_capture = _load_sibling("output_capture")
_load_sibling("error_hints")

_load_sibling("unusable_interpreter").exit_if_unusable(protocol)

_load_sibling("secret_outputs")
_load_sibling("call_context")
_load_sibling("reference", os.path.join(_here, "helper", "pulumi_dynamic_host", "reference.py"))
_load_sibling("error_shape")
_load_sibling("values")
_load_sibling("user_code")
_load_sibling("provider_cache")
_load_sibling("operations")
serving = _load_sibling("serving")


def main():
    # Started as this environment's preloader (prestart.py): returns in each worker it forks.
    if os.environ.get("PULUMI_DYNAMIC_HOST_PRELOADER"):
        _load_sibling("preloader").serve_until_forked()
    fd = int(os.environ.get("PULUMI_DYNAMIC_HOST_CHANNEL_FD", "3"))
    # The channel came inherited; processes the user's code starts must not inherit it in turn: one
    # that outlived this worker would hold the channel open, and the host would learn of the
    # worker's death only from its exit.
    os.set_inheritable(fd, False)
    output_capture.install()
    # `pulumi-dynamic-host debug python`: a debugger can attach before any request is served.
    _load_sibling("debugging").listen_if_asked()
    serving.Worker(protocol.Channel(fd)).serve()


if __name__ == "__main__":
    main()
