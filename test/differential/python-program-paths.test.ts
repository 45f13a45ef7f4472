// Where the Python plugins import a by-reference provider class from (issue 19,
// part 3; docs/python-imports.md): the conformance cases of
// src/conformance/cases/python/python-program-paths.ts, each in a project of its own,
// sent to the Python reference and to ours (test/helpers/conformance.ts).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id.startsWith("python/program-paths/"));
