"""The first process of pulumi-resource-pulumi-python: starts the worker, then becomes the host.

Run by python-stub/launch.sh as

    <python> -I -S prestart.py <python> <virtualenv or ""> <python-stub dir> <host argv...>

It makes the worker's channel (a socket pair) and its stdout and stderr pipes,
forks, and then:

- the child execs `<python> -u start.py worker.py`, with the environment the
  host would give its first worker (interpreter.ts), plus
  PULUMI_DYNAMIC_HOST_PRESTARTED=1 so the worker waits for its program paths;
- this process execs the host (same pid: the engine's plugin process), with
  the host's ends of the three on inherited descriptors that
  PULUMI_DYNAMIC_HOST_PRESTARTED names.

So the interpreter's start and `import pulumi` run while Node starts, instead
of after it. The host checks that the worker is the one it would have started
(src/python-bridge/worker/prestarted.ts) and otherwise starts its own. Anything that
fails before the fork execs the host alone, as if this never ran.

Where this environment's preloader runs (python-stub/preloader.py: a worker
that imported everything and waits, docs/preloader.md), the worker is not
started but forked by it, with the three descriptors passed over its socket:
a fork instead of an interpreter's start. Where none runs, this process starts
one, detached, for the next start. Anything that fails on that way starts the
worker as above, and says why to the host (-v).

Only builtin modules, under -I -S, on any Python 3 the user may have (fcntl
and zlib, for the preloader, are imported only when it is used).
"""

import os
import sys


def _exec_host(host):
    os.execvp(host[0], host)


def _worker_env(venv):
    """What interpreter.ts gives the first worker: the virtualenv's bin first on PATH, no PYTHONHOME."""
    env = dict(os.environ)
    env.pop("PULUMI_DYNAMIC_HOST_SERVE", None)
    env.pop("PULUMI_DYNAMIC_HOST_POETRY_ENV", None)  # the host's (src/cli/compose/launcher-environment.ts)
    if "PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS" in env:  # moved aside for the host's start only (launch.sh)
        env["NODE_EXTRA_CA_CERTS"] = env.pop("PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS")
    if venv:
        env["PATH"] = venv + "/bin:" + env.get("PATH", "")
        env.pop("PYTHONHOME", None)
        if "PULUMI_RUNTIME_VIRTUALENV" in env:
            env["PULUMI_RUNTIME_VIRTUALENV"] = venv
    env["PULUMI_DYNAMIC_HOST_CHANNEL_FD"] = "3"
    env["PULUMI_DYNAMIC_HOST_PRESTARTED"] = "1"
    return env


def _child(python, venv, stub, worker_fds, host_fds):
    """The worker: its three descriptors on 3, 1 and 2, then the worker script in `python`."""
    try:
        import _signal

        # Python ignores these two; an exec keeps what is ignored, and the worker must start as the host would start it.
        for name in ("SIGPIPE", "SIGXFSZ"):
            if hasattr(_signal, name):
                _signal.signal(getattr(_signal, name), _signal.SIG_DFL)
        channel, out, err = worker_fds
        for fd in host_fds:
            os.close(fd)
        os.dup2(channel, 3)
        os.dup2(out, 1)
        os.dup2(err, 2)
        for fd in (3, 1, 2):
            os.set_inheritable(fd, True)
        for fd in worker_fds:
            if fd > 3:
                os.close(fd)
        args = [python, "-u", os.path.join(stub, "start.py"), os.path.join(stub, "worker.py")]
        os.execvpe(python, args, _worker_env(venv))
    except BaseException as e:  # noqa: BLE001 - nothing may escape into the host's code path
        try:
            os.write(2, ("pulumi-dynamic-host: could not start the Python worker with %s: %s\n" % (python, e)).encode("utf-8", "replace"))
        finally:
            os._exit(127)


PRELOADER_STATUS = None  # set by _from_preloader: the connection the preloader reports the worker's exit on


def _resolve(python, env):
    """`python` as a path: as named when it has a slash, else looked up on PATH as exec would."""
    if "/" in python:
        return python if python.startswith("/") else os.path.join(os.getcwd(), python)
    for d in env.get("PATH", "").split(":"):
        candidate = os.path.join(d or ".", python)
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate if candidate.startswith("/") else os.path.join(os.getcwd(), candidate)
    return None


