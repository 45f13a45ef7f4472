// A V8 CPU profile of a whole plugin process, for processes started by the
// bench (where --cpu-prof cannot go: Node refuses it in NODE_OPTIONS):
//
//   BENCH_CPU_PROFILE_DIR=/tmp/prof BENCH_HOST_NODE_OPTIONS="--require $PWD/bench/cpu-profile.cjs" \
//     node dist/bench/run.js --only io --plugins ours-python
//
// Starts the in-process inspector's profiler at load and writes
// <dir>/<pid>.cpuprofile when the process exits or is sent SIGINT or SIGTERM
// (Node mode dies of the signal, so no exit handler runs there; the inspector
// session answers synchronously, so either handler can still write it). Open the file in
// Chrome's DevTools, or read its self-time per function; dist/bundle has the
// source maps that lead back to our sources and the packages.
"use strict";
const inspector = require("node:inspector");
const fs = require("node:fs");
const path = require("node:path");

const dir = process.env.BENCH_CPU_PROFILE_DIR || require("node:os").tmpdir();
const session = new inspector.Session();
session.connect();
session.post("Profiler.enable");
session.post("Profiler.setSamplingInterval", { interval: Number(process.env.BENCH_CPU_PROFILE_INTERVAL_US || 200) });
session.post("Profiler.start");
let written = false;
const write = () => {
  if (written) return;
  written = true;
  session.post("Profiler.stop", (err, result) => {
    if (!err) fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
};
process.on("exit", write);
// A listener of our own does not stop the host's: it still ends the process as it always does.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, write);
