// Secrets out (issue 20), ours beside each reference: the conformance cases of
// src/conformance/cases/secrets.ts (a provider returning `pulumi.secret(v)` or
// `Output.secret(v)`; docs/parity.md, "Secrets out"; under the real engine:
// test/e2e/secrets-context.test.ts).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id.endsWith("/secrets-out"));
