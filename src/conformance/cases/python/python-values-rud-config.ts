// Spec §9 rows 38–68, 71, 72, 75–77 (Python side): values through Create,
// the Read, Update and Delete RPCs, Configure and the provider cache, user
// output, program-local modules, harness-only sig values and a 100 MiB payload.
// Each case is asked of the plugin under test and, side by side, of the Python
// reference (`python -u -m pulumi.dynamic`); the answers are compared, and the
// expected concrete value is asserted on each. Tracebacks are compared with the
// plugins' plumbing frames left out (python-common.ts).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { ARCHIVE_SIG, ASSET_SIG, contains, equal, includes, matches, notContains, ok, RESOURCE_SIG, secret, session, SIG, type Case, type CaseContext, type LaunchedPlugin } from "../../case.js";
import type { Outcome, Props } from "../../client.js";
import { BASE_ENV, framesIn, plumbing, printed, py, REFERENCE_MAIN, sameTraceback, silent, userView, type Printed } from "./python-common.js";
import { howToDeclare } from "../project-file.js";

const SUITE = "differential (Python): values through create; read, update, delete; configure";
const ONE_PAIR = [SUITE, "one pair"];
const launch = { env: BASE_ENV };

const B = "python_providers_b";
const providerB = (ctx: CaseContext, name: string) => ctx.payload(name, B);

/** The parts of an answer two plugins must share: a traceback without the plumbing frames, else all of it. */
const shared = (o: Outcome): unknown => (o.code === 2 && o.details.startsWith("Traceback") ? { code: 2, view: userView(o.details) } : o);
const sharedPrinted = (x: Printed<Outcome>) => ({ value: shared(x.value), stdout: x.stdout, stderr: x.stderr });

const okAnswer = (o: Outcome, what = "the answer") => equal(o.code, 0, `${what}: ${o.details}`);

const create = (ctx: CaseContext, properties: Props, extra: { preview?: boolean } = {}) => ctx.client.create({ urn: ctx.urn("c"), properties, ...extra });
const read = (ctx: CaseContext, a: { id?: string; properties?: Props; inputs?: Props }) => ctx.client.read({ urn: ctx.urn("r"), ...a });
const update = (ctx: CaseContext, a: { id?: string; olds?: Props; news?: Props; oldInputs?: Props }) => ctx.client.update({ urn: ctx.urn("u"), id: "u1", ...a });
const del = (ctx: CaseContext, a: { id?: string; properties?: Props; oldInputs?: Props }) => ctx.client.delete({ urn: ctx.urn("d"), id: "d1", ...a });

/** Payloads by name: python_providers' scripted, minimal, configured, async, local; python_providers_b's others. */
async function pl(ctx: CaseContext): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const n of ["scripted", "minimal", "configured", "async", "local"]) out[n] = await ctx.payload(n);
  for (const n of ["values", "versionA", "versionB", "slowConfigure", "flakyConfigure"]) out[n] = await providerB(ctx, n);
  return out;
}

// ================================================================== create values

const cv = session({ id: "python/values", language: "python", suite: [...ONE_PAIR, "create values"], launch });

