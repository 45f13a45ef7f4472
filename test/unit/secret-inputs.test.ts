// Secret resource inputs (src/host/secrets/secret-inputs.ts): a request bag's secrets
// unwrapped for the provider, as the engine sends them to a plugin that does
// not accept secrets, and the provider's results marked secret as the engine
// marks them for such a plugin (by property name; objects on both sides
// property by property; anything else holding a secret made secret whole),
// an echoed property going back exactly as it came.
import { expect } from "chai";
import { annotateSecrets, unwrapSecrets } from "../../src/host/secrets/secret-inputs.js";
import { EncodedStruct } from "../../src/host/wire/struct-bytes.js";
import { decodeStruct, encodeStruct, jsToStruct, SECRET_SIG, SIG_KEY, structToJs, type AnyStruct } from "../../src/host/wire/wire.js";

const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const decoded = (o: object) => jsToStruct(o);
const encoded = (o: object) => new EncodedStruct(encodeStruct(jsToStruct(o))!);
const js = (s: AnyStruct) => structToJs(s);

describe("secret inputs: unwrapped for the provider", function () {
  for (const [form, bag] of [["decoded", decoded], ["encoded", encoded]] as const) {
    it(`replaces every secret of a ${form} bag by its value, at any depth, in the form it came`, function () {
      const input = bag({
        plain: "p",
        token: secret("tok"),
        nested: { key: secret("k"), other: 1, list: [1, secret({ deep: secret(2) })] },
        whole: secret({ a: [secret(true), null] }),
        preview: secret(UNKNOWN),
      });
      const out = unwrapSecrets(input);
      expect(out instanceof EncodedStruct).to.equal(form === "encoded");
      expect(js(out)).to.deep.equal({
        plain: "p",
        token: "tok",
        nested: { key: "k", other: 1, list: [1, { deep: 2 }] },
        whole: { a: [true, null] },
        preview: UNKNOWN,
      });
      // The request's bag is left as it came: the core marks results against it.
      expect(js(input).token).to.deep.equal(secret("tok"));
    });

    it(`returns a ${form} bag without secrets itself`, function () {
      const input = bag({ a: "x", b: { c: [1, "1b47061264138c4ac30d75fd1eb44270"] } });
      expect(unwrapSecrets(input)).to.equal(input);
    });
  }

  it("leaves what is not a well-formed secret for the adapter to read or refuse as before", function () {
    const odd = {
      noValue: { [SIG_KEY]: SECRET_SIG },
      extra: { [SIG_KEY]: SECRET_SIG, value: "v", more: 1 },
      asset: { [SIG_KEY]: "c44067f5952c0a294b673a41bacd8c17", text: "t" },
      notString: { [SIG_KEY]: 1, value: "v" },
    };
    const input = decoded(odd);
    expect(unwrapSecrets(input)).to.equal(input);
  });
});

describe("secret inputs: results marked secret as the engine marks them", function () {
  const annotate = (outs: object, ins: object) => js(annotateSecrets(decoded(outs), decoded(ins)));

  it("a property the request had secret is secret in the result, whatever its value now", function () {
    expect(annotate({ s: "shh", n: 1, b: true, nul: null, extra: "x" }, { s: secret("shh"), n: secret(1), b: secret(false), nul: secret("was"), gone: secret("g") })).to.deep.equal({
      s: secret("shh"),
      n: secret(1),
      b: secret(true),
      nul: secret(null),
      extra: "x",
    });
  });

  it("objects on both sides are compared property by property; a list or a secret object holding one is secret whole", function () {
    expect(
      annotate(
        { obj: { a: "a", b: "b" }, list: ["shh", "x"], whole: { a: 1 }, deep: { d: { e: "h" } } },
        { obj: { a: "a", b: secret("b") }, list: ["x", secret("shh")], whole: secret({ a: 1 }), deep: { d: { e: secret("h") } } },
      ),
    ).to.deep.equal({ obj: { a: "a", b: secret("b") }, list: secret(["shh", "x"]), whole: secret({ a: 1 }), deep: { d: { e: secret("h") } } });
  });

  it("a result already secret stays as it is, not wrapped twice; an object result under a secret object becomes secret whole", function () {
    expect(annotate({ s: secret("new"), o: { k: "v" } }, { s: secret("old"), o: secret({ k: "v" }) })).to.deep.equal({ s: secret("new"), o: secret({ k: "v" }) });
  });

  it("returns the result itself when the request held no secret, or its bag is unset", function () {
    const outs = decoded({ a: "x" });
    expect(annotateSecrets(outs, decoded({ a: "x" }))).to.equal(outs);
    expect(annotateSecrets(outs, encoded({ a: "x" }))).to.equal(outs);
    expect(annotateSecrets(outs, undefined)).to.equal(outs);
  });

  it("takes encoded results and requests alike", function () {
    const out = annotateSecrets(encoded({ token: "t", p: 1 }), encoded({ token: secret("t") }));
    expect(structToJs(decodeStruct(out))).to.deep.equal({ token: secret("t"), p: 1 });
  });

  it("an unwrapped bag marked against the bag it came from is that bag again", function () {
    const bag = { __provider: "text", a: { b: secret("x"), c: 1 }, l: [1, secret(2)], top: secret("t"), plain: "p" };
    const wrapped = encoded(bag);
    expect(annotate(js(unwrapSecrets(wrapped)), bag)).to.deep.equal(bag);
  });

  it("a property echoed as it came goes back with its secrets where they were; a changed one by the engine's rule", function () {
    expect(
      annotate(
        { same: [1, "two", { k: "v" }], changed: [1, "two", { k: "w" }], obj: { l: ["a", "b"], m: ["c", "d", "e"] } },
        { same: [1, secret("two"), { k: secret("v") }], changed: [1, secret("two"), { k: "v" }], obj: { l: ["a", secret("b")], m: ["c", secret("d")] } },
      ),
    ).to.deep.equal({
      same: [1, secret("two"), { k: secret("v") }],
      changed: secret([1, "two", { k: "w" }]),
      obj: { l: ["a", secret("b")], m: secret(["c", "d", "e"]) },
    });
  });
});
