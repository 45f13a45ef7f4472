#!/usr/bin/env python3
"""A Windows plugin under Wine, run as the engine runs a plugin, for the
conformance kit on Linux (scripts/platforms/windows.mjs).

    python3 wine-plugin.py <plugin.exe or .cmd> [args...]

Node under Wine cannot open a Linux pipe as a standard stream (`open
EBADF`), and the kit reads the plugin's port line from a pipe. So the
plugin's stdout and stderr go to files, which this copies to its own stdout
and stderr as they grow, until the plugin has exited; its stdin is /dev/null
(with the kit's pipe as stdin, a provider that touched process.stdin failed
with the same EBADF). Signals the
kit sends to the process group reach Wine directly; this process only waits,
and exits with the plugin's exit code.
"""
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time


def pump(path, dest, done):
    with open(path, "rb") as f:
        while True:
            chunk = f.read(65536)
            if chunk:
                dest.write(chunk)
                dest.flush()
            elif done.is_set():
                return
            else:
                time.sleep(0.02)


def main():
    plugin, args = sys.argv[1], sys.argv[2:]
    command = ["wine", "cmd", "/c", plugin, *args] if plugin.lower().endswith(".cmd") else ["wine", plugin, *args]
    tmp = tempfile.mkdtemp(prefix="pdh-wine-plugin-")
    out_path, err_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
    # The group's SIGINT is the plugin's to answer; this one outlives it to pass on its exit code.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    signal.signal(signal.SIGTERM, lambda *_: proc.terminate())
    done = threading.Event()
    pumps = [threading.Thread(target=pump, args=(p, d.buffer, done)) for p, d in ((out_path, sys.stdout), (err_path, sys.stderr))]
    for t in pumps:
        t.start()
    code = proc.wait()
    done.set()
    for t in pumps:
        t.join()
    for p in (out_path, err_path):
        os.remove(p)
    os.rmdir(tmp)
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
