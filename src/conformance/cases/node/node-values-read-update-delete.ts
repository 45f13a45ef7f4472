// Spec §9 rows 38–60 and 75–78 (Node): value encoding through Create, and the
// Read, Update and Delete RPCs. Where the reference writes to stderr or stdout,
// that output (its first line) is observed and compared too.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { ARCHIVE_SIG, ASSET_SIG, equal, ok, RESOURCE_SIG, secret, session, SIG, UNKNOWN, type Case, type CaseContext } from "../../case.js";
import type { Outcome, Props } from "../../client.js";
import { firstLine, INIT_FAILED_TYPE_URL, withStderr, type Echoed } from "./node-common.js";
import { howToDeclare } from "../project-file.js";

const TOP = "differential (Node): values through create; read, update, delete";
const PARITY = "docs/parity.md#node-pulumi-resource-pulumi-nodejs";
const RUD = "node-providers-rud";

const scripted = (ctx: CaseContext) => ctx.payload("scripted");
const createOnly = (ctx: CaseContext) => ctx.payload("createOnly");
const empty = (ctx: CaseContext) => ctx.payload("empty");

interface Sent {
  sent: Props;
  o: Outcome;
}
type SentEcho = Echoed & { sent: Props; urn: string };

const create = (ctx: CaseContext, properties: Props, extra: { preview?: boolean } = {}) => ctx.client.create({ urn: ctx.urn("c"), properties, ...extra });

// ---------------------------------------------------------------- Create values

const values = session({ id: "node/values", language: "nodejs", suite: [TOP, "create values"] });

