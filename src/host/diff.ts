// One pure mapping from the normalized diff outcome to the DiffResponse fields.
// Both references leave `stables`, `diffs` and `detailedDiff` unset: on
// DIFF_UNKNOWN the engine computes the diff from inputs itself, and any
// replaces/deleteBeforeReplace we send are kept either way.
import { DiffChanges as Wire } from "./wire/proto.js";
import type { DiffOutcome } from "./runtime.js";

export interface DiffResponseFields {
  changes: number;
  replaces?: string[];
  deleteBeforeReplace?: boolean;
}

export function diffResponse(outcome: DiffOutcome): DiffResponseFields {
  const changes =
    outcome.changes === "some" ? Wire.DIFF_SOME : outcome.changes === "none" ? Wire.DIFF_NONE : Wire.DIFF_UNKNOWN;
  const fields: DiffResponseFields = { changes };
  if (outcome.replaces.length > 0) fields.replaces = [...outcome.replaces];
  if (outcome.deleteBeforeReplace) fields.deleteBeforeReplace = true;
  return fields;
}
