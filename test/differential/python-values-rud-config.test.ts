// Spec §9 rows 38–68, 71, 72, 75–77 (Python side): values through Create,
// the Read, Update and Delete RPCs, Configure and the provider cache, user
// output, program-local modules, harness-only sig values and a 100 MiB payload:
// the conformance cases of src/conformance/cases/python/python-values-rud-config.ts,
// sent to the Python reference (`python -u -m pulumi.dynamic` in the test
// virtualenv, pulumi 3.270.0, as its launcher runs it) and to our
// pulumi-resource-pulumi-python; the answers are compared, and the expected
// concrete value is asserted on each (test/helpers/conformance.ts). Tests named
// "[difference]" pin a deliberate difference: the reference's exact behaviour
// and ours' exact (different) behaviour.
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => ["python/values", "python/read", "python/update", "python/delete", "python/output", "python/configure", "python/large"].includes(c.session.id));
