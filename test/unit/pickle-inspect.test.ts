// Reading a Python payload without running it (src/python-bridge/pickle/pickle-inspect.ts)
// must print nothing: the host's stderr is the user's. pickleparser warns on
// the console about a 64-bit length past 2^53, which a damaged pickle can hold
// (the fuzz suite's bit flips found one).
import { expect } from "chai";
import { inspectPayload } from "../../src/python-bridge/pickle/pickle-inspect.js";

describe("pickle-inspect: a damaged payload is read without a word on the console", function () {
  it("a BINBYTES8 of 2^62 bytes: inspected, console.warn untouched and not called", function () {
    // Protocol 4, then BINBYTES8 (0x8e) with an 8-byte length of 2^62 (and nothing after it).
    const pickle = Buffer.concat([Buffer.from([0x80, 0x04, 0x8e]), Buffer.from([0, 0, 0, 0, 0, 0, 0, 0x40])]);
    const warned: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warned.push(args);
    try {
      const inspection = inspectPayload(pickle.toString("base64"));
      expect(inspection.ok).to.equal(true);
      expect(warned).to.deep.equal([]);
      // And put back as it was.
      console.warn("after");
      expect(warned).to.deep.equal([["after"]]);
    } finally {
      console.warn = warn;
    }
  });
});
