"""Running the user's code: calling a provider's method on the request's thread
(call_user), with the call context if it asks for one (call_context.py), and
awaiting what it returns when that is a coroutine (run_async) on the worker's
one long-lived event loop, in the request's context and cancellable with it.

The request's state on its thread (request_state: its cancel hooks, method
and params) is set by the serving loop (serving.py) for the request's life.
"""

import asyncio
import concurrent.futures
import contextvars
import threading

import _pulumi_dynamic_host_call_context as call_context
import _pulumi_dynamic_host_error_shape as error_shape
import _pulumi_dynamic_host_values as values

_LOOP = None
_LOOP_LOCK = threading.Lock()

request_state = threading.local()


def _loop():
    """
    The worker's long-lived loop, started on first use: a worker that a
    preloader forks (preloader.py) must have no thread and no loop before it.
    """
    global _LOOP
    with _LOOP_LOCK:
        if _LOOP is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="pulumi-dynamic-host-loop", daemon=True).start()
            _LOOP = loop
    return _LOOP


def run_async(coro):
    """Awaits a coroutine of the user's on the worker's long-lived loop, in the request's context."""
    ctx = contextvars.copy_context()
    done = concurrent.futures.Future()
    # Read on the request's thread: the loop thread has no request state of its own.
    cancel_hooks = getattr(request_state, "cancel_hooks", None)

    loop = _loop()

    def start():
        task = loop.create_task(coro)
        if cancel_hooks is not None:
            cancel_hooks.append(lambda: loop.call_soon_threadsafe(task.cancel))

        def finish(t):
            if t.cancelled():
                done.set_exception(error_shape.Cancelled())
            elif t.exception() is not None:
                done.set_exception(t.exception())
            else:
                done.set_result(t.result())

        task.add_done_callback(finish)

    loop.call_soon_threadsafe(start, context=ctx)
    return done.result()


def call_user(fn, *args):
    # A loop for this thread, so that Output.secret() and other Outputs work in synchronous methods (secret_outputs.py).
    asyncio.set_event_loop(values.thread_loop())
    result = call_context.call(fn, request_state.method, args, _make_context)
    if asyncio.iscoroutine(result):
        result = run_async(result)
    return result


def _make_context():
    """The request's CallContext (call_context.py), for a method that asks for one."""
    method, params = request_state.method, request_state.params
    load = (lambda: values.request_bag(params, "oldInputs")) if params.get("oldInputs") is not None else None
    return call_context.CallContext(method, params["urn"], params.get("context") or {}, request_state.cancel_hooks, load)