const createValues: Case[] = [
  values.case<SentEcho[]>("38-outs-undefined-value", {
    title: "38 create_outs_undefined_value [difference]: the reference fails with `Unexpected struct type.`; ours names the path",
    spec: ["38"],
    async ask(ctx) {
      const out: SentEcho[] = [];
      for (const act of ["undefinedValue", "nestedUndefined", "functionValue"]) {
        out.push({ sent: { act }, urn: ctx.urn("c"), ...(await withStderr(ctx, async () => create(ctx, { __provider: await scripted(ctx), act }))) });
      }
      return out;
    },
    // Create errors are never echoed to stderr, by either.
    expect(answers) {
      for (const { sent, err } of answers) equal(err, "", `${sent.act}: stderr`);
    },
    difference: {
      doc: PARITY,
      ours(answers) {
        const where = ["outs.a = undefined", "outs.o.l[1] = undefined", "outs.f = a function"];
        answers.forEach(({ sent, urn, o }, i) =>
          equal(
            o,
            {
              code: 2,
              details:
                `Create ${urn}: the dynamic provider's create returned ${where[i]}, which cannot be sent to the engine ` +
                `(Unexpected struct type.); use null or leave the key out`,
            },
            String(sent.act),
          ),
        );
      },
      reference(answers) {
        for (const { sent, o } of answers) equal(o, { code: 2, details: "Unexpected struct type." }, String(sent.act));
      },
    },
  }),

  values.case<Outcome>("39-number-types", {
    title: "39 create_number_types: numbers arrive as JS numbers and go back as equal doubles",
    spec: ["39"],
    ask: async (ctx) => create(ctx, { __provider: await scripted(ctx), act: "echo", ...NUMS }),
    expect(o) {
      equal(o.code, 0, o.details);
      const outs = o.view.properties;
      for (const [k, v] of Object.entries(NUMS)) {
        equal(outs[k], v, k);
        equal(outs.types[k], "number", k);
      }
      ok(Object.is(outs.nz, -0), "-0 stays -0");
    },
  }),

  values.case<Sent>("40-nested-nulls", {
    title: "40 create_nested_nulls: nulls in objects and lists are kept both ways",
    spec: ["40"],
    async ask(ctx) {
      const sent = { __provider: await scripted(ctx), act: "nested", o: { x: null, y: { z: null } }, l: [null, { w: null }, [null]], top: null };
      return { sent, o: await create(ctx, sent) };
    },
    expect({ sent, o }) {
      equal(o.code, 0, o.details);
      equal(o.view.properties, {
        __provider: sent.__provider,
        o: { x: null, y: { z: null } },
        l: [null, { w: null }, [null]],
        types: { __provider: "string", act: "string", l: "array", o: "object", top: "null" },
      });
    },
  }),

  values.case<SentEcho[]>("41-empty-or-numeric-id", {
    title: '41 create_empty_or_numeric_id [difference]: the reference answers id ""; ours refuses with a clear message',
    spec: ["41"],
    async ask(ctx) {
      const out: SentEcho[] = [];
      for (const act of ["idEmpty", "idMissing", "idNumber"]) {
        const sent = { __provider: await scripted(ctx), act };
        out.push({ sent, urn: ctx.urn("c"), ...(await withStderr(ctx, () => create(ctx, sent))) });
      }
      return out;
    },
    expect(answers) {
      for (const { sent, err } of answers) equal(err, "", `${sent.act}: stderr`);
    },
    difference: {
      doc: PARITY,
      ours(answers) {
        const got = ['an empty id ("")', "no id", "id 5 (a number)"];
        answers.forEach(({ sent, urn, o }, i) =>
          equal(
            o,
            {
              code: 2,
              details: `Create ${urn}: the dynamic provider's create returned ${got[i]}; create must return { id: string, outs? } with a non-empty string id`,
            },
            String(sent.act),
          ),
        );
      },
      reference(answers) {
        answers.forEach(({ sent, o }, i) => {
          equal(o.code, 0, `${sent.act}: ${o.details}`);
          const provider = sent.__provider;
          equal(o.view, { id: "", properties: i === 1 ? { __provider: provider, a: 1 } : { __provider: provider } }, String(sent.act));
        });
      },
    },
  }),

  values.case<{ counter: string; seen: Outcome[] }>("42-preview-flag-ignored", {
    title: "42 create_preview_flag_ignored: preview=true still runs the user's create",
    spec: ["42"],
    async ask(ctx) {
      const counter = await ctx.payload("counter", RUD);
      const seen: Outcome[] = [];
      for (const preview of [true, false, true]) seen.push(await create(ctx, { __provider: counter }, { preview }));
      return { counter, seen };
    },
    expect: ({ counter, seen }) => equal(seen.map((o) => o.view), [1, 2, 3].map((n) => ({ id: `call-${n}`, properties: { __provider: counter, calls: n } }))),
  }),

  values.case<{ sig: Sent; echo: Outcome }>("44-secret-sig-returned", {
    title: "44 create_secret_sig_returned: an explicit secret sig goes back unchanged",
    spec: ["44"],
    async ask(ctx) {
      const s = await scripted(ctx);
      const sent = { __provider: s, act: "secretSig" };
      const sig = { sent, o: await create(ctx, sent) };
      // A secret sig in the inputs is a raw object to the user and is echoed as such.
      return { sig, echo: await create(ctx, { __provider: s, act: "echo", s: secret({ deep: [1, null] }) }) };
    },
    expect({ sig, echo }) {
      equal(sig.o.code, 0, sig.o.details);
      equal(sig.o.view, { id: "s", properties: { __provider: sig.sent.__provider, s: secret("shh") } });
      equal(echo.view.properties.s, secret({ deep: [1, null] }));
      equal(echo.view.properties.types.s, "object");
    },
  }),

  values.case<Outcome>("45-asset-inputs", {
    title: "45 create_asset_inputs: assets and archives with contents are raw sig objects",
    spec: ["45"],
    ask: async (ctx) => create(ctx, { __provider: await scripted(ctx), act: "echo", ...ASSETS }),
    expect(o) {
      equal(o.code, 0, o.details);
      const outs = o.view.properties;
      equal(outs.asset, ASSETS.asset);
      equal(outs.file, ASSETS.file);
      equal(outs.archive, ASSETS.archive);
      equal([outs.types.asset, outs.types.file, outs.types.archive], ["object", "object", "object"], "types");
    },
  }),
];

const NUMS = { n: 1, f: 1.5, neg: -2, zero: 0, nz: -0, big: 2 ** 53 + 2, tiny: 5e-324, inf: Infinity, nan: NaN };
const ASSETS = {
  asset: { [SIG]: ASSET_SIG, hash: "aa11", text: "hello" },
  file: { [SIG]: ASSET_SIG, path: "./x.txt" },
  archive: { [SIG]: ARCHIVE_SIG, assets: { "a.txt": { [SIG]: ASSET_SIG, text: "a" } } },
};

// ---------------------------------------------------------------- Read

const readSession = session({ id: "node/read", language: "nodejs", suite: [TOP, "read"] });
const read = (ctx: CaseContext, a: { id?: string; properties?: Props; inputs?: Props }) => ctx.client.read({ urn: ctx.urn("r"), ...a });

