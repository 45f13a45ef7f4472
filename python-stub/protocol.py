"""The worker's side of the host <-> worker channel: framing, the method table
and strict checks of every message. Its TypeScript twin is
src/python-bridge/channel/protocol.ts; test/unit/protocol-tables.test.ts fails when
the two method tables disagree.

A frame is an ASCII header, a JSON-RPC 2.0 message and a binary tail:

    Content-Length: <bytes of JSON>\\r\\n
    Binary-Length: <bytes of tail>\\r\\n
    \\r\\n
    <JSON><tail>

Binary values (serialized google.protobuf.Struct bags) travel in the tail; in
the JSON they are {"$bin": [offset, length]} into it. Nothing limits a line or
a message below 4 GiB, and many requests are in flight at once, matched by id.
"""

import json
import re
import socket
import threading

PROTOCOL_VERSION = 7

# method -> (params fields, result fields); each field is (name, kind, required).
# Kinds: str, bool, int, ids (a list of request ids), bin (a Struct's bytes), failures, replaces, reference, any.
#
# A provider's serialized text crosses the channel once per worker: the first
# request for it carries `provider` (the text) and the `providerId` the host
# gave it; later requests carry only the id. Requests are read in order, so the
# text is always known by the time an id alone arrives. The host keeps a bounded
# number of ids per worker: $/forget names those it let go (never to be used
# again), and the worker drops their providers once no request runs them. A provider the project
# declares in Pulumi.yaml is named instead by `reference`: {"reference":
# "<module>:<attribute>", "typeToken", "declaredIn": the file}, and no id; a
# provider package's also has "paths": its folder, then the folder of the dependencies the host
# installed for it, put first on sys.path in that order.
# `context` is what the provider's call context is made of (call_context.py):
# {"name", "type", "preview": bool or absent, "deadline": ms since the epoch or
# absent}; a Delete adds `oldInputs`, the resource's old inputs.
# "logs": true asks for what the provider prints during the request, as $/log notifications
# (output_capture.py).
METHODS = {
    "configure": ([("args", "bin", False)], []),
    "check": (
        [("urn", "str", True), ("provider", "str", False), ("providerId", "int", False), ("reference", "reference", False), ("context", "context", False), ("logs", "bool", False), ("olds", "bin", False), ("news", "bin", False)],
        [("inputs", "bin", True), ("failures", "failures", True)],
    ),
    "diff": (
        [("urn", "str", True), ("provider", "str", False), ("providerId", "int", False), ("reference", "reference", False), ("context", "context", False), ("logs", "bool", False), ("id", "str", True), ("olds", "bin", False), ("news", "bin", False)],
        [("changes", "changes", True), ("replaces", "replaces", True), ("deleteBeforeReplace", "bool", True), ("byDefault", "bool", False)],
    ),
    "create": (
        [("urn", "str", True), ("provider", "str", False), ("providerId", "int", False), ("reference", "reference", False), ("context", "context", False), ("logs", "bool", False), ("props", "bin", False)],
        [("id", "str", True), ("outs", "bin", True)],
    ),
    "read": (
        [("urn", "str", True), ("provider", "str", False), ("providerId", "int", False), ("reference", "reference", False), ("context", "context", False), ("logs", "bool", False), ("id", "str", True), ("props", "bin", False)],
        [("id", "str", True), ("outs", "bin", True), ("inputs", "bin", False)],
    ),
    "update": (
        [("urn", "str", True), ("provider", "str", False), ("providerId", "int", False), ("reference", "reference", False), ("context", "context", False), ("logs", "bool", False), ("id", "str", True), ("olds", "bin", False), ("news", "bin", False)],
        # No outs: the provider has no update of its own (the host keeps the old outputs).
        [("outs", "bin", False)],
    ),
    "delete": (
        [("urn", "str", True), ("provider", "str", False), ("providerId", "int", False), ("reference", "reference", False), ("context", "context", False), ("logs", "bool", False), ("id", "str", True), ("props", "bin", False), ("oldInputs", "bin", False)],
        [],
    ),
    # The __provider text a program passing the reference with the helper writes (what an import stores).
    # Health check, answered by the reading thread itself: proves the worker still reads its channel.
    # `providers`: how many providers it keeps (loaded, or being loaded); `texts`: how many provider ids it knows.
    "ping": ([], [("pid", "int", True), ("providers", "int", False), ("texts", "int", False)]),
}

