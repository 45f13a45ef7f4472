// Spec §9 rows 15–36 (Check, Diff, Create), Node side: every request is sent
// unchanged to the Node reference plugin and to our pulumi-resource-pulumi-nodejs,
// the answers are compared, and the value the spec names is asserted as well so
// that no test passes on two equally wrong answers. Where we deliberately differ
// (docs/parity.md), the test is marked [difference] and pins both behaviours.
import { expect } from "chai";
import type { Plugin } from "../helpers/plugin.js";
import { both, usePair, type Pair } from "../helpers/pair.js";
import { nodeProvider, UNKNOWN } from "../helpers/payloads.js";
import { EMPTY_DIFF_VIEW, nodeUrn, type Outcome, type ProviderClient } from "../helpers/client.js";


interface StderrMark {
  ours: number;
  ref: number;
}

function mark(pair: Pair): StderrMark {
  return { ours: pair.ours.stderr.length, ref: pair.ref.stderr.length };
}

let barriers = 0;

/**
 * What each plugin printed on stderr since `since`. A Check that throws a
 * unique marker is sent to both and awaited on their stderr: a plugin writes
 * its stderr pipe synchronously and in order, so whatever earlier RPCs printed
 * lies before the marker, and an empty segment proves that nothing was printed.
 */
async function stderrSince(pair: Pair, since: StderrMark, scripted: string): Promise<{ ours: string; ref: string }> {
  const marker = `stderr-barrier-${++barriers}`;
  const news = { __provider: scripted, act: "throw", msg: marker };
  const [o, r] = await both(pair, (c) => c.check({ urn: nodeUrn("barrier"), news }));
  expect(o).to.deep.equal(r).and.deep.equal({ code: 2, details: marker });
  const echo = `Error: ${marker}: `;
  const segment = async (p: Plugin, from: number) => {
    await p.until(() => p.stderr.indexOf(echo, from) >= 0, `the stderr barrier ${marker}`);
    return p.stderr.slice(from, p.stderr.indexOf(echo, from));
  };
  const [ours, ref] = await Promise.all([segment(pair.ours, since.ours), segment(pair.ref, since.ref)]);
  return { ours, ref };
}

const firstLine = (s: string) => s.split("\n")[0];

/** The V8 text of `${e}: ${e.stack}`'s first line for an error whose string form is `text`. */
const echoed = (text: string) => `${text}: ${text}`;

/** Ours' message for a request without a usable `__provider` (deliberate difference a). */
function noProviderMessage(op: string, urn: string, bag: string, problem = "has no"): string {
  return (
    `${op} ${urn}: the request's ${bag} ${problem} "__provider" property, so the dynamic provider cannot be loaded; ` +
    `__provider must be the serialized provider the SDK writes into every dynamic resource`
  );
}

/** Ours' message for a method that returned no object (deliberate difference b). */
function noObjectMessage(op: string, urn: string, method: string, got: string, shape: string): string {
  return `${op} ${urn}: the dynamic provider's ${method} returned ${got}; it must return an object (${shape})`;
}

const INIT_FAILED_TYPE_URL = "type.googleapis.com/pulumirpc.ErrorResourceInitFailed";