/** Ours' words for an import without a provider, with the program folder `dir` the plugin runs in (../project-file.ts). */
const importHint = (dir: string) =>
  `the engine sends only its id, no inputs and no state, so no serialized provider exists yet. To import a ` +
  `pulumi-nodejs:dynamic:Resource, ${howToDeclare("nodejs", "pulumi-nodejs:dynamic:Resource", dir)}`;

/**
 * Before @pulumi/pulumi 3.268.0 the reference read only the request's properties: a get (properties unset,
 * the inputs set) failed on the unset bag, and an empty bag had no __provider.
 */
const GETS_SINCE = "3.268.0";
const UNSET_BAG = "Cannot read properties of undefined (reading 'toJavaScript')";
const NO_CODE = "code must be a string, not undefined";
/** The reference's answers before GETS_SINCE to a read whose properties are unset, then `{}`. */
function getsBefore(answers: { o: Outcome }[]): void {
  equal(answers.map(({ o }) => ({ code: o.code, details: o.details })), [
    { code: 2, details: UNSET_BAG },
    { code: 2, details: NO_CODE },
  ]);
}

const readCases: Case[] = [
  readSession.case<Sent>("46-missing-method-passthrough", {
    title: "46 read_missing_method_passthrough: id and properties come back exactly; no inputs",
    spec: ["46"],
    async ask(ctx) {
      const co = await createOnly(ctx);
      const properties = { __provider: co, a: null, b: { c: null, d: [null, 1] }, n: 1.5, s: "x", t: true };
      // ReadRequest.inputs is ignored when properties are present.
      return { sent: properties, o: await read(ctx, { id: "r1", properties, inputs: { __provider: co, other: 1 } }) };
    },
    expect({ sent, o }) {
      equal(o.code, 0, o.details);
      equal(o.view, { id: "r1", properties: sent, inputs: undefined });
    },
  }),

  readSession.case<Sent[]>("46-get-passes-inputs-back", {
    title: "46 read_missing_method_passthrough: a get (properties unset or empty, inputs set) passes the inputs back (3.270)",
    spec: ["46"],
    async ask(ctx) {
      const inputs = { __provider: await createOnly(ctx), a: null, x: 1 };
      const out: Sent[] = [];
      for (const properties of [undefined, {}]) out.push({ sent: inputs, o: await read(ctx, { id: "g1", properties, inputs }) });
      return out;
    },
    sdk: { since: GETS_SINCE, before: getsBefore },
    expect(answers) {
      for (const { sent, o } of answers) equal(o.view, { id: "g1", properties: sent, inputs: undefined });
    },
  }),

  readSession.case<{ sent: Props; o: Outcome; get: Outcome }>("48-read-with-inputs", {
    title: "48 read_with_inputs: inputs returned by read get the request's __provider",
    spec: ["48"],
    async ask(ctx) {
      const properties = { __provider: await scripted(ctx), act: "readInputs", a: 7 };
      const o = await read(ctx, { id: "r1", properties });
      // The same through a get: the bag is the request's inputs.
      return { sent: properties, o, get: await read(ctx, { id: "r2", inputs: properties }) };
    },
    sdk: {
      since: GETS_SINCE,
      before({ sent, o, get }) {
        equal(o.view, { id: "r1", properties: { ...sent, refreshed: true }, inputs: { __provider: sent.__provider, a: 7, fromRead: true } });
        equal({ code: get.code, details: get.details }, { code: 2, details: UNSET_BAG }, "the get");
      },
    },
    expect({ sent, o, get }) {
      equal(o.code, 0, o.details);
      equal(o.view, { id: "r1", properties: { ...sent, refreshed: true }, inputs: { __provider: sent.__provider, a: 7, fromRead: true } });
      equal(get.view, { id: "r2", properties: { ...sent, refreshed: true }, inputs: { __provider: sent.__provider, a: 7, fromRead: true } });
    },
  }),

  readSession.case<Sent>("49-inputs-empty-object", {
    title: "49 read_inputs_empty_object: `inputs: {}` becomes {__provider}",
    spec: ["49"],
    async ask(ctx) {
      const sent = { __provider: await scripted(ctx), act: "readEmptyInputs" };
      return { sent, o: await read(ctx, { id: "r1", properties: sent }) };
    },
    expect: ({ sent, o }) => equal(o.view, { id: "r1", properties: { __provider: sent.__provider, a: 1 }, inputs: { __provider: sent.__provider } }),
  }),

  readSession.case<Sent>("50-no-id", {
    title: '50 read_no_id: a read without id answers id ""',
    spec: ["50"],
    async ask(ctx) {
      const sent = { __provider: await scripted(ctx), act: "readNoId" };
      return { sent, o: await read(ctx, { id: "r1", properties: sent }) };
    },
    expect({ sent, o }) {
      equal(o.code, 0, o.details);
      equal(o.view, { id: "", properties: { __provider: sent.__provider, a: 1 }, inputs: undefined });
    },
  }),

  readSession.case<Sent>("51-props-missing", {
    title: "51 read_props_missing: `{id}` only gives properties {__provider}",
    spec: ["51"],
    async ask(ctx) {
      const sent = { __provider: await scripted(ctx), act: "readNoProps", keep: "dropped" };
      return { sent, o: await read(ctx, { id: "r1", properties: sent }) };
    },
    expect({ sent, o }) {
      equal(o.code, 0, o.details);
      equal(o.view, { id: "r1", properties: { __provider: sent.__provider }, inputs: undefined });
    },
  }),

  readSession.case<Echoed & { urn: string }>("51-read-returns-undefined", {
    title: "51 read_props_missing: read returning undefined [difference]: reference TypeError + stderr; ours a clear message, no stderr",
    spec: ["51"],
    ask: async (ctx) => ({ urn: ctx.urn("r"), ...(await withStderr(ctx, async () => read(ctx, { id: "r1", properties: { __provider: await scripted(ctx), act: "readUndefined" } }))) }),
    difference: {
      doc: PARITY,
      ours({ urn, o, err }) {
        equal(o, { code: 2, details: `Read ${urn}: the dynamic provider's read returned undefined; it must return an object ({ id?, props?, inputs? })` });
        equal(err, "", "stderr");
      },
      reference({ o, err }) {
        const typeError = "Cannot read properties of undefined (reading 'id')";
        equal(o, { code: 2, details: typeError });
        equal(firstLine(err), `TypeError: ${typeError}: TypeError: ${typeError}`, "stderr's first line");
      },
    },
  }),

  readSession.case<(Echoed & { urn: string })[]>("52-import-no-properties", {
    title:
      "52 read_import_no_properties [difference]: no provider anywhere: reference `code must be a string` + stderr; ours names the bag and says what to declare",
    spec: ["52"],
    async ask(ctx) {
      const out: (Echoed & { urn: string })[] = [];
      for (const properties of [undefined, {}]) out.push({ urn: ctx.urn("r"), ...(await withStderr(ctx, () => read(ctx, { id: "imp", properties }))) });
      return out;
    },
    sdk: {
      since: GETS_SINCE,
      before(answers) {
        getsBefore(answers);
        equal(firstLine(answers[0].err), `TypeError: ${UNSET_BAG}: TypeError: ${UNSET_BAG}`, "stderr's first line");
      },
    },
    difference: {
      doc: "docs/import-and-repair.md",
      ours(answers, ctx) {
        for (const { urn, o, err } of answers) {
          equal(o, {
            code: 2,
            details:
              `Read ${urn}: the request's properties has no "__provider" property, so the dynamic provider cannot be loaded; ` +
              `__provider must be the serialized provider the SDK writes into every dynamic resource. The resource is being imported: ` +
              importHint(ctx.programDir),
          });
          equal(err, "", "stderr");
        }
      },
      reference(answers) {
        const msg = "code must be a string, not undefined";
        for (const { o, err } of answers) {
          equal(o, { code: 2, details: msg });
          equal(firstLine(err), `Error: ${msg}: Error: ${msg}`, "stderr's first line");
        }
      },
    },
  }),

  readSession.case<Sent>("52-provider-in-inputs", {
    title: "52 read_import_no_properties: properties unset but inputs carry the provider: the user's read runs on the inputs",
    spec: ["52"],
    async ask(ctx) {
      const inputs = { __provider: await scripted(ctx), k: "v" };
      return { sent: inputs, o: await read(ctx, { id: "imp", inputs }) };
    },
    sdk: { since: GETS_SINCE, before: ({ o }) => equal({ code: o.code, details: o.details }, { code: 2, details: UNSET_BAG }) },
    expect: ({ sent, o }) => equal(o.view, { id: "read-imp", properties: { ...sent, readKeys: ["__provider", "k"] }, inputs: undefined }),
  }),

  readSession.case<{ withRead: Sent; passThrough: Sent }>("53-elided-asset", {
    title: "53 read_elided_asset: elided {sig, hash} assets and archives are fine (user read and pass-through)",
    spec: ["53"],
    async ask(ctx) {
      const asset = { [SIG]: ASSET_SIG, hash: "0123abcd" };
      const archive = { [SIG]: ARCHIVE_SIG, hash: "4567ef" };
      const withRead = { __provider: await scripted(ctx), asset, archive };
      const passThrough = { __provider: await createOnly(ctx), asset, archive };
      return {
        withRead: { sent: withRead, o: await read(ctx, { id: "e1", properties: withRead }) },
        passThrough: { sent: passThrough, o: await read(ctx, { id: "e2", properties: passThrough }) },
      };
    },
    expect({ withRead, passThrough }) {
      equal(withRead.o.view, { id: "read-e1", properties: { ...withRead.sent, readKeys: ["__provider", "archive", "asset"] }, inputs: undefined });
      equal(passThrough.o.view, { id: "e2", properties: passThrough.sent, inputs: undefined });
    },
  }),
];