# Notifications (no id, no answer). host -> worker: $/cancel, $/program-path, $/forget; worker -> host: $/ready, $/unusable, $/ack,
# $/load, $/log.
NOTIFICATIONS = {
    # The requests the worker has taken, sent before any of them starts (and so before any user code
    # runs for them): a request the host never saw acknowledged never ran, and is safe to send to
    # another worker when this one dies. Requests answered by the reading thread itself (ping, or an
    # error about the request) are not acknowledged: their answer comes at once.
    "$/ack": [("ids", "ids", True)],
    "$/cancel": [("id", "int", True)],
    # The first message to a worker the launcher started: its program paths, as PULUMI_DYNAMIC_HOST_PROGRAM_PATH holds them.
    "$/program-path": [("paths", "str", True)],
    # The provider ids the host let go (its bound on the texts it keeps per worker): never used again;
    # their providers go once no request runs them, and a text sent again is loaded and configured again.
    "$/forget": [("ids", "ids", True)],
    # While requests run: the process's CPU over the last interval, in thousandths of one core,
    # and how many requests it has in hand. The host starts another worker only when every
    # worker it has is held to one core by its interpreter lock.
    "$/load": [("cpu", "int", True), ("active", "int", True)],
    # What a request's provider printed (when the request asked for "logs"; output_capture.py): whole
    # lines, but for the partial last one sent as the request ends; stream "stdout" or "stderr",
    # severity "debug", "info", "warning" or "error".
    "$/log": [("id", "int", True), ("stream", "str", True), ("severity", "str", True), ("text", "str", True)],
    # Instead of $/ready, before the worker exits: its interpreter cannot import `module` (pulumi, dill, protobuf).
    "$/unusable": [("python", "str", True), ("module", "str", True), ("error", "str", True)],
    "$/ready": [
        ("protocol", "int", True),
        ("python", "str", True),
        ("pulumi", "str", True),
        ("dill", "str", True),
        ("pid", "int", True),
    ],
}

# JSON-RPC error codes. The standard ones, and ours in the server range.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
USER_ERROR = -32000  # the user's code raised; data carries grpcCode/details/type/message
LOAD_ERROR = -32001  # the provider could not be unpickled; data adds reason (what was wrong with the text)
CANCELLED = -32002  # the host cancelled the request
UNSET_VALUE = -32003  # a request bag holds a Value with no kind set; data carries field and path
BAD_VALUE = -32004  # the SDK refused to deserialize a value of a request bag; data carries field, path, type and message

ERROR_KINDS = {USER_ERROR: "user", LOAD_ERROR: "load", CANCELLED: "cancelled", UNSET_VALUE: "unset value", BAD_VALUE: "bad value"}