const createValues: Case[] = [
  cv.case("38-outs-none-value", {
    title: "38 create_outs_undefined_value: a top-level None is dropped; nested ones are null",
    spec: ["38"],
    async ask(ctx) {
      const p = await pl(ctx);
      return { p, o: await create(ctx, { __provider: p.scripted, act: "noneValue" }) };
    },
    compare: (r) => r.o,
    expect({ p, o }) {
      okAnswer(o);
      equal(o.view, { id: "nv", properties: { __provider: p.scripted, o: { x: null }, l: [null] } });
      ok(!Object.keys(o.view.properties).includes("a"), "no key a");
    },
  }),

  cv.case("39-number-types", {
    title: "39 create_number_types: numbers arrive as float and go back as equal doubles",
    spec: ["39"],
    async ask(ctx) {
      const nums = { n: 1, f: 1.5, neg: -2, zero: 0, big: 2 ** 53 + 2, tiny: 5e-324, inf: Infinity, nan: NaN };
      return { nums, o: await create(ctx, { __provider: await ctx.payload("scripted"), act: "echo", ...nums, t: true, s: "1" }) };
    },
    compare: (r) => r.o,
    expect({ nums, o }) {
      okAnswer(o);
      const outs = o.view.properties;
      for (const [k, v] of Object.entries(nums)) {
        equal(outs[k], v, k);
        equal(outs.types[k], "float", k);
      }
      includes(outs.types, { __provider: "str", act: "str", t: "bool", s: "str" });
      equal(outs.t, true, "t");
      equal(outs.s, "1", "s");
      equal(o.view.id, "echo", "id");
    },
  }),

  cv.case("40-nested-nulls", {
    title: "40 create_nested_nulls: the user sees nulls dropped from objects, kept in lists, and returns that",
    spec: ["40"],
    async ask(ctx) {
      const scripted = await ctx.payload("scripted");
      return { scripted, o: await create(ctx, { __provider: scripted, act: "echo", o: { x: null, y: { z: null }, k: 1 }, l: [null, { w: null }, [null]], top: null }) };
    },
    compare: (r) => r.o,
    expect: ({ scripted, o }) =>
      equal(o.view, {
        id: "echo",
        properties: {
          __provider: scripted,
          act: "echo",
          o: { y: {}, k: 1 },
          l: [null, {}, [null]],
          keys: ["__provider", "act", "l", "o"],
          types: { __provider: "str", act: "str", l: "list", o: "dict" },
        },
      }),
  }),

  cv.case("41-empty-or-numeric-id", {
    title: '41 create_empty_or_numeric_id: "" and None give id ""; id 5 is a protobuf TypeError',
    spec: ["41"],
    async ask(ctx) {
      const p = await pl(ctx);
      const empty = await create(ctx, { __provider: p.values, act: "idEmpty" });
      const none = await create(ctx, { __provider: p.values, act: "idNone" });
      const num = await printed(ctx, () => create(ctx, { __provider: p.scripted, act: "idNumber" }));
      return { p, empty, none, num };
    },
    compare: (r) => ({ empty: r.empty, none: r.none, num: sharedPrinted(r.num) }),
    expect({ p, empty, none, num }) {
      okAnswer(empty);
      equal(empty.view, { id: "", properties: { __provider: p.values, b: 2 } });
      okAnswer(none);
      equal(none.view, { id: "", properties: { __provider: p.values, a: 1 } });
      const view = sameTraceback(num.value, "Create", ["TypeError: bad argument type for built-in operation"]);
      // The failure is in building the response: no user frame is on the stack.
      equal(view, ["Traceback (most recent call last):", "TypeError: bad argument type for built-in operation", ""]);
      silent(num);
    },
  }),

  cv.case("42-preview-flag-ignored", {
    title: "42 create_preview_flag_ignored: preview=true still runs the user's create",
    spec: ["42"],
    async ask(ctx) {
      const values = await providerB(ctx, "values");
      const seen: Outcome[] = [];
      for (const preview of [true, false, true]) seen.push(await create(ctx, { __provider: values, act: "count" }, { preview }));
      return { values, seen };
    },
    compare: (r) => r.seen,
    expect({ values, seen }) {
      for (const o of seen) okAnswer(o);
      equal(
        seen.map((o) => o.view),
        [1, 2, 3].map((n) => ({ id: `call-${n}`, properties: { __provider: values, calls: n } })),
      );
    },
  }),

  cv.case<Printed<Outcome>>("43-illegal-type", {
    title: "43 create_illegal_type_python: a set() in the outputs fails with the SDK's ValueError",
    spec: ["43"],
    ask: async (ctx) => {
      const scripted = await ctx.payload("scripted");
      return printed(ctx, () => create(ctx, { __provider: scripted, act: "set" }));
    },
    compare: sharedPrinted,
    expect(x) {
      const view = sameTraceback(x.value, "Create", [
        "ValueError: While processing input: 's', type <class 'str'>, value {1, 2}",
        "ValueError has risen: unexpected input of type set for s",
      ]);
      // The cause chain comes first, as the SDK raises `from` it.
      ok(view.includes("ValueError: unexpected input of type set for s"), "the cause's exception line");
      ok(view.includes("The above exception was the direct cause of the following exception:"), "the chain's line");
      equal(framesIn(view, "pulumi/runtime/rpc.py"), ["serialize_properties", "serialize_property", "serialize_properties"]);
      equal(framesIn(view, "asyncio/base_events.py"), ["run_until_complete"]);
      silent(x);
    },
  }),

  cv.case("44-secret-sig-returned", {
    title: "44 create_secret_sig_returned: an explicit secret sig goes back unchanged",
    spec: ["44"],
    async ask(ctx) {
      const p = await pl(ctx);
      const o = await create(ctx, { __provider: p.values, act: "secretSig" });
      // A secret sig in the inputs: the user sees the {sig, value} dict (value deserialized) and echoes it.
      const e = await create(ctx, { __provider: p.scripted, act: "echo", s: secret({ deep: [1, null], gone: null }) });
      return { p, o, e };
    },
    compare: (r) => ({ o: r.o, e: r.e }),
    expect({ p, o, e }) {
      okAnswer(o);
      equal(o.view, { id: "s", properties: { __provider: p.values, s: secret("shh"), n: { inner: secret([1, null]) } } });
      okAnswer(e);
      equal(e.view.properties.s, secret({ deep: [1, null] }));
      equal(e.view.properties.types.s, "dict");
    },
  }),

  cv.case<Outcome>("45-asset-inputs", {
    title: "45 create_asset_inputs: assets and archives arrive as SDK objects and go back without a hash",
    spec: ["45"],
    async ask(ctx) {
      const asset = { [SIG]: ASSET_SIG, hash: "aa11", text: "hello" };
      const file = { [SIG]: ASSET_SIG, path: "./x.txt" };
      const remote = { [SIG]: ASSET_SIG, hash: "bb22", uri: "https://example.com/x" };
      const archive = { [SIG]: ARCHIVE_SIG, hash: "cc33", assets: { "a.txt": { [SIG]: ASSET_SIG, text: "a" } } };
      const fileArchive = { [SIG]: ARCHIVE_SIG, path: "./dir" };
      return create(ctx, { __provider: await ctx.payload("scripted"), act: "echo", asset, file, remote, archive, fileArchive });
    },
    expect(o) {
      okAnswer(o);
      const outs = o.view.properties;
      equal(outs.types, {
        __provider: "str",
        act: "str",
        asset: "StringAsset",
        file: "FileAsset",
        remote: "RemoteAsset",
        archive: "AssetArchive",
        fileArchive: "FileArchive",
      });
      equal(outs.asset, { [SIG]: ASSET_SIG, text: "hello" });
      equal(outs.file, { [SIG]: ASSET_SIG, path: "./x.txt" });
      equal(outs.remote, { [SIG]: ASSET_SIG, uri: "https://example.com/x" });
      equal(outs.archive, { [SIG]: ARCHIVE_SIG, assets: { "a.txt": { [SIG]: ASSET_SIG, text: "a" } } });
      equal(outs.fileArchive, { [SIG]: ARCHIVE_SIG, path: "./dir" });
    },
  }),

  cv.case<{ provider: string; x: Printed<Outcome>; warned: string }>("async-def-create", {
    title: "async def create [difference]: the reference never awaits it (AttributeError + RuntimeWarning); ours awaits it",
    async ask(ctx) {
      const provider = await ctx.payload("async");
      const err0 = ctx.plugin.stderr.length;
      const x = await printed(ctx, () => create(ctx, { __provider: provider, seconds: 0.01 }));
      // A create that returned a coroutine unawaited: Python warns when the coroutine is collected, which may follow the marker.
      if (x.value.code !== 0) await ctx.plugin.until(() => ctx.plugin.stderr.slice(err0).includes(WARNING), "the never-awaited warning").catch(() => undefined);
      return { provider, x, warned: ctx.plugin.stderr.slice(err0) };
    },
    difference: {
      doc: "docs/parity.md (an async def provider method is awaited)",
      ours({ provider, x }) {
        // Awaited on the worker's event loop, in the request's context.
        okAnswer(x.value);
        equal(x.value.view, { id: "async", properties: { __provider: provider, awaited: true, loop: "_UnixSelectorEventLoop" } });
        equal(x.stderr, "", "stderr");
        equal(x.stdout, [], "stdout");
      },
      reference({ x, warned }) {
        // Create returns a coroutine, and Create reads `.outs` off it.
        equal(x.value.code, 2, "the status code");
        equal(userView(x.value.details), ["Traceback (most recent call last):", "AttributeError: 'coroutine' object has no attribute 'outs'", ""]);
        equal(plumbing(x.value.details, REFERENCE_MAIN), ["wrapper", "Create"]);
        contains(warned, WARNING, "stderr");
      },
    },
  }),
];

