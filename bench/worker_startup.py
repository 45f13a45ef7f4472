"""The Python worker's start-up: from spawn to its $/ready, and to its first answer.

Run with the test virtualenv's Python (.cache/test-venv/bin/python). Starts
the worker as the host does (`python -u python-stub/start.py
python-stub/worker.py`, or the same files of each --stub directory), the
channel on fd 3 (a socketpair), waits for $/ready, sends one ping and waits
for its answer, then closes the channel and reaps it. The first start of each
fills the compiled-code cache (a fresh one, python-stub/bytecode.py) and is
not counted; the next `--runs` starts use it warm. With several --stub
directories (two checkouts, to compare builds) their starts alternate, so
that the machine's load falls on each alike. Prints one JSON object per
directory: the median and the spread of the wall time to $/ready and to the
first answer, and of the worker's CPU time (user + system, whole life), in
milliseconds, and which of its files ran from the compiled-code cache.

    .cache/test-venv/bin/python bench/worker_startup.py --runs 30
    .cache/test-venv/bin/python bench/worker_startup.py --runs 40 --stub /elsewhere/python-stub --stub python-stub
"""
import argparse
import binascii
import importlib.util
import json
import os
import socket
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STUB = os.path.abspath(os.path.join(HERE, "..", "python-stub"))


def load_protocol():
    spec = importlib.util.spec_from_file_location("worker_startup_protocol", os.path.join(STUB, "protocol.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def start_once(protocol, cwd, cache, stub):
    """Milliseconds from spawn to $/ready, to the first ping's answer, and the worker's CPU time."""
    ours, theirs = socket.socketpair()
    env = dict(os.environ, PULUMI_DYNAMIC_HOST_CHANNEL_FD="3", PULUMI_DYNAMIC_HOST_CACHE_DIR=cache)
    argv = [sys.executable, "-u", os.path.join(stub, "start.py"), os.path.join(stub, "worker.py")]
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the worker: the channel on fd 3, in the program directory
        try:
            os.dup2(theirs.fileno(), 3)
            os.chdir(cwd)
            os.execve(sys.executable, argv, env)
        finally:
            os._exit(127)
    theirs.close()
    channel = protocol.Channel(ours.detach())
    ready = channel.read()
    t_ready = time.perf_counter()
    assert ready and ready.get("method") == "$/ready", ready
    channel.write({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}})
    while True:
        msg = channel.read()
        assert msg is not None, "the worker closed its channel"
        if msg.get("id") == 1:
            break
    t_answer = time.perf_counter()
    channel.close()
    _, status, usage = os.wait4(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
    return 1000 * (t_ready - t0), 1000 * (t_answer - t0), 1000 * (usage.ru_utime + usage.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--stub", action="append", help="a python-stub directory to start (repeat to compare; default: this checkout's)")
    args = ap.parse_args()
    stubs = [os.path.abspath(s) for s in args.stub or [STUB]]
    protocol = load_protocol()
    runs = {s: [] for s in stubs}
    with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryDirectory() as cache:
        os.chmod(cache, 0o700)
        for stub in stubs:
            start_once(protocol, cwd, cache, stub)  # fills the compiled-code cache
        for _ in range(args.runs):
            for stub in stubs:
                runs[stub].append(start_once(protocol, cwd, cache, stub))
        kept = set(os.listdir(os.path.join(cache, "python-bytecode", sys.implementation.cache_tag)))

    def compiled(stub):
        """The stub's files its starts ran from the compiled-code cache (bytecode.py names each entry so)."""
        names = sorted(f for f in os.listdir(stub) if f.endswith(".py"))
        return [f for f in names if f"{f}-{binascii.crc32(os.path.join(stub, f).encode('utf-8', 'surrogateescape')):08x}.bin" in kept]

    def summary(values):
        q = statistics.quantiles(values, n=4)
        return {"median": round(statistics.median(values), 1), "q1": round(q[0], 1), "q3": round(q[2], 1), "min": round(min(values), 1)}

    for stub in stubs:
        print(json.dumps({
            "stub": stub,
            "python": sys.version.split()[0],
            "runs": args.runs,
            "readyMs": summary([r[0] for r in runs[stub]]),
            "firstAnswerMs": summary([r[1] for r in runs[stub]]),
            "workerCpuMs": summary([r[2] for r in runs[stub]]),
            "cached": compiled(stub),
        }))


if __name__ == "__main__":
    main()
