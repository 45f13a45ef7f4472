// Spec §9 rows 15–36 (Check, Diff, Create), Node side. The value the spec
// names is asserted (expect) besides the answers being compared, so that no
// case passes on two equally wrong answers; where we deliberately differ
// (docs/parity.md) the case pins both behaviours.
import { equal, includes, ok, session, UNKNOWN, type Case, type CaseContext } from "../../case.js";
import { EMPTY_DIFF_VIEW, type Outcome, type Props } from "../../client.js";
import { echoed, firstLine, INIT_FAILED_TYPE_URL, noObjectMessage, noProviderMessage, withStderr, type Echoed } from "./node-common.js";

const TOP = "differential (Node): Check, Diff and Create (§9 rows 15–36)";
const PARITY = "docs/parity.md#node-pulumi-resource-pulumi-nodejs";

const scripted = (ctx: CaseContext) => ctx.payload("scripted");
const createOnly = (ctx: CaseContext) => ctx.payload("createOnly");
const empty = (ctx: CaseContext) => ctx.payload("empty");
const shapes = (ctx: CaseContext) => ctx.payload("checkShapes", "node-providers-cdc");

/** An answer with the request bag it answered, for expectations that name what was sent. */
interface Sent {
  sent: Props;
  o: Outcome;
}

// ---------------------------------------------------------------- Check

const check = session({ id: "node/check", language: "nodejs", suite: [TOP, "Check"] });

/** A Check sent with a throwing or odd provider, and the stderr it caused. */
interface CheckEcho extends Echoed {
  urn: string;
  got?: string;
}

