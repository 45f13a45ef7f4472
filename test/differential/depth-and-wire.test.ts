// Values nested deep and requests with fields of the wrong wire type, sent to
// each reference and to ours: the conformance cases of
// src/conformance/cases/depth-and-wire.ts (what each plugin does, and why, is
// written there; docs/parity.md for the deliberate differences).
import { describeCases } from "../helpers/conformance.js";

describeCases((c) => c.session.id.endsWith("/depth-and-wire"));
