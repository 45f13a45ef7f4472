// satisfiesEngines: the engines.node ranges packages write, against Node versions, table-driven.
import { expect } from "chai";
import { satisfiesEngines } from "../../src/cli/doctor/node-engines.js";

describe("node-engines: a Node version against a package's engines.node", function () {
  const table: [string, string, ReturnType<typeof satisfiesEngines>][] = [
    ["v20.20.2", ">=22", "unmet"],
    ["v22.0.0", ">=22", "satisfied"],
    ["v24.1.0", ">= 22.0.0", "satisfied"],
    ["v20.20.2", ">=18.0.0 <21", "satisfied"],
    ["v21.0.0", ">=18.0.0 <21", "unmet"],
    ["v20.1.0", "^18 || ^20", "satisfied"],
    ["v22.1.0", "^18 || ^20", "unmet"],
    ["v20.1.0", "~20.1", "satisfied"],
    ["v20.2.0", "~20.1", "unmet"],
    ["v20.5.0", "20.x", "satisfied"],
    ["v20.5.0", "18 - 20", "satisfied"],
    ["v21.0.0", "18 - 20", "unmet"],
    ["v20.5.0", ">20", "unmet"],
    ["v21.0.0", ">20", "satisfied"],
    ["v20.5.0", "*", "satisfied"],
    ["v20.5.0", "latest", "unknown"],
  ];
  for (const [version, range, verdict] of table) {
    it(`${version} against ${JSON.stringify(range)}: ${verdict}`, function () {
      expect(satisfiesEngines(version, range)).to.equal(verdict);
    });
  }
});
