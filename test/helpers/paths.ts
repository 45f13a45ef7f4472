// Locations every test shares, resolved from the compiled file (dist/test/helpers).
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));

// The Python launcher's preloader (python-stub/preloader.py) stays off in the tests unless one turns it
// on (test/python/preloader.test.ts): with it, which worker serves a test would depend on the tests before.
// The benchmarks put it back as users have it (usersPreload).
const PRELOAD_AS_GIVEN = process.env.PULUMI_DYNAMIC_HOST_PRELOAD;
process.env.PULUMI_DYNAMIC_HOST_PRELOAD ??= "0";

/** Undoes the tests' default above: the preloader as the user's environment has it (on, unless switched off). */
export function usersPreload(): void {
  if (PRELOAD_AS_GIVEN === undefined) delete process.env.PULUMI_DYNAMIC_HOST_PRELOAD;
  else process.env.PULUMI_DYNAMIC_HOST_PRELOAD = PRELOAD_AS_GIVEN;
}
export const FIXTURES = `${REPO}test/fixtures/`;
/** The provider scenario modules the conformance cases name, shipped in the package (src/conformance/scenarios). */
export const SCENARIOS = `${REPO}src/conformance/scenarios/`;
/** The program directory Node plugins run in: @pulumi/pulumi resolves from the repo's node_modules above it. */
export const NODE_PROGRAM = `${SCENARIOS}node-program`;
/**
 * The directory holding our two plugin names under test: the checkout's bin/,
 * or an installed copy named by PULUMI_DYNAMIC_HOST_UNDER_TEST (npm's bin, an
 * unpacked release archive, a virtualenv's bin), so every suite that launches
 * our plugins can run against what users install.
 */
export const OUR_PLUGIN_DIR = process.env.PULUMI_DYNAMIC_HOST_UNDER_TEST || `${REPO}bin`;
export const OUR_NODE_PLUGIN = `${OUR_PLUGIN_DIR}/pulumi-resource-pulumi-nodejs`;
export const OUR_PYTHON_PLUGIN = `${OUR_PLUGIN_DIR}/pulumi-resource-pulumi-python`;
/** The benchmark's calibration plugin, as compiled by `npm run build`. */
export const CEILING_PLUGIN = `${REPO}dist/bundle/bench/ceiling-plugin.js`;
export const REFERENCE_NODE_PLUGIN = `${REPO}node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js`;
/** The program directory Python plugins run in (it holds the program-local module provider.py). */
export const PYTHON_PROGRAM = `${SCENARIOS}python-program`;
/** The test virtualenv scripts/setup.sh builds: pinned pulumi and dill from PyPI. */
export const TEST_VENV = `${REPO}.cache/test-venv`;
export const VENV_PYTHON = `${TEST_VENV}/bin/python`;
/** The virtualenv of a second CPython minor scripts/setup.sh keeps beside the test one (version-drift cases). */
export const OTHER_PYTHON = `${REPO}.cache/test-venv-other/bin/python`;
/** Bun, pinned, as scripts/setup.sh --tests installs it: programs and the declared helper run under it too. */
export const BUN = `${REPO}.cache/bun/node_modules/.bin/bun`;