// ---------------------------------------------------------------- Update

const updateSession = session({ id: "node/update", language: "nodejs", suite: [TOP, "update"] });
const update = (ctx: CaseContext, a: { id?: string; olds?: Props; news?: Props; oldInputs?: Props }) => ctx.client.update({ urn: ctx.urn("u"), id: "u1", ...a });

const updateCases: Case[] = [
  updateSession.case<{ olds: Props; answers: (Echoed & { provider: string })[] }>("54-missing-method", {
    title: "54 update_missing_method [difference]: the reference keeps only {__provider: news.__provider}; ours keeps the old outputs with it",
    spec: ["54"],
    async ask(ctx) {
      const [s, co, em] = [await scripted(ctx), await createOnly(ctx), await empty(ctx)];
      // Unknowns and secrets in the old outputs are kept as the engine sent them.
      const olds = { __provider: s, a: 1, state: "kept", later: UNKNOWN, pw: secret("hunter22"), n: { l: [1, null] } };
      const answers: (Echoed & { provider: string })[] = [];
      for (const [provider, news] of [
        [co, { __provider: co, a: 2 }],
        [em, { __provider: em, b: 1 }],
      ] as const) {
        answers.push({ provider, ...(await withStderr(ctx, () => update(ctx, { olds, news, oldInputs: { __provider: s, a: 1 } }))) });
      }
      return { olds, answers };
    },
    expect({ answers }) {
      for (const { o, err } of answers) {
        equal(o.code, 0, o.details);
        equal(err, "", "stderr");
      }
    },
    difference: {
      doc: PARITY,
      ours: ({ olds, answers }) => answers.forEach(({ provider, o }) => equal(o.view, { properties: { ...olds, __provider: provider } })),
      reference: ({ answers }) => answers.forEach(({ provider, o }) => equal(o.view, { properties: { __provider: provider } })),
    },
  }),

  updateSession.case<Sent[]>("55-returns-undefined", {
    title: "55 update_returns_undefined: undefined (or no outs) gives {__provider}",
    spec: ["55"],
    async ask(ctx) {
      const s = await scripted(ctx);
      const out: Sent[] = [];
      for (const act of ["updateUndefined", "updateNoOuts"]) {
        const news = { __provider: s, act, x: 1 };
        out.push({ sent: news, o: await update(ctx, { olds: { __provider: s, y: 2 }, news }) });
      }
      return out;
    },
    expect(answers) {
      for (const { sent, o } of answers) {
        equal(o.code, 0, `${sent.act}: ${o.details}`);
        equal(o.view, { properties: { __provider: sent.__provider } }, String(sent.act));
      }
    },
  }),

  updateSession.case<{ a: string; b: string; o: Outcome }>("56-uses-news-provider", {
    title: "56 update_uses_news_provider: the new code runs and its __provider is in the outputs",
    spec: ["56"],
    async ask(ctx) {
      const [a, b] = [await ctx.payload("versionA", RUD), await ctx.payload("versionB", RUD)];
      return { a, b, o: await update(ctx, { olds: { __provider: a, version: "A" }, news: { __provider: b, x: 1 }, oldInputs: { __provider: a } }) };
    },
    expect({ a, b, o }) {
      ok(a !== b, "the two versions' payloads differ");
      equal(o.code, 0, o.details);
      equal(o.view, { properties: { __provider: b, version: "B", id: "u1", oldsVersion: "A" } });
    },
  }),

  updateSession.case<(Echoed & { act: string })[]>("57-init-failed", {
    title: "57 update_init_failed_node: a thrown `id` becomes the ErrorResourceInitFailed detail; no stderr",
    spec: ["57"],
    async ask(ctx) {
      const s = await scripted(ctx);
      const out: (Echoed & { act: string })[] = [];
      for (const bag of UPDATE_INIT_FAILED.map(([b]) => b)) {
        out.push({ act: String(bag.act), ...(await withStderr(ctx, () => update(ctx, { olds: { __provider: s }, news: { __provider: s, ...bag } }))) });
      }
      return out;
    },
    expect(answers) {
      answers.forEach(({ act, o, err }, i) => {
        equal(o, UPDATE_INIT_FAILED[i][1], act);
        equal(err, "", `${act}: stderr`);
      });
    },
  }),
];

