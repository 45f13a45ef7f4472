"""The serving loop: the worker's side of the channel (protocol.py). It says
$/ready, reads the host's messages, acknowledges requests in batches ($/ack)
and runs each on a thread of its own (threads.py) in a fresh context, through
its operation (operations.py) with what it prints captured when asked
(output_capture.py), and answers with the result or with the error it ended
in, shaped (error_shape.py), with the where and hint blocks (error_hints.py);
it also serves cancellation ($/cancel), health checks (ping), the program
paths of a prestarted worker ($/program-path, program_path.py), the provider
ids the host forgot ($/forget) and reports the worker's load ($/load).

Semantics live in the host; this returns normalized results or structured
errors. What differs from the reference on purpose: no cap of 4 concurrent
requests, no global lock across unrelated providers, `async def` methods are
awaited, and a request can be cancelled.

Who calls: worker.py's main (Worker(channel).serve()).
"""

import asyncio
import contextvars
import os
import sys
import threading
import time

import dill

import _pulumi_dynamic_host_error_hints as error_hints
import _pulumi_dynamic_host_output_capture as output_capture
import _pulumi_dynamic_host_program_path as program_path
import _pulumi_dynamic_host_protocol as protocol
import _pulumi_dynamic_host_threads as threads
from _pulumi_dynamic_host_error_shape import BadValue, Cancelled, LoadError, UnsetValue, UserError, error_data, user_frames, user_traceback
from _pulumi_dynamic_host_operations import OPERATIONS
from _pulumi_dynamic_host_provider_cache import PROVIDERS
from _pulumi_dynamic_host_user_code import request_state
from _pulumi_dynamic_host_values import request_bag

# At most this many requests are acknowledged in one $/ack (and started together).
_ACK_BATCH = 64
# The methods that run a provider: each names it by providerId (its text) or by reference.
_PROVIDER_METHODS = frozenset(("check", "diff", "create", "read", "update", "delete"))



