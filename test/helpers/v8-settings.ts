// The table every V8 setting of the host's (src/host/tuning/v8-settings.ts) must
// pass: applied on the V8 it was measured on, not on others, not when the user
// set the same thing (rows of the setting's own), and not put off by flags
// that are about something else.
import { expect } from "chai";

export type AppliesRow = [name: string, env: NodeJS.ProcessEnv, execArgv: string[], v8Version: string, applies: boolean];

export function itAppliesAsTabled(applies: (env: NodeJS.ProcessEnv, execArgv: string[], v8Version: string) => boolean, ownRows: AppliesRow[]): void {
  const rows: AppliesRow[] = [
    ["Node 20's V8, nothing chosen", {}, [], "11.3.244.8-node.38", true],
    ["Node 22's V8 (not measured)", {}, [], "12.4.254.21-node.33", false],
    ["a V8 it was not measured on (older)", {}, [], "10.2.154.26-node.28", false],
    ["a V8 it was not measured on (newer)", {}, [], "14.1.0", false],
    ["unrelated flags", { NODE_OPTIONS: "--max-old-space-size=512 --trace-warnings" }, ["--inspect"], "11.3.244.8", true],
    ...ownRows,
  ];
  for (const [name, env, execArgv, v8Version, expected] of rows) {
    it(`${expected ? "applies" : "stands aside"}: ${name}`, function () {
      expect(applies(env, execArgv, v8Version)).to.equal(expected);
    });
  }
}