const UPDATE_INIT_FAILED: [Props, Outcome][] = [
  [
    { act: "throwInit", msg: "upd failed", failId: "u9", failProps: { a: 1, nested: { b: null } }, reasons: ["r1"] },
    {
      code: 2,
      details: "upd failed",
      initFailed: { statusCode: 2, statusMessage: "upd failed", typeUrl: INIT_FAILED_TYPE_URL, id: "u9", properties: { a: 1, nested: { b: null } }, reasons: ["r1"] },
    },
  ],
  [
    { act: "throwInit", msg: "no reasons" },
    { code: 2, details: "no reasons", initFailed: { statusCode: 2, statusMessage: "no reasons", typeUrl: INIT_FAILED_TYPE_URL, id: "i1", properties: {}, reasons: [] } },
  ],
  [
    { act: "throwInitError" },
    {
      code: 2,
      details: "init failed",
      initFailed: { statusCode: 2, statusMessage: "init failed", typeUrl: INIT_FAILED_TYPE_URL, id: "i2", properties: { a: 1 }, reasons: ["r1", "r2"] },
    },
  ],
  // Without an id: a plain UNKNOWN, and a code on the error is not used (unlike Read/Delete).
  [{ act: "throwCode", msg: "plain", code: 5 }, { code: 2, details: "plain" }],
];