const WARNING = "RuntimeWarning: coroutine 'AsyncProvider.create' was never awaited";

// ================================================================== read

const rd = session({ id: "python/read", language: "python", suite: [...ONE_PAIR, "read"], launch });

const ours_ = (ctx: CaseContext, rpc: string, name: string, bag: string, last: string) => ({
  code: 3,
  details: `${rpc} ${ctx.urn(name)}: the request's ${bag} holds a value the pulumi Python SDK cannot deserialize, at ${bag}.nested.x: ${last}`,
});

const reads: Case[] = [
  rd.case("46-47-read-default", {
    title: "46/47 read default (read_python_default_lossy): the base read round-trips the state, dropping nulls; no inputs",
    spec: ["46", "47"],
    async ask(ctx) {
      const minimal = await ctx.payload("minimal");
      const properties = { __provider: minimal, a: null, b: { c: null, d: [null, 1] }, n: 1.5, s: "x", t: true };
      // ReadRequest.inputs is ignored when properties are present.
      return { minimal, o: await read(ctx, { id: "r1", properties, inputs: { __provider: minimal, other: 1 } }) };
    },
    compare: (r) => r.o,
    expect({ minimal, o }) {
      okAnswer(o);
      equal(o.view, { id: "r1", properties: { __provider: minimal, b: { d: [null, 1] }, n: 1.5, s: "x", t: true }, inputs: undefined });
    },
  }),

  rd.case("46-47-read-get", {
    title: "46/47 read default: a get (properties unset or empty, inputs set) reads the inputs (3.270)",
    spec: ["46", "47"],
    async ask(ctx) {
      const minimal = await ctx.payload("minimal");
      const inputs = { __provider: minimal, z: null, x: 1 };
      const o: Outcome[] = [];
      for (const properties of [undefined, {}]) o.push(await read(ctx, { id: "g1", properties, inputs }));
      return { minimal, o };
    },
    compare: (r) => r.o,
    expect({ minimal, o }) {
      equal(o.length, 2, "answers");
      for (const x of o) {
        okAnswer(x);
        equal(x.view, { id: "g1", properties: { __provider: minimal, x: 1 }, inputs: undefined });
      }
    },
  }),

  rd.case("48-read-with-inputs", {
    title: "48 read_with_inputs: inputs returned by read get the request's __provider",
    spec: ["48"],
    async ask(ctx) {
      const scripted = await ctx.payload("scripted");
      const properties = { __provider: scripted, act: "readInputs", a: "seven" };
      const o = await read(ctx, { id: "r1", properties });
      // Through a get: the bag is the request's inputs.
      const g = await read(ctx, { id: "r2", inputs: properties });
      // A None `a` is dropped from the returned inputs.
      const n = await read(ctx, { id: "r3", properties: { __provider: scripted, act: "readInputs" } });
      return { scripted, properties, o, g, n };
    },
    compare: (r) => ({ o: r.o, g: r.g, n: r.n }),
    expect({ scripted, properties, o, g, n }) {
      for (const x of [o, g, n]) okAnswer(x);
      equal(o.view, { id: "r1", properties: { ...properties, refreshed: true }, inputs: { __provider: scripted, a: "seven", fromRead: true } });
      equal(g.view, { id: "r2", properties: { ...properties, refreshed: true }, inputs: { __provider: scripted, a: "seven", fromRead: true } });
      equal(n.view.inputs, { __provider: scripted, fromRead: true });
    },
  }),

  rd.case("49-inputs-empty-object", {
    title: "49 read_inputs_empty_object: `inputs: {}` (not None) becomes {__provider}",
    spec: ["49"],
    async ask(ctx) {
      const values = await providerB(ctx, "values");
      return { values, o: await read(ctx, { id: "r1", properties: { __provider: values, act: "inputsEmpty" } }) };
    },
    compare: (r) => r.o,
    expect({ values, o }) {
      okAnswer(o);
      equal(o.view, { id: "r1", properties: { __provider: values, x: 1 }, inputs: { __provider: values } });
    },
  }),

  rd.case("50-read-no-id", {
    title: '50 read_no_id: a read returning id None answers id ""',
    spec: ["50"],
    async ask(ctx) {
      const values = await providerB(ctx, "values");
      return { values, o: await read(ctx, { id: "r1", properties: { __provider: values, act: "noId" } }) };
    },
    compare: (r) => r.o,
    expect({ values, o }) {
      okAnswer(o);
      equal(o.view, { id: "", properties: { __provider: values, y: "kept" }, inputs: undefined });
    },
  }),

  rd.case<Printed<Outcome>>("51-read-props-missing", {
    title: "51 read_props_missing: outs=None is a TypeError",
    spec: ["51"],
    async ask(ctx) {
      const values = await providerB(ctx, "values");
      return printed(ctx, () => read(ctx, { id: "r1", properties: { __provider: values, act: "outsNone" } }));
    },
    compare: sharedPrinted,
    expect(x) {
      const view = sameTraceback(x.value, "Read", ["TypeError: 'NoneType' object does not support item assignment"]);
      equal(view, ["Traceback (most recent call last):", "TypeError: 'NoneType' object does not support item assignment", ""]);
      // The failing line is the same statement in both plugins' frames.
      contains(x.value.details, "    outs[PROVIDER_KEY] = props[PROVIDER_KEY]\n");
      silent(x);
    },
  }),

  rd.case<Printed<Outcome>[]>("52-import-no-properties", {
    title: "52 read_import_no_properties [difference]: no provider anywhere: reference KeyError traceback; ours names operation, URN and bag, and says what to declare",
    spec: ["52"],
    async ask(ctx) {
      const out: Printed<Outcome>[] = [];
      for (const properties of [undefined, {}]) out.push(await printed(ctx, () => read(ctx, { id: "imp", properties })));
      return out;
    },
    expect(xs) {
      equal(xs.length, 2, "answers");
      for (const x of xs) silent(x);
    },
    difference: {
      doc: "docs/parity.md (c: a request without a usable __provider is named; importing: docs/import-and-repair.md)",
      ours(xs, ctx) {
        for (const x of xs) {
          equal(x.value, {
            code: 2,
            details:
              `Read ${ctx.urn("r")}: the request's properties has no "__provider" property, so the dynamic provider cannot be loaded; ` +
              `__provider must be the serialized provider the SDK writes into every dynamic resource. The resource is being imported: ` +
              `the engine sends only its id, no inputs and no state, so no serialized provider exists yet. To import a ` +
              `pulumi-python:dynamic:Resource, ${howToDeclare("python", "pulumi-python:dynamic:Resource", ctx.programDir)}`,
          });
        }
      },
      reference(xs) {
        for (const x of xs) {
          equal(x.value.code, 2, "the status code");
          equal(userView(x.value.details), ["Traceback (most recent call last):", "KeyError: '__provider'", ""]);
          equal(plumbing(x.value.details, REFERENCE_MAIN), ["wrapper", "Read", "get_provider"]);
        }
      },
    },
  }),

  rd.case<{ kind: string; last: string; r: Printed<Outcome>; u: Outcome; d: Outcome }[]>("53-elided-asset", {
    title: "53 read_elided_asset [difference]: an elided {sig, hash} asset or archive fails deserialization (read, update olds, delete): ours INVALID_ARGUMENT naming where, the reference a bare traceback",
    spec: ["53"],
    async ask(ctx) {
      const scripted = await ctx.payload("scripted");
      const out = [];
      for (const [kind, elided] of [
        ["asset", { [SIG]: ASSET_SIG, hash: "0123abcd" }],
        ["archive", { [SIG]: ARCHIVE_SIG, hash: "4567ef" }],
      ] as const) {
        const state = { __provider: scripted, nested: { x: elided } };
        const r = await printed(ctx, () => read(ctx, { id: "e1", properties: state }));
        // Update's olds and Delete's properties are state too.
        const u = await update(ctx, { olds: state, news: { __provider: scripted } });
        const d = await del(ctx, { properties: state });
        out.push({ kind, last: `AssertionError: Invalid ${kind} encountered when unmarshalling resource property`, r, u, d });
      }
      return out;
    },
    expect(xs) {
      equal(xs.map((x) => x.kind), ["asset", "archive"], "kinds");
      for (const x of xs) silent(x.r, x.kind);
    },
    difference: {
      doc: "docs/parity.md (a value the SDK cannot deserialize is named with where it is)",
      ours(xs, ctx) {
        for (const x of xs) {
          equal(x.r.value, ours_(ctx, "Read", "r", "properties", x.last), x.kind);
          equal(x.u, ours_(ctx, "Update", "u", "olds", x.last), x.kind);
          equal(x.d, ours_(ctx, "Delete", "d", "properties", x.last), x.kind);
        }
      },
      reference(xs, ctx) {
        // The SDK's traceback, from the request's bag down to the nested asset, naming neither method nor resource.
        for (const x of xs) {
          equal(x.r.value.code, 2, "the status code");
          matches(x.r.value.details, /^Traceback \(most recent call last\):\n/);
          contains(x.r.value.details, `${x.last}\n`);
          notContains(x.r.value.details, ctx.urn("r"));
          contains(x.u.details, x.last);
          contains(x.d.details, x.last);
        }
      },
    },
  }),
];

