// When two serialized providers are the same code (src/host/provider-text.ts),
// and when a change of inputs is a change of __provider's layout alone.
import { expect } from "chai";
import { onlyProviderLayoutChanged, providerLayout, sameProviderCode } from "../../src/host/provider-text.js";
import { EncodedStruct } from "../../src/host/wire/struct-bytes.js";
import { encodeStruct, jsToStruct } from "../../src/host/wire/wire.js";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

describe("provider text: the same code in another layout", function () {
  // [case, a, b, the same code?]
  const rows: [string, string, string, boolean][] = [
    ["identical", "a\nb", "a\nb", true],
    ["CRLF against LF", "a\r\nb\r\n", "a\nb\n", true],
    ["lone CR against LF", "a\rb", "a\nb", true],
    ["trailing spaces and tabs", "a  \nb\t\n", "a\nb\n", true],
    ["trailing whitespace on the last line", "a\nb \t ", "a\nb", true],
    ["both at once", "exports.f = () => {  \r\n  return 1;\t\r\n};\r\n", "exports.f = () => {\n  return 1;\n};\n", true],
    ["leading whitespace (indentation)", "a\n  b", "a\nb", false],
    ["whitespace inside a line", "a = 1", "a  = 1", false],
    ["an extra line", "a\nb", "a\n\nb", false],
    ["a blank line at the end", "a\n", "a", false],
    ["a comment", "a\nb", "a // c\nb", false],
    ["another character", "a\nb", "a\nc", false],
    ["a non-breaking space at a line's end", "a\u00a0\nb", "a\nb", false],
    ["base64 of another pickle", "gASVAAAA", "gASVAAAB", false],
  ];
  for (const [name, a, b, same] of rows) {
    it(`${same ? "same" : "different"}: ${name}`, function () {
      expect(sameProviderCode(a, b)).to.equal(same);
      expect(sameProviderCode(b, a)).to.equal(same);
    });
  }

  it("providerLayout makes line endings LF and drops trailing whitespace", function () {
    expect(providerLayout("x \r\ny\t\rz  \n")).to.equal("x\ny\nz\n");
  });
});

describe("provider text: a change of inputs that is only __provider's layout", function () {
  for (const form of ["decoded", "encoded"] as const) {
    const bag = (o: object) => (form === "encoded" ? new EncodedStruct(encodeStruct(jsToStruct(o))!) : jsToStruct(o));
    const rows: [string, object | undefined, object | undefined, boolean][] = [
      ["only line endings changed", { __provider: "a\r\n", x: 1 }, { __provider: "a\n", x: 1 }, true],
      ["nothing changed", { __provider: "a", x: [1, { y: null }] }, { __provider: "a", x: [1, { y: null }] }, true],
      ["keys in another order", { __provider: "a ", x: 1, y: { p: 1, q: 2 } }, { y: { q: 2, p: 1 }, x: 1, __provider: "a" }, true],
      ["the code changed", { __provider: "a", x: 1 }, { __provider: "b", x: 1 }, false],
      ["another input changed too", { __provider: "a ", x: 1 }, { __provider: "a", x: 2 }, false],
      ["an input added", { __provider: "a" }, { __provider: "a", x: 1 }, false],
      ["an input removed", { __provider: "a", x: 1 }, { __provider: "a" }, false],
      ["a number against its string", { __provider: "a", x: 1 }, { __provider: "a", x: "1" }, false],
      ["a list grew", { __provider: "a", x: [1] }, { __provider: "a", x: [1, 2] }, false],
      ["a null against a missing key", { __provider: "a", x: null }, { __provider: "a" }, false],
      ["an unknown new input", { __provider: "a", x: 1 }, { __provider: "a", x: UNKNOWN }, false],
      ["an unknown new __provider", { __provider: "a" }, { __provider: UNKNOWN }, false],
      ["no __provider in the old inputs", { x: 1 }, { __provider: "a", x: 1 }, false],
      ["__provider not a string", { __provider: 1 }, { __provider: 1 }, false],
      ["no old inputs", undefined, { __provider: "a" }, false],
      ["no new inputs", { __provider: "a" }, undefined, false],
    ];
    for (const [name, before, after, expected] of rows) {
      it(`${form} bags: ${name} → ${expected}`, function () {
        expect(onlyProviderLayoutChanged(before && bag(before), after && bag(after))).to.equal(expected);
      });
    }
  }
});