describe("differential (Node): Check, Diff and Create (§9 rows 15–36)", function () {
  let scripted: string;
  let createOnly: string;
  let empty: string;
  let shapes: string;

  before(async function () {
    [scripted, createOnly, empty, shapes] = await Promise.all([
      nodeProvider("scripted"),
      nodeProvider("createOnly"),
      nodeProvider("empty"),
      nodeProvider("checkShapes", "node-providers-cdc.cjs"),
    ]);
  });

  describe("Check", function () {
    const pair = usePair();

    it("15 check_default_passthrough: without check, inputs are news exactly (nulls and nesting kept) and no failures", async function () {
      for (const provider of [createOnly, empty]) {
        const urn = nodeUrn("c15");
        const news = { __provider: provider, b: 1, a: "x", n: null, o: { z: null, y: [null, 1, { k: null }] }, t: true };
        const [o, r] = await both(pair, (c) => c.check({ urn, olds: { __provider: provider, old: 1 }, news }));
        expect(o).to.deep.equal(r);
        expect(o.code).to.equal(0);
        expect(o.view).to.deep.equal({ inputs: news, failures: [] });
      }
    });

    it("16 check_user_inputs_failures: returned inputs and failures map to the CheckResponse", async function () {
      const urn = nodeUrn("c16");
      const news = { __provider: scripted, act: "checkFailures", a: 1 };
      const [o, r] = await both(pair, (c) => c.check({ urn, news }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({
        inputs: { ...news, checked: true },
        failures: [
          { property: "a", reason: "bad a" },
          { property: "b", reason: "bad b" },
        ],
      });
    });

    it("16 check_user_inputs_failures: a __provider the check returns is overwritten from news", async function () {
      const urn = nodeUrn("c16");
      const news = { __provider: scripted, act: "checkOverwriteProvider", a: 1 };
      const [o, r] = await both(pair, (c) => c.check({ urn, news }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ inputs: news, failures: [] });
    });

    it("16 check_user_inputs_failures: a missing or non-string failure field arrives as an empty string", async function () {
      const urn = nodeUrn("c16");
      const news = { __provider: shapes, mode: "partialFailures", a: 1 };
      const [o, r] = await both(pair, (c) => c.check({ urn, news }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({
        inputs: { __provider: shapes, a: 1 },
        failures: [
          { property: "a", reason: "" },
          { property: "", reason: "no property" },
          { property: "", reason: "numeric property" },
        ],
      });
    });

    it("17 check_failures_empty_vs_missing: failures [], null or left out give byte-identical responses", async function () {
      const urn = nodeUrn("c17");
      const answers: Outcome[] = [];
      for (const mode of ["emptyFailures", "noFailures", "nullFailures"]) {
        const news = { __provider: shapes, mode, a: 1 };
        const [o, r] = await both(pair, (c) => c.check({ urn, news }));
        expect(o, mode).to.deep.equal(r);
        expect(o.view, mode).to.deep.equal({ inputs: { __provider: shapes, a: 1 }, failures: [] });
        answers.push(o);
      }
      expect(answers[0].bytes).to.be.a("string").and.not.equal("");
      expect(answers[1].bytes).to.equal(answers[0].bytes);
      expect(answers[2].bytes).to.equal(answers[0].bytes);
    });

    it("18 check_result_inputs_falsy: falsy inputs (null, undefined, 0, \"\", false) fall back to news", async function () {
      const urn = nodeUrn("c18");
      const cases: { provider: string; mode: Record<string, string> }[] = [
        { provider: scripted, mode: { act: "checkFalsyInputs" } },
        ...["undefinedInputs", "nullInputs", "zeroInputs", "emptyStringInputs", "falseInputs"].map((m) => ({
          provider: shapes,
          mode: { mode: m },
        })),
      ];
      for (const { provider, mode } of cases) {
        const news = { __provider: provider, ...mode, a: 1, n: null };
        const [o, r] = await both(pair, (c) => c.check({ urn, news }));
        expect(o, JSON.stringify(mode)).to.deep.equal(r);
        expect(o.view, JSON.stringify(mode)).to.deep.equal({ inputs: news, failures: [] });
      }
    });

    it("18 check_result_inputs_falsy: inputs {} is truthy, so the checked inputs are only __provider", async function () {
      const urn = nodeUrn("c18");
      const news = { __provider: shapes, mode: "emptyObjectInputs", a: 1 };
      const [o, r] = await both(pair, (c) => c.check({ urn, news }));
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ inputs: { __provider: shapes }, failures: [] });
    });

    it("18 check_result_inputs_falsy [difference]: check returning undefined or null is named, not a TypeError, and not echoed", async function () {
      for (const [provider, mode, got] of [
        [scripted, { act: "checkUndefined" }, "undefined"],
        [shapes, { mode: "returnNull" }, "null"],
      ] as const) {
        const urn = nodeUrn("c18");
        const since = mark(pair);
        const [o, r] = await both(pair, (c) => c.check({ urn, news: { __provider: provider, ...mode } }));
        const typeError = `Cannot read properties of ${got} (reading 'inputs')`;
        expect(r).to.deep.equal({ code: 2, details: typeError });
        expect(o).to.deep.equal({
          code: 2,
          details: noObjectMessage("Check", urn, "check", got, "{ inputs?, failures? }"),
        });
        const err = await stderrSince(pair, since, scripted);
        expect(firstLine(err.ref)).to.equal(echoed(`TypeError: ${typeError}`));
        expect(err.ours).to.equal("");
      }
    });

    it("19 check_unknown_values_view: a preview unknown reaches check as the sentinel string and is echoed back", async function () {
      const urn = nodeUrn("c19");
      const news = { __provider: scripted, a: UNKNOWN, l: [UNKNOWN] };
      const [o, r] = await both(pair, (c) => c.check({ urn, news }));
      expect(o).to.deep.equal(r);
      expect(o.view.inputs.a).to.equal(UNKNOWN);
      expect(o.view.inputs.l).to.deep.equal([UNKNOWN]);
      expect(o.view.inputs.newsTypes).to.deep.equal({ __provider: "string", a: "string", l: "array" });
    });

    it("20 check_unknown_provider_uses_olds: an unknown news.__provider loads the provider from olds", async function () {
      const urn = nodeUrn("c20");
      const olds = { __provider: scripted, o: 1 };
      const news = { __provider: UNKNOWN, x: 1 };
      const [o, r] = await both(pair, (c) => c.check({ urn, olds, news }));
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(0);
      expect(o.view.inputs).to.deep.include({ __provider: UNKNOWN, x: 1, oldsKeys: ["__provider", "o"], newsKeys: ["__provider", "x"] });
    });

    it("20 check_unknown_provider_uses_olds [difference]: unknown news.__provider and none in olds is named, not echoed", async function () {
      const urn = nodeUrn("c20");
      const since = mark(pair);
      const [o, r] = await both(pair, (c) => c.check({ urn, olds: { o: 1 }, news: { __provider: UNKNOWN, x: 1 } }));
      expect(r).to.deep.equal({ code: 2, details: "code must be a string, not undefined" });
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Check", urn, "olds") });
      const err = await stderrSince(pair, since, scripted);
      expect(firstLine(err.ref)).to.equal(echoed("Error: code must be a string, not undefined"));
      expect(err.ours).to.equal("");
    });

    it("21 check_missing_provider_key [difference]: no __provider in news is named, not `code must be a string`, and not echoed", async function () {
      const urn = nodeUrn("c21");
      const since = mark(pair);
      const [o, r] = await both(pair, (c) => c.check({ urn, news: { a: 1 } }));
      expect(r).to.deep.equal({ code: 2, details: "code must be a string, not undefined" });
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Check", urn, "news") });
      const err = await stderrSince(pair, since, scripted);
      expect(firstLine(err.ref)).to.equal(echoed("Error: code must be a string, not undefined"));
      expect(err.ours).to.equal("");
    });

    it("21 check_missing_provider_key [difference]: a non-string __provider is named with its kind, and not echoed", async function () {
      const urn = nodeUrn("c21");
      const since = mark(pair);
      const [o, r] = await both(pair, (c) => c.check({ urn, news: { __provider: 5, a: 1 } }));
      expect(r).to.deep.equal({ code: 2, details: "code must be a string, not number" });
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Check", urn, "news", "has a number as its") });
      const err = await stderrSince(pair, since, scripted);
      expect(firstLine(err.ref)).to.equal(echoed("Error: code must be a string, not number"));
      expect(err.ours).to.equal("");
    });

    it("22 check_throws_stderr: UNKNOWN with the message, and `${e}: ${e.stack}` on stderr", async function () {
      const urn = nodeUrn("c22");
      const since = mark(pair);
      const [o, r] = await both(pair, (c) => c.check({ urn, news: { __provider: scripted, act: "throw", msg: "boom" } }));
      expect(o).to.deep.equal(r).and.deep.equal({ code: 2, details: "boom" });
      const err = await stderrSince(pair, since, scripted);
      expect(firstLine(err.ours)).to.equal(firstLine(err.ref)).and.equal("Error: boom: Error: boom");
      // The rest is the stack: frames differ, but it is one, and only one, echo.
      for (const s of [err.ours, err.ref]) expect(s.split("\n").filter((l) => l.startsWith("Error:"))).to.have.length(1);
    });

    it("23 check_error_numeric_code: an integer e.code becomes the status code, and the error is still echoed", async function () {
      const urn = nodeUrn("c23");
      const since = mark(pair);
      const news = { __provider: scripted, act: "throwCode", code: 5, msg: "x" };
      const [o, r] = await both(pair, (c) => c.check({ urn, news }));
      expect(o).to.deep.equal(r).and.deep.equal({ code: 5, details: "x" });
      const err = await stderrSince(pair, since, scripted);
      expect(firstLine(err.ours)).to.equal(firstLine(err.ref)).and.equal("Error: x: Error: x");
    });

    it("23 check_error_numeric_code: e.details replaces the message with the code; a non-integer code is UNKNOWN", async function () {
      const urn = nodeUrn("c23");
      const cases: [Record<string, unknown>, Outcome][] = [
        [{ act: "throwCodeDetails", code: 5, details: "d" }, { code: 5, details: "d" }],
        [{ act: "throwCodeDetails", code: 5, details: 3 }, { code: 5, details: "m" }],
        [{ act: "throwCode", code: "5", msg: "s" }, { code: 2, details: "s" }],
        [{ act: "throwCode", code: 5.5, msg: "f" }, { code: 2, details: "f" }],
      ];
      for (const [act, want] of cases) {
        const [o, r] = await both(pair, (c) => c.check({ urn, news: { __provider: scripted, ...act } }));
        expect(o, JSON.stringify(act)).to.deep.equal(r).and.deep.equal(want);
      }
    });
  });

  describe("Diff", function () {
    const pair = usePair();


    const diff = (news: Record<string, unknown>, olds: Record<string, unknown> = { __provider: scripted, a: 1 }) =>
      both(pair, (c) => c.diff({ urn: nodeUrn("d"), id: "id1", olds, news, oldInputs: { __provider: scripted, a: 1 } }));

    it("24 diff_missing_method: DIFF_UNKNOWN with no replaces and no deleteBeforeReplace (an empty response)", async function () {
      for (const provider of [createOnly, empty]) {
        const [o, r] = await diff({ __provider: provider, a: 2 }, { __provider: provider, a: 1 });
        expect(o).to.deep.equal(r);
        expect(o.code).to.equal(0);
        expect(o.bytes).to.equal("");
        expect(o.view).to.deep.equal(EMPTY_DIFF_VIEW);
      }
    });

    it("24b diff_provider_layout_only [difference]: without diff, __provider changed only in line endings and trailing blanks: ours DIFF_NONE, the reference DIFF_UNKNOWN", async function () {
      const reformatted = createOnly.replace(/\n/g, "  \r\n");
      expect(reformatted).to.not.equal(createOnly);
      const ask = (oldInputs: Record<string, unknown>, news: Record<string, unknown>) =>
        both(pair, (c) => c.diff({ urn: nodeUrn("d"), id: "id1", olds: { ...oldInputs, out: 1 }, news, oldInputs }));
      const [o, r] = await ask({ __provider: reformatted, a: 1 }, { __provider: createOnly, a: 1 });
      expect(r).to.deep.include({ code: 0, bytes: "" });
      expect(r.view).to.deep.equal(EMPTY_DIFF_VIEW);
      expect(o.code).to.equal(0);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 1 });
      // Anything else changed too, or the code itself, or a user's diff: alike, as before.
      for (const [oldInputs, news] of [
        [{ __provider: reformatted, a: 1 }, { __provider: createOnly, a: 2 }],
        [{ __provider: createOnly, a: 1 }, { __provider: empty, a: 1 }],
        [{ __provider: scripted.replace(/\n/g, "\r\n"), a: 1 }, { __provider: scripted, a: 1 }],
      ]) {
        const [oo, rr] = await ask(oldInputs, news);
        expect(oo).to.deep.equal(rr);
        expect(oo.view.changes).to.equal(0);
      }
    });

    // changes as the provider returns it -> DiffResponse.changes (Node: strict true/false, D12).
    const matrix: [string, string, number][] = [
      ["T", "true", 2],
      ["F", "false", 1],
      ["U", "undefined", 0],
      ["N", "null", 0],
      ["one", "1", 0],
      ["zero", "0", 0],
      ["yes", '"yes"', 0],
      ["empty", '""', 0],
    ];
    for (const [key, shown, want] of matrix) {
      it(`25 diff_changes_matrix: changes ${shown} gives ${["DIFF_UNKNOWN", "DIFF_NONE", "DIFF_SOME"][want]}`, async function () {
        const [o, r] = await diff({ __provider: scripted, changes: key });
        expect(o).to.deep.equal(r);
        expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: want });
      });
    }

    it("25 diff_changes_matrix: no changes key gives DIFF_UNKNOWN (an empty response)", async function () {
      const [o, r] = await diff({ __provider: scripted, a: 2 });
      expect(o).to.deep.equal(r);
      expect(o.bytes).to.equal("");
      expect(o.view).to.deep.equal(EMPTY_DIFF_VIEW);
    });

    it("26 diff_replaces_dbr: replaces [\"a\"] and deleteBeforeReplace true are both set", async function () {
      const [o, r] = await diff({ __provider: scripted, changes: "T", replaces: ["a"], dbr: true });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a"], deletebeforereplace: true });
    });

    it("26 diff_replaces_dbr: replaces [] and deleteBeforeReplace false leave both unset", async function () {
      const [plain] = await diff({ __provider: scripted, changes: "T" });
      const [o, r] = await diff({ __provider: scripted, changes: "T", replaces: [], dbr: false });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 2 });
      expect(o.bytes).to.equal(plain.bytes);
    });

    it("26 diff_replaces_dbr: a truthy non-boolean deleteBeforeReplace is true; a replaces string is split into characters", async function () {
      for (const dbr of [1, "yes"]) {
        const [o, r] = await diff({ __provider: scripted, changes: "T", replaces: "ab", dbr });
        expect(o, String(dbr)).to.deep.equal(r);
        expect(o.view, String(dbr)).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a", "b"], deletebeforereplace: true });
      }
    });

    it("27 diff_stables_ignored: stables never reach the response", async function () {
      const [plain] = await diff({ __provider: scripted, changes: "F" });
      const [o, r] = await diff({ __provider: scripted, changes: "F", stables: ["x"] });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 1 });
      expect(o.bytes).to.equal(plain.bytes);
    });

    it("28 diff_olds_are_outputs: diff sees DiffRequest.olds (the outputs), not old_inputs", async function () {
      const olds = { __provider: scripted, out1: 1, shared: 2 };
      const [o, r] = await both(pair, (c) =>
        c.diff({ urn: nodeUrn("d28"), id: "id1", olds, news: { __provider: scripted, echoOlds: true }, oldInputs: { __provider: scripted, in1: 1, shared: 2 } }),
      );
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, replacesList: ["out1", "shared"] });
    });

    it("29 diff_unknown_provider: an unknown news.__provider loads the provider from olds", async function () {
      const [o, r] = await diff({ __provider: UNKNOWN, changes: "T", replaces: ["a"] }, { __provider: scripted, a: 1 });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a"] });
    });

    it("29 diff_unknown_provider [difference]: unknown news.__provider and none in olds is named, not echoed", async function () {
      const urn = nodeUrn("d29");
      const since = mark(pair);
      const [o, r] = await both(pair, (c) => c.diff({ urn, id: "id1", olds: { a: 1 }, news: { __provider: UNKNOWN, changes: "T" } }));
      expect(r).to.deep.equal({ code: 2, details: "code must be a string, not undefined" });
      expect(o).to.deep.equal({ code: 2, details: noProviderMessage("Diff", urn, "olds") });
      const err = await stderrSince(pair, since, scripted);
      expect(firstLine(err.ref)).to.equal(echoed("Error: code must be a string, not undefined"));
      expect(err.ours).to.equal("");
    });

    it("30 diff_returns_undefined [difference]: diff returning undefined or null is named, not a TypeError, and not echoed", async function () {
      for (const [provider, mode, got] of [
        [scripted, { act: "diffUndefined" }, "undefined"],
        [shapes, { mode: "returnNull" }, "null"],
      ] as const) {
        const urn = nodeUrn("d30");
        const since = mark(pair);
        const news = { __provider: provider, ...mode };
        const [o, r] = await both(pair, (c) => c.diff({ urn, id: "id1", olds: { __provider: provider }, news }));
        const typeError = `Cannot read properties of ${got} (reading 'changes')`;
        expect(r).to.deep.equal({ code: 2, details: typeError });
        expect(o).to.deep.equal({
          code: 2,
          details: noObjectMessage("Diff", urn, "diff", got, "{ changes?, replaces?, deleteBeforeReplace? }"),
        });
        const err = await stderrSince(pair, since, scripted);
        expect(firstLine(err.ref)).to.equal(echoed(`TypeError: ${typeError}`));
        expect(err.ours).to.equal("");
      }
    });

    it("30 diff errors: a diff that throws is UNKNOWN (or its integer code) and echoed to stderr as Check's", async function () {
      const urn = nodeUrn("d30");
      for (const [act, want, line] of [
        [{ act: "throw", msg: "diff boom" }, { code: 2, details: "diff boom" }, "Error: diff boom: Error: diff boom"],
        [{ act: "throwCode", code: 9, msg: "pre" }, { code: 9, details: "pre" }, "Error: pre: Error: pre"],
      ] as const) {
        const since = mark(pair);
        const [o, r] = await both(pair, (c) => c.diff({ urn, id: "id1", olds: { __provider: scripted }, news: { __provider: scripted, ...act } }));
        expect(o).to.deep.equal(r).and.deep.equal(want);
        const err = await stderrSince(pair, since, scripted);
        expect(firstLine(err.ours)).to.equal(firstLine(err.ref)).and.equal(line);
      }
    });
  });

  describe("Create", function () {
    const pair = usePair();

    const create = (properties: Record<string, unknown>, urn = nodeUrn("cr")) =>
      both(pair, (c) => c.create({ urn, properties }));

    it("31 create_outs_provider_attached: the outputs are outs plus __provider from the request", async function () {
      const [o, r] = await create({ __provider: scripted, id: "c1", outs: { x: 1, n: null, o: { l: [null] } } });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ id: "c1", properties: { x: 1, n: null, o: { l: [null] }, __provider: scripted } });
    });

    it("31 create_outs_provider_attached: a __provider in outs is overwritten with the request's", async function () {
      const [o, r] = await create({ __provider: scripted, id: "c2", outs: { x: 1, __provider: "from the user" } });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ id: "c2", properties: { x: 1, __provider: scripted } });
    });

    it("32 create_no_outs: {id} only gives outputs {__provider}", async function () {
      const [o, r] = await create({ __provider: scripted, act: "noOuts", a: 1 });
      expect(o).to.deep.equal(r);
      expect(o.view).to.deep.equal({ id: "no-outs", properties: { __provider: scripted } });
    });

    it("32 create_no_outs [difference]: create returning undefined or null is named, not a TypeError", async function () {
      for (const [provider, mode, got] of [
        [scripted, { act: "returnUndefined" }, "undefined"],
        [shapes, { mode: "returnNull" }, "null"],
      ] as const) {
        const urn = nodeUrn("cr32");
        const since = mark(pair);
        const [o, r] = await create({ __provider: provider, ...mode }, urn);
        expect(r).to.deep.equal({ code: 2, details: `Cannot read properties of ${got} (reading 'outs')` });
        expect(o).to.deep.equal({ code: 2, details: noObjectMessage("Create", urn, "create", got, "{ id: string, outs? }") });
        const err = await stderrSince(pair, since, scripted);
        expect(err.ours).to.equal(err.ref).and.equal("");
      }
    });

    it("33 create_missing_method: `provider.create is not a function`, nothing on stderr", async function () {
      const since = mark(pair);
      const [o, r] = await create({ __provider: empty, a: 1 });
      expect(o).to.deep.equal(r).and.deep.equal({ code: 2, details: "provider.create is not a function" });
      const err = await stderrSince(pair, since, scripted);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });

    it("34 create_error_plain: UNKNOWN with the message, no status details, nothing on stderr", async function () {
      const since = mark(pair);
      const [o, r] = await create({ __provider: scripted, act: "throw", msg: "create failed" });
      expect(o).to.deep.equal(r).and.deep.equal({ code: 2, details: "create failed" });
      expect(o).to.not.have.property("initFailed");
      const err = await stderrSince(pair, since, scripted);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });

    it("34 create_error_plain: an integer e.code is not taken by Create (always UNKNOWN)", async function () {
      const [o, r] = await create({ __provider: scripted, act: "throwCode", code: 5, msg: "coded create" });
      expect(o).to.deep.equal(r).and.deep.equal({ code: 2, details: "coded create" });
    });

    it("35 create_init_failed_node: a thrown {message, id, properties, reasons} becomes ErrorResourceInitFailed without __provider", async function () {
      const since = mark(pair);
      const [o, r] = await create({ __provider: scripted, act: "throwInit", msg: "half made", failId: "i1", failProps: { a: 1 }, reasons: ["r"] });
      expect(o).to.deep.equal(r);
      expect(o).to.deep.equal({
        code: 2,
        details: "half made",
        initFailed: { statusCode: 2, statusMessage: "half made", typeUrl: INIT_FAILED_TYPE_URL, id: "i1", properties: { a: 1 }, reasons: ["r"] },
      });
      expect(o.initFailed!.properties).to.not.have.property("__provider");
      const err = await stderrSince(pair, since, scripted);
      expect(err.ours).to.equal(err.ref).and.equal("");
    });

    it("35 create_init_failed_node: an Error instance carrying id, properties and reasons", async function () {
      const [o, r] = await create({ __provider: scripted, act: "throwInitError", msg: "err init" });
      expect(o).to.deep.equal(r);
      expect(o).to.deep.equal({
        code: 2,
        details: "err init",
        initFailed: { statusCode: 2, statusMessage: "err init", typeUrl: INIT_FAILED_TYPE_URL, id: "i2", properties: { a: 1 }, reasons: ["r1", "r2"] },
      });
    });

    it("35 create_init_failed_node: a truthy non-string id still sends the detail, with an empty id as upstream's writer does", async function () {
      const [o, r] = await create({ __provider: scripted, act: "throwInit", msg: "numeric id", failId: 7 });
      expect(o).to.deep.equal(r);
      expect(o.initFailed).to.deep.equal({ statusCode: 2, statusMessage: "numeric id", typeUrl: INIT_FAILED_TYPE_URL, id: "", properties: {}, reasons: [] });
    });

    it("36 create_init_failed_no_reasons: no reasons and no properties give reasons [] and properties {}", async function () {
      const [o, r] = await create({ __provider: scripted, act: "throwInit", msg: "no reasons" });
      expect(o).to.deep.equal(r);
      expect(o).to.deep.equal({
        code: 2,
        details: "no reasons",
        initFailed: { statusCode: 2, statusMessage: "no reasons", typeUrl: INIT_FAILED_TYPE_URL, id: "i1", properties: {}, reasons: [] },
      });
    });
  });
});
