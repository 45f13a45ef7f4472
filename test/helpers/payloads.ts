// `__provider` payloads made by the real SDK serializers at test time.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { FIXTURES, SCENARIOS, VENV_PYTHON } from "./paths.js";

const require = createRequire(import.meta.url);
const cache = new Map<string, Promise<string>>();

/**
 * The Node closure text of the named provider, from a scenario module of the
 * conformance kit (src/conformance/scenarios/node) or a fixture module in
 * test/fixtures that exports `serialize(name)` (node-providers.cjs by default).
 */
export function nodeProvider(name: string, fixture = "node-providers.cjs"): Promise<string> {
  const key = `${fixture}#${name}`;
  let text = cache.get(key);
  if (!text) {
    const scenario = `${SCENARIOS}node/${fixture}`;
    const fixtures = require(existsSync(scenario) ? scenario : `${FIXTURES}${fixture}`);
    text = fixtures.serialize(name) as Promise<string>;
    cache.set(key, text);
  }
  return text;
}

export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17";
export const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";

const pythonPayloads = new Map<string, Record<string, string>>();

/**
 * The Python `__provider` payload of the named provider in a scenario module
 * of src/conformance/scenarios or a fixture module of test/fixtures (python_providers.py by default), made by the SDK's
 * serialize_provider in the test virtualenv: the module is run once, for all
 * its providers, and the payloads are kept.
 */
export function pythonProvider(name: string, fixture = "python_providers.py"): string {
  let payloads = pythonPayloads.get(fixture);
  if (!payloads) {
    const dir = existsSync(`${SCENARIOS}${fixture}`) ? SCENARIOS : FIXTURES;
    const out = execFileSync(VENV_PYTHON, [`${dir}${fixture}`], { cwd: dir, encoding: "utf8" });
    payloads = JSON.parse(out) as Record<string, string>;
    pythonPayloads.set(fixture, payloads);
  }
  const payload = payloads[name];
  if (!payload) throw new Error(`no Python test provider named ${name} in ${fixture}`);
  return payload;
}

/**
 * Code pickled "by another Python": no other CPython can be had on this machine,
 * so the real pickler writes what dill's save_code writes on Python 3.10, a
 * _create_code call with co_lnotab first and 17 fields.
 */
export function pickleFromPython310(): string {
  return execFileSync(
    VENV_PYTHON,
    [
      "-c",
      "import base64, pickle, dill._dill as d\n" +
        "class Code310:\n" +
        "    def __reduce__(self):\n" +
        "        return (d._create_code, (b'', 0, 0, 0, 0, 0, 0, b'', (), (), (), 'f.py', 'f', 1, b'', (), ()))\n" +
        "print(base64.b64encode(pickle.dumps(Code310(), protocol=4)).decode())",
    ],
    { encoding: "utf8" },
  ).trim();
}
