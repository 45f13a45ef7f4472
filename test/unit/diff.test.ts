// The one mapping from the diff tri-state to DiffResponse fields, as a table.
import { expect } from "chai";
import { diffResponse } from "../../src/host/diff.js";
import type { DiffOutcome } from "../../src/host/runtime.js";

const table: [string, DiffOutcome, object][] = [
  ["unknown, nothing else", { changes: "unknown", replaces: [], deleteBeforeReplace: false }, { changes: 0 }],
  ["none", { changes: "none", replaces: [], deleteBeforeReplace: false }, { changes: 1 }],
  ["some", { changes: "some", replaces: [], deleteBeforeReplace: false }, { changes: 2 }],
  ["some with replaces", { changes: "some", replaces: ["a", "b"], deleteBeforeReplace: false }, { changes: 2, replaces: ["a", "b"] }],
  ["replaces and dbr", { changes: "some", replaces: ["a"], deleteBeforeReplace: true }, { changes: 2, replaces: ["a"], deleteBeforeReplace: true }],
  ["dbr alone is kept", { changes: "unknown", replaces: [], deleteBeforeReplace: true }, { changes: 0, deleteBeforeReplace: true }],
  ["replaces with unknown changes are kept", { changes: "unknown", replaces: ["x"], deleteBeforeReplace: false }, { changes: 0, replaces: ["x"] }],
];

describe("diff: tri-state to DiffResponse", function () {
  for (const [name, outcome, expected] of table) {
    it(name, function () {
      expect(diffResponse(outcome)).to.deep.equal(expected);
    });
  }

  it("never sets stables, diffs or detailed diff", function () {
    const fields = diffResponse({ changes: "some", replaces: ["a"], deleteBeforeReplace: true });
    expect(fields).to.not.have.any.keys("stables", "diffs", "detailedDiff", "hasDetailedDiff");
  });

  it("copies replaces rather than sharing the adapter's array", function () {
    const replaces = ["a"];
    const fields = diffResponse({ changes: "some", replaces, deleteBeforeReplace: false });
    replaces.push("b");
    expect(fields.replaces).to.deep.equal(["a"]);
  });
});
