"""What a provider prints during a request, sent to the host with the request's
id, so the engine shows it under the resource (src/host/call-output.ts).

The worker serves each request in a context of its own (serving.py: a fresh
contextvars.Context, which run_async copies into the user's coroutines). A
request the host asks to capture (params "logs") gets a RequestOutput in that
context; then, from any code running in it:

- sys.stdout / sys.stderr writes (print included) are sent line by line as
  $/log notifications: info, or, when a `logging` handler writes a record,
  the severity of its level (DEBUG debug, INFO info, WARNING warning, ERROR
  and CRITICAL info: an error under a resource makes the CLI show it failed,
  and only pulumi.log.error and a raised exception mean that). Where the
  level travels as the severity, the `LEVEL:logger:` prefix of logging's
  default format is dropped (the logger's name kept unless it is root);
- pulumi.log.debug/info/warn/error are sent at their own severity (the SDK's
  functions print "info: …" to stderr when no engine is configured, and drop
  debug messages);
- a partial last line is sent when the request ends, before its answer.

Not captured, and left on fd 1 and 2 as before (the engine shows them under
the stack): os.write to the file descriptors, sys.stdout.buffer, child
processes, threads the provider starts (a new thread has a context of its
own), and any request the host did not ask to capture (no engine to send to).
"""

import contextvars
import logging
import sys
import threading

_CURRENT = contextvars.ContextVar("pulumi_dynamic_host_output", default=None)
# The logging record whose handlers are running, on this thread.
_LOG_RECORD = contextvars.ContextVar("pulumi_dynamic_host_log_record", default=None)


def severity_of_level(level):
    """The severity a `logging` record's line is sent at; None: not written by a handler (info).

    Errors are info: the program's own logging is its prints, and an error
    under a resource makes the CLI show the resource failed though its step
    succeeded. pulumi.log.error and an exception are what fail a resource.
    """
    if level is None:
        return "info"
    if level < logging.INFO:
        return "debug"
    if level < logging.WARNING:
        return "info"
    if level < logging.ERROR:
        return "warning"
    return "info"


def without_level_prefix(record, text):
    """`text` a handler writes for `record`, less the `LEVEL:logger:` prefix of
    logging's default format (basicConfig, logging.warning & co.) when the
    level travels as the line's severity: "WARNING:root:x" is sent as a
    warning "x", "WARNING:boto:x" as "boto: x". An ERROR line, sent as info,
    keeps its prefix: the text is then the only place its level shows."""
    if record is None or record.levelno >= logging.ERROR:
        return text
    prefix = f"{record.levelname}:{record.name}:"
    if not text.startswith(prefix):
        return text
    rest = text[len(prefix):]
    return rest if record.name == "root" else f"{record.name}: {rest}"


class RequestOutput:
    """One request's output: whole lines go to the host at once, a partial one at close()."""

    def __init__(self, channel, req_id):
        self._channel = channel
        self._id = req_id
        self._partial = {"stdout": None, "stderr": None}
        self._lock = threading.Lock()

    def write(self, stream, severity, text):
        if not text:
            return
        with self._lock:
            head = self._partial[stream]
            if "\n" not in text:
                self._partial[stream] = (head[0], head[1] + text) if head else (severity, text)
                return
            complete, _, rest = text.rpartition("\n")
            if head:
                severity, complete = head[0], head[1] + complete
            self._partial[stream] = (severity, rest) if rest else None
            self._send(stream, severity, complete + "\n")

    def close(self):
        with self._lock:
            for stream, head in self._partial.items():
                if head:
                    self._send(stream, head[0], head[1])
            self._partial = {"stdout": None, "stderr": None}

    def _send(self, stream, severity, text):
        self._channel.write(
            {"jsonrpc": "2.0", "method": "$/log", "params": {"id": self._id, "stream": stream, "severity": severity, "text": text}}
        )


class _CapturingStream:
    """sys.stdout or sys.stderr: a request's writes go to its output, all else to the stream it replaces."""

    def __init__(self, stream, name):
        self._stream = stream
        self._name = name

    def write(self, text):
        output = _CURRENT.get()
        if output is None:
            return self._stream.write(text)
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        record = _LOG_RECORD.get()
        level = None if record is None else record.levelno
        output.write(self._name, severity_of_level(level), without_level_prefix(record, text))
        return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        if _CURRENT.get() is None:
            self._stream.flush()

    def __getattr__(self, name):
        # fileno, buffer, encoding, isatty, …: the real stream's.
        return getattr(self._stream, name)


def begin(channel, req_id):
    """Captures the current context's output for request `req_id`; returns what end() takes."""
    output = RequestOutput(channel, req_id)
    _CURRENT.set(output)
    return output


def end(output):
    """Sends the request's partial last lines; later writes of its context go to the streams."""
    _CURRENT.set(None)
    output.close()


def install():
    """Replaces sys.stdout and sys.stderr, and wraps logging's and pulumi.log's emitters (once, before any user code)."""
    if isinstance(sys.stdout, _CapturingStream):
        return
    sys.stdout = _CapturingStream(sys.stdout, "stdout")
    sys.stderr = _CapturingStream(sys.stderr, "stderr")

    call_handlers = logging.Logger.callHandlers

    def callHandlers(self, record):  # noqa: N802 - logging's own name
        token = _LOG_RECORD.set(record)
        try:
            return call_handlers(self, record)
        finally:
            _LOG_RECORD.reset(token)

    logging.Logger.callHandlers = callHandlers

    try:
        import pulumi.log as pulumi_log
    except ImportError:  # pragma: no cover - the worker imports pulumi anyway
        return
    for name, severity in (("debug", "debug"), ("info", "info"), ("warn", "warning"), ("error", "error")):
        original = getattr(pulumi_log, name, None)
        if original is not None:
            setattr(pulumi_log, name, _pulumi_log(original, severity))


def _pulumi_log(original, severity):
    def log(msg, resource=None, stream_id=None, ephemeral=None):
        output = _CURRENT.get()
        if output is None:
            return original(msg, resource, stream_id, ephemeral)
        output.write("stderr", severity, f"{msg}\n")
        return None

    log.__name__ = original.__name__
    log.__doc__ = original.__doc__
    log.__wrapped__ = original
    return log
