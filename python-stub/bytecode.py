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
compiling from source. As the host's side (src/host/cache-root.ts): folders are
made 0700 and files 0600, and a cache root that is not this user's or that
other users may write is not used at all (what is in it could be anyone's
code): the worker then compiles from source.
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
    return root, os.path.join(root, "python-bytecode", sys.implementation.cache_tag or "unknown")


def _private(path):
    """Whether `path` is a directory of this user's that no one else may write."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    owner_ok = getuid is None or st.st_uid == getuid()
    # Windows reports write bits for everyone (its ACLs are not read here): nothing is refused there.
    loose = os.name != "nt" and bool(st.st_mode & 0o022)
    return os.path.isdir(path) and owner_ok and not loose


_usable = None


def _cache_directory():
    """The folder of this interpreter's cache, made if missing; None when the cache root may not be used."""
    global _usable
    if _usable is None:
        root, directory = _directory()
        _usable = False
        try:
            os.makedirs(root, mode=0o700, exist_ok=True)
            if _private(root):
                # makedirs gives `mode` to the last folder only: each of ours is made on its own.
                for folder in (os.path.dirname(directory), directory):
                    os.makedirs(folder, mode=0o700, exist_ok=True)
                _usable = directory if _private(directory) else False
        except OSError:
            pass
    return _usable or None


def code_of(path):
    """The code object of the source file at `path` (absolute), compiled with `path` as its file name."""
    st = os.stat(path)
    stamp = MAGIC_NUMBER + st.st_mtime_ns.to_bytes(8, "little") + st.st_size.to_bytes(8, "little")
    # crc32, not hashlib: importing hashlib loads OpenSSL (3 ms); the stamp is what decides validity.
    key = format(binascii.crc32(path.encode("utf-8", "surrogateescape")), "08x")
    directory = _cache_directory()
    if directory is None:
        with open(path, "rb") as f:
            return compile(f.read(), path, "exec", dont_inherit=True)
    cached = os.path.join(directory, f"{os.path.basename(path)}-{key}.bin")
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
        tmp = f"{cached}.{os.getpid()}.tmp"
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            f.write(stamp + marshal.dumps(code))
        os.replace(tmp, cached)
    except OSError:
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass
    return code