// ---------------------------------------------------------------- Delete

const deleteSession = session({ id: "node/delete", language: "nodejs", suite: [TOP, "delete"] });

const deleteCases: Case[] = [
  deleteSession.case<Outcome[]>("58-missing-method", {
    title: "58 delete_missing_method: Empty",
    spec: ["58"],
    async ask(ctx) {
      const out: Outcome[] = [];
      for (const provider of [await createOnly(ctx), await empty(ctx)]) {
        out.push(await ctx.client.delete({ urn: ctx.urn("d"), id: "d1", properties: { __provider: provider, a: null }, oldInputs: { __provider: provider } }));
      }
      return out;
    },
    expect: (answers) => answers.forEach((o) => equal(o, { code: 0, details: "", view: {}, bytes: "" })),
  }),

  deleteSession.case<{ outcome: Outcome; stdout: string[] }>("59-uses-outputs-provider", {
    title: "59 delete_uses_outputs_provider: the provider stored in the outputs (old code) runs, not old_inputs'",
    spec: ["59"],
    async ask(ctx) {
      const [a, b] = [await ctx.payload("versionA", RUD), await ctx.payload("versionB", RUD)];
      const mark = ctx.plugin.stdout.length;
      const outcome = await ctx.client.delete({ urn: ctx.urn("d"), id: "d59", properties: { __provider: a, version: "A" }, oldInputs: { __provider: b } });
      await ctx.plugin.until(() => ctx.plugin.stdout.slice(mark).length > 0, "the delete's stdout line");
      return { outcome, stdout: ctx.plugin.stdout.slice(mark) };
    },
    expect: (x) => equal(x, { outcome: { code: 0, details: "", view: {}, bytes: "" }, stdout: ["delete by version A: d59"] }),
  }),

  deleteSession.case<(Echoed & { act: string })[]>("60-throws", {
    title: "60 delete_throws: the error's code/message, and `${e}: ${e.stack}` on stderr",
    spec: ["60"],
    async ask(ctx) {
      const s = await scripted(ctx);
      const out: (Echoed & { act: string })[] = [];
      for (const [bag] of DELETE_THROWS) {
        out.push({ act: String(bag.act), ...(await withStderr(ctx, () => ctx.client.delete({ urn: ctx.urn("d"), id: "d60", properties: { __provider: s, ...bag } }))) });
      }
      return out;
    },
    compare: (answers) => answers.map(({ o, err }) => ({ o, first: firstLine(err) })),
    expect(answers) {
      answers.forEach(({ act, o, err }, i) => {
        equal(o, DELETE_THROWS[i][1], act);
        equal(firstLine(err), DELETE_THROWS[i][2], `${act}: stderr's first line`);
      });
    },
  }),
];

