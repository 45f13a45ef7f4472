// Secrets in error texts, ours beside each reference: the conformance cases of
// src/conformance/cases/secrets.ts (a provider whose error quotes a secret
// input or a secret config value; docs/parity.md, "Secrets in error texts").
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id.endsWith("/secret-redaction"));
