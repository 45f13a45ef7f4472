"""The preloader: a worker that has imported everything, and forks a fresh worker for each plugin start.

A worker's start is mostly its interpreter's start and `import pulumi` (with
dill, grpc and protobuf): about 150-300 ms, paid again by every engine command.
The preloader pays it once per environment. It is this worker's own entry point,
worker.py, run with PULUMI_DYNAMIC_HOST_PRELOADER set (by python-stub/prestart.py,
detached, when a start found none): it loads every module a worker loads, then
instead of serving a channel it listens on an owner-only Unix socket. For each
plugin start, prestart.py sends the worker's three descriptors (channel, stdout,
stderr) with its cwd, umask and environment; the preloader forks, and the child
takes them on 3, 1 and 2, takes the cwd, umask and environment, and returns
to worker.py, which serves the channel as any worker that the launcher started.
Its exit status goes back on the connection, which the host holds
(src/python-bridge/worker/prestarted.ts).

It never serves what a fresh worker would not have been:
- its key (prestart.py): the user, the interpreter's path and file, the worker's
  files, every variable that changes what Python imports; a request must bring
  the same key, whole;
- a file it loaded, the interpreter, or a directory on sys.path changed since it
  loaded them (pip installed or upgraded something, the host was updated): it
  declines ("stale"), stops listening and exits once its workers did;
- the program directory holds a module that a fresh worker would have imported
  instead of the one it loaded (a `dill.py` beside the program): it declines;
- anything else fails: prestart.py starts a fresh worker, the host says why at -v.

It exits after PULUMI_DYNAMIC_HOST_PRELOAD_IDLE_S seconds (600) with no request
and no worker, and at SIGTERM; either way it removes its socket and lock file.
When it starts listening it removes the pairs of preloaders that no longer run,
and when more than PULUMI_DYNAMIC_HOST_PRELOAD_MAX (4) of this user's would then
live, asks the least recently used ones to leave (a `leave` request on their
socket): each stops listening at once and exits when its workers have.
PULUMI_DYNAMIC_HOST_PRELOAD=0 keeps it from being used or started.
docs/preloader.md has the whole design.

Who calls: worker.py, after loading its modules, when the variable is set.
"""

import array
import importlib
import importlib.machinery
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time


