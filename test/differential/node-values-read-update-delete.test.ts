// Spec §9 rows 38–60 and 75–78 (Node side): value encoding through Create, and
// the Read, Update and Delete RPCs: the conformance cases of
// src/conformance/cases/node/node-values-read-update-delete.ts, sent to the Node
// reference plugin and to our pulumi-resource-pulumi-nodejs; the answers (and,
// where the reference writes to stderr/stdout, the first line of that output)
// are compared, and the expected concrete value is asserted too. [difference]
// cases pin the reference's exact behaviour and ours' (test/helpers/conformance.ts).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => ["node/values", "node/read", "node/update", "node/delete", "node/harness-values", "node/large-payload"].includes(c.session.id));
