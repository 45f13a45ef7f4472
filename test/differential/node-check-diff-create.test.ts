// Spec §9 rows 15–36 (Check, Diff, Create), Node side: the conformance cases of
// src/conformance/cases/node/node-check-diff-create.ts, every request sent unchanged
// to the Node reference plugin and to our pulumi-resource-pulumi-nodejs, the
// answers compared and the value the spec names asserted as well; [difference]
// cases pin both behaviours (docs/parity.md). The loop: test/helpers/conformance.ts.
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => ["node/check", "node/diff", "node/create"].includes(c.session.id));