def _stat(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _still_at(path, fd):
    """Whether the file open on `fd` is the one at `path` (not unlinked, not replaced by a new one)."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False


DEFAULT_MOST = 4

# What asks a preloader to leave; any other request carries the worker's three descriptors.
LEAVE = b"leave\n"


def _most(value):
    """PULUMI_DYNAMIC_HOST_PRELOAD_MAX: how many of this user's preloaders may live at once (at least 1)."""
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return DEFAULT_MOST


def _module_files():
    files = set()
    for module in list(sys.modules.values()):
        f = getattr(module, "__file__", None)
        if isinstance(f, str):
            files.add(f)
    return files


def _module_names():
    """
    The top-level names of the modules a fresh worker imports with the program directory
    first on sys.path (worker.py notes those loaded before): an entry there named so would
    be what it imports.
    """
    before = getattr(sys.modules["__main__"], "_BEFORE_PROGRAM_PATH", frozenset())
    names = {name.partition(".")[0] for name in sys.modules if name not in before}
    return {n for n in names if not n.startswith("_pulumi_dynamic_host_") and n != "__main__"}


def _entry_module(entry):
    """The module name a directory entry would be imported as: `x.py`, `x.cpython-311-….so`, `x/`."""
    for suffix in importlib.machinery.all_suffixes():
        if entry.endswith(suffix):
            return entry[: -len(suffix)]
    return entry if "." not in entry else None


class Preloader:
    def __init__(self):
        self.path = os.environ.pop("PULUMI_DYNAMIC_HOST_PRELOADER")
        self.key = os.environ.pop("PULUMI_DYNAMIC_HOST_PRELOAD_KEY")
        self.lock = int(os.environ.pop("PULUMI_DYNAMIC_HOST_PRELOAD_LOCK_FD"))
        # The lock file beside the socket (prestart.py names both): removed with the socket when it leaves.
        self.lock_path = self.path[: -len(".sock")] + ".lock" if self.path.endswith(".sock") else None
        self.pid = os.getpid()
        self.idle_s = float(os.environ.get("PULUMI_DYNAMIC_HOST_PRELOAD_IDLE_S", "600"))
        self.most = _most(os.environ.get("PULUMI_DYNAMIC_HOST_PRELOAD_MAX"))
        self.home = os.getcwd()
        self.names = _module_names()
        # Its own directory (sys.path[0] until a worker takes the program's) changes with every socket.
        watched = _module_files() | {sys.executable} | {p for p in sys.path if p and p != self.home and os.path.isdir(p)}
        self.stats = {f: _stat(f) for f in watched}
        self.children = {}  # pid -> the connection its exit is reported on
        self.listening = None
        self.selector = selectors.DefaultSelector()

    # --- requests ---

    def stale(self):
        """The first file, directory or interpreter that changed since they were loaded, or None."""
        for f, was in self.stats.items():
            if _stat(f) != was:
                return f
        return None

    def shadowed(self, cwd):
        """A module the preloader loaded that a file in the program directory would have shadowed, or None."""
        try:
            entries = os.listdir(cwd)
        except OSError:
            return None
        for entry in entries:
            name = _entry_module(entry)
            if name in self.names:
                return entry, name
        return None

    @staticmethod
    def lower_limit(limits):
        """A resource limit this process's hard limit cannot give a worker (only root raises one), or None."""
        import resource

        def value(v):
            return float("inf") if v == resource.RLIM_INFINITY or v < 0 else v

        for name, _soft, hard in limits:
            kind = getattr(resource, name, None)
            if kind is not None and value(resource.getrlimit(kind)[1]) < value(hard) and os.geteuid() != 0:
                return name
        return None

    def read_request(self, conn):
        """The request on `conn`: (fds, key, cwd, umask, limits, env), or None when it asks this preloader to leave."""
        size = socket.CMSG_SPACE(3 * array.array("i").itemsize)
        data, ancillary, _flags, _addr = conn.recvmsg(65536, size)
        fds = array.array("i")
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
        fds = list(fds)
        if data == LEAVE and not fds:
            return None
        try:
            if len(data) < 10:
                raise ValueError("a short request")
            length = int(data[:10])
            data = data[10:]
            while len(data) < length:
                chunk = conn.recv(min(1 << 20, length - len(data)))
                if not chunk:
                    raise ValueError("a truncated request")
                data += chunk
            fields = [os.fsdecode(f) for f in data.split(b"\0")]
            if len(fds) != 3 or len(fields) < 4:
                raise ValueError("a malformed request")
            key, cwd, umask = fields[0], fields[1], int(fields[2], 8)
            limits = []
            for entry in filter(None, fields[3].split(",")):
                name, _, values = entry.partition("=")
                soft, hard = values.split(":")
                limits.append((name, int(soft), int(hard)))
            env = dict(entry.split("=", 1) for entry in fields[4:])
        except Exception:
            for fd in fds:
                os.close(fd)
            raise
        return fds, key, cwd, umask, limits, env

    def refusal(self, key, cwd, limits):
        """Why this preloader must not fork the worker a start asks for, or None; each check made once."""
        if key != self.key:
            return "declined another environment"
        changed = self.stale()
        if changed is not None:
            return "declined stale: %s changed since it was loaded" % changed
        limit = self.lower_limit(limits)
        if limit is not None:
            return "declined its %s hard limit is below this start's" % limit
        if threading.active_count() != 1 or len(os.listdir("/proc/self/task")) != 1:
            return "declined threads are running in it"
        shadow = self.shadowed(cwd)
        if shadow is not None:
            return "declined the program directory has %s, which a worker would import as %s" % shadow
        return None

    def answer(self, conn):
        """One request: forks the worker and says its pid, or says why not. Returns in the child."""
        conn.settimeout(2)
        uid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[1]
        if uid != os.getuid():
            conn.close()
            return False
        request = self.read_request(conn)
        if request is None:
            # Another preloader of this user's, over the bound (bound()): this one was used least recently.
            self.stop_listening()
            try:
                conn.sendall(b"leaving\n")
            finally:
                conn.close()
            return False
        fds, key, cwd, umask, limits, env = request
        why = self.refusal(key, cwd, limits)
        if why is not None:
            for fd in fds:
                os.close(fd)
            # Stale: gone from the socket and the lock before the answer, so the preloader the start
            # leaves in its place finds both free.
            if why.startswith("declined stale"):
                self.stop_listening()
            try:
                conn.sendall(why.encode("utf-8", "replace") + b"\n")
            finally:
                conn.close()
            return False
        self.used()
        pid = os.fork()
        if pid == 0:
            conn.close()
            self.become_worker(fds, cwd, umask, limits, env)
            return True
        for fd in fds:
            os.close(fd)
        try:
            conn.sendall(b"pid %d\n" % pid)
        except OSError:
            pass  # the launcher gave up: the worker ends when its channel does
        conn.setblocking(False)
        self.children[pid] = conn
        self.selector.register(conn, selectors.EVENT_READ, "status")
        return False

    def become_worker(self, fds, cwd, umask, limits, env):
        """In the fork: the worker prestart.py asked for, as if the launcher had started it."""
        import resource

        for name, soft, hard in limits:
            kind = getattr(resource, name, None)
            if kind is not None and resource.getrlimit(kind) != (soft, hard):
                try:
                    resource.setrlimit(kind, (soft, hard))
                except (ValueError, OSError):
                    pass  # answer() declined a start whose hard limit it could not give
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        self.selector.close()
        if self.listening is not None:
            self.listening.close()
        for conn in self.children.values():
            conn.close()
        os.close(self.lock)
        for fd in (self.wake_r, self.wake_w):
            os.close(fd)
        channel, out, err = fds
        os.dup2(channel, 3)
        os.dup2(out, 1)
        os.dup2(err, 2)
        for fd in fds:
            if fd > 3:
                os.close(fd)
        os.umask(umask)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        os.environ.pop("PULUMI_DYNAMIC_HOST_PRESTARTED", None)
        time.tzset()
        # As program_path.place left a launcher's worker: the program directory first, until its paths arrive.
        if sys.path and sys.path[0] == self.home:
            sys.path[0] = os.getcwd()
        importlib.invalidate_caches()

    # --- the loop ---

    def stop_listening(self):
        if self.listening is None:
            return
        self.leave()
        self.selector.unregister(self.listening)
        self.listening.close()
        self.listening = None
        os.close(self.lock)
        self.lock = os.open("/dev/null", os.O_RDONLY)

    def leave(self):
        """
        Removes its socket and lock file, while it holds the lock: no other preloader can have
        bound the socket's path yet, and the lock file is still its own (a start that was waiting
        for the lock finds it unlinked and takes a new one, prestart.py).
        """
        try:
            os.unlink(self.path)
        except OSError:
            pass
        if self.lock_path is not None and _still_at(self.lock_path, self.lock):
            try:
                os.unlink(self.lock_path)
            except OSError:
                pass

    def used(self):
        """Marks a start served: the socket's mtime is when this preloader was last used (bound() reads it)."""
        try:
            os.utime(self.path)
        except OSError:
            pass

    def bound(self, others):
        """
        Keeps at most self.most of this user's preloaders alive, this one included: asks the least
        recently used of `others` (the sockets beside held locks, from sweep()) to leave. A held
        lock without a socket (a preloader still starting) counts, but cannot be asked.
        """
        live, sockets = others
        over = live + 1 - self.most
        if over <= 0:
            return
        ranked = []
        for sock in sockets:
            try:
                ranked.append((os.stat(sock).st_mtime_ns, sock))
            except OSError:
                continue
        for _mtime, sock in sorted(ranked)[:over]:
            ask = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            ask.settimeout(2)
            try:
                ask.connect(sock)
                ask.sendall(LEAVE)
                ask.recv(64)
            except OSError:
                pass  # gone meanwhile, or busy past the timeout: it leaves when idle
            finally:
                ask.close()

    def sweep(self):
        """
        Removes what preloaders that no longer run left in the directory: a lock file nobody holds,
        and the socket beside it (a preloader killed outright, or one of a build from before they
        removed their own). A lock held by a live preloader, or by a start about to run one, is left
        alone; a start that was waiting for a lock swept here takes a new file (prestart.py).
        Returns the others still alive: (how many locks are held, the sockets beside them).
        """
        import fcntl

        directory = os.path.dirname(self.path)
        own = os.path.basename(self.lock_path) if self.lock_path else None
        live, sockets = 0, []
        try:
            entries = os.listdir(directory)
        except OSError:
            return live, sockets
        for entry in entries:
            if not entry.endswith(".lock") or entry == own:
                continue
            lock_path = os.path.join(directory, entry)
            try:
                fd = os.open(lock_path, os.O_RDWR | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if not _still_at(lock_path, fd):
                    continue
                try:
                    os.unlink(lock_path[: -len(".lock")] + ".sock")
                except FileNotFoundError:
                    pass
                os.unlink(lock_path)
            except BlockingIOError:
                # Held: a live preloader, or a start about to run one.
                live += 1
                sock = lock_path[: -len(".lock")] + ".sock"
                if os.path.exists(sock):
                    sockets.append(sock)
                continue
            except OSError:
                continue  # gone meanwhile
            finally:
                os.close(fd)
        return live, sockets

    def terminated(self, signum, frame):
        """SIGTERM (a shutdown, a `kill`): it leaves nothing behind; its workers serve on, their ends seen from /proc."""
        if os.getpid() != self.pid:
            # A fork between os.fork() and become_worker(): the worker's default, not the preloader's.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        if self.listening is not None:
            self.leave()
        os._exit(0)

    def reap(self):
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is not None:
                try:
                    self.selector.unregister(conn)
                    conn.setblocking(True)
                    conn.settimeout(1)
                    conn.sendall(b"exit %d\n" % status)
                except (OSError, KeyError, ValueError):
                    pass
                conn.close()

    def serve(self):
        """Answers requests until idle or stale; returns only in a forked worker."""
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.signal(signal.SIGTERM, self.terminated)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        try:
            os.unlink(self.path)  # a dead preloader's: this one holds the lock
        except FileNotFoundError:
            pass
        listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listening.bind(self.path)
        os.chmod(self.path, 0o600)
        listening.listen(64)
        self.listening = listening
        self.selector.register(listening, selectors.EVENT_READ, "listen")
        self.bound(self.sweep())
        last = time.monotonic()
        while self.listening is not None or self.children:
            for k, _ in self.selector.select(timeout=min(self.idle_s, 60)):
                if k.data == "wake":
                    os.read(self.wake_r, 512)
                    self.reap()
                elif k.data == "listen":
                    last = time.monotonic()
                    try:
                        conn, _ = self.listening.accept()
                    except OSError:
                        continue
                    try:
                        if self.answer(conn):
                            return
                    except Exception:  # noqa: BLE001 - one bad request never stops the preloader
                        conn.close()
                elif k.data == "status":
                    # The host went away: it no longer waits for this worker's exit.
                    try:
                        if k.fileobj.recv(64) == b"":
                            self.selector.unregister(k.fileobj)
                    except OSError:
                        self.selector.unregister(k.fileobj)
            self.reap()
            if self.listening is not None and not self.children and time.monotonic() - last >= self.idle_s:
                self.stop_listening()
        os._exit(0)


def unsupported(platform, has_proc, has_unix_sockets, has_peer_credentials, has_fork):
    """
    Why a preloader cannot run on this system, or None. It counts its threads in
    /proc/self/task, checks who connects with SO_PEERCRED (Linux's), listens on a Unix
    socket and forks: Linux has all four; macOS lacks /proc and SO_PEERCRED, Windows all
    but sockets. prestart.py starts none where launch.sh finds no /proc; this keeps one
    started by hand from serving without those checks.
    """
    missing = [
        what
        for what, has in (("fork", has_fork), ("Unix sockets", has_unix_sockets), ("/proc", has_proc), ("SO_PEERCRED", has_peer_credentials))
        if not has
    ]
    return "no %s on %s" % (" or ".join(missing), platform) if missing else None


def serve_until_forked():
    """worker.py's preloader mode: returns in each forked worker, never in the preloader itself."""
    why = unsupported(sys.platform, os.path.isdir("/proc/self/task"), hasattr(socket, "AF_UNIX"), hasattr(socket, "SO_PEERCRED"), hasattr(os, "fork"))
    if why is not None:
        # Nothing listens: the next start finds no socket and starts its worker fresh. The lock
        # file prestart.py wrote goes while this process still holds its lock.
        sock = os.environ.get("PULUMI_DYNAMIC_HOST_PRELOADER", "")
        if sock.endswith(".sock"):
            try:
                os.unlink(sock[: -len(".sock")] + ".lock")
            except OSError:
                pass
        os._exit(0)
    Preloader().serve()
