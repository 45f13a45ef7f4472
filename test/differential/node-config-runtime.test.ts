// Spec §9 rows about Configure and provider.configure, the provider cache,
// Cancel, user output, module resolution and uncaught errors: the conformance
// cases of src/conformance/cases/node/node-config-runtime.ts, the same requests sent
// to the Node reference plugin and to our pulumi-resource-pulumi-nodejs, every
// outcome compared, plus the concrete value each must have. Cases that depend
// on process state have a pair of plugins of their own (test/helpers/conformance.ts).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id.startsWith("node/config-runtime/"));
