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
(src/python-bridge/prestarted.ts) and otherwise starts its own. Anything that
fails before the fork execs the host alone, as if this never ran.

Only builtin modules, under -I -S, on any Python 3 the user may have.
"""

import os
import sys


def _exec_host(host):
    os.execvp(host[0], host)


def _worker_env(venv):
    """What interpreter.ts gives the first worker: the virtualenv's bin first on PATH, no PYTHONHOME."""
    env = dict(os.environ)
    env.pop("PULUMI_DYNAMIC_HOST_SERVE", None)
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


def main():
    python, venv, stub = sys.argv[1:4]
    host = sys.argv[4:]
    try:
        import _socket

        a, b = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
        channel_host, channel_worker = a.detach(), b.detach()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        host_fds = (channel_host, out_r, err_r)
        worker_fds = (channel_worker, out_w, err_w)
        if min(host_fds + worker_fds) < 3:
            raise OSError("a standard descriptor is closed")
        pid = os.fork()
    except Exception:  # noqa: BLE001 - no worker then: the host starts its own
        _exec_host(host)
        return
    if pid == 0:
        _child(python, venv, stub, worker_fds, host_fds)
    for fd in worker_fds:
        os.close(fd)
    for fd in host_fds:
        os.set_inheritable(fd, True)
    # pid, channel, stdout, stderr, then the interpreter as the host names it (the rest of the value).
    os.environ["PULUMI_DYNAMIC_HOST_PRESTARTED"] = "%d %d %d %d %s" % (pid, channel_host, out_r, err_r, python)
    try:
        _exec_host(host)
    except OSError as e:
        os.kill(pid, 9)
        os.write(2, ("pulumi-resource-pulumi-python: cannot run %s: %s\n" % (host[0], e.strerror)).encode("utf-8", "replace"))
        os._exit(127)


main()
