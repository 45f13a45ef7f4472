// The size bound of error texts: ordinary texts untouched to the byte, long
// ones cut to the bound with their head and tail, never inside a character.
import { expect } from "chai";
import { boundErrorText, boundErrorTexts, MAX_ERROR_TEXT_BYTES } from "../../src/host/limits/error-text.js";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const CUT = /… \[(\d+) bytes cut\] …/;

/** Checks the shape of a cut text: within `max`, a whole-character head and tail of `original`, and an honest count. */
function expectCut(out: string, original: string, max: number): void {
  expect(bytes(out)).to.be.at.most(max);
  const m = CUT.exec(out);
  expect(m, "says what was cut").to.not.equal(null);
  const head = out.slice(0, m!.index);
  const tail = out.slice(m!.index + m![0].length);
  expect(original.startsWith(head), "the head is the text's own beginning").to.equal(true);
  expect(original.endsWith(tail), "the tail is the text's own end").to.equal(true);
  expect(Number(m![1])).to.equal(bytes(original) - bytes(head) - bytes(tail));
  // Whole characters: nothing was replaced by U+FFFD on the way.
  expect(out).to.not.include("\ufffd");
}

describe("error texts: one size bound", function () {
  it(`is ${MAX_ERROR_TEXT_BYTES} bytes: under a third of what grpc-js clients take, even fully percent-encoded`, function () {
    expect(MAX_ERROR_TEXT_BYTES).to.equal(8192);
  });

  const unchanged: [string, string][] = [
    ["empty", ""],
    ["an ordinary message", "Create urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::r: boom"],
    ["exactly the bound in ASCII", "a".repeat(MAX_ERROR_TEXT_BYTES)],
    ["exactly the bound in 3-byte characters (≈ 2730 of them, over a third in UTF-16)", "€".repeat(2730) + "ab"],
    ["exactly the bound with 4-byte characters", "🚀".repeat(MAX_ERROR_TEXT_BYTES / 4)],
    ["a Python traceback of ordinary length", "Traceback (most recent call last):\n" + '  File "x.py", line 1, in create\n'.repeat(100) + "Exception: boom\n"],
  ];
  for (const [what, text] of unchanged) {
    it(`leaves ${what} as it is`, function () {
      expect(bytes(text)).to.be.at.most(MAX_ERROR_TEXT_BYTES);
      expect(boundErrorText(text)).to.equal(text);
      expect(boundErrorText(text, MAX_ERROR_TEXT_BYTES, "Create urn:x")).to.equal(text);
    });
  }

  it("cuts one byte over the bound, and a 50 MiB text, to the bound, keeping head and tail", function () {
    for (const text of ["h" + "a".repeat(MAX_ERROR_TEXT_BYTES - 1) + "t", "HEAD" + "x".repeat(50 * 1024 * 1024) + "TAIL"]) {
      const out = boundErrorText(text);
      expectCut(out, text, MAX_ERROR_TEXT_BYTES);
      expect(out.startsWith(text[0])).to.equal(true);
      expect(out.endsWith(text[text.length - 1])).to.equal(true);
    }
  });

  it("never splits a UTF-8 character or a surrogate pair, at any alignment", function () {
    for (const unit of ["é", "€", "🚀", "a🚀", "ab€"]) {
      for (let pad = 0; pad < 4; pad++) {
        const text = "p".repeat(pad) + unit.repeat(20_000) + "q".repeat(pad);
        expectCut(boundErrorText(text), text, MAX_ERROR_TEXT_BYTES);
        expectCut(boundErrorText(text, 101), text, 101);
      }
    }
  });

  it("a cut text that does not say what failed is prefixed with the subject; one that does is not", function () {
    const subject = "Create urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::r";
    const user = "m".repeat(1024 * 1024);
    const out = boundErrorText(user, MAX_ERROR_TEXT_BYTES, subject);
    expect(out.startsWith(`${subject}: mmm`)).to.equal(true);
    expectCut(out, `${subject}: ${user}`, MAX_ERROR_TEXT_BYTES);
    const ours = `${subject}: the serialized provider threw while loading: ${user}`;
    expect(boundErrorText(ours, MAX_ERROR_TEXT_BYTES, subject).startsWith(`${subject}: the serialized`)).to.equal(true);
    // A subject of any length (a URN is the client's) is itself bounded.
    const long = boundErrorText(user, MAX_ERROR_TEXT_BYTES, `Create urn:${"u".repeat(100_000)}`);
    expect(bytes(long)).to.be.at.most(MAX_ERROR_TEXT_BYTES);
    expect(long).to.match(/^Create urn:u+… \[\d+ bytes cut\] …u+: m+… \[\d+ bytes cut\] …m+$/);
  });

  it("a list of texts (init-failure reasons) is bounded in all, saying how many were cut", function () {
    const few = ["r1", "r2"];
    expect(boundErrorTexts(few)).to.deep.equal(few);
    const many = Array.from({ length: 1000 }, (_, i) => `reason ${i} ${"x".repeat(100)}`);
    const out = boundErrorTexts(many);
    const total = out.reduce((n, r) => n + bytes(r), 0);
    expect(total).to.be.at.most(MAX_ERROR_TEXT_BYTES);
    expect(many.slice(0, out.length - 1)).to.deep.equal(out.slice(0, -1));
    const cutCount = many.length - (out.length - 1);
    const cutBytes = many.slice(out.length - 1).reduce((n, r) => n + bytes(r), 0);
    expect(out[out.length - 1]).to.equal(`… [${cutCount} more (${cutBytes} bytes) cut] …`);
    const huge = boundErrorTexts(["y".repeat(1024 * 1024), "second"]);
    expect(huge).to.have.length(2);
    expect(huge[0]).to.match(CUT);
    expect(huge[1]).to.equal("… [1 more (6 bytes) cut] …");
    expect(huge.reduce((n, r) => n + bytes(r), 0)).to.be.at.most(MAX_ERROR_TEXT_BYTES);
  });
});
