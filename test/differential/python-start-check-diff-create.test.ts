// Spec §9, Python side: start-up (rows 1–6), the protocol surface (7–14),
// Check, Diff and Create (15–37), the concurrency cap (69) and the fresh
// contextvars context per RPC (70): the conformance cases of
// src/conformance/cases/python/python-start-check-diff-create.ts, sent to the Python
// reference (`<venv>/bin/python -u -m pulumi.dynamic`, pulumi 3.270.0 from PyPI,
// as its launcher runs it) and to our pulumi-resource-pulumi-python; the answers
// are compared, and the concrete expected answer is asserted on each
// (test/helpers/conformance.ts). Tests named "[difference]" pin a deliberate
// difference: the reference's exact behaviour and ours' exact (different) behaviour.
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => ["python/startup", "python/protocol", "python/check", "python/diff", "python/create", "python/concurrency"].includes(c.session.id));
