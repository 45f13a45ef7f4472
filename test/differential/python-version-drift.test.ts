// A state whose __provider was pickled by value under another CPython minor
// (test/python/drift.test.ts has the details): the conformance case of
// src/conformance/cases/python/python-version-drift.ts, sent to the Python reference
// (`python -u -m pulumi.dynamic` in the test virtualenv) and to our
// pulumi-resource-pulumi-python, in the program directory beside which
// scripts/setup.sh keeps a virtualenv of a second Python (test/helpers/conformance.ts).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id === "python/version-drift");