def _keyed(name):
    """Whether a variable can change what an interpreter imports or how: part of the preloader's key."""
    if name.startswith("PULUMI_DYNAMIC_HOST_"):
        return name not in _PER_START and not name.startswith("PULUMI_DYNAMIC_HOST_PRELOAD")
    return name.startswith(("PYTHON", "GRPC_", "LC_")) or name in ("VIRTUAL_ENV", "HOME", "LANG", "LANGUAGE", "XDG_CACHE_HOME")


# Set for each start, never the same twice: not the preloader's business.
_PER_START = ("PULUMI_DYNAMIC_HOST_CHANNEL_FD", "PULUMI_DYNAMIC_HOST_PRESTARTED", "PULUMI_DYNAMIC_HOST_PROGRAM_PATH", "PULUMI_DYNAMIC_HOST_SERVE")


def _escape(text):
    return text.replace("\\", "\\\\").replace("\x1f", "\\x1f")


def _where():
    """
    The namespaces and control group this process runs in: a worker forked elsewhere
    would see other files, pids or limits (a container, `unshare`, a systemd scope).
    """
    parts = []
    for ns in ("mnt", "pid", "net", "user", "ipc", "uts"):
        try:
            parts.append(os.readlink("/proc/self/ns/" + ns))
        except OSError:
            pass
    try:
        with open("/proc/self/cgroup", "rb") as f:
            parts.append(f.read().decode("utf-8", "replace").strip().replace("\n", ";"))
    except OSError:
        pass
    return ",".join(parts)


def _key(python, stub, env):
    """
    What a preloader must have been started with to serve this start: the user, where
    it runs (_where), the interpreter (its path and the file it runs), the worker's
    files, and every variable that changes what Python imports. One line; the
    preloader compares it whole.
    """
    st = os.stat(python)
    parts = [
        "pdh-preload-1",
        "uid=%d:%d" % (os.getuid(), os.getgid()),
        "where=" + _where(),
        "python=" + python,
        "binary=%d:%d:%d:%d" % (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns),
        "stub=" + stub,
    ]
    parts += sorted(k + "=" + v for k, v in env.items() if _keyed(k))
    return "\x1f".join(_escape(p) for p in parts)


