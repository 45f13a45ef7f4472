// A __provider whose require() names a package path that no longer exists
// (aspect_rules_js layout, removed after serializing), sent to the Node
// reference and to ours: the conformance cases of
// src/conformance/cases/node/node-moved-paths.ts (docs/parity.md, the deliberate
// difference; test/helpers/conformance.ts runs them).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id === "node/moved-paths");
