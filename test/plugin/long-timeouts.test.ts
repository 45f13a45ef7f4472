// customTimeouts of any length, against our two plugins started like the
// engine starts them: a timeout past what one Node timer holds (2^31-1 ms,
// ≈ 24.9 days; `720h` is 30 days) is a limit like any other, not an answer
// of DEADLINE_EXCEEDED a millisecond in with a TimeoutOverflowWarning on
// stderr; a short one still ends the call at its deadline.
import { expect } from "chai";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";

const DEADLINE_EXCEEDED = 4;

for (const language of ["nodejs", "python"] as const) {
  const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::${name}`;
  /** A create that takes ≈ 50 ms: far past the 1 ms an overflowed timer waits. */
  const slowCreate = language === "nodejs" ? { act: "sleep", ms: 50 } : { act: "sleep", seconds: 0.05 };

  describe(`long customTimeouts, our ${language} plugin`, function () {
    let p: Plugin;
    let scripted: string;
    before(async function () {
      p = await Plugin.launch("ours", { language });
      scripted = language === "nodejs" ? await nodeProvider("scripted") : pythonProvider("scripted");
    });
    after(async function () {
      await p?.stop();
    });

    for (const [what, timeout] of [["720h (2 592 000 s)", 2_592_000], ["1e9 s", 1e9], ["2^31 ms exactly", 2 ** 31 / 1000]] as const) {
      it(`a Create with a timeout of ${what} runs to completion, and nothing is written to stderr`, async function () {
        const before = p.stderr.length;
        const answer = await p.client.create({ urn: urn("long"), properties: { __provider: scripted, ...slowCreate }, timeout });
        expect(answer.code, answer.details).to.equal(0);
        expect(answer.view.id).to.match(/^slept/);
        expect(p.stderr.slice(before)).to.equal("");
      });
    }

    it("a short timeout still ends the call at its deadline, naming the resource", async function () {
      const hang = language === "nodejs" ? { act: "sleep", ms: 600_000 } : { act: "hang" };
      const answer = await p.client.create({ urn: urn("short"), properties: { __provider: scripted, ...hang }, timeout: 0.3 });
      expect(answer.code).to.equal(DEADLINE_EXCEEDED);
      expect(answer.details).to.match(new RegExp(`^Create ${urn("short")}: did not finish within the 0.3 s timeout set for this resource`));
      // The host keeps serving.
      expect((await p.client.create({ urn: urn("next"), properties: { __provider: scripted, act: "echo" } })).code).to.equal(0);
    });
  });
}
