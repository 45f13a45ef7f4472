// `__provider` payloads the Python plugin cannot load, in every resource method:
// the conformance cases of src/conformance/cases/python/python-load-errors.ts, sent to
// the Python reference (`python -u -m pulumi.dynamic` in the test virtualenv,
// pulumi 3.270.0) and to our pulumi-resource-pulumi-python, both run from a
// program directory that holds no module of the tests (test/helpers/conformance.ts).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id === "python/load-errors");