const checkCases: Case[] = [
  check.case<Sent[]>("15-default-passthrough", {
    title: "15 check_default_passthrough: without check, inputs are news exactly (nulls and nesting kept) and no failures",
    spec: ["15"],
    async ask(ctx) {
      const out: Sent[] = [];
      for (const provider of [await createOnly(ctx), await empty(ctx)]) {
        const news = { __provider: provider, b: 1, a: "x", n: null, o: { z: null, y: [null, 1, { k: null }] }, t: true };
        out.push({ sent: news, o: await ctx.client.check({ urn: ctx.urn("c15"), olds: { __provider: provider, old: 1 }, news }) });
      }
      return out;
    },
    expect(answers) {
      for (const { sent, o } of answers) {
        equal(o.code, 0, o.details);
        equal(o.view, { inputs: sent, failures: [] });
      }
    },
  }),

  check.case<Sent>("16-inputs-failures", {
    title: "16 check_user_inputs_failures: returned inputs and failures map to the CheckResponse",
    spec: ["16"],
    async ask(ctx) {
      const news = { __provider: await scripted(ctx), act: "checkFailures", a: 1 };
      return { sent: news, o: await ctx.client.check({ urn: ctx.urn("c16"), news }) };
    },
    expect: ({ sent, o }) =>
      equal(o.view, {
        inputs: { ...sent, checked: true },
        failures: [
          { property: "a", reason: "bad a" },
          { property: "b", reason: "bad b" },
        ],
      }),
  }),

  check.case<Sent>("16-provider-overwritten", {
    title: "16 check_user_inputs_failures: a __provider the check returns is overwritten from news",
    spec: ["16"],
    async ask(ctx) {
      const news = { __provider: await scripted(ctx), act: "checkOverwriteProvider", a: 1 };
      return { sent: news, o: await ctx.client.check({ urn: ctx.urn("c16"), news }) };
    },
    expect: ({ sent, o }) => equal(o.view, { inputs: sent, failures: [] }),
  }),

  check.case<Sent>("16-partial-failures", {
    title: "16 check_user_inputs_failures: a missing or non-string failure field arrives as an empty string",
    spec: ["16"],
    async ask(ctx) {
      const news = { __provider: await shapes(ctx), mode: "partialFailures", a: 1 };
      return { sent: news, o: await ctx.client.check({ urn: ctx.urn("c16"), news }) };
    },
    expect: ({ sent, o }) =>
      equal(o.view, {
        inputs: { __provider: sent.__provider, a: 1 },
        failures: [
          { property: "a", reason: "" },
          { property: "", reason: "no property" },
          { property: "", reason: "numeric property" },
        ],
      }),
  }),

  check.case<Sent[]>("17-failures-empty-vs-missing", {
    title: "17 check_failures_empty_vs_missing: failures [], null or left out give byte-identical responses",
    spec: ["17"],
    async ask(ctx) {
      const out: Sent[] = [];
      for (const mode of ["emptyFailures", "noFailures", "nullFailures"]) {
        const news = { __provider: await shapes(ctx), mode, a: 1 };
        out.push({ sent: news, o: await ctx.client.check({ urn: ctx.urn("c17"), news }) });
      }
      return out;
    },
    expect(answers) {
      for (const { sent, o } of answers) equal(o.view, { inputs: { __provider: sent.__provider, a: 1 }, failures: [] }, String(sent.mode));
      ok(typeof answers[0].o.bytes === "string" && answers[0].o.bytes !== "", "the response has bytes");
      equal(answers[1].o.bytes, answers[0].o.bytes, "noFailures' bytes");
      equal(answers[2].o.bytes, answers[0].o.bytes, "nullFailures' bytes");
    },
  }),

  check.case<Sent[]>("18-falsy-inputs", {
    title: '18 check_result_inputs_falsy: falsy inputs (null, undefined, 0, "", false) fall back to news',
    spec: ["18"],
    async ask(ctx) {
      const modes: { provider: string; mode: Record<string, string> }[] = [
        { provider: await scripted(ctx), mode: { act: "checkFalsyInputs" } },
        ...["undefinedInputs", "nullInputs", "zeroInputs", "emptyStringInputs", "falseInputs"].map((m) => ({ provider: "", mode: { mode: m } })),
      ];
      const out: Sent[] = [];
      for (const { provider, mode } of modes) {
        const news = { __provider: provider || (await shapes(ctx)), ...mode, a: 1, n: null };
        out.push({ sent: news, o: await ctx.client.check({ urn: ctx.urn("c18"), news }) });
      }
      return out;
    },
    expect(answers) {
      for (const { sent, o } of answers) equal(o.view, { inputs: sent, failures: [] }, JSON.stringify(sent.act ?? sent.mode));
    },
  }),

  check.case<Sent>("18-empty-object-inputs", {
    title: "18 check_result_inputs_falsy: inputs {} is truthy, so the checked inputs are only __provider",
    spec: ["18"],
    async ask(ctx) {
      const news = { __provider: await shapes(ctx), mode: "emptyObjectInputs", a: 1 };
      return { sent: news, o: await ctx.client.check({ urn: ctx.urn("c18"), news }) };
    },
    expect: ({ sent, o }) => equal(o.view, { inputs: { __provider: sent.__provider }, failures: [] }),
  }),

  check.case<CheckEcho[]>("18-returns-nothing", {
    title: "18 check_result_inputs_falsy [difference]: check returning undefined or null is named, not a TypeError, and not echoed",
    spec: ["18"],
    async ask(ctx) {
      const out: CheckEcho[] = [];
      for (const [provider, mode, got] of [
        [await scripted(ctx), { act: "checkUndefined" }, "undefined"],
        [await shapes(ctx), { mode: "returnNull" }, "null"],
      ] as const) {
        const urn = ctx.urn("c18");
        out.push({ urn, got, ...(await withStderr(ctx, () => ctx.client.check({ urn, news: { __provider: provider, ...mode } }))) });
      }
      return out;
    },
    difference: {
      doc: PARITY,
      ours(answers) {
        for (const { urn, got, o, err } of answers) {
          equal(o, { code: 2, details: noObjectMessage("Check", urn, "check", got!, "{ inputs?, failures? }") });
          equal(err, "", "stderr");
        }
      },
      reference(answers) {
        for (const { got, o, err } of answers) {
          const typeError = `Cannot read properties of ${got} (reading 'inputs')`;
          equal(o, { code: 2, details: typeError });
          equal(firstLine(err), echoed(`TypeError: ${typeError}`), "stderr's first line");
        }
      },
    },
  }),

  check.case<Sent>("19-unknown-values-view", {
    title: "19 check_unknown_values_view: a preview unknown reaches check as the sentinel string and is echoed back",
    spec: ["19"],
    async ask(ctx) {
      const news = { __provider: await scripted(ctx), a: UNKNOWN, l: [UNKNOWN] };
      return { sent: news, o: await ctx.client.check({ urn: ctx.urn("c19"), news }) };
    },
    expect({ o }) {
      equal(o.view?.inputs?.a, UNKNOWN);
      equal(o.view.inputs.l, [UNKNOWN]);
      equal(o.view.inputs.newsTypes, { __provider: "string", a: "string", l: "array" });
    },
  }),

  check.case<Outcome>("20-unknown-provider-uses-olds", {
    title: "20 check_unknown_provider_uses_olds: an unknown news.__provider loads the provider from olds",
    spec: ["20"],
    ask: async (ctx) => ctx.client.check({ urn: ctx.urn("c20"), olds: { __provider: await scripted(ctx), o: 1 }, news: { __provider: UNKNOWN, x: 1 } }),
    expect(o) {
      equal(o.code, 0, o.details);
      includes(o.view.inputs, { __provider: UNKNOWN, x: 1, oldsKeys: ["__provider", "o"], newsKeys: ["__provider", "x"] });
    },
  }),

  ...(
    [
      ["20-unknown-provider-no-olds", "20 check_unknown_provider_uses_olds [difference]: unknown news.__provider and none in olds is named, not echoed", "20", "c20", { olds: { o: 1 }, news: { __provider: UNKNOWN, x: 1 } }, "olds", "has no", "undefined"],
      ["21-missing-provider-key", "21 check_missing_provider_key [difference]: no __provider in news is named, not `code must be a string`, and not echoed", "21", "c21", { news: { a: 1 } }, "news", "has no", "undefined"],
      ["21-non-string-provider", "21 check_missing_provider_key [difference]: a non-string __provider is named with its kind, and not echoed", "21", "c21", { news: { __provider: 5, a: 1 } }, "news", "has a number as its", "number"],
    ] as const
  ).map(([slug, title, row, name, bags, bag, problem, kind]) =>
    check.case<CheckEcho>(slug, {
      title,
      spec: [row],
      async ask(ctx) {
        const urn = ctx.urn(name);
        return { urn, ...(await withStderr(ctx, () => ctx.client.check({ urn, ...bags }))) };
      },
      difference: {
        doc: PARITY,
        ours({ urn, o, err }, ctx) {
          equal(o, { code: 2, details: noProviderMessage("Check", urn, bag, problem, ctx.programDir) });
          equal(err, "", "stderr");
        },
        reference({ o, err }) {
          equal(o, { code: 2, details: `code must be a string, not ${kind}` });
          equal(firstLine(err), echoed(`Error: code must be a string, not ${kind}`), "stderr's first line");
        },
      },
    }),
  ),

  check.case<Echoed>("22-throws-stderr", {
    title: "22 check_throws_stderr: UNKNOWN with the message, and `${e}: ${e.stack}` on stderr",
    spec: ["22"],
    ask: async (ctx) => withStderr(ctx, async () => ctx.client.check({ urn: ctx.urn("c22"), news: { __provider: await scripted(ctx), act: "throw", msg: "boom" } })),
    // The rest of stderr is the stack: frames differ, but it is one, and only one, echo.
    compare: ({ o, err }) => ({ o, first: firstLine(err) }),
    expect({ o, err }) {
      equal(o, { code: 2, details: "boom" });
      equal(firstLine(err), "Error: boom: Error: boom", "stderr's first line");
      equal(err.split("\n").filter((l) => l.startsWith("Error:")).length, 1, "echoes on stderr");
    },
  }),

  check.case<Echoed>("23-numeric-code", {
    title: "23 check_error_numeric_code: an integer e.code becomes the status code, and the error is still echoed",
    spec: ["23"],
    ask: async (ctx) =>
      withStderr(ctx, async () => ctx.client.check({ urn: ctx.urn("c23"), news: { __provider: await scripted(ctx), act: "throwCode", code: 5, msg: "x" } })),
    compare: ({ o, err }) => ({ o, first: firstLine(err) }),
    expect({ o, err }) {
      equal(o, { code: 5, details: "x" });
      equal(firstLine(err), "Error: x: Error: x", "stderr's first line");
    },
  }),

  check.case<Sent[]>("23-details-and-non-integer-codes", {
    title: "23 check_error_numeric_code: e.details replaces the message with the code; a non-integer code is UNKNOWN",
    spec: ["23"],
    async ask(ctx) {
      const out: Sent[] = [];
      for (const act of [
        { act: "throwCodeDetails", code: 5, details: "d" },
        { act: "throwCodeDetails", code: 5, details: 3 },
        { act: "throwCode", code: "5", msg: "s" },
        { act: "throwCode", code: 5.5, msg: "f" },
      ]) {
        out.push({ sent: act, o: await ctx.client.check({ urn: ctx.urn("c23"), news: { __provider: await scripted(ctx), ...act } }) });
      }
      return out;
    },
    expect(answers) {
      const wants: Outcome[] = [
        { code: 5, details: "d" },
        { code: 5, details: "m" },
        { code: 2, details: "s" },
        { code: 2, details: "f" },
      ];
      answers.forEach(({ sent, o }, i) => equal(o, wants[i], JSON.stringify(sent)));
    },
  }),
];