const DELETE_THROWS: [Props, Outcome, string][] = [
  [{ act: "throw", msg: "del boom" }, { code: 2, details: "del boom" }, "Error: del boom: Error: del boom"],
  [{ act: "throwCode", msg: "not here", code: 5 }, { code: 5, details: "not here" }, "Error: not here: Error: not here"],
  [{ act: "throwCodeDetails", code: 9, details: "pre" }, { code: 9, details: "pre" }, "Error: m: Error: m"],
];

// ---------------------------------------------------------------- Harness-only values

const harness = session({ id: "node/harness-values", language: "nodejs", suite: [TOP, "harness-only values and key order"] });

/** A protobuf base-128 varint. */
function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

const harnessCases: Case[] = [
  harness.case<Sent>("75-secret-sig-in-news", {
    title: "75 secret_sig_in_news_harness: a nested secret sig passes the default check unchanged",
    spec: ["75"],
    async ask(ctx) {
      const news = { __provider: await createOnly(ctx), a: { b: secret("s3cr3t") }, top: secret([1, { c: null }]) };
      return { sent: news, o: await ctx.client.check({ urn: ctx.urn("k"), olds: {}, news }) };
    },
    expect({ sent, o }) {
      equal(o.code, 0, o.details);
      equal(o.view, { inputs: sent, failures: [] });
    },
  }),

  harness.case<Sent>("76-resource-ref-sig", {
    title: "76 resource_ref_sig_harness: a resource sig in create props is a raw object to the user",
    spec: ["76"],
    async ask(ctx) {
      const res = { [SIG]: RESOURCE_SIG, urn: ctx.urn("other"), id: "other-id", packageVersion: "1.2.3" };
      return { sent: res, o: await create(ctx, { __provider: await scripted(ctx), act: "echo", res }) };
    },
    expect({ sent, o }) {
      equal(o.code, 0, o.details);
      equal(o.view.properties.res, sent);
      equal(o.view.properties.types.res, "object");
    },
  }),

  harness.case<{ order: boolean; check: Outcome; create: Outcome }>("78-key-order", {
    title: "78 key_order_node: keys sent out of order on the wire reach the user sorted",
    spec: ["78"],
    async ask(ctx) {
      // google-protobuf always writes map entries sorted, so the out-of-order bag is
      // spliced by hand: a Struct is a sequence of map entries (field 1), so
      // concatenated Structs are one Struct holding the entries in that order, and
      // it is appended to the rest of the request as the bag's field
      // (CheckRequest.news = 3, CreateRequest.properties = 2 in provider.proto).
      const pb = ctx.client.sdk;
      const s = await scripted(ctx);
      const unsortedStruct = (...parts: Props[]) => Buffer.concat(parts.map((o) => Buffer.from(pb.structPb.Struct.fromJavaScript(o).serializeBinary())));
      const field = (num: number, body: Buffer) => Buffer.concat([varint((num << 3) | 2), varint(body.length), body]);
      const news = unsortedStruct({ b: 1 }, { a: 2 }, { __provider: s });
      const order = news.indexOf("\x01b") >= 0 && news.indexOf("\x01b") < news.indexOf("\x01a");
      const check = new pb.provider.CheckRequest();
      check.setUrn(ctx.urn("k"));
      check.setOlds(pb.structPb.Struct.fromJavaScript({}));
      const checkBytes = Buffer.concat([Buffer.from(check.serializeBinary()), field(3, news)]);
      const createReq = new pb.provider.CreateRequest();
      createReq.setUrn(ctx.urn("k"));
      const props = unsortedStruct({ b: 1 }, { act: "echo" }, { a: 2 }, { __provider: s });
      const createBytes = Buffer.concat([Buffer.from(createReq.serializeBinary()), field(2, props)]);
      const rawCall = (method: string, bytes: Buffer, type: any, bag: string) =>
        new Promise<Outcome>((resolve) =>
          ctx.client.raw.makeUnaryRequest(
            `/pulumirpc.ResourceProvider/${method}`,
            (x: Buffer) => x,
            (x: Buffer) => type.deserializeBinary(new Uint8Array(x)),
            bytes,
            (err: any, resp: any) =>
              resolve(
                err
                  ? { code: err.code, details: err.details }
                  : { code: 0, details: "", view: resp[bag]().toJavaScript(), bytes: Buffer.from(resp.serializeBinary()).toString("base64") },
              ),
          ),
        );
      return {
        order,
        check: await rawCall("Check", checkBytes, pb.provider.CheckResponse, "getInputs"),
        create: await rawCall("Create", createBytes, pb.provider.CreateResponse, "getProperties"),
      };
    },
    expect({ order, check, create }) {
      ok(order, "the spliced bag holds b before a");
      equal(check.code, 0, check.details);
      // What the user's code saw: Object.keys(news) in check, Object.keys(props) in create.
      equal(check.view.newsKeys, ["__provider", "a", "b"]);
      equal(check.view.oldsKeys, []);
      equal(create.code, 0, create.details);
      equal(create.view.keys, ["__provider", "a", "act", "b"]);
    },
  }),
];