def _limits():
    """This process's resource limits, which a forked worker takes: `NAME=soft:hard,…`."""
    import resource

    out = []
    for name in ("RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_STACK", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_MEMLOCK"):
        if hasattr(resource, name):
            soft, hard = resource.getrlimit(getattr(resource, name))
            out.append("%s=%d:%d" % (name, soft, hard))
    return ",".join(out)


# A preloader's socket is <directory>/<16 hex digits>.sock.
_SOCKET_NAME_BYTES = len("/0123456789abcdef.sock")


def _socket_path_limit(platform):
    """The longest Unix socket path, in bytes without the NUL: sun_path is 108 bytes on Linux, 104 on macOS and the BSDs."""
    return 107 if platform.startswith("linux") else 103


def _preload_dir_path(env, uid, platform):
    """
    Where the preloaders' sockets go (src/cli/preloaders.ts computes the same, for doctor):
    $XDG_RUNTIME_DIR/pulumi-dynamic-host, else (unset, or too long for a socket's path under
    it) /tmp/pulumi-dynamic-host-<uid>, which fits everywhere; $TMPDIR is never used (macOS's
    is /var/folders/…/T/, long). None on Windows, which has no preloader.
    """
    if platform == "win32":
        return None
    candidates = []
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        candidates.append(runtime.rstrip("/") + "/pulumi-dynamic-host")
    candidates.append("/tmp/pulumi-dynamic-host-%d" % uid)
    for candidate in candidates:
        if len(os.fsencode(candidate)) + _SOCKET_NAME_BYTES <= _socket_path_limit(platform):
            return candidate
    return None


def _preload_dir(path):
    """`path` made if missing; None unless it is a directory (not a link) this user owns and nobody else may enter."""
    uid = os.getuid()
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if st.st_mode & 0o170000 != 0o040000 or st.st_uid != uid or st.st_mode & 0o077:
        return None
    return path


def _prestart_unsupported(platform, has_proc, has_fork):
    """
    Why this system cannot have the worker started beside the host, or None: the host checks
    the worker it is handed by /proc (its command line, environment and exit), which macOS
    lacks, and Windows has neither /proc nor fork. launch.sh asks for /proc before it runs
    this; the check here keeps a direct run from handing the host a worker it cannot check.
    """
    if not has_fork:
        return "no fork on %s" % platform
    if not has_proc:
        return "no /proc on %s" % platform
    return None


def _fields(items):
    data = b"\0".join(os.fsencode(i) for i in items)
    return b"%010d" % len(data) + data


def _read_line(conn):
    """One line, byte by byte: what follows it (the worker's exit) is the host's to read."""
    line = b""
    while not line.endswith(b"\n"):
        byte = conn.recv(1)
        if not byte:
            break
        line += byte
    return line.decode("utf-8", "replace").strip()


def _from_preloader(sock_path, key, env, worker_fds):
    """
    Asks the preloader on `sock_path` for a worker with `worker_fds` as its channel,
    stdout and stderr, the environment `env` and this process's cwd and umask.
    Returns (pid, None) when it forked one, else (None, why), why starting
    with "none" when no preloader answers there.
    """
    global PRELOADER_STATUS
    import _socket

    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    conn.settimeout(float(env.get("PULUMI_DYNAMIC_HOST_PRELOAD_TIMEOUT_S", "2")))
    try:
        conn.connect(sock_path)
    except OSError as e:
        conn.close()
        return None, "none: %s" % (e.strerror or e)
    try:
        umask = os.umask(0o22)
        os.umask(umask)
        message = _fields([key, os.getcwd(), "%o" % umask, _limits()] + [k + "=" + v for k, v in env.items()])
        import array

        fds = array.array("i", worker_fds).tobytes()
        sent = conn.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        if sent < len(message):
            conn.sendall(message[sent:])
        answer = _read_line(conn)
    except OSError as e:
        conn.close()
        return None, "the preloader did not answer: %s" % (e.strerror or e)
    if answer.startswith("pid "):
        conn.settimeout(None)
        PRELOADER_STATUS = conn.detach()
        return int(answer[4:]), None
    conn.close()
    return None, answer or "the preloader closed the connection"


def _start_preloader(python, stub, directory, name, key, env):
    """
    Starts this environment's preloader, detached (its own session, /dev/null for
    stdio, none of this process's descriptors), after a delay so that it does not
    compete with this start. The lock it holds for its life makes a second one exit.
    """
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        import fcntl
        import time

        lock_path = os.path.join(directory, name + ".lock")
        # A stale preloader lets go of it as it declines; one that serves keeps it, and this one gives up.
        # One that leaves removes the file first: a lock taken on a file no longer at the path is not
        # the path's, and is taken again on a new file.
        lock = -1
        for attempt in range(40):
            if lock < 0:
                lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if attempt == 39:
                    raise
                time.sleep(0.05)
                continue
            try:
                if os.stat(lock_path).st_ino == os.fstat(lock).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(lock)
            lock = -1
        else:
            raise RuntimeError("the lock file kept changing")
        os.ftruncate(lock, 0)
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        for entry in os.listdir("/proc/self/fd"):
            if int(entry) > 2 and int(entry) != lock:
                try:
                    os.close(int(entry))
                except OSError:
                    pass
        os.set_inheritable(lock, True)
        os.chdir(directory)
        os.write(lock, b"%d\n" % os.getpid())
        time.sleep(int(env.get("PULUMI_DYNAMIC_HOST_PRELOAD_DELAY_MS", "1000")) / 1000)
        penv = {k: v for k, v in env.items() if _keyed(k)}
        penv.update(
            PATH=env.get("PATH", ""),
            PULUMI_DYNAMIC_HOST_PRELOADER=os.path.join(directory, name + ".sock"),
            PULUMI_DYNAMIC_HOST_PRELOAD_KEY=key,
            PULUMI_DYNAMIC_HOST_PRELOAD_LOCK_FD=str(lock),
            PULUMI_DYNAMIC_HOST_PRESTARTED="1",
            PULUMI_DYNAMIC_HOST_CHANNEL_FD="-1",  # it has no channel: an unusable interpreter's report goes nowhere
        )
        for knob in ("PULUMI_DYNAMIC_HOST_PRELOAD_IDLE_S", "PULUMI_DYNAMIC_HOST_PRELOAD_MAX"):
            if knob in env:
                penv[knob] = env[knob]
        os.execve(python, [python, "-u", os.path.join(stub, "start.py"), os.path.join(stub, "worker.py")], penv)
    except BaseException:  # noqa: BLE001 - a preloader that cannot start is only a slower next start
        os._exit(0)


def _preload(python, stub, env, worker_fds):
    """
    The worker from this environment's preloader: (pid, note, start). pid is None when
    it did not fork one, and `note` says why (for the host's -v); `start` is what
    _start_preloader needs when none answers or the one there is stale, else None.
    """
    if env.get("PULUMI_DYNAMIC_HOST_PRELOAD", "1") == "0":
        return None, None, None
    try:
        import zlib

        path = _resolve(python, env)
        if path is None:
            return None, "preloader not used: %s is not on PATH" % python, None
        where = _preload_dir_path(env, os.getuid(), sys.platform)
        if where is None:
            return None, "preloader not used: no directory gives its socket a path of at most %d bytes" % _socket_path_limit(sys.platform), None
        directory = _preload_dir(where)
        if directory is None:
            return None, "preloader not used: its directory is not this user's alone", None
        key = _key(path, stub, env)
        raw = key.encode("utf-8", "surrogateescape")
        name = "%08x%08x" % (zlib.crc32(raw), zlib.crc32(raw[::-1]))
        sock_path = os.path.join(directory, name + ".sock")
        pid, why = _from_preloader(sock_path, key, env, worker_fds)
        if pid is not None:
            return pid, None, None
        # None answers, or it is stale and going away: start one for the next start.
        start = why.startswith("none") or why.startswith("declined stale")
        return None, "fresh worker: " + why, (path, directory, name, key) if start else None
    except Exception as e:  # noqa: BLE001 - never costs the start
        return None, "fresh worker: the preloader failed: %s" % e, None


def _channel_and_pipes():
    import _socket

    a, b = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
    channel_host, channel_worker = a.detach(), b.detach()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    host_fds = (channel_host, out_r, err_r)
    worker_fds = (channel_worker, out_w, err_w)
    if min(host_fds + worker_fds) < 3:
        raise OSError("a standard descriptor is closed")
    return host_fds, worker_fds


def _env_digest(env):
    """What the host checks a forked worker's environment by: crc32 of its entries, sorted as bytes, NUL-terminated."""
    import zlib

    entries = sorted(os.fsencode(k + "=" + v) for k, v in env.items())
    return "%08x" % zlib.crc32(b"".join(e + b"\0" for e in entries))


def main():
    python, venv, stub = sys.argv[1:4]
    host = sys.argv[4:]
    if _prestart_unsupported(sys.platform, os.path.isdir("/proc/self"), hasattr(os, "fork")) is not None:
        _exec_host(host)
        return
    try:
        host_fds, worker_fds = _channel_and_pipes()
        env = _worker_env(venv)
        pid, note, start = _preload(python, stub, env, worker_fds)
        if pid is None and note is not None and not note.startswith(("fresh worker: none", "preloader not used")):
            # It may hold them: a worker of its own must not share them.
            for fd in host_fds + worker_fds:
                os.close(fd)
            host_fds, worker_fds = _channel_and_pipes()
        if pid is None:
            pid = os.fork()
            if pid == 0:
                _child(python, venv, stub, worker_fds, host_fds)
            if start is not None:
                try:
                    _start_preloader(start[0], stub, start[1], start[2], start[3], env)
                except Exception:  # noqa: BLE001 - the worker is started; no preloader only slows the next start
                    pass
    except Exception:  # noqa: BLE001 - no worker then: the host starts its own
        _exec_host(host)
        return
    for fd in worker_fds:
        os.close(fd)
    for fd in host_fds:
        os.set_inheritable(fd, True)
    # pid, channel, stdout, stderr, then the interpreter as the host names it (the rest of the value);
    # a worker the preloader forked is preceded by P<the descriptor its exit is reported on>:<its environment's digest>.
    forked = ""
    if PRELOADER_STATUS is not None:
        os.set_inheritable(PRELOADER_STATUS, True)
        forked = "P%d:%s " % (PRELOADER_STATUS, _env_digest(env))
    os.environ["PULUMI_DYNAMIC_HOST_PRESTARTED"] = "%s%d %d %d %d %s" % (forked, pid, host_fds[0], host_fds[1], host_fds[2], python)
    if note is not None:
        os.environ["PULUMI_DYNAMIC_HOST_PRELOAD_NOTE"] = note
    try:
        _exec_host(host)
    except OSError as e:
        os.kill(pid, 9)
        os.write(2, ("pulumi-resource-pulumi-python: cannot run %s: %s\n" % (host[0], e.strerror)).encode("utf-8", "replace"))
        os._exit(127)


if __name__ == "__main__":
    main()