class ProtocolError(Exception):
    """A message that breaks the protocol; `code` is the JSON-RPC error code to answer with."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


_KIND_CHECKS = {
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "bin": lambda v: isinstance(v, (bytes, bytearray, memoryview)),
    "changes": lambda v: v in ("some", "none", "unknown"),
    "ids": lambda v: isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v),
    "replaces": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "failures": lambda v: isinstance(v, list)
    and all(isinstance(f, dict) and isinstance(f.get("property"), str) and isinstance(f.get("reason"), str) for f in v),
    "reference": lambda v: isinstance(v, dict)
    and {"reference", "typeToken", "declaredIn"} <= set(v) <= {"reference", "typeToken", "declaredIn", "paths"}
    and all(isinstance(v[k], str) for k in ("reference", "typeToken", "declaredIn"))
    and (isinstance(v.get("paths", []), list) and all(isinstance(x, str) for x in v.get("paths", []))),
    "context": lambda v: isinstance(v, dict)
    and set(v) <= {"name", "type", "preview", "deadline"}
    and isinstance(v.get("name"), str)
    and isinstance(v.get("type"), str)
    and (v.get("preview") is None or isinstance(v["preview"], bool))
    and (v.get("deadline") is None or (isinstance(v["deadline"], (int, float)) and not isinstance(v["deadline"], bool))),
    "any": lambda v: True,
}


def _make_checker(spec):
    """check_fields for one spec, with its names and kind checks looked up once."""
    names = frozenset(name for name, _, _ in spec)
    fields = tuple((name, kind, _KIND_CHECKS[kind], required) for name, kind, required in spec)

    def check(where, obj):
        if not isinstance(obj, dict):
            raise ProtocolError(INVALID_PARAMS, f"{where}: expected an object, got {type(obj).__name__}")
        if not names.issuperset(obj):
            for key in obj:
                if key not in names:
                    raise ProtocolError(INVALID_PARAMS, f"{where}: unknown field {key!r}")
        for name, kind, ok, required in fields:
            value = obj.get(name)
            if value is not None:
                if not ok(value):
                    raise ProtocolError(INVALID_PARAMS, f"{where}: field {name!r} must be {kind}, got {type(value).__name__}")
            elif required:
                raise ProtocolError(INVALID_PARAMS, f"{where}: missing field {name!r}")

    return check


# The checker of each spec, made once; the entry keeps its spec, so an id is never reused.
_CHECKERS = {}


def check_fields(where, spec, obj):
    """Strict check: every required field present and well typed, nothing unknown."""
    cached = _CHECKERS.get(id(spec))
    if cached is None or cached[0] is not spec:
        cached = _CHECKERS[id(spec)] = (spec, _make_checker(spec))
    cached[1](where, obj)


def check_request(msg):
    """Validates an incoming JSON-RPC message; returns (id or None, method, params)."""
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
        raise ProtocolError(INVALID_REQUEST, "not a JSON-RPC 2.0 request")
    method = msg["method"]
    params = msg.get("params", {})
    if "id" in msg:
        if not isinstance(msg["id"], int) or isinstance(msg["id"], bool):
            raise ProtocolError(INVALID_REQUEST, "request id must be an integer")
        if method not in METHODS:
            raise ProtocolError(METHOD_NOT_FOUND, f"unknown method {method!r}")
        check_fields(f"{method} params", METHODS[method][0], params)
        return msg["id"], method, params
    if method not in NOTIFICATIONS:
        raise ProtocolError(METHOD_NOT_FOUND, f"unknown notification {method!r}")
    check_fields(f"{method} params", NOTIFICATIONS[method], params)
    return None, method, params


# --- framing -----------------------------------------------------------------


# The tail of the frame each thread is encoding: _ENCODER meets bytes-like values in
# document order and leaves each in the tail, writing its reference in their place.
_encoding = threading.local()


def _bin_ref(value):
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    tail = _encoding.tail
    ref = {"$bin": [_encoding.size, len(value)]}
    tail.append(value)
    _encoding.size += len(value)
    return ref


# Frames up to this size are joined into one send; larger parts are sent as they are.
_JOIN_LIMIT = 64 * 1024

# The header this protocol's writers send; any other spelling goes through the general parse.
_USUAL_HEADER = re.compile(rb"Content-Length: (\d{1,15})\r\nBinary-Length: (\d{1,15})\r\n\r\n")

# Messages are written compact; one encoder for all (json.dumps makes one per call when given separators).
_ENCODER = json.JSONEncoder(separators=(",", ":"), default=_bin_ref)


class Channel:
    """One bidirectional socket to the host. One thread reads at a time; any thread writes, and frames leave in order (see write)."""

    def __init__(self, fd):
        self._sock = socket.socket(fileno=fd)
        # Bytes read and not yet consumed start at _pos: frames are consumed by moving _pos,
        # and the consumed bytes are dropped only before the next read from the socket, so a
        # batch of frames that arrived together is not shifted once per frame.
        self._buf = bytearray()
        self._pos = 0
        # recv(n) would allocate (and the allocator map and unmap) n bytes on every
        # call; reading into one buffer kept for the channel's life costs a copy.
        self._scratch = memoryview(bytearray(1 << 20))
        # The tail of the frame being decoded, for _resolve_bin: only the reading thread uses it.
        self._tail = None
        # The C scanner json.loads would use, with $bin references resolved as each object is made.
        self._scan = json.JSONDecoder(object_hook=self._resolve_bin).scan_once
        # Frames waiting to be sent, and whether a thread is sending them (see write).
        self._out_lock = threading.Lock()
        self._out = []
        self._out_bytes = 0
        self._sending = False
        # Frames queued so far, frames the socket has taken so far (write(..., sent=True) waits on
        # them), and whether a send failed (the host is gone: nobody waits for it).
        self._queued = 0
        self._sent = 0
        self._send_failed = False
        self._sent_cond = threading.Condition(self._out_lock)

    def _recv(self):
        """Appends what the socket has (waiting for something) to the buffer; False at end of stream."""
        if self._pos:
            del self._buf[: self._pos]
            self._pos = 0
        n = self._sock.recv_into(self._scratch)
        if n == 0:
            return False
        self._buf += self._scratch[:n]
        return True

    def _fill(self, need):
        """Reads until `need` bytes from _pos are buffered; False at end of stream."""
        while len(self._buf) - self._pos < need:
            if not self._recv():
                return False
        return True

    def read(self):
        """The next message (with $bin references resolved), or None at end of stream."""
        usual = _USUAL_HEADER.match(self._buf, self._pos)
        if usual is not None:
            json_len, bin_len = int(usual[1]), int(usual[2])
            start = usual.end() - self._pos  # from here on, offsets count from _pos (which _fill may move to 0)
        else:
            start, json_len, bin_len = self._read_header()
            if start is None:
                return None
        if not self._fill(start + json_len + bin_len):
            raise ProtocolError(PARSE_ERROR, "stream ended inside a frame")
        start += self._pos
        self._pos = start + json_len + bin_len
        # One copy of the tail (slicing the bytearray first would make two), and the JSON
        # decoded straight from the buffer.
        with memoryview(self._buf) as view:
            self._tail = memoryview(bytes(view[start + json_len : self._pos]))
            try:
                text = str(view[start : start + json_len], "utf-8")
            except UnicodeDecodeError as e:
                raise ProtocolError(PARSE_ERROR, f"invalid JSON: {e}")
        try:
            try:
                msg, end = self._scan(text, 0)
            except StopIteration:
                end = -1
            if end != len(text):
                # Whitespace around the value, or not JSON: json.loads knows which, and says where.
                msg = json.loads(text, object_hook=self._resolve_bin)
        except ValueError as e:
            raise ProtocolError(PARSE_ERROR, f"invalid JSON: {e}")
        finally:
            self._tail = None
        return msg

    def _read_header(self):
        """
        Parses a frame header spelled other than the usual way, reading until it is
        whole: (offset of the JSON from _pos, JSON length, tail length), or Nones at
        the end of the stream.
        """
        while True:
            end = self._buf.find(b"\r\n\r\n", self._pos)
            if end >= 0:
                break
            if len(self._buf) - self._pos > 4096:
                raise ProtocolError(PARSE_ERROR, "frame header too long or missing")
            if not self._recv():
                if len(self._buf) > self._pos:
                    raise ProtocolError(PARSE_ERROR, "stream ended inside a frame header")
                return None, None, None
            usual = _USUAL_HEADER.match(self._buf, self._pos)
            if usual is not None:
                return usual.end() - self._pos, int(usual[1]), int(usual[2])
        end -= self._pos
        headers = {}
        for line in bytes(self._buf[self._pos : self._pos + end]).decode("ascii", "replace").split("\r\n"):
            name, sep, value = line.partition(":")
            if not sep:
                raise ProtocolError(PARSE_ERROR, f"bad frame header line {line!r}")
            headers[name.strip().lower()] = value.strip()
        try:
            json_len = int(headers["content-length"])
            bin_len = int(headers.get("binary-length", "0"))
        except (KeyError, ValueError):
            raise ProtocolError(PARSE_ERROR, f"bad frame headers {headers!r}")
        if json_len < 0 or bin_len < 0:
            raise ProtocolError(PARSE_ERROR, f"bad frame headers {headers!r}")
        return end + 4, json_len, bin_len

    def _resolve_bin(self, obj):
        """The JSON decoder's hook for each object: a {"$bin": [offset, length]} becomes its slice of the tail."""
        ref = obj.get("$bin")
        if ref is None or len(obj) != 1:
            return obj
        if not (isinstance(ref, list) and len(ref) == 2 and all(type(x) is int for x in ref)):
            raise ProtocolError(INVALID_REQUEST, "malformed $bin reference")
        start, length = ref
        tail = self._tail
        if start < 0 or length < 0 or start + length > len(tail):
            raise ProtocolError(INVALID_REQUEST, "$bin reference outside the frame")
        return tail[start : start + length]

    def has_frame(self):
        """Whether a whole frame is already buffered, so read() returns it without waiting on the socket."""
        usual = _USUAL_HEADER.match(self._buf, self._pos)
        if usual is None:
            return False
        return len(self._buf) - usual.end() >= int(usual[1]) + int(usual[2])

    def write(self, msg, sent=False):
        """
        Queues a frame and returns; frames leave in the order queued. The thread
        that finds nobody sending becomes the sender and sends what is queued,
        including frames other threads queue meanwhile, joined into one send when
        small: answers that finish together leave together, so the host reads
        them at once, and no thread waits for another's send. The reading thread
        becomes the sender when it answers a ping and nobody else is sending; it
        then sends until the queue is empty, which it soon is, since no new
        request is read meanwhile.

        With `sent`, returns only once the socket has taken the frame (whoever
        sent it): what follows may depend on the host being able to read it
        even if this process dies next ($/ack). Raises OSError if the send failed.
        """
        tail = _encoding.tail = []
        _encoding.size = 0
        try:
            body = _ENCODER.encode(msg).encode("ascii")
            bin_len = _encoding.size
        finally:
            _encoding.tail = None
        header = f"Content-Length: {len(body)}\r\nBinary-Length: {bin_len}\r\n\r\n".encode("ascii")
        # A large tail goes as it is, without a copy.
        parts = [header + body + b"".join(tail)] if bin_len <= _JOIN_LIMIT else [header + body, *tail]
        with self._out_lock:
            self._out.extend(parts)
            self._out_bytes += len(body) + bin_len
            self._queued += 1
            mine = self._queued
            if self._sending:
                if sent:
                    while self._sent < mine and not self._send_failed:
                        self._sent_cond.wait()
                    if self._sent < mine:
                        raise OSError("the channel's send failed")
                return
            self._sending = True
        try:
            while True:
                with self._out_lock:
                    parts, size, upto = self._out, self._out_bytes, self._queued
                    self._out, self._out_bytes = [], 0
                    if not parts:
                        self._sending = False
                        return
                if len(parts) > 1 and size <= _JOIN_LIMIT:
                    parts = [b"".join(parts)]
                for part in parts:
                    self._sock.sendall(part)
                with self._out_lock:
                    self._sent = upto
                    self._sent_cond.notify_all()
        except BaseException:
            with self._out_lock:
                self._sending = False
                self._send_failed = True
                self._sent_cond.notify_all()
            raise

    def close(self):
        try:
            self._sock.close()
        except OSError:
            pass
