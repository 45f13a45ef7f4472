// A state whose __provider was pickled by value under another CPython minor
// (test/python/drift.test.ts has the details), asked of the plugin and of the
// Python reference in the program directory, beside whose virtualenv a
// virtualenv of a second Python is kept (the run's Program.otherPython).
//
// [difference] The reference unpickles the other minor's bytecode and runs it:
// the plugin process dies of SIGSEGV, the request fails UNAVAILABLE and every
// later request of the deployment with it. Ours runs that resource in a worker
// of the second Python, which answers.
import path from "node:path";
import { diedOf, equal, includes, ok, session, type Case } from "../../case.js";
import type { Outcome } from "../../client.js";
import { otherPythonFor } from "../../payloads-python.js";
import { BASE_ENV, py } from "./python-common.js";

const s = session({ id: "python/version-drift", language: "python", suite: ["differential (Python): a pickle of another Python minor"], launch: { env: BASE_ENV } });

interface Drift {
  other: string;
  otherPython: string;
  o: Outcome;
  /** How the plugin process ended, when it dropped the connection. */
  exit?: { code: number | null; signal: string | null };
}

export const pythonVersionDrift: Case[] = [
  s.case<Drift>("python-version-drift", {
    title: "— python_version_drift [difference]: the reference segfaults; ours runs it with that Python",
    spec: ["python_version_drift"],
    async ask(ctx) {
      const otherPython = await otherPythonFor(ctx.program);
      const other = py(ctx).code("import sys; print('%d.%d' % sys.version_info[:2])", { python: otherPython });
      const payload = py(ctx).script("python_drift_provider.py", { python: otherPython });
      // The plugin looks for a Python of that minor where it looks for one (beside the program's virtualenv,
      // uv, PATH, pyenv): a Python named with --other-python is put last on its PATH, where the program's own
      // interpreter is never chosen from (the kit's own search found it where the plugin looks anyway).
      const p = await ctx.launch({ env: { ...BASE_ENV, PATH: [process.env.PATH, path.dirname(otherPython)].filter(Boolean).join(path.delimiter) } });
      const o = await p.client.create({ urn: ctx.urn("old"), properties: { __provider: payload } });
      // A plugin that dropped the connection: how its process ended. It ends by itself (a wrapper as soon as
      // its Python does), and is waited for before the engine's stop, whose SIGINT would otherwise reach a
      // wrapper still reaping its child; one that lives on is stopped as the engine stops it.
      const exit = o.code === 14 ? await Promise.race([p.exited, new Promise<void>((r) => setTimeout(r, 10_000).unref()).then(() => p.stop())]) : undefined;
      return { other, otherPython, o, exit };
    },
    difference: {
      doc: "docs/parity.md (a pickle of another Python minor runs in a worker of that Python)",
      ours({ other, otherPython, o }) {
        equal(o.code, 0, o.details);
        includes(o.view.properties, { python: other, executable: path.join(path.dirname(otherPython), `python${other}`) });
      },
      reference({ o, exit }) {
        // UNAVAILABLE; grpc-js words the dropped connection as the timing falls ("Connection dropped",
        // "read ECONNRESET"); the engine says `error reading from server: EOF` (test/e2e/python-drift.test.ts).
        equal(o.code, 14, o.details);
        // Killed by SIGSEGV; through Pulumi's launcher script (an sh that does not exec), sh's exit 139.
        ok(diedOf(exit, "SIGSEGV"), `the plugin died of SIGSEGV (or its wrapper exited 139); it ended ${JSON.stringify(exit)}`);
      },
    },
  }),
];