// ---------------------------------------------------------------- Large payload

/** Peak resident set size of a live process in bytes (Linux), or undefined. */
function peakRss(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const large = session({ id: "node/large-payload", language: "nodejs", suite: ["differential (Node): 77 large_payload"] });
const SIZE = 100 * 1024 * 1024;
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

interface Large {
  outcome: Record<string, unknown>;
  want: string;
  ms: number;
  peak?: number;
}

const largeCases: Case[] = [
  large.case<Large>("77-large-payload", {
    title: "77 large_payload: a 100 MiB string round-trips through create; time and memory are in line with the reference",
    spec: ["77"],
    timeoutMs: 120_000,
    // Sequential, so each plugin has the machine to itself while it is timed.
    sequential: true,
    async ask(ctx) {
      const big = "0123456789abcdef".repeat(SIZE / 16);
      const pb = ctx.client.sdk;
      const req = new pb.provider.CreateRequest();
      req.setUrn(ctx.urn("large"));
      req.setProperties(pb.structPb.Struct.fromJavaScript({ __provider: await scripted(ctx), act: "large", big }));
      const pids = ctx.plugin.groupPids();
      const r = await new Promise<Large>((resolve) => {
        const started = Date.now();
        ctx.client.raw.create(req, (err: any, resp: any) => {
          const ms = Date.now() - started;
          const peaks = pids.map(peakRss).filter((p): p is number => p !== undefined);
          const peak = peaks.length ? Math.max(...peaks) : undefined;
          if (err) return resolve({ outcome: { code: err.code, details: err.details }, want: "", ms, peak });
          const props = resp.getProperties().toJavaScript();
          resolve({
            outcome: { code: 0, id: resp.getId(), len: props.len, bigSha: sha(props.big), bigLength: props.big.length, keys: Object.keys(props) },
            want: "",
            ms,
            peak,
          });
        });
      });
      return { ...r, want: sha(big) };
    },
    compare: (x) => x.outcome,
    expect: (x) => equal(x.outcome, { code: 0, id: "large", len: SIZE, bigSha: x.want, bigLength: SIZE, keys: ["__provider", "big", "len"] }),
    relate(o, r) {
      // Sane: not much slower, nor much hungrier, than the reference.
      ok(o.ms <= Math.max(3 * r.ms, r.ms + 5_000), `ours ${o.ms} ms vs reference ${r.ms} ms`);
      if (o.peak !== undefined && r.peak !== undefined) ok(o.peak <= 2 * r.peak + 200 * 1024 * 1024, `peak RSS ours ${o.peak} vs reference ${r.peak}`);
    },
  }),
];

export const nodeValuesReadUpdateDelete: Case[] = [...createValues, ...readCases, ...updateCases, ...deleteCases, ...harnessCases, ...largeCases];