// ================================================================== update

const up = session({ id: "python/update", language: "python", suite: [...ONE_PAIR, "update"], launch });

const updates: Case[] = [
  up.case<{ olds: Props; minimal: string; x: Printed<Outcome> }>("54-update-missing-method", {
    title: "54 update_missing_method [difference]: the reference keeps only {__provider: news.__provider}; ours keeps the old outputs with it",
    spec: ["54"],
    async ask(ctx) {
      const [scripted, minimal] = [await ctx.payload("scripted"), await ctx.payload("minimal")];
      // Unknowns and secrets in the old outputs are kept as the engine sent them.
      const olds = { __provider: scripted, a: 1, state: "kept", later: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", pw: secret("hunter22"), n: { l: [1, null] } };
      const x = await printed(ctx, () => update(ctx, { olds, news: { __provider: minimal, a: 2 }, oldInputs: { __provider: scripted, a: 1 } }));
      return { olds, minimal, x };
    },
    expect: ({ x }) => silent(x),
    difference: {
      doc: "docs/parity.md (an update without the user's update keeps the old outputs)",
      ours: ({ olds, minimal, x }) => includes(x.value, { code: 0, view: { properties: { ...olds, __provider: minimal } } }),
      reference: ({ minimal, x }) => includes(x.value, { code: 0, view: { properties: { __provider: minimal } } }),
    },
  }),

  up.case("55-update-returns-none", {
    title: "55 update_returns_undefined: update returning None is an AttributeError",
    spec: ["55"],
    async ask(ctx) {
      const values = await providerB(ctx, "values");
      const x = await printed(ctx, () => update(ctx, { olds: { __provider: values, y: 2 }, news: { __provider: values, act: "returnNone" } }));
      // A user's update returning outs=None is fine, and alike: {__provider}, the old outputs dropped.
      const b = await update(ctx, { olds: { __provider: values, y: 2 }, news: { __provider: values, act: "returnNoOuts" } });
      return { values, x, b };
    },
    compare: (r) => ({ x: sharedPrinted(r.x), b: r.b }),
    expect({ values, x, b }) {
      const view = sameTraceback(x.value, "Update", ["AttributeError: 'NoneType' object has no attribute 'outs'"]);
      equal(view, ["Traceback (most recent call last):", "AttributeError: 'NoneType' object has no attribute 'outs'", ""]);
      silent(x);
      okAnswer(b);
      equal(b.view, { properties: { __provider: values } });
    },
  }),

  up.case("56-update-uses-news-provider", {
    title: "56 update_uses_news_provider: the news code runs and its __provider is in the outputs",
    spec: ["56"],
    async ask(ctx) {
      const [a, b] = [await providerB(ctx, "versionA"), await providerB(ctx, "versionB")];
      return { a, b, o: await update(ctx, { olds: { __provider: a, version: "A" }, news: { __provider: b, x: 1 }, oldInputs: { __provider: a } }) };
    },
    compare: (r) => r.o,
    expect({ a, b, o }) {
      ok(a !== b, "the two versions pickle differently");
      okAnswer(o);
      includes(o.view.properties, { __provider: b, version: "B", oldVersion: "A" });
      ok(!("x" in o.view.properties), "no x in the outputs");
      ok(o.view.properties.configures.includes("B"), "B was configured");
      ok(!o.view.properties.configures.includes("A"), "A was not configured");
    },
  }),

  up.case<Outcome>("57-update-error-with-id", {
    title: "57 (Python side) update error with an `id` attribute: a plain UNKNOWN traceback, no init-failure detail",
    spec: ["57"],
    async ask(ctx) {
      const scripted = await ctx.payload("scripted");
      return update(ctx, { olds: { __provider: scripted }, news: { __provider: scripted, act: "raiseWithId" } });
    },
    compare: shared,
    expect(o) {
      const view = sameTraceback(o, "Update", ["Exception: half made"]);
      equal(framesIn(view, "python_providers.py"), ["update", "act"]);
    },
  }),
];

// ================================================================== delete

const dl = session({ id: "python/delete", language: "python", suite: [...ONE_PAIR, "delete"], launch });

const deletes: Case[] = [
  dl.case<Outcome>("58-delete-missing-method", {
    title: "58 delete_missing_method: Empty",
    spec: ["58"],
    async ask(ctx) {
      const minimal = await ctx.payload("minimal");
      return del(ctx, { properties: { __provider: minimal, a: null }, oldInputs: { __provider: minimal } });
    },
    expect: (o) => equal(o, { code: 0, details: "", view: {}, bytes: "" }),
  }),

  dl.case<Outcome[]>("59-delete-uses-outputs-provider", {
    title: "59 delete_uses_outputs_provider: the provider stored in the outputs (old code) runs, not old_inputs'",
    spec: ["59"],
    async ask(ctx) {
      const [a, b] = [await providerB(ctx, "versionA"), await providerB(ctx, "versionB")];
      return [await del(ctx, { properties: { __provider: a, act: "whoDeletes" }, oldInputs: { __provider: b } }), await del(ctx, { properties: { __provider: b, act: "whoDeletes" }, oldInputs: { __provider: a } })];
    },
    compare: (o) => o.map(shared),
    expect(o) {
      for (const [i, version] of ["A", "B"].entries()) {
        const view = sameTraceback(o[i], "Delete", [`Exception: delete ran version ${version}`]);
        equal(framesIn(view, "python_providers_b.py"), ["delete"]);
      }
    },
  }),

  dl.case<Printed<Outcome>[]>("60-delete-throws", {
    title: "60 delete_throws: UNKNOWN with the traceback; nothing on stderr",
    spec: ["60"],
    async ask(ctx) {
      const scripted = await ctx.payload("scripted");
      const out: Printed<Outcome>[] = [];
      for (const act of ["raise", "raiseValue"]) out.push(await printed(ctx, () => del(ctx, { properties: { __provider: scripted, act, msg: "del boom" } })));
      return out;
    },
    compare: (xs) => xs.map(sharedPrinted),
    expect(xs) {
      for (const [i, [act, last]] of [
        ["raise", "Exception: del boom"],
        ["raiseValue", "ValueError: del boom"],
      ].entries()) {
        const view = sameTraceback(xs[i].value, "Delete", [last]);
        equal(framesIn(view, "python_providers.py"), ["delete", "act"], act);
        silent(xs[i], act);
      }
    },
  }),
];

// ================================================================== output, modules and harness-only values

const om = session({ id: "python/output", language: "python", suite: [...ONE_PAIR, "output, modules and harness-only values"], launch });

const output: Case[] = [
  om.case("71-user-stdout-stderr-passthrough", {
    title: "71 user_stdout_stderr_passthrough: print, sys.stdout.write, os.write(1), a child and sys.stderr reach the plugin's streams unchanged",
    spec: ["71"],
    async ask(ctx) {
      const p = ctx.plugin;
      const scripted = await ctx.payload("scripted");
      const runs = [];
      for (const msg of ["one", "Content-Length: 2 {}"]) {
        const out0 = p.stdout.length;
        const err0 = p.stderr.length;
        const outcome = await p.client.create({ urn: ctx.urn("p"), properties: { __provider: scripted, act: "print", msg } });
        const last = `stderr from create ${msg}\n`;
        await p.until(() => p.stderr.slice(err0).includes(last) && p.stdout.slice(out0).includes(`child process from create ${msg}`), "the create's output");
        const stdout = p.stdout.slice(out0);
        const stderr = p.stderr.slice(err0);
        // The channel is intact: the next request is answered normally.
        const echo = await create(ctx, { __provider: scripted, act: "echo", after: msg });
        runs.push({ msg, outcome, stdout, stderr, echo });
      }
      // The port line was the first line, and nothing of the plugin's own was ever printed.
      return { scripted, runs, own: p.stdout.slice(1).filter((l) => !/ from create /.test(l)) };
    },
    expect({ scripted, runs, own }) {
      equal(runs.map((r) => r.msg), ["one", "Content-Length: 2 {}"], "messages");
      for (const { msg, outcome, stdout, stderr, echo } of runs) {
        equal(outcome.view, { id: "printed", properties: { __provider: scripted } }, msg);
        equal(stdout, [`print from create ${msg}`, `sys.stdout.write from create ${msg}`, `os.write(1) from create ${msg}`, `child process from create ${msg}`], msg);
        equal(stderr, `stderr from create ${msg}\n`, msg);
        okAnswer(echo, msg);
        equal(echo.view.properties.after, msg, msg);
      }
      equal(own, [], "the plugin's own stdout lines");
    },
  }),

  om.case("72-local-module-import", {
    title: "72 python_local_module_import: a provider class from the program's provider.py (pickled by reference) loads",
    spec: ["72"],
    async ask(ctx) {
      const local = await ctx.payload("local");
      return { local, python: py(ctx).python.executable, programDir: ctx.programDir, o: await create(ctx, { __provider: local, x: 1 }) };
    },
    compare: (r) => r.o,
    expect({ local, python, programDir, o }) {
      okAnswer(o);
      equal(o.view, { id: "local-1", properties: { __provider: local, module: "provider", executable: python, path0: programDir } });
    },
  }),

  om.case<{ minimal: string; o: Outcome }>("75-secret-sig-in-news", {
    title: "75 secret_sig_in_news_harness [difference]: the reference's default check hoists nested secrets; ours keeps each where it was",
    spec: ["75"],
    async ask(ctx) {
      const minimal = await ctx.payload("minimal");
      const news = { __provider: minimal, a: { b: secret("x"), c: 1 }, l: [1, secret(2)], deep: { d: { e: secret({ f: null, g: "h" }) } }, top: secret("t") };
      return { minimal, o: await ctx.client.check({ urn: ctx.urn("k"), olds: {}, news }) };
    },
    expect: ({ o }) => okAnswer(o),
    difference: {
      doc: "docs/parity.md#secret-resource-inputs",
      // Ours accepts secrets and hands the provider plain values, as the engine hands the reference's; what comes back
      // is marked secret where the engine marks it for the reference (by property name, objects property by property),
      // and a property echoed as it came goes back exactly so (`l`; `deep` lost its null `f` in the SDK).
      ours: ({ minimal, o }) =>
        equal(o.view, {
          inputs: { __provider: minimal, a: { b: secret("x"), c: 1 }, l: [1, secret(2)], deep: { d: { e: secret({ g: "h" }) } }, top: secret("t") },
          failures: [],
        }),
      // The reference's SDK hands its provider each object or list holding a secret as one secret (an engine never
      // sends it secrets: it answers acceptSecrets false).
      reference: ({ minimal, o }) =>
        equal(o.view.inputs, { __provider: minimal, a: secret({ b: "x", c: 1 }), l: secret([1, 2]), deep: secret({ d: { e: { g: "h" } } }), top: secret("t") }),
    },
  }),

  om.case("76-resource-ref-sig", {
    title: '76 resource_ref_sig_harness: a resource sig arrives as its id, or its URN, or (id "") unknown and dropped',
    spec: ["76"],
    async ask(ctx) {
      const scripted = await ctx.payload("scripted");
      const bucket = "urn:pulumi:dev::proj::aws:s3/bucket:Bucket::b";
      const comp = "urn:pulumi:dev::proj::my:index:Component::c";
      const o = await create(ctx, {
        __provider: scripted,
        act: "echo",
        withId: { [SIG]: RESOURCE_SIG, urn: bucket, id: "bucket-1", packageVersion: "6.0.0" },
        urnOnly: { [SIG]: RESOURCE_SIG, urn: comp },
        unknownId: { [SIG]: RESOURCE_SIG, urn: bucket, id: "" },
        inList: [{ [SIG]: RESOURCE_SIG, urn: comp }],
      });
      return { scripted, comp, o };
    },
    compare: (r) => r.o,
    expect({ scripted, comp, o }) {
      okAnswer(o);
      equal(o.view.properties, {
        __provider: scripted,
        act: "echo",
        withId: "bucket-1",
        urnOnly: comp,
        inList: [comp],
        keys: ["__provider", "act", "inList", "urnOnly", "withId"],
        types: { __provider: "str", act: "str", inList: "list", urnOnly: "str", withId: "str" },
      });
    },
  }),
];

// ================================================================== configure and the provider cache

const cfg = session({ id: "python/configure", language: "python", suite: [SUITE, "configure and the provider cache"], launch });

const ARGS = {
  "proj:a": "A",
  "project:a": "default-project-a",
  "colors:banana": "yellow",
  "proj:password": secret("hunter2"),
  "project:password": secret("default-pw"),
};

/** A plugin of the case's own, started with `env` over the base environment (stopped after the case). */
const fresh = (ctx: CaseContext, env: Record<string, string | undefined> = {}) => ctx.launch({ env: { ...BASE_ENV, ...env } });
const createWith = (ctx: CaseContext, p: LaunchedPlugin, provider: string, extra: Props = {}) => p.client.create({ urn: ctx.urn("cfg"), properties: { __provider: provider, ...extra } });

const configure: Case[] = [
  cfg.case("61-62-64-68-configure", {
    title: "61/62/64/68 configure_secret_unwrapped, configure_namespacing (PULUMI_PROJECT), configure_once_per_string, provider_code_change_between_steps",
    spec: ["61", "62", "64", "68"],
    async ask(ctx) {
      const P = await pl(ctx);
      const p = await fresh(ctx, { PULUMI_PROJECT: "proj" });
      const configured = await p.client.configure(ARGS);
      // 61 + 62: the secret reaches configure unwrapped; "a" reads proj:a, "colors:banana" is verbatim.
      const first = await createWith(ctx, p, P.configured);
      // 64: more RPCs on the same text: one configure.
      const chk = await p.client.check({ urn: ctx.urn("cfg"), olds: {}, news: { __provider: P.configured, q: 1 } });
      const again = [await createWith(ctx, p, P.configured), await createWith(ctx, p, P.configured)];
      // 64 + 68 with counters: one unpickle and one configure per distinct text, however many RPCs.
      const chkA = await p.client.check({ urn: ctx.urn("v"), olds: {}, news: { __provider: P.versionA } });
      const cA = await createWith(ctx, p, P.versionA);
      const cB = await createWith(ctx, p, P.versionB);
      // The old text still works for Delete (no reload), and for another create.
      const d = await p.client.delete({ urn: ctx.urn("v"), id: "id-A", properties: { __provider: P.versionA } });
      const cA2 = await createWith(ctx, p, P.versionA);
      return { P, o: { configured, first, chk, again, chkA, cA, cB, d, cA2 }, userStdout: p.userStdout, stderr: p.stderr };
    },
    compare: (r) => ({ o: r.o, userStdout: r.userStdout, stderr: r.stderr }),
    expect({ P, o, userStdout, stderr }) {
      for (const [k, x] of Object.entries(o)) (Array.isArray(x) ? x : [x]).forEach((y) => okAnswer(y, k));
      equal(o.first.view, { id: "cfg", properties: { __provider: P.configured, seen: { a: "A", banana: "yellow", password: "hunter2" }, calls: 1 } });
      for (const x of o.again) equal(x.view.properties.calls, 1, "one configure");
      equal(o.chkA.view.inputs, { __provider: P.versionA, checkedBy: "A" });
      equal(o.cA.view, { id: "id-A", properties: { __provider: P.versionA, version: "A", configures: ["A"], unpickles: { A: 1 }, config: { a: "A", banana: "yellow" } } });
      equal(o.cB.view.properties, { __provider: P.versionB, version: "B", configures: ["A", "B"], unpickles: { A: 1, B: 1 }, config: { a: "A", banana: "yellow" } });
      equal(o.d.bytes, "", "the delete's bytes");
      includes(o.cA2.view.properties, { version: "A" });
      equal(o.cA2.view.properties.configures, ["A", "B"]);
      equal(o.cA2.view.properties.unpickles, { A: 1, B: 1 });
      equal(userStdout, [], "stdout after the port line");
      equal(stderr, "", "stderr");
    },
  }),

  cfg.case("67-62-before-configure", {
    title: "67/62 rpc_before_configure gives None; configure_namespacing with PULUMI_PROJECT unset uses `project`",
    spec: ["67", "62"],
    async ask(ctx) {
      const P = await pl(ctx);
      const p = await fresh(ctx);
      // 67: no Configure yet: every get is None (nested None is null on the wire).
      const before = await createWith(ctx, p, P.configured);
      // Configure now: the cached text is not configured again.
      const configured = await p.client.configure(ARGS);
      const after = await createWith(ctx, p, P.configured);
      // 62: a new text is configured with the project "project".
      const cA = await createWith(ctx, p, P.versionA);
      return { P, before, configured, after, cA };
    },
    compare: ({ before, configured, after, cA }) => ({ before, configured, after, cA }),
    expect({ P, before, configured, after, cA }) {
      for (const x of [before, configured, after, cA]) okAnswer(x);
      equal(before.view, { id: "cfg", properties: { __provider: P.configured, seen: { a: null, banana: null, password: null }, calls: 1 } });
      equal(after.view, before.view, "not configured again");
      equal(cA.view.properties.config, { a: "default-project-a", banana: "yellow" });
    },
  }),

  cfg.case("63-require-missing", {
    title: "63 configure_require_missing: require of a missing key fails every RPC with the ValueError",
    spec: ["63"],
    async ask(ctx) {
      const configured = await ctx.payload("configured");
      const p = await fresh(ctx, { TEST_CONFIGURE_REQUIRE: "k", PULUMI_PROJECT: "proj" });
      const c = await p.client.configure({ "proj:a": "A" });
      const o = [await createWith(ctx, p, configured), await createWith(ctx, p, configured)];
      return { c, o, stderr: p.stderr };
    },
    compare: (r) => ({ c: r.c, o: r.o.map(shared), stderr: r.stderr }),
    expect({ c, o, stderr }) {
      okAnswer(c, "configure");
      for (const x of o) {
        // The reference's own frames: the RPC method, then get_provider.
        const view = sameTraceback(x, "Create", ["ValueError: missing required configuration key: k"], ["wrapper", "Create", "get_provider"]);
        equal(framesIn(view, "python_providers.py"), ["configure"]);
        equal(framesIn(view, "pulumi/dynamic/config.py"), ["require"]);
      }
      equal(stderr, "", "stderr");
    },
  }),

  cfg.case("65-configure-throws-retry", {
    title: "65 configure_throws_retry: a failed configure caches nothing; the next RPC re-unpickles and re-configures",
    spec: ["65"],
    async ask(ctx) {
      const P = await pl(ctx);
      const p = await fresh(ctx, { TEST_CONFIGURE_RAISE_ONCE: "1", PULUMI_PROJECT: "proj" });
      const c = await p.client.configure(ARGS);
      // The fixture's counter is a class attribute of a class pickled by value: every retry unpickles a fresh
      // class whose counter starts at 0 again, so "raise once" raises on every RPC, in both.
      const once = [await createWith(ctx, p, P.configured), await createWith(ctx, p, P.configured)];
      // With the counter kept on sys: the first RPC fails, the next one unpickles again, configures again, succeeds.
      const flaky = await createWith(ctx, p, P.flakyConfigure);
      const next = await createWith(ctx, p, P.flakyConfigure);
      const third = await createWith(ctx, p, P.flakyConfigure);
      return { P, c, once, flaky, next, third, stderr: p.stderr };
    },
    compare: (r) => ({ c: r.c, once: r.once.map(shared), flaky: shared(r.flaky), next: r.next, third: r.third, stderr: r.stderr }),
    expect({ P, c, once, flaky, next, third, stderr }) {
      okAnswer(c, "configure");
      for (const x of once) {
        const view = sameTraceback(x, "Create", ["Exception: configure failed once"]);
        equal(framesIn(view, "python_providers.py"), ["configure"]);
      }
      const view = sameTraceback(flaky, "Create", ["Exception: flaky configure fails the first time"]);
      equal(framesIn(view, "python_providers_b.py"), ["configure"]);
      okAnswer(next);
      equal(next.view, { id: "flaky", properties: { __provider: P.flakyConfigure, configures: 2, unpickles: 2, password: "hunter2" } });
      okAnswer(third);
      equal(third.view, next.view);
      equal(stderr, "", "stderr");
    },
  }),

  cfg.case("66-configure-async-race", {
    title: "66 (Python side) configure_async_race: concurrent first creates all see a configured provider",
    spec: ["66"],
    async ask(ctx) {
      const slow = await providerB(ctx, "slowConfigure");
      const p = await fresh(ctx);
      return { slow, o: await Promise.all([1, 2, 3].map((n) => createWith(ctx, p, slow, { n }))) };
    },
    compare: (r) => r.o,
    expect: ({ slow, o }) => equal(o.map((x) => x.view), [1, 2, 3].map((n) => ({ id: `${n}.0`, properties: { __provider: slow, configured: true } }))),
  }),
];

// ================================================================== large payload

const lg = session({ id: "python/large", language: "python", suite: [SUITE, "large payload"], launch });

const MiB = 1024 * 1024;

/** Peak resident set (VmHWM) summed over the plugin's process group (a host and its workers), in bytes. */
function peakRss(p: LaunchedPlugin): number {
  let total = 0;
  for (const pid of p.groupPids()) {
    try {
      const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (hwm) total += Number(hwm[1]) * 1024;
    } catch {
      // the process went away while we looked
    }
  }
  return total;
}

interface Big {
  ms: number;
  rss: number;
  code: number;
  details: string;
  id?: string;
  len?: number;
  intact: boolean;
  providerIntact: boolean;
  bytes: string;
}

const large: Case[] = [
  lg.case<Big>("77-large-payload", {
    title: "77 large_payload: a 100 MiB string round-trips through create in both; ours is not dramatically slower or bigger",
    spec: ["77"],
    sequential: true,
    async ask(ctx) {
      const scripted = await ctx.payload("scripted");
      const big = "x".repeat(100 * MiB);
      const p = await fresh(ctx);
      const t0 = performance.now();
      const o = await p.client.create({ urn: ctx.urn("big"), properties: { __provider: scripted, act: "big", big } });
      const ms = performance.now() - t0;
      const props = o.view?.properties ?? {};
      return {
        ms,
        rss: peakRss(p),
        code: o.code,
        details: o.details.slice(0, 2000),
        id: o.view?.id,
        len: props.len,
        intact: props.big === big,
        providerIntact: props.__provider === scripted,
        bytes: createHash("sha256").update(o.bytes ?? "").digest("hex"),
      };
    },
    compare: (r) => r.bytes,
    expect(r) {
      equal(r.code, 0, r.details);
      equal(r.id, "big", "id");
      equal(r.len, 100 * MiB, "len");
      ok(r.intact, "the string came back intact");
      ok(r.providerIntact, "__provider came back intact");
      ok(r.rss > 100 * MiB, `RSS measured (${(r.rss / MiB).toFixed(0)} MiB)`);
    },
    relate(o, r) {
      const fmt = (x: Big) => `${(x.ms / 1000).toFixed(2)} s, peak RSS ${(x.rss / MiB).toFixed(0)} MiB`;
      ok(o.ms < 3 * r.ms + 2000, `time: plugin ${fmt(o)}; reference ${fmt(r)}`);
      ok(o.rss < 3 * r.rss + 200 * MiB, `peak RSS: plugin ${fmt(o)}; reference ${fmt(r)}`);
    },
  }),
];

export const pythonValuesRudConfig: Case[] = [...createValues, ...reads, ...updates, ...deletes, ...output, ...configure, ...large];