class Worker:
    def __init__(self, channel):
        self.channel = channel
        # Threads, not a small pool: the engine's parallelism is the limit, as it should be.
        self.pool = threads.Threads(int(os.environ.get("PULUMI_DYNAMIC_HOST_THREADS", "256")))
        self.cancel_hooks = {}
        self.cancelled = set()
        self.lock = threading.Lock()
        # Provider texts by the id the host gave each (protocol.py); only the reading thread uses it.
        self.provider_texts = {}
        # Holds on each provider text (under self.lock): one for each id naming it in
        # provider_texts, one for each request taken that runs it. The host keeps a bounded
        # number of ids per worker and says which it forgot ($/forget); a text nothing holds
        # any more is dropped from the provider cache (PROVIDERS.drop), so the worker keeps
        # what the host keeps, and never drops a provider a running request uses.
        self.text_holds = {}

    def report_load(self, interval):
        """Sends $/load every `interval` seconds while requests run, and once more when they stop."""
        last_cpu, last_wall, was_active = time.process_time(), time.monotonic(), False
        while True:
            time.sleep(interval)
            cpu, wall = time.process_time(), time.monotonic()
            permille = int(1000 * (cpu - last_cpu) / max(wall - last_wall, 1e-6))
            last_cpu, last_wall = cpu, wall
            with self.lock:
                active = len(self.cancel_hooks)
            if active or was_active:
                self.channel.write({"jsonrpc": "2.0", "method": "$/load", "params": {"cpu": permille, "active": active}})
            was_active = active > 0

    def serve(self):
        self.channel.write(
            {
                "jsonrpc": "2.0",
                "method": "$/ready",
                "params": {
                    "protocol": protocol.PROTOCOL_VERSION,
                    "python": sys.version.split()[0],
                    "pulumi": _version("pulumi"),
                    "dill": getattr(dill, "__version__", "unknown"),
                    "pid": os.getpid(),
                },
            }
        )
        interval = float(os.environ.get("PULUMI_DYNAMIC_HOST_LOAD_INTERVAL_MS", "250")) / 1000
        threading.Thread(target=self.report_load, args=(interval,), name="pulumi-dynamic-host-load", daemon=True).start()
        # Requests taken and not yet started: acknowledged together ($/ack), then started together.
        taken = []
        while True:
            try:
                msg = self.channel.read()
            except protocol.ProtocolError as e:
                # The stream can no longer be trusted: say why and stop; the host restarts us.
                sys.stderr.write(f"pulumi-dynamic-host worker: channel broken: {e}\n")
                os._exit(3)
            if msg is None:
                os._exit(0)  # the host went away
            self.take(msg, taken)
            # Requests that arrived together (already buffered) are taken together: one $/ack for all.
            if taken and (len(taken) >= _ACK_BATCH or not self.channel.has_frame()):
                self.start(taken)
                taken = []

    def take(self, msg, taken):
        """Handles one message from the host; a request to run is appended to `taken`, to be started by start()."""
        try:
            req_id, method, params = protocol.check_request(msg)
        except protocol.ProtocolError as e:
            rid = msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), int) else None
            self.reply_error(rid, e.code, str(e), None)
            return
        if req_id is None:
            if method == "$/cancel":
                self.cancel(params["id"])
            elif method == "$/program-path":
                program_path.set_program_path(params["paths"])
            elif method == "$/forget":
                self.forget(params["ids"])
            return
        if method == "ping":
            result = {"pid": os.getpid(), "providers": PROVIDERS.held(), "texts": len(self.provider_texts)}
            self.channel.write({"jsonrpc": "2.0", "id": req_id, "result": result})
            return
        if method in _PROVIDER_METHODS and not self.resolve_provider(req_id, method, params):
            return
        with self.lock:
            self.cancel_hooks[req_id] = []
        taken.append((req_id, method, params))

    def start(self, taken):
        """
        Acknowledges the requests taken, and starts them once the socket holds
        the acknowledgement: if this process dies at any point after, the host
        can read that they were taken (and fails them, naming each: they may
        have run); a request it never saw acknowledged never ran here, and it
        sends it to another worker.
        """
        try:
            self.channel.write({"jsonrpc": "2.0", "method": "$/ack", "params": {"ids": [t[0] for t in taken]}}, sent=True)
        except OSError:
            os._exit(0)  # the host went away: nothing may run unacknowledged
        for req_id, method, params in taken:
            self.pool.submit(self.run, req_id, method, params)

    def resolve_provider(self, req_id, method, params):
        """
        Fills params["provider"] from its id, keeping a text sent for the first
        time; False (answered) for an unknown id, or a request that names its
        provider neither by id nor by reference.
        """
        if params.get("reference") is not None:
            return True
        provider_id = params.get("providerId")
        if provider_id is None:
            self.reply_error(req_id, protocol.INVALID_PARAMS, f"{method} params: neither providerId nor reference names the provider", None)
            return False
        text = params.get("provider")
        if text is not None:
            replaced = self.provider_texts.get(provider_id)
            if replaced != text:
                self.provider_texts[provider_id] = text
                self.hold(text)
                if replaced is not None:
                    self.release(replaced)
        else:
            text = self.provider_texts.get(provider_id)
            if text is None:
                self.reply_error(req_id, protocol.INVALID_PARAMS, f"{method} params: providerId {provider_id} names no provider sent to this worker", None)
                return False
            params["provider"] = text
        self.hold(text)  # for the request, released as it ends (_run)
        return True

    def forget(self, ids):
        """$/forget: the host no longer names these providers by their ids (it sends the text again if it needs one)."""
        for provider_id in ids:
            text = self.provider_texts.pop(provider_id, None)
            if text is not None:
                self.release(text)

    def hold(self, text):
        with self.lock:
            self.text_holds[text] = self.text_holds.get(text, 0) + 1

    def release(self, text):
        """Lets go of one hold on `text`; the last one drops its provider (loaded and configured again if sent again)."""
        with self.lock:
            holds = self.text_holds[text] - 1
            if holds:
                self.text_holds[text] = holds
                return
            del self.text_holds[text]
            PROVIDERS.drop(text)

    def cancel(self, req_id):
        with self.lock:
            hooks = self.cancel_hooks.get(req_id)
            if hooks is None:
                return
            self.cancelled.add(req_id)
            hooks = list(hooks)
        for hook in hooks:
            hook()

    def run(self, req_id, method, params):
        # A fresh, empty context per request, as grpcio gives each RPC of the reference.
        contextvars.Context().run(self._run, req_id, method, params)

    def _run(self, req_id, method, params):
        request_state.cancel_hooks = self.cancel_hooks.get(req_id)
        request_state.method, request_state.params = method, params
        try:
            try:
                result = self._operate(req_id, method, params)
            finally:
                # Before the answer leaves: once the host has it, the worker holds only what the host names.
                if method in _PROVIDER_METHODS and params.get("reference") is None:
                    self.release(params["provider"])
            protocol.check_fields(f"{method} result", protocol.METHODS[method][1], result)
            self.channel.write({"jsonrpc": "2.0", "id": req_id, "result": result})
        except Cancelled:
            self.reply_error(req_id, protocol.CANCELLED, f"{method} was cancelled", None)
        except UnsetValue as e:
            self.reply_error(req_id, protocol.UNSET_VALUE, str(e), {"field": e.field, "path": e.path})
        except BadValue as e:
            data = {"field": e.field, "path": e.path, "type": e.type, "message": e.message}
            self.reply_error(req_id, protocol.BAD_VALUE, str(e), data)
        except LoadError as e:
            self.reply_error(req_id, protocol.LOAD_ERROR, e.message, error_data(e))
        except UserError as e:
            self.reply_error(req_id, protocol.USER_ERROR, e.message, error_data(e))
        except Exception as e:  # noqa: BLE001 - anything the user's code raised
            if req_id in self.cancelled and isinstance(e, asyncio.CancelledError):
                self.reply_error(req_id, protocol.CANCELLED, f"{method} was cancelled", None)
            else:
                where = error_hints.where(method, params.get("urn"), user_frames(e))
                hint = error_hints.hint(e, method, lambda: _input_keys(method, params))
                err = UserError(2, user_traceback(e) + where + hint, e)
                self.reply_error(req_id, protocol.USER_ERROR, err.message, error_data(err))
        except BaseException as e:  # SystemExit / KeyboardInterrupt from user code
            err = UserError(2, user_traceback(e), e)
            self.reply_error(req_id, protocol.USER_ERROR, err.message, error_data(err))
        finally:
            request_state.cancel_hooks = None
            request_state.method = request_state.params = None
            with self.lock:
                self.cancel_hooks.pop(req_id, None)
                self.cancelled.discard(req_id)

    def _operate(self, req_id, method, params):
        """The operation, with what it prints sent to the host under its id when asked (output_capture.py)."""
        if not params.get("logs"):
            return OPERATIONS[method](params)
        output = output_capture.begin(self.channel, req_id)
        try:
            return OPERATIONS[method](params)
        finally:
            # Before the answer: the host shows the last lines under the resource before its step ends.
            output_capture.end(output)

    def reply_error(self, req_id, code, message, data):
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.channel.write({"jsonrpc": "2.0", "id": req_id, "error": error})


def _input_keys(method, params):
    """The keys of the inputs the failed method was given (for a hint), or None."""
    field = {"check": "news", "diff": "news", "update": "news", "create": "props", "read": "props", "delete": "props"}.get(method)
    return None if field is None else list(request_bag(params, field))


def _version(dist):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # noqa: BLE001
        return "unknown"
