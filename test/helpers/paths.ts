// Locations every test shares, resolved from the compiled file (dist/test/helpers).
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const FIXTURES = `${REPO}test/fixtures/`;
/** The program directory Node plugins run in: @pulumi/pulumi resolves from the repo's node_modules above it. */
export const NODE_PROGRAM = `${FIXTURES}node-program`;
export const OUR_NODE_PLUGIN = `${REPO}bin/pulumi-resource-pulumi-nodejs`;
export const OUR_PYTHON_PLUGIN = `${REPO}bin/pulumi-resource-pulumi-python`;
/** The benchmark's calibration plugin, as compiled by `npm run build`. */
export const CEILING_PLUGIN = `${REPO}dist/bundle/bench/ceiling-plugin.js`;
export const REFERENCE_NODE_PLUGIN = `${REPO}node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js`;
/** The program directory Python plugins run in (it holds the program-local module provider.py). */
export const PYTHON_PROGRAM = `${FIXTURES}python-program`;
/** The test virtualenv scripts/setup.sh builds: pinned pulumi and dill from PyPI. */
export const TEST_VENV = `${REPO}.cache/test-venv`;
export const VENV_PYTHON = `${TEST_VENV}/bin/python`;
