"""The Python worker alone: its CPU per request, without the host or gRPC.

Run with the test virtualenv's Python (.cache/test-venv/bin/python). Starts
python-stub/worker.py as the host does (the channel on fd 3, a socketpair),
sends it Creates of one provider made by the SDK's own serialize_provider
(bench/python_bench_providers.py), or with --cycle the bench's cycle (each
resource's Check, Create, Diff, Update and Delete, bags encoded as the host
sends them), `--concurrency` in flight, warms it with
the first half and measures the second: the worker's user+system CPU per
request (from /proc), its throughput and this driver's own CPU per request.
Prints one JSON object. With --py-spy PATH (py-spy installed in a throw-away
virtualenv, never the test one) the worker runs under `py-spy record --gil
--threads --format raw`, for profiles of the interpreter time only.

    .cache/test-venv/bin/python bench/worker_alone.py --requests 8000 --concurrency 32
    .cache/test-venv/bin/python bench/worker_alone.py --requests 20000 --concurrency 16 --cycle
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
STUB = os.path.join(HERE, "..", "python-stub")


def load_protocol():
    spec = importlib.util.spec_from_file_location("worker_alone_protocol", os.path.join(STUB, "protocol.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=8000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--provider", default="crud", choices=["crud", "echo"])
    ap.add_argument("--cycle", action="store_true", help="the bench's check → create → diff → update → delete requests (crud only; sent in order but not awaited one by one, which the crud provider does not need)")
    ap.add_argument("--py-spy", dest="py_spy", help="path of py-spy; the raw profile goes to --profile")
    ap.add_argument("--profile", default="worker-profile.txt")
    args = ap.parse_args()
    if args.cycle and args.provider != "crud":
        ap.error("--cycle needs the crud provider, which has every method")

    from google.protobuf import struct_pb2

    protocol = load_protocol()
    payload = subprocess.run(
        [sys.executable, os.path.join(HERE, "python_bench_providers.py"), args.provider],
        check=True, capture_output=True, text=True,
    ).stdout
    text = json.loads(payload)[args.provider]

    def props(i):
        s = struct_pb2.Struct()
        s.update({"__provider": text, "n": i})
        return s.SerializeToString()

    def params(i):
        """The i-th request's method and params: Creates, or the bench's cycle (the host's encoding of its bags)."""
        k = i // 5 if args.cycle else i
        p = {"urn": f"urn:pulumi:bench::bench::pulumi-python:dynamic:Resource::r{k}", "providerId": 1}
        if i == 0:
            p["provider"] = text
        method = ("check", "create", "diff", "update", "delete")[i % 5] if args.cycle else "create"
        if method == "check":
            p.update(olds=b"", news=props(k))  # the bench's Check has empty olds
        elif method in ("diff", "update"):
            p.update(id=f"crud-{k}", olds=props(k), news=props(k + 1))
        elif method == "delete":
            p.update(id=f"crud-{k}", props=props(k + 1))
        else:
            p["props"] = props(k)
        return method, p

    requests = []
    for i in range(args.requests):
        method, p = params(i)
        requests.append({"jsonrpc": "2.0", "id": i + 1, "method": method, "params": p})

    ours, theirs = socket.socketpair()
    cmd = [sys.executable, os.path.join(STUB, "worker.py")]
    if args.py_spy:
        cmd = [args.py_spy, "record", "--gil", "--threads", "--format", "raw", "-r", "500", "-o", args.profile, "--"] + cmd

    def channel_on_fd3():
        os.dup2(theirs.fileno(), 3)

    with tempfile.TemporaryDirectory() as cwd:
        worker = subprocess.Popen(cmd, preexec_fn=channel_on_fd3, close_fds=False, cwd=cwd,
                                  env=dict(os.environ, PULUMI_DYNAMIC_HOST_CHANNEL_FD="3"))
        theirs.close()
        channel = protocol.Channel(ours.detach())
        ready = channel.read()
        assert ready and ready.get("method") == "$/ready", ready
        pid = ready["params"]["pid"]

        def run(lo, hi):
            sent, done = lo, 0
            while sent < hi and sent - lo < args.concurrency:
                channel.write(requests[sent])
                sent += 1
            while done < hi - lo:
                msg = channel.read()
                if msg is None:
                    sys.exit("the worker closed its channel")
                if "method" in msg:
                    continue  # $/load, $/ack
                if "result" not in msg:
                    sys.exit(f"the worker answered with an error: {json.dumps(msg)[:2000]}")
                done += 1
                if sent < hi:
                    channel.write(requests[sent])
                    sent += 1

        half = args.requests // 2
        run(0, half)
        cpu0, wall0, mine0 = cpu_seconds(pid), time.perf_counter(), time.process_time()
        run(half, args.requests)
        cpu1, wall1, mine1 = cpu_seconds(pid), time.perf_counter(), time.process_time()
        channel.close()
        worker.wait(timeout=60)
    n = args.requests - half
    print(json.dumps({
        "requests": n,
        "concurrency": args.concurrency,
        "workload": "cycle" if args.cycle else "create",
        "workerCpuMsPerRequest": round(1000 * (cpu1 - cpu0) / n, 4),
        "requestsPerSecond": round(n / (wall1 - wall0), 1),
        "driverCpuMsPerRequest": round(1000 * (mine1 - mine0) / n, 4),
    }))


if __name__ == "__main__":
    main()
