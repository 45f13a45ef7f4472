// The conformance table is well formed: the command can select every language's
// cases (ids unique, stable names for --only and CI), every case states what the
// spec says or what each side of a deliberate difference answers, and a test
// titled [difference] records that difference.
import { expect } from "chai";
import { CASES, idMatches, selectCases } from "../../src/conformance/cases/index.js";

describe("the conformance table", function () {
  for (const language of ["nodejs", "python"] as const) {
    it(`${language}: every case can be selected, by a unique id under the language's prefix`, function () {
      const cases = selectCases(language);
      expect(cases.length).to.be.greaterThan(0);
      const prefix = language === "nodejs" ? "node/" : "python/";
      expect(cases.filter((c) => !c.id.startsWith(prefix)).map((c) => c.id)).to.deep.equal([]);
      expect(new Set(cases.map((c) => c.id)).size).to.equal(cases.length);
    });
  }

  it("every case has an expectation or a recorded difference; every [difference] title has its difference and where it is documented", function () {
    expect(CASES.filter((c) => !c.expect && !c.difference).map((c) => c.id)).to.deep.equal([]);
    expect(CASES.filter((c) => c.title.includes("[difference]") && !c.difference).map((c) => c.id)).to.deep.equal([]);
    expect(CASES.filter((c) => c.difference && !c.difference.doc).map((c) => c.id)).to.deep.equal([]);
  });

  it("--only takes an id prefix or a glob", function () {
    expect(idMatches("node/check/15-default-passthrough", "node/check/")).to.equal(true);
    expect(idMatches("node/check/15-default-passthrough", "node/*/15-*")).to.equal(true);
    expect(idMatches("node/check/15-default-passthrough", "node/diff/*")).to.equal(false);
    expect(idMatches("node/check/15-default-passthrough", "check")).to.equal(false);
  });
});
