// The Python reference plugin as the engine ends up running it: its launcher
// (sdk/python/dist/pulumi-resource-pulumi-python, an sh script, not installed
// with the SDK from PyPI) picks the interpreter and environment for the program
// and execs `<python> -u -m pulumi.dynamic <engine address>`. The kit runs that
// last command, with the interpreter and environment picked by the same rules
// (src/python-bridge/interpreter/interpreter.ts): the virtualenv's bin first on PATH,
// PYTHONHOME dropped, PWD as sh exports it, a relative virtualenv absolutised.
// The launcher's own refusals (a broken virtualenv) are not the module's: there
// the kit runs the module with `modulePython` (the payload interpreter), which
// serves regardless, as `python -m pulumi.dynamic` named directly would; the
// cases about those refusals record that as the reference's behaviour.
import { resolveInterpreter } from "../python-bridge/interpreter/interpreter.js";
import type { PluginCommand } from "./driver.js";

export function pythonReferenceCommand(label = "reference", env?: Record<string, string | undefined>, modulePython?: string | (() => string)): PluginCommand {
  return {
    label,
    argv: ["python3", "-u", "-m", "pulumi.dynamic"],
    env,
    prepare(cwd, launchEnv) {
      const r = resolveInterpreter(cwd, launchEnv);
      if (!r.ok) {
        if (modulePython) return { argv: [typeof modulePython === "string" ? modulePython : modulePython(), "-u", "-m", "pulumi.dynamic"], env: launchEnv };
        throw new Error(`${label}: the Python reference's launcher would stop before starting it:\n${r.stderr.join("\n")}`);
      }
      return { argv: [r.interpreter.python, "-u", "-m", "pulumi.dynamic"], env: r.interpreter.env };
    },
  };
}
