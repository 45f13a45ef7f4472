"""The Python worker's start-up: from spawn to its $/ready, and to its first answer.

Run with the test virtualenv's Python (.cache/test-venv/bin/python). Starts
the worker as the host does (`python -u python-stub/start.py
python-stub/worker.py`, or --stub's), the channel on fd 3, a socketpair), waits for $/ready,
sends one ping and waits for its answer, then closes the channel. The first
start fills the compiled-code cache (a fresh one, python-stub/bytecode.py) and
is not counted; the next `--runs` starts use it warm. Prints one JSON object
with the median and the spread of each (milliseconds of wall time).

    .cache/test-venv/bin/python bench/worker_startup.py --runs 30
"""
import argparse
import importlib.util
import json
import os
import socket
import statistics
import subprocess
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
    """Milliseconds from spawn to $/ready, and to the first ping's answer."""
    ours, theirs = socket.socketpair()

    def channel_on_fd3():
        os.dup2(theirs.fileno(), 3)

    env = dict(os.environ, PULUMI_DYNAMIC_HOST_CHANNEL_FD="3", PULUMI_DYNAMIC_HOST_CACHE_DIR=cache)
    cmd = [sys.executable, "-u", os.path.join(stub, "start.py"), os.path.join(stub, "worker.py")]
    t0 = time.perf_counter()
    worker = subprocess.Popen(cmd, preexec_fn=channel_on_fd3, close_fds=False, cwd=cwd, env=env)
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
    worker.wait(timeout=60)
    return 1000 * (t_ready - t0), 1000 * (t_answer - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--stub", default=STUB, help="the python-stub directory to start (another checkout's, to compare)")
    args = ap.parse_args()
    stub = os.path.abspath(args.stub)
    protocol = load_protocol()
    with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryDirectory() as cache:
        os.chmod(cache, 0o700)
        start_once(protocol, cwd, cache, stub)  # fills the compiled-code cache
        runs = [start_once(protocol, cwd, cache, stub) for _ in range(args.runs)]
        kept = sorted(os.listdir(os.path.join(cache, "python-bytecode", sys.implementation.cache_tag)))

    def summary(values):
        q = statistics.quantiles(values, n=4)
        return {"median": round(statistics.median(values), 1), "q1": round(q[0], 1), "q3": round(q[2], 1), "min": round(min(values), 1)}

    print(json.dumps({
        "python": sys.version.split()[0],
        "runs": args.runs,
        "readyMs": summary([r[0] for r in runs]),
        "firstAnswerMs": summary([r[1] for r in runs]),
        "cachedFiles": [k.rsplit("-", 1)[0] for k in kept],
    }))


if __name__ == "__main__":
    main()
