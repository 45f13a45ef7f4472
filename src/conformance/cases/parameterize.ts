// Parameterize with neither arguments nor a value, as the refusal matrix sends it: the reference
// plugins do not implement the RPC; ours serves provider packages (docs/provider-packages.md), so
// it refuses the empty request as a bad one, saying what it takes.
import { equal, matches, type Difference } from "../case.js";
import type { Outcome } from "../client.js";

/** The difference, with the reference's details where the case records them (Python's). */
export function parameterizeDifference(referenceDetails?: string): Difference<Outcome> {
  return {
    doc: "docs/parity.md#both-languages",
    ours(o) {
      equal(o.code, 3, "status");
      matches(o.details, /^Parameterize: pulumi-resource-pulumi-(nodejs|python) takes one parameter, the provider package \(.*\); it was given 0$/, "details");
    },
    reference(o) {
      if (referenceDetails === undefined) equal(o.code, 12, "status");
      else equal(o, { code: 12, details: referenceDetails });
    },
  };
}
