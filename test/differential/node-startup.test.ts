// Spec §9 rows about starting, negotiating and refusing: the conformance cases
// of src/conformance/cases/node/node-startup.ts, sent to the Node reference and to
// our pulumi-resource-pulumi-nodejs, answers compared (test/helpers/conformance.ts).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id === "node/startup");
