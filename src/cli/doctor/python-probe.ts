// Asks the Python that would run a program's Python providers what it has:
// its version, whether `pulumi` and `dill` import and at which versions, and
// whether the modules and by-reference classes a stack's pickles name can be
// found, from the program directory (sys.path[0], as for the worker). One run
// of the interpreter with a short -c script; no pickle is loaded.
import { execFile } from "node:child_process";
import { z } from "zod";
import type { Interpreter } from "../../python-bridge/interpreter/interpreter.js";
import type { GlobalRef } from "../../python-bridge/pickle/pickle-inspect.js";

// Modules are located with importlib.util.find_spec on the top-level name,
// which runs no user code, then each submodule with PathFinder.find_spec in its
// parent's __path__: the import system's own file finders say whether the file
// exists, and no package __init__ runs (importing the parents would run them).
// A package that rewrites its __path__ in __init__ can thus be reported missing.
// Only a class pickled by reference is looked up with hasattr, which imports its
// module (its top-level code runs, as unpickling would): it is the one name
// whose absence the module check alone cannot show.
// Output goes to a copy of fd 1; fd 1 itself then points at stderr, so what an
// imported module prints cannot corrupt the answer.
const SCRIPT = String.raw`
import importlib, importlib.machinery, importlib.util, json, os, sys
sys.dont_write_bytecode = True
out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
ask = json.loads(sys.argv[1])
def err(e):
    return "%s: %s" % (type(e).__name__, e)
def package(name):
    try:
        mod = importlib.import_module(name)
    except BaseException as e:
        return {"error": err(e)}
    try:
        from importlib.metadata import version
        return {"version": version(name)}
    except BaseException:
        return {"version": str(getattr(mod, "__version__", "unknown"))}
def locate(name):
    if name in sys.modules:
        return {"origin": getattr(sys.modules[name], "__file__", None)}
    top, _, rest = name.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except BaseException as e:
        return {"error": err(e)}
    if spec is None:
        return {"error": "No module named %r" % top}
    found = top
    for part in rest.split(".") if rest else []:
        if spec.submodule_search_locations is None:
            return {"error": "%r is not a package, so it has no submodule %r" % (found, part)}
        full = found + "." + part
        spec = importlib.machinery.PathFinder.find_spec(full, list(spec.submodule_search_locations))
        if spec is None:
            return {"error": "No module named %r" % full}
        found = full
    return {"origin": spec.origin}
result = {
    "executable": sys.executable,
    "version": list(sys.version_info[:3]),
    "virtualenv": sys.prefix != getattr(sys, "base_prefix", sys.prefix) or any(
        os.path.isfile(os.path.join(d, "pyvenv.cfg")) for d in (os.path.dirname(sys.executable), os.path.dirname(os.path.dirname(sys.executable)))
    ),
    "pulumi": package("pulumi"),
    "dill": package("dill"),
    "modules": {m: locate(m) for m in ask["modules"]},
    "classes": {},
    "attributes": {},
}
for mod, name in ask["classes"]:
    if "error" in locate(mod):
        continue
    try:
        obj = importlib.import_module(mod)
        for i, part in enumerate(name.split(".")):
            if not hasattr(obj, part):
                result["classes"][mod + ":" + name] = "module %r (%s) has no attribute %r" % (mod, getattr(sys.modules[mod], "__file__", None), name)
                # What is there instead, for a "did you mean": the public names where the lookup stopped.
                result["attributes"][mod + ":" + name] = {"index": i, "names": sorted(n for n in dir(obj) if isinstance(n, str) and not n.startswith("_"))[:500]}
                break
            obj = getattr(obj, part)
        else:
            result["classes"][mod + ":" + name] = None
    except BaseException as e:
        result["classes"][mod + ":" + name] = "importing %r raised %s" % (mod, err(e))
json.dump(result, out)
out.flush()
`;

const located = z.union([z.object({ origin: z.string().nullable() }), z.object({ error: z.string() })]);
const pkg = z.union([z.object({ version: z.string() }), z.object({ error: z.string() })]);
const answer = z.object({
  executable: z.string(),
  version: z.tuple([z.number(), z.number(), z.number()]),
  /** A virtualenv's interpreter (PEP 405: a pyvenv.cfg beside it or above): its pip installs; a system one's may refuse (PEP 668). */
  virtualenv: z.boolean().optional(),
  pulumi: pkg,
  dill: pkg,
  modules: z.record(z.string(), located),
  /** "module:qualname" → null when the class is there, else why not. */
  classes: z.record(z.string(), z.string().nullable()),
  /** "module:qualname" of a missing attribute → which part of the qualname is missing, and the public names of the object that lacks it. */
  attributes: z.record(z.string(), z.object({ index: z.number(), names: z.array(z.string()) })).optional(),
});
export type PythonProbe = z.infer<typeof answer>;

export type ProbeResult = { ok: true; probe: PythonProbe } | { ok: false; problem: string };

const TIMEOUT_MS = 60_000;

export function probePython(interpreter: Interpreter, cwd: string, ask: { modules: string[]; classes: GlobalRef[] }): Promise<ProbeResult> {
  const args = ["-c", SCRIPT, JSON.stringify({ modules: ask.modules, classes: ask.classes.map((c) => [c.module, c.name]) })];
  const env: NodeJS.ProcessEnv = { ...interpreter.env, PYTHONDONTWRITEBYTECODE: "1" };
  return new Promise((resolve) => {
    execFile(interpreter.python, args, { cwd, env, encoding: "utf8", timeout: TIMEOUT_MS, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (code === "ENOENT") return resolve({ ok: false, problem: `${interpreter.python} was not found (PATH: ${env.PATH ?? ""})` });
      if (error?.killed) return resolve({ ok: false, problem: `${interpreter.python} did not answer within ${TIMEOUT_MS / 1000} s` });
      let parsed: ReturnType<typeof answer.safeParse> | undefined;
      try {
        parsed = answer.safeParse(JSON.parse(stdout));
      } catch {
        parsed = undefined;
      }
      if (parsed?.success) return resolve({ ok: true, probe: parsed.data });
      const last = stderr.trim().split("\n").pop() ?? "";
      resolve({ ok: false, problem: `${interpreter.python} could not be asked about its modules (${error ? `exit ${error.code}` : "an unexpected answer"}${last ? `: ${last}` : ""})` });
    });
  });
}

/** "3.11.7" */
export function versionText(probe: PythonProbe): string {
  return probe.version.join(".");
}
