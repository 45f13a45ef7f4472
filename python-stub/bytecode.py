"""Compiled code of the worker's own files, kept between starts.

The worker's files (worker.py and its siblings, about 3000 lines) are not a
package pip installed and compiled: Python compiles them from source at every
start, about 15 ms of CPU on the way to the first answer, each time the engine
starts the plugin (every preview, up, refresh and destroy). This keeps their
code objects under the host's cache directory ($PULUMI_DYNAMIC_HOST_CACHE_DIR,
else $XDG_CACHE_HOME or ~/.cache, then pulumi-dynamic-host/python-bytecode/,
one folder per interpreter's cache tag), named by the file's name and a checksum of its path, and checked
against its size and modification time and the interpreter's magic number, as
Python checks its own .pyc files. Only the host's files are kept there, never
the user's code. Any problem reading or writing the cache falls back to
compiling from source.
"""

import binascii
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER

_HEADER = len(MAGIC_NUMBER) + 16


def _directory():
    base = os.environ.get("PULUMI_DYNAMIC_HOST_CACHE_DIR")
    if base:
        root = os.path.abspath(base)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        home = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(home, "pulumi-dynamic-host")
    return os.path.join(root, "python-bytecode", sys.implementation.cache_tag or "unknown")


def code_of(path):
    """The code object of the source file at `path` (absolute), compiled with `path` as its file name."""
    st = os.stat(path)
    stamp = MAGIC_NUMBER + st.st_mtime_ns.to_bytes(8, "little") + st.st_size.to_bytes(8, "little")
    # crc32, not hashlib: importing hashlib loads OpenSSL (3 ms); the stamp is what decides validity.
    key = format(binascii.crc32(path.encode("utf-8", "surrogateescape")), "08x")
    cached = os.path.join(_directory(), f"{os.path.basename(path)}-{key}.bin")
    try:
        with open(cached, "rb") as f:
            data = f.read()
        if data[:_HEADER] == stamp:
            return marshal.loads(data[_HEADER:])
    except (OSError, ValueError, EOFError, TypeError):
        pass
    with open(path, "rb") as f:
        source = f.read()
    code = compile(source, path, "exec", dont_inherit=True)
    try:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        tmp = f"{cached}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(stamp + marshal.dumps(code))
        os.replace(tmp, cached)
    except OSError:
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass
    return code