// ---------------------------------------------------------------- Diff

const diffSession = session({ id: "node/diff", language: "nodejs", suite: [TOP, "Diff"] });

/** The Diff most cases send: olds and old inputs { __provider: scripted, a: 1 } unless given. */
async function diff(ctx: CaseContext, news: Props, olds?: Props): Promise<Outcome> {
  const s = await scripted(ctx);
  return ctx.client.diff({ urn: ctx.urn("d"), id: "id1", olds: olds ?? { __provider: s, a: 1 }, news, oldInputs: { __provider: s, a: 1 } });
}

// changes as the provider returns it -> DiffResponse.changes (Node: strict true/false, D12).
const CHANGES_MATRIX: [string, string, number][] = [
  ["T", "true", 2],
  ["F", "false", 1],
  ["U", "undefined", 0],
  ["N", "null", 0],
  ["one", "1", 0],
  ["zero", "0", 0],
  ["yes", '"yes"', 0],
  ["empty", '""', 0],
];

interface LayoutOnly {
  layout: Outcome;
  others: Outcome[];
  reformatted: boolean;
}

const diffCases: Case[] = [
  diffSession.case<Outcome[]>("24-missing-method", {
    title: "24 diff_missing_method: DIFF_UNKNOWN with no replaces and no deleteBeforeReplace (an empty response)",
    spec: ["24"],
    async ask(ctx) {
      const out: Outcome[] = [];
      for (const provider of [await createOnly(ctx), await empty(ctx)]) out.push(await diff(ctx, { __provider: provider, a: 2 }, { __provider: provider, a: 1 }));
      return out;
    },
    expect(answers) {
      for (const o of answers) {
        equal(o.code, 0, o.details);
        equal(o.bytes, "", "response bytes");
        equal(o.view, EMPTY_DIFF_VIEW);
      }
    },
  }),

  diffSession.case<LayoutOnly>("24b-provider-layout-only", {
    title:
      "24b diff_provider_layout_only [difference]: without diff, __provider changed only in line endings and trailing blanks: ours DIFF_NONE, the reference DIFF_UNKNOWN",
    spec: ["24"],
    async ask(ctx) {
      const [co, em, sc] = [await createOnly(ctx), await empty(ctx), await scripted(ctx)];
      const reformatted = co.replace(/\n/g, "  \r\n");
      const ask = (oldInputs: Props, news: Props) => ctx.client.diff({ urn: ctx.urn("d"), id: "id1", olds: { ...oldInputs, out: 1 }, news, oldInputs });
      const layout = await ask({ __provider: reformatted, a: 1 }, { __provider: co, a: 1 });
      // Anything else changed too, or the code itself, or a user's diff: alike, as before.
      const others: Outcome[] = [];
      for (const [oldInputs, news] of [
        [{ __provider: reformatted, a: 1 }, { __provider: co, a: 2 }],
        [{ __provider: co, a: 1 }, { __provider: em, a: 1 }],
        [{ __provider: sc.replace(/\n/g, "\r\n"), a: 1 }, { __provider: sc, a: 1 }],
      ]) {
        others.push(await ask(oldInputs, news));
      }
      return { layout, others, reformatted: reformatted !== co };
    },
    compare: ({ others }) => others,
    expect({ others, reformatted }) {
      ok(reformatted, "the reformatted text differs");
      for (const o of others) equal(o.view?.changes, 0, "changes of a diff that is not layout only");
    },
    difference: {
      doc: PARITY,
      ours({ layout }) {
        equal(layout.code, 0, layout.details);
        equal(layout.view, { ...EMPTY_DIFF_VIEW, changes: 1 });
      },
      reference({ layout }) {
        includes(layout, { code: 0, bytes: "" });
        equal(layout.view, EMPTY_DIFF_VIEW);
      },
    },
  }),

  ...CHANGES_MATRIX.map(([key, shown, want]) =>
    diffSession.case<Outcome>(`25-changes-${key}`, {
      title: `25 diff_changes_matrix: changes ${shown} gives ${["DIFF_UNKNOWN", "DIFF_NONE", "DIFF_SOME"][want]}`,
      spec: ["25"],
      ask: async (ctx) => diff(ctx, { __provider: await scripted(ctx), changes: key }),
      expect: (o) => equal(o.view, { ...EMPTY_DIFF_VIEW, changes: want }),
    }),
  ),

  diffSession.case<Outcome>("25-no-changes-key", {
    title: "25 diff_changes_matrix: no changes key gives DIFF_UNKNOWN (an empty response)",
    spec: ["25"],
    ask: async (ctx) => diff(ctx, { __provider: await scripted(ctx), a: 2 }),
    expect(o) {
      equal(o.bytes, "", "response bytes");
      equal(o.view, EMPTY_DIFF_VIEW);
    },
  }),

  diffSession.case<Outcome>("26-replaces-dbr", {
    title: '26 diff_replaces_dbr: replaces ["a"] and deleteBeforeReplace true are both set',
    spec: ["26"],
    ask: async (ctx) => diff(ctx, { __provider: await scripted(ctx), changes: "T", replaces: ["a"], dbr: true }),
    expect: (o) => equal(o.view, { ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a"], deletebeforereplace: true }),
  }),

  diffSession.case<{ plain: Outcome; o: Outcome }>("26-empty-replaces-false-dbr", {
    title: "26 diff_replaces_dbr: replaces [] and deleteBeforeReplace false leave both unset",
    spec: ["26"],
    async ask(ctx) {
      const plain = await diff(ctx, { __provider: await scripted(ctx), changes: "T" });
      return { plain, o: await diff(ctx, { __provider: await scripted(ctx), changes: "T", replaces: [], dbr: false }) };
    },
    compare: ({ o }) => o,
    expect({ plain, o }) {
      equal(o.view, { ...EMPTY_DIFF_VIEW, changes: 2 });
      equal(o.bytes, plain.bytes, "the same bytes as neither");
    },
  }),

  diffSession.case<Outcome[]>("26-truthy-dbr-replaces-string", {
    title: "26 diff_replaces_dbr: a truthy non-boolean deleteBeforeReplace is true; a replaces string is split into characters",
    spec: ["26"],
    async ask(ctx) {
      const out: Outcome[] = [];
      for (const dbr of [1, "yes"]) out.push(await diff(ctx, { __provider: await scripted(ctx), changes: "T", replaces: "ab", dbr }));
      return out;
    },
    expect(answers) {
      for (const [i, o] of answers.entries()) equal(o.view, { ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a", "b"], deletebeforereplace: true }, ["1", "yes"][i]);
    },
  }),

  diffSession.case<{ plain: Outcome; o: Outcome }>("27-stables-ignored", {
    title: "27 diff_stables_ignored: stables never reach the response",
    spec: ["27"],
    async ask(ctx) {
      const plain = await diff(ctx, { __provider: await scripted(ctx), changes: "F" });
      return { plain, o: await diff(ctx, { __provider: await scripted(ctx), changes: "F", stables: ["x"] }) };
    },
    compare: ({ o }) => o,
    expect({ plain, o }) {
      equal(o.view, { ...EMPTY_DIFF_VIEW, changes: 1 });
      equal(o.bytes, plain.bytes, "the same bytes as without stables");
    },
  }),

  diffSession.case<Outcome>("28-olds-are-outputs", {
    title: "28 diff_olds_are_outputs: diff sees DiffRequest.olds (the outputs), not old_inputs",
    spec: ["28"],
    async ask(ctx) {
      const s = await scripted(ctx);
      return ctx.client.diff({ urn: ctx.urn("d28"), id: "id1", olds: { __provider: s, out1: 1, shared: 2 }, news: { __provider: s, echoOlds: true }, oldInputs: { __provider: s, in1: 1, shared: 2 } });
    },
    expect: (o) => equal(o.view, { ...EMPTY_DIFF_VIEW, replacesList: ["out1", "shared"] }),
  }),

  diffSession.case<Outcome>("29-unknown-provider-uses-olds", {
    title: "29 diff_unknown_provider: an unknown news.__provider loads the provider from olds",
    spec: ["29"],
    ask: async (ctx) => diff(ctx, { __provider: UNKNOWN, changes: "T", replaces: ["a"] }, { __provider: await scripted(ctx), a: 1 }),
    expect: (o) => equal(o.view, { ...EMPTY_DIFF_VIEW, changes: 2, replacesList: ["a"] }),
  }),

  diffSession.case<CheckEcho>("29-unknown-provider-no-olds", {
    title: "29 diff_unknown_provider [difference]: unknown news.__provider and none in olds is named, not echoed",
    spec: ["29"],
    async ask(ctx) {
      const urn = ctx.urn("d29");
      return { urn, ...(await withStderr(ctx, () => ctx.client.diff({ urn, id: "id1", olds: { a: 1 }, news: { __provider: UNKNOWN, changes: "T" } }))) };
    },
    difference: {
      doc: PARITY,
      ours({ urn, o, err }, ctx) {
        equal(o, { code: 2, details: noProviderMessage("Diff", urn, "olds", "has no", ctx.programDir) });
        equal(err, "", "stderr");
      },
      reference({ o, err }) {
        equal(o, { code: 2, details: "code must be a string, not undefined" });
        equal(firstLine(err), echoed("Error: code must be a string, not undefined"), "stderr's first line");
      },
    },
  }),

  diffSession.case<CheckEcho[]>("30-returns-nothing", {
    title: "30 diff_returns_undefined [difference]: diff returning undefined or null is named, not a TypeError, and not echoed",
    spec: ["30"],
    async ask(ctx) {
      const out: CheckEcho[] = [];
      for (const [provider, mode, got] of [
        [await scripted(ctx), { act: "diffUndefined" }, "undefined"],
        [await shapes(ctx), { mode: "returnNull" }, "null"],
      ] as const) {
        const urn = ctx.urn("d30");
        const news = { __provider: provider, ...mode };
        out.push({ urn, got, ...(await withStderr(ctx, () => ctx.client.diff({ urn, id: "id1", olds: { __provider: provider }, news }))) });
      }
      return out;
    },
    difference: {
      doc: PARITY,
      ours(answers) {
        for (const { urn, got, o, err } of answers) {
          equal(o, { code: 2, details: noObjectMessage("Diff", urn, "diff", got!, "{ changes?, replaces?, deleteBeforeReplace? }") });
          equal(err, "", "stderr");
        }
      },
      reference(answers) {
        for (const { got, o, err } of answers) {
          const typeError = `Cannot read properties of ${got} (reading 'changes')`;
          equal(o, { code: 2, details: typeError });
          equal(firstLine(err), echoed(`TypeError: ${typeError}`), "stderr's first line");
        }
      },
    },
  }),

  diffSession.case<Echoed[]>("30-diff-errors", {
    title: "30 diff errors: a diff that throws is UNKNOWN (or its integer code) and echoed to stderr as Check's",
    spec: ["30"],
    async ask(ctx) {
      const s = await scripted(ctx);
      const out: Echoed[] = [];
      for (const act of [
        { act: "throw", msg: "diff boom" },
        { act: "throwCode", code: 9, msg: "pre" },
      ]) {
        out.push(await withStderr(ctx, () => ctx.client.diff({ urn: ctx.urn("d30"), id: "id1", olds: { __provider: s }, news: { __provider: s, ...act } })));
      }
      return out;
    },
    compare: (answers) => answers.map(({ o, err }) => ({ o, first: firstLine(err) })),
    expect(answers) {
      equal(answers[0].o, { code: 2, details: "diff boom" });
      equal(firstLine(answers[0].err), "Error: diff boom: Error: diff boom", "stderr's first line");
      equal(answers[1].o, { code: 9, details: "pre" });
      equal(firstLine(answers[1].err), "Error: pre: Error: pre", "stderr's first line");
    },
  }),
];

// ---------------------------------------------------------------- Create

const create = session({ id: "node/create", language: "nodejs", suite: [TOP, "Create"] });

const createWith = (ctx: CaseContext, properties: Props, urn = ctx.urn("cr")) => ctx.client.create({ urn, properties });

const createCases: Case[] = [
  create.case<Sent>("31-outs-provider-attached", {
    title: "31 create_outs_provider_attached: the outputs are outs plus __provider from the request",
    spec: ["31"],
    async ask(ctx) {
      const sent = { __provider: await scripted(ctx), id: "c1", outs: { x: 1, n: null, o: { l: [null] } } };
      return { sent, o: await createWith(ctx, sent) };
    },
    expect: ({ sent, o }) => equal(o.view, { id: "c1", properties: { x: 1, n: null, o: { l: [null] }, __provider: sent.__provider } }),
  }),

  create.case<Sent>("31-outs-provider-overwritten", {
    title: "31 create_outs_provider_attached: a __provider in outs is overwritten with the request's",
    spec: ["31"],
    async ask(ctx) {
      const sent = { __provider: await scripted(ctx), id: "c2", outs: { x: 1, __provider: "from the user" } };
      return { sent, o: await createWith(ctx, sent) };
    },
    expect: ({ sent, o }) => equal(o.view, { id: "c2", properties: { x: 1, __provider: sent.__provider } }),
  }),

  create.case<Sent>("32-no-outs", {
    title: "32 create_no_outs: {id} only gives outputs {__provider}",
    spec: ["32"],
    async ask(ctx) {
      const sent = { __provider: await scripted(ctx), act: "noOuts", a: 1 };
      return { sent, o: await createWith(ctx, sent) };
    },
    expect: ({ sent, o }) => equal(o.view, { id: "no-outs", properties: { __provider: sent.__provider } }),
  }),

  create.case<CheckEcho[]>("32-returns-nothing", {
    title: "32 create_no_outs [difference]: create returning undefined or null is named, not a TypeError",
    spec: ["32"],
    async ask(ctx) {
      const out: CheckEcho[] = [];
      for (const [provider, mode, got] of [
        [await scripted(ctx), { act: "returnUndefined" }, "undefined"],
        [await shapes(ctx), { mode: "returnNull" }, "null"],
      ] as const) {
        const urn = ctx.urn("cr32");
        out.push({ urn, got, ...(await withStderr(ctx, () => createWith(ctx, { __provider: provider, ...mode }, urn))) });
      }
      return out;
    },
    expect(answers) {
      for (const { err } of answers) equal(err, "", "stderr");
    },
    difference: {
      doc: PARITY,
      ours(answers) {
        for (const { urn, got, o } of answers) equal(o, { code: 2, details: noObjectMessage("Create", urn, "create", got!, "{ id: string, outs? }") });
      },
      reference(answers) {
        for (const { got, o } of answers) equal(o, { code: 2, details: `Cannot read properties of ${got} (reading 'outs')` });
      },
    },
  }),

  create.case<Echoed>("33-missing-method", {
    title: "33 create_missing_method: `provider.create is not a function`, nothing on stderr",
    spec: ["33"],
    ask: async (ctx) => withStderr(ctx, async () => createWith(ctx, { __provider: await empty(ctx), a: 1 })),
    expect({ o, err }) {
      equal(o, { code: 2, details: "provider.create is not a function" });
      equal(err, "", "stderr");
    },
  }),

  create.case<Echoed>("34-error-plain", {
    title: "34 create_error_plain: UNKNOWN with the message, no status details, nothing on stderr",
    spec: ["34"],
    ask: async (ctx) => withStderr(ctx, async () => createWith(ctx, { __provider: await scripted(ctx), act: "throw", msg: "create failed" })),
    expect({ o, err }) {
      equal(o, { code: 2, details: "create failed" });
      ok(!("initFailed" in o), "no ErrorResourceInitFailed detail");
      equal(err, "", "stderr");
    },
  }),

  create.case<Outcome>("34-integer-code-ignored", {
    title: "34 create_error_plain: an integer e.code is not taken by Create (always UNKNOWN)",
    spec: ["34"],
    ask: async (ctx) => createWith(ctx, { __provider: await scripted(ctx), act: "throwCode", code: 5, msg: "coded create" }),
    expect: (o) => equal(o, { code: 2, details: "coded create" }),
  }),

  create.case<Echoed>("35-init-failed", {
    title: "35 create_init_failed_node: a thrown {message, id, properties, reasons} becomes ErrorResourceInitFailed without __provider",
    spec: ["35"],
    ask: async (ctx) =>
      withStderr(ctx, async () => createWith(ctx, { __provider: await scripted(ctx), act: "throwInit", msg: "half made", failId: "i1", failProps: { a: 1 }, reasons: ["r"] })),
    expect({ o, err }) {
      equal(o, {
        code: 2,
        details: "half made",
        initFailed: { statusCode: 2, statusMessage: "half made", typeUrl: INIT_FAILED_TYPE_URL, id: "i1", properties: { a: 1 }, reasons: ["r"] },
      });
      ok(!("__provider" in o.initFailed!.properties), "no __provider in the detail's properties");
      equal(err, "", "stderr");
    },
  }),

  create.case<Outcome>("35-init-failed-error-instance", {
    title: "35 create_init_failed_node: an Error instance carrying id, properties and reasons",
    spec: ["35"],
    ask: async (ctx) => createWith(ctx, { __provider: await scripted(ctx), act: "throwInitError", msg: "err init" }),
    expect: (o) =>
      equal(o, {
        code: 2,
        details: "err init",
        initFailed: { statusCode: 2, statusMessage: "err init", typeUrl: INIT_FAILED_TYPE_URL, id: "i2", properties: { a: 1 }, reasons: ["r1", "r2"] },
      }),
  }),

  create.case<Outcome>("35-init-failed-numeric-id", {
    title: "35 create_init_failed_node: a truthy non-string id still sends the detail, with an empty id as upstream's writer does",
    spec: ["35"],
    ask: async (ctx) => createWith(ctx, { __provider: await scripted(ctx), act: "throwInit", msg: "numeric id", failId: 7 }),
    expect: (o) => equal(o.initFailed, { statusCode: 2, statusMessage: "numeric id", typeUrl: INIT_FAILED_TYPE_URL, id: "", properties: {}, reasons: [] }),
  }),

  create.case<Outcome>("36-init-failed-no-reasons", {
    title: "36 create_init_failed_no_reasons: no reasons and no properties give reasons [] and properties {}",
    spec: ["36"],
    ask: async (ctx) => createWith(ctx, { __provider: await scripted(ctx), act: "throwInit", msg: "no reasons" }),
    expect: (o) =>
      equal(o, {
        code: 2,
        details: "no reasons",
        initFailed: { statusCode: 2, statusMessage: "no reasons", typeUrl: INIT_FAILED_TYPE_URL, id: "i1", properties: {}, reasons: [] },
      }),
  }),
];

export const nodeCheckDiffCreate: Case[] = [...checkCases, ...diffCases, ...createCases];
