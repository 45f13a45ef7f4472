// Spec §9 rows 38–68, 71, 72, 75–77 (Python side): values through Create,
// the Read, Update and Delete RPCs, Configure and the provider cache, user
// output, program-local modules, harness-only sig values and a 100 MiB payload.
// Every request goes to the Python reference (`python -u -m pulumi.dynamic` in
// the test virtualenv, pulumi 3.270.0) and to our pulumi-resource-pulumi-python;
// the answers are compared, and the expected concrete value is asserted too.
//
// Errors are grpc-python's `context.abort(UNKNOWN, traceback.format_exc())`.
// Tracebacks differ in the plugin's own plumbing frames only (the reference's
// pulumi/dynamic/__main__.py wrapper and RPC method; ours' op_<method> frame of
// python-stub/worker.py): they are compared with those frames left out, i.e.
// the first line, every user and SDK frame and the final exception lines
// exactly. Tests named "[difference]" pin a deliberate difference: the
// reference's exact behaviour and ours' exact (different) behaviour.
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { type Outcome, type Props } from "../helpers/client.js";
import { PYTHON_PROGRAM, VENV_PYTHON } from "../helpers/paths.js";
import { ASSET_SIG, RESOURCE_SIG, SECRET_SIG, SIG, pythonProvider } from "../helpers/payloads.js";
import { launchPair, type LaunchOptions, type Plugin } from "../helpers/plugin.js";
import { onBoth } from "../helpers/pair.js";

const ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7";
const PY_TYPE = "pulumi-python:dynamic:Resource";
const urnOf = (name: string) => `urn:pulumi:dev::proj::${PY_TYPE}::${name}`;
const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });

/** The run-time environment every pair starts from: nothing left over from the test runner's shell. */
const BASE_ENV: NodeJS.ProcessEnv = {
  PULUMI_PROJECT: undefined,
  PULUMI_CONFIG: undefined,
  TEST_CONFIGURE_RAISE_ONCE: undefined,
  TEST_CONFIGURE_REQUIRE: undefined,
};

// ------------------------------------------------------------------ payloads

/** A payload of src/conformance/scenarios/python_providers_b.py, made by the SDK's serialize_provider in the test venv. */
const providerB = (name: string): string => pythonProvider(name, "python_providers_b.py");

// ------------------------------------------------------------------ tracebacks

const REFERENCE_MAIN = /\/site-packages\/pulumi\/dynamic\/__main__\.py$/;
const OUR_WORKER = /\/python-stub\/worker\.py$/;
const FRAME = /^ {2}File "([^"]+)", line \d+, in (.+)$/;

/** The traceback without the plugins' own frames (each frame is its `File` line and the indented lines under it). */
function userView(tb: string): string[] {
  const out: string[] = [];
  let skipping = false;
  for (const line of tb.split("\n")) {
    const m = FRAME.exec(line);
    if (m) {
      skipping = REFERENCE_MAIN.test(m[1]) || OUR_WORKER.test(m[1]);
      if (!skipping) out.push(line);
      continue;
    }
    if (skipping && line.startsWith("    ")) continue;
    skipping = false;
    out.push(line);
  }
  return out;
}

/** The names of the plugin's own frames in a traceback, in order. */
function plumbing(tb: string, file: RegExp): string[] {
  return tb
    .split("\n")
    .map((l) => FRAME.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && file.test(m[1]))
    .map((m) => m[2]);
}

/**
 * Both failed with UNKNOWN and a traceback that is the same once the plumbing
 * frames are left out, which ends with `last`; the reference's plumbing is its
 * wrapper and RPC method, ours' is the one op_<method> frame. Returns the
 * normalised traceback.
 */
function sameTraceback(o: Outcome, r: Outcome, rpc: string, last: string[]): string[] {
  expect(r.code, r.details).to.equal(2);
  expect(o.code, o.details).to.equal(2);
  expect(r.initFailed).to.equal(undefined);
  expect(o.initFailed).to.equal(undefined);
  const rv = userView(r.details);
  expect(userView(o.details), "ours vs reference, less plumbing frames").to.deep.equal(rv);
  expect(rv[0]).to.equal("Traceback (most recent call last):");
  expect(rv[rv.length - 1]).to.equal("");
  expect(rv.slice(-1 - last.length, -1)).to.deep.equal(last);
  expect(plumbing(r.details, REFERENCE_MAIN).slice(0, 2)).to.deep.equal(["wrapper", rpc]);
  expect(plumbing(o.details, OUR_WORKER)).to.deep.equal([`op_${rpc.toLowerCase()}`]);
  expect(plumbing(o.details, REFERENCE_MAIN)).to.deep.equal([]);
  return rv;
}

/** The `File …, in <name>` frames of a normalised traceback that come from `file`. */
const framesIn = (view: string[], file: string) =>
  view.map((l) => FRAME.exec(l)).filter((m): m is RegExpExecArray => m !== null && m[1].endsWith(file)).map((m) => m[2]);

// ------------------------------------------------------------------ running requests

interface Observed {
  outcome: Outcome;
  /** stdout lines and stderr text the plugin wrote while answering (up to the marker that follows). */
  stdout: string[];
  stderr: string;
}

let markers = 0;

/**
 * Runs `action`, then a create whose provider prints a unique marker to stdout
 * and stderr (the scripted provider's `print` act), and waits for it on both
 * streams: whatever precedes the marker is exactly what `action` printed, so
 * silence is proven without sleeping.
 */
async function observe(p: Plugin, action: (p: Plugin) => Promise<Outcome>): Promise<Observed> {
  const scripted = pythonProvider("scripted");
  const out0 = p.stdout.length;
  const err0 = p.stderr.length;
  const outcome = await action(p);
  const tag = `marker-${++markers}`;
  const m = await p.client.create({ urn: urnOf("marker"), properties: { __provider: scripted, act: "print", msg: tag } });
  expect(m.code, `marker create: ${m.details}`).to.equal(0);
  const errLine = `stderr from create ${tag}\n`;
  const outLine = `child process from create ${tag}`;
  await p.until(() => p.stderr.slice(err0).includes(errLine) && p.stdout.slice(out0).includes(outLine), `the output marker ${tag}`);
  const out = p.stdout.slice(out0);
  const err = p.stderr.slice(err0);
  return { outcome, stdout: out.slice(0, out.indexOf(`print from create ${tag}`)), stderr: err.slice(0, err.indexOf(errLine)) };
}

/** Both answered the same, and that answer is OK. */
function sameOk([o, r]: [Outcome, Outcome]): Outcome {
  expect(o, "ours vs reference").to.deep.equal(r);
  expect(o.code, o.details).to.equal(0);
  return o;
}

const launchPython = (env: NodeJS.ProcessEnv = {}, opts: LaunchOptions = {}) =>
  launchPair({ ...opts, language: "python", env: { ...BASE_ENV, ...env } });

// ------------------------------------------------------------------ process measurements

/** Peak resident set (VmHWM) summed over the plugin's process group (ours: the host and its workers), in bytes. */
function peakRss(p: Plugin): number {
  const pgid = p.child.pid!;
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the parenthesised command: state ppid pgrp …
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue;
      const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"));
      if (hwm) total += Number(hwm[1]) * 1024;
    } catch {
      // the process went away while we looked
    }
  }
  return total;
}

const MiB = 1024 * 1024;

// ==================================================================== tests

describe("differential (Python): values through create; read, update, delete; configure", function () {
  let scripted: string;
  let minimal: string;

  before(function () {
    scripted = pythonProvider("scripted");
    minimal = pythonProvider("minimal");
    providerB("values");
  });

  describe("one pair", function () {
    let ours: Plugin;
    let ref: Plugin;
    let values: string;

    before(async function () {
      values = providerB("values");
      ({ ours, ref } = await launchPython());
    });
    after(async function () {
      await Promise.all([ours?.stop(), ref?.stop()]);
    });

    const create = (properties: Props, extra: { preview?: boolean } = {}) => (p: Plugin) =>
      p.client.create({ urn: urnOf("c"), properties, ...extra });
    const read = (a: { id?: string; properties?: Props; inputs?: Props }) => (p: Plugin) => p.client.read({ urn: urnOf("r"), ...a });
    const update = (a: { id?: string; olds?: Props; news?: Props; oldInputs?: Props }) => (p: Plugin) =>
      p.client.update({ urn: urnOf("u"), id: "u1", ...a });
    const del = (a: { id?: string; properties?: Props; oldInputs?: Props }) => (p: Plugin) =>
      p.client.delete({ urn: urnOf("d"), id: "d1", ...a });

    // -------------------------------------------------------------- create values

    describe("create values", function () {
      it("38 create_outs_undefined_value: a top-level None is dropped; nested ones are null", async function () {
        const o = sameOk(await onBoth(ours, ref, create({ __provider: scripted, act: "noneValue" })));
        expect(o.view).to.deep.equal({ id: "nv", properties: { __provider: scripted, o: { x: null }, l: [null] } });
        expect(Object.keys(o.view.properties)).to.not.include("a");
      });

      it("39 create_number_types: numbers arrive as float and go back as equal doubles", async function () {
        const nums = { n: 1, f: 1.5, neg: -2, zero: 0, big: 2 ** 53 + 2, tiny: 5e-324, inf: Infinity, nan: NaN };
        const props = { __provider: scripted, act: "echo", ...nums, t: true, s: "1" };
        const o = sameOk(await onBoth(ours, ref, create(props)));
        const outs = o.view.properties;
        for (const [k, v] of Object.entries(nums)) {
          expect(outs[k], k).to.deep.equal(v);
          expect(outs.types[k], k).to.equal("float");
        }
        expect(outs.types).to.include({ __provider: "str", act: "str", t: "bool", s: "str" });
        expect(outs.t).to.equal(true);
        expect(outs.s).to.equal("1");
        expect(o.view.id).to.equal("echo");
      });

      it("40 create_nested_nulls: the user sees nulls dropped from objects, kept in lists, and returns that", async function () {
        const props = { __provider: scripted, act: "echo", o: { x: null, y: { z: null }, k: 1 }, l: [null, { w: null }, [null]], top: null };
        const o = sameOk(await onBoth(ours, ref, create(props)));
        expect(o.view).to.deep.equal({
          id: "echo",
          properties: {
            __provider: scripted,
            act: "echo",
            o: { y: {}, k: 1 },
            l: [null, {}, [null]],
            keys: ["__provider", "act", "l", "o"],
            types: { __provider: "str", act: "str", l: "list", o: "dict" },
          },
        });
      });

      it("41 create_empty_or_numeric_id: \"\" and None give id \"\"; id 5 is a protobuf TypeError", async function () {
        const empty = sameOk(await onBoth(ours, ref, create({ __provider: values, act: "idEmpty" })));
        expect(empty.view).to.deep.equal({ id: "", properties: { __provider: values, b: 2 } });
        const none = sameOk(await onBoth(ours, ref, create({ __provider: values, act: "idNone" })));
        expect(none.view).to.deep.equal({ id: "", properties: { __provider: values, a: 1 } });
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, create({ __provider: scripted, act: "idNumber" })));
        const view = sameTraceback(o.outcome, r.outcome, "Create", ["TypeError: bad argument type for built-in operation"]);
        // The failure is in building the response: no user frame is on the stack.
        expect(view).to.deep.equal(["Traceback (most recent call last):", "TypeError: bad argument type for built-in operation", ""]);
        for (const x of [o, r]) expect(x.stderr + x.stdout.join("\n")).to.equal("");
      });

      it("42 create_preview_flag_ignored: preview=true still runs the user's create", async function () {
        const seen: unknown[] = [];
        for (const preview of [true, false, true]) {
          const o = sameOk(await onBoth(ours, ref, create({ __provider: values, act: "count" }, { preview })));
          seen.push(o.view);
        }
        expect(seen).to.deep.equal([1, 2, 3].map((n) => ({ id: `call-${n}`, properties: { __provider: values, calls: n } })));
      });

      it("43 create_illegal_type_python: a set() in the outputs fails with the SDK's ValueError", async function () {
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, create({ __provider: scripted, act: "set" })));
        const view = sameTraceback(o.outcome, r.outcome, "Create", [
          "ValueError: While processing input: 's', type <class 'str'>, value {1, 2}",
          "ValueError has risen: unexpected input of type set for s",
        ]);
        // The cause chain comes first, as the SDK raises `from` it.
        expect(view).to.include("ValueError: unexpected input of type set for s");
        expect(view).to.include("The above exception was the direct cause of the following exception:");
        expect(framesIn(view, "pulumi/runtime/rpc.py")).to.deep.equal(["serialize_properties", "serialize_property", "serialize_properties"]);
        expect(framesIn(view, "asyncio/base_events.py")).to.deep.equal(["run_until_complete"]);
        for (const x of [o, r]) expect(x.stderr + x.stdout.join("\n")).to.equal("");
      });

      it("44 create_secret_sig_returned: an explicit secret sig goes back unchanged", async function () {
        const o = sameOk(await onBoth(ours, ref, create({ __provider: values, act: "secretSig" })));
        expect(o.view).to.deep.equal({ id: "s", properties: { __provider: values, s: secret("shh"), n: { inner: secret([1, null]) } } });
        // A secret sig in the inputs: the user sees the {sig, value} dict (value deserialized) and echoes it.
        const e = sameOk(await onBoth(ours, ref, create({ __provider: scripted, act: "echo", s: secret({ deep: [1, null], gone: null }) })));
        expect(e.view.properties.s).to.deep.equal(secret({ deep: [1, null] }));
        expect(e.view.properties.types.s).to.equal("dict");
      });

      it("45 create_asset_inputs: assets and archives arrive as SDK objects and go back without a hash", async function () {
        const asset = { [SIG]: ASSET_SIG, hash: "aa11", text: "hello" };
        const file = { [SIG]: ASSET_SIG, path: "./x.txt" };
        const remote = { [SIG]: ASSET_SIG, hash: "bb22", uri: "https://example.com/x" };
        const archive = { [SIG]: ARCHIVE_SIG, hash: "cc33", assets: { "a.txt": { [SIG]: ASSET_SIG, text: "a" } } };
        const fileArchive = { [SIG]: ARCHIVE_SIG, path: "./dir" };
        const o = sameOk(await onBoth(ours, ref, create({ __provider: scripted, act: "echo", asset, file, remote, archive, fileArchive })));
        const outs = o.view.properties;
        expect(outs.types).to.deep.equal({
          __provider: "str",
          act: "str",
          asset: "StringAsset",
          file: "FileAsset",
          remote: "RemoteAsset",
          archive: "AssetArchive",
          fileArchive: "FileArchive",
        });
        expect(outs.asset).to.deep.equal({ [SIG]: ASSET_SIG, text: "hello" });
        expect(outs.file).to.deep.equal(file);
        expect(outs.remote).to.deep.equal({ [SIG]: ASSET_SIG, uri: "https://example.com/x" });
        expect(outs.archive).to.deep.equal({ [SIG]: ARCHIVE_SIG, assets: { "a.txt": { [SIG]: ASSET_SIG, text: "a" } } });
        expect(outs.fileArchive).to.deep.equal(fileArchive);
      });

      it("async def create [difference]: the reference never awaits it (AttributeError + RuntimeWarning); ours awaits it", async function () {
        const asyncProvider = pythonProvider("async");
        const err0 = ref.stderr.length;
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, create({ __provider: asyncProvider, seconds: 0.01 })));
        // Reference: create returns a coroutine, and Create reads `.outs` off it.
        expect(r.outcome.code).to.equal(2);
        const view = userView(r.outcome.details);
        expect(view).to.deep.equal([
          "Traceback (most recent call last):",
          "AttributeError: 'coroutine' object has no attribute 'outs'",
          "",
        ]);
        expect(plumbing(r.outcome.details, REFERENCE_MAIN)).to.deep.equal(["wrapper", "Create"]);
        const warning = "RuntimeWarning: coroutine 'AsyncProvider.create' was never awaited";
        await ref.until(() => ref.stderr.slice(err0).includes(warning), "the never-awaited warning");
        // Ours: awaited on the worker's event loop, in the request's context.
        expect(o.outcome.code, o.outcome.details).to.equal(0);
        expect(o.outcome.view).to.deep.equal({
          id: "async",
          properties: { __provider: asyncProvider, awaited: true, loop: "_UnixSelectorEventLoop" },
        });
        expect(o.stderr).to.equal("");
        expect(o.stdout).to.deep.equal([]);
      });
    });

    // -------------------------------------------------------------- read

    describe("read", function () {
      it("46/47 read default (read_python_default_lossy): the base read round-trips the state, dropping nulls; no inputs", async function () {
        const properties = { __provider: minimal, a: null, b: { c: null, d: [null, 1] }, n: 1.5, s: "x", t: true };
        // ReadRequest.inputs is ignored when properties are present.
        const o = sameOk(await onBoth(ours, ref, read({ id: "r1", properties, inputs: { __provider: minimal, other: 1 } })));
        expect(o.view).to.deep.equal({ id: "r1", properties: { __provider: minimal, b: { d: [null, 1] }, n: 1.5, s: "x", t: true }, inputs: undefined });
      });

      it("46/47 read default: a get (properties unset or empty, inputs set) reads the inputs (3.270)", async function () {
        const inputs = { __provider: minimal, z: null, x: 1 };
        for (const properties of [undefined, {}]) {
          const o = sameOk(await onBoth(ours, ref, read({ id: "g1", properties, inputs })));
          expect(o.view, JSON.stringify(properties)).to.deep.equal({ id: "g1", properties: { __provider: minimal, x: 1 }, inputs: undefined });
        }
      });

      it("48 read_with_inputs: inputs returned by read get the request's __provider", async function () {
        const properties = { __provider: scripted, act: "readInputs", a: "seven" };
        const o = sameOk(await onBoth(ours, ref, read({ id: "r1", properties })));
        expect(o.view).to.deep.equal({
          id: "r1",
          properties: { ...properties, refreshed: true },
          inputs: { __provider: scripted, a: "seven", fromRead: true },
        });
        // Through a get: the bag is the request's inputs.
        const g = sameOk(await onBoth(ours, ref, read({ id: "r2", inputs: properties })));
        expect(g.view).to.deep.equal({
          id: "r2",
          properties: { ...properties, refreshed: true },
          inputs: { __provider: scripted, a: "seven", fromRead: true },
        });
        // A None `a` is dropped from the returned inputs.
        const n = sameOk(await onBoth(ours, ref, read({ id: "r3", properties: { __provider: scripted, act: "readInputs" } })));
        expect(n.view.inputs).to.deep.equal({ __provider: scripted, fromRead: true });
      });

      it("49 read_inputs_empty_object: `inputs: {}` (not None) becomes {__provider}", async function () {
        const o = sameOk(await onBoth(ours, ref, read({ id: "r1", properties: { __provider: values, act: "inputsEmpty" } })));
        expect(o.view).to.deep.equal({ id: "r1", properties: { __provider: values, x: 1 }, inputs: { __provider: values } });
      });

      it("50 read_no_id: a read returning id None answers id \"\"", async function () {
        const o = sameOk(await onBoth(ours, ref, read({ id: "r1", properties: { __provider: values, act: "noId" } })));
        expect(o.view).to.deep.equal({ id: "", properties: { __provider: values, y: "kept" }, inputs: undefined });
      });

      it("51 read_props_missing: outs=None is a TypeError", async function () {
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, read({ id: "r1", properties: { __provider: values, act: "outsNone" } })));
        const view = sameTraceback(o.outcome, r.outcome, "Read", ["TypeError: 'NoneType' object does not support item assignment"]);
        expect(view).to.deep.equal(["Traceback (most recent call last):", "TypeError: 'NoneType' object does not support item assignment", ""]);
        // The failing line is the same statement in both plugins' frames.
        for (const x of [o, r]) expect(x.outcome.details).to.include("    outs[PROVIDER_KEY] = props[PROVIDER_KEY]\n");
        for (const x of [o, r]) expect(x.stderr + x.stdout.join("\n")).to.equal("");
      });

      it("52 read_import_no_properties [difference]: no provider anywhere: reference KeyError traceback; ours names operation, URN and bag, and says what to declare", async function () {
        for (const properties of [undefined, {}]) {
          const [o, r] = await onBoth(ours, ref, (p) => observe(p, read({ id: "imp", properties })));
          expect(r.outcome.code).to.equal(2);
          expect(userView(r.outcome.details)).to.deep.equal(["Traceback (most recent call last):", "KeyError: '__provider'", ""]);
          expect(plumbing(r.outcome.details, REFERENCE_MAIN)).to.deep.equal(["wrapper", "Read", "get_provider"]);
          expect(o.outcome).to.deep.equal({
            code: 2,
            details:
              `Read ${urnOf("r")}: the request's properties has no "__provider" property, so the dynamic provider cannot be loaded; ` +
              `__provider must be the serialized provider the SDK writes into every dynamic resource. The resource is being imported: ` +
              `the engine sends only its id, no inputs and no state, so no serialized provider exists yet. To import a ` +
              `pulumi-python:dynamic:Resource, declare where its provider lives in the project's Pulumi.yaml:\n` +
              `  pulumi-dynamic-host:\n    providers:\n      pulumi-python:dynamic:Resource: providers.counter:CounterProvider\n` +
              `(a "<module>:<attribute>" reference to the provider in the project's code; docs/import-and-repair.md)`,
          });
          for (const x of [o, r]) expect(x.stderr + x.stdout.join("\n")).to.equal("");
        }
      });

      it("53 read_elided_asset [difference]: an elided {sig, hash} asset or archive fails deserialization (read, update olds, delete): ours INVALID_ARGUMENT naming where, the reference a bare traceback", async function () {
        const cases: [string, Props][] = [
          ["asset", { [SIG]: ASSET_SIG, hash: "0123abcd" }],
          ["archive", { [SIG]: ARCHIVE_SIG, hash: "4567ef" }],
        ];
        for (const [kind, elided] of cases) {
          const last = `AssertionError: Invalid ${kind} encountered when unmarshalling resource property`;
          const ours_ = (rpc: string, name: string, bag: string) => ({
            code: 3,
            details: `${rpc} ${urnOf(name)}: the request's ${bag} holds a value the pulumi Python SDK cannot deserialize, at ${bag}.nested.x: ${last}`,
          });
          const state = { __provider: scripted, nested: { x: elided } };
          const [o, r] = await onBoth(ours, ref, (p) => observe(p, read({ id: "e1", properties: state })));
          expect(o.outcome).to.deep.equal(ours_("Read", "r", "properties"));
          // The reference: the SDK's traceback, from the request's bag down to the nested asset, naming neither method nor resource.
          expect(r.outcome.code).to.equal(2);
          expect(r.outcome.details).to.match(/^Traceback \(most recent call last\):\n/).and.include(`${last}\n`).and.not.include(urnOf("r"));
          for (const x of [o, r]) expect(x.stderr + x.stdout.join("\n"), kind).to.equal("");
          // Update's olds and Delete's properties are state too.
          const [ou, ru] = await onBoth(ours, ref, update({ olds: state, news: { __provider: scripted } }));
          expect(ou).to.deep.equal(ours_("Update", "u", "olds"));
          expect(ru.details).to.include(last);
          const [od, rd] = await onBoth(ours, ref, del({ properties: state }));
          expect(od).to.deep.equal(ours_("Delete", "d", "properties"));
          expect(rd.details).to.include(last);
        }
      });
    });

    // -------------------------------------------------------------- update

    describe("update", function () {
      it("54 update_missing_method [difference]: the reference keeps only {__provider: news.__provider}; ours keeps the old outputs with it", async function () {
        // Unknowns and secrets in the old outputs are kept as the engine sent them.
        const olds = { __provider: scripted, a: 1, state: "kept", later: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", pw: secret("hunter22"), n: { l: [1, null] } };
        const news = { __provider: minimal, a: 2 };
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, update({ olds, news, oldInputs: { __provider: scripted, a: 1 } })));
        expect(r.outcome).to.deep.include({ code: 0, view: { properties: { __provider: minimal } } });
        expect(o.outcome).to.deep.include({ code: 0, view: { properties: { ...olds, __provider: minimal } } });
        for (const x of [o, r]) expect(x.stderr + x.stdout.join("\n")).to.equal("");
      });

      it("55 update_returns_undefined: update returning None is an AttributeError", async function () {
        const news = { __provider: values, act: "returnNone" };
        const [o, r] = await onBoth(ours, ref, (p) => observe(p, update({ olds: { __provider: values, y: 2 }, news })));
        const view = sameTraceback(o.outcome, r.outcome, "Update", ["AttributeError: 'NoneType' object has no attribute 'outs'"]);
        expect(view).to.deep.equal(["Traceback (most recent call last):", "AttributeError: 'NoneType' object has no attribute 'outs'", ""]);
        for (const x of [o, r]) expect(x.stderr + x.stdout.join("\n")).to.equal("");
        // A user's update returning outs=None is fine, and alike: {__provider}, the old outputs dropped.
        const b = sameOk(await onBoth(ours, ref, update({ olds: { __provider: values, y: 2 }, news: { __provider: values, act: "returnNoOuts" } })));
        expect(b.view).to.deep.equal({ properties: { __provider: values } });
      });

      it("56 update_uses_news_provider: the news code runs and its __provider is in the outputs", async function () {
        const [a, b] = [providerB("versionA"), providerB("versionB")];
        expect(a).to.not.equal(b);
        const o = sameOk(await onBoth(ours, ref, update({ olds: { __provider: a, version: "A" }, news: { __provider: b, x: 1 }, oldInputs: { __provider: a } })));
        expect(o.view.properties).to.deep.include({ __provider: b, version: "B", oldVersion: "A" });
        expect(o.view.properties).to.not.have.property("x");
        expect(o.view.properties.configures).to.include("B");
        expect(o.view.properties.configures).to.not.include("A");
      });

      it("57 (Python side) update error with an `id` attribute: a plain UNKNOWN traceback, no init-failure detail", async function () {
        const news = { __provider: scripted, act: "raiseWithId" };
        const [o, r] = await onBoth(ours, ref, update({ olds: { __provider: scripted }, news }));
        const view = sameTraceback(o, r, "Update", ["Exception: half made"]);
        expect(framesIn(view, "python_providers.py")).to.deep.equal(["update", "act"]);
      });
    });

    // -------------------------------------------------------------- delete

    describe("delete", function () {
      it("58 delete_missing_method: Empty", async function () {
        const o = sameOk(await onBoth(ours, ref, del({ properties: { __provider: minimal, a: null }, oldInputs: { __provider: minimal } })));
        expect(o).to.deep.equal({ code: 0, details: "", view: {}, bytes: "" });
      });

      it("59 delete_uses_outputs_provider: the provider stored in the outputs (old code) runs, not old_inputs'", async function () {
        const [a, b] = [providerB("versionA"), providerB("versionB")];
        for (const [mine, other, version] of [
          [a, b, "A"],
          [b, a, "B"],
        ]) {
          const [o, r] = await onBoth(ours, ref, del({ properties: { __provider: mine, act: "whoDeletes" }, oldInputs: { __provider: other } }));
          const view = sameTraceback(o, r, "Delete", [`Exception: delete ran version ${version}`]);
          expect(framesIn(view, "python_providers_b.py")).to.deep.equal(["delete"]);
        }
      });

      it("60 delete_throws: UNKNOWN with the traceback; nothing on stderr", async function () {
        for (const [act, last] of [
          ["raise", "Exception: del boom"],
          ["raiseValue", "ValueError: del boom"],
        ]) {
          const [o, r] = await onBoth(ours, ref, (p) => observe(p, del({ properties: { __provider: scripted, act, msg: "del boom" } })));
          const view = sameTraceback(o.outcome, r.outcome, "Delete", [last]);
          expect(framesIn(view, "python_providers.py"), act).to.deep.equal(["delete", "act"]);
          for (const x of [o, r]) expect(x.stderr + x.stdout.join("\n"), act).to.equal("");
        }
      });
    });

    // -------------------------------------------------------------- user output, modules, harness values

    describe("output, modules and harness-only values", function () {
      it("71 user_stdout_stderr_passthrough: print, sys.stdout.write, os.write(1), a child and sys.stderr reach the plugin's streams unchanged", async function () {
        for (const msg of ["one", "Content-Length: 2 {}"]) {
          const [o, r] = await onBoth(ours, ref, async (p) => {
            const out0 = p.stdout.length;
            const err0 = p.stderr.length;
            const outcome = await p.client.create({ urn: urnOf("p"), properties: { __provider: scripted, act: "print", msg } });
            const last = `stderr from create ${msg}\n`;
            await p.until(
              () => p.stderr.slice(err0).includes(last) && p.stdout.slice(out0).includes(`child process from create ${msg}`),
              "the create's output",
            );
            return { outcome, stdout: p.stdout.slice(out0), stderr: p.stderr.slice(err0) };
          });
          expect(o, msg).to.deep.equal(r);
          expect(o.outcome.view, msg).to.deep.equal({ id: "printed", properties: { __provider: scripted } });
          expect(o.stdout, msg).to.deep.equal([
            `print from create ${msg}`,
            `sys.stdout.write from create ${msg}`,
            `os.write(1) from create ${msg}`,
            `child process from create ${msg}`,
          ]);
          expect(o.stderr, msg).to.equal(`stderr from create ${msg}\n`);
          // The channel is intact: the next request is answered normally.
          const e = sameOk(await onBoth(ours, ref, create({ __provider: scripted, act: "echo", after: msg })));
          expect(e.view.properties.after).to.equal(msg);
        }
        // The port line was the first line, and nothing of the plugins' own was ever printed.
        for (const p of [ours, ref]) expect(p.stdout.slice(1).filter((l) => !/ from create /.test(l)), p.kind).to.deep.equal([]);
      });

      it("72 python_local_module_import: a provider class from the program's provider.py (pickled by reference) loads", async function () {
        const local = pythonProvider("local");
        const o = sameOk(await onBoth(ours, ref, create({ __provider: local, x: 1 })));
        expect(o.view).to.deep.equal({
          id: "local-1",
          properties: { __provider: local, module: "provider", executable: VENV_PYTHON, path0: PYTHON_PROGRAM },
        });
      });

      it("75 secret_sig_in_news_harness [difference]: the reference's default check hoists nested secrets; ours keeps each where it was", async function () {
        const news = {
          __provider: minimal,
          a: { b: secret("x"), c: 1 },
          l: [1, secret(2)],
          deep: { d: { e: secret({ f: null, g: "h" }) } },
          top: secret("t"),
        };
        const [o, r] = await onBoth(ours, ref, (p) => p.client.check({ urn: urnOf("k"), olds: {}, news }));
        expect([o.code, r.code]).to.deep.equal([0, 0]);
        // The reference's SDK hands its provider each object or list holding a secret as one secret (an engine never
        // sends it secrets: it answers acceptSecrets false).
        expect(r.view.inputs).to.deep.equal({
          __provider: minimal,
          a: secret({ b: "x", c: 1 }),
          l: secret([1, 2]),
          deep: secret({ d: { e: { g: "h" } } }),
          top: secret("t"),
        });
        // Ours accepts secrets and hands the provider plain values, as the engine hands the reference's; what comes back
        // is marked secret where the engine marks it for the reference (by property name, objects property by property),
        // and a property echoed as it came goes back exactly so (`l`; `deep` lost its null `f` in the SDK).
        expect(o.view).to.deep.equal({
          inputs: {
            __provider: minimal,
            a: { b: secret("x"), c: 1 },
            l: [1, secret(2)],
            deep: { d: { e: secret({ g: "h" }) } },
            top: secret("t"),
          },
          failures: [],
        });
      });

      it("76 resource_ref_sig_harness: a resource sig arrives as its id, or its URN, or (id \"\") unknown and dropped", async function () {
        const bucket = "urn:pulumi:dev::proj::aws:s3/bucket:Bucket::b";
        const comp = "urn:pulumi:dev::proj::my:index:Component::c";
        const props = {
          __provider: scripted,
          act: "echo",
          withId: { [SIG]: RESOURCE_SIG, urn: bucket, id: "bucket-1", packageVersion: "6.0.0" },
          urnOnly: { [SIG]: RESOURCE_SIG, urn: comp },
          unknownId: { [SIG]: RESOURCE_SIG, urn: bucket, id: "" },
          inList: [{ [SIG]: RESOURCE_SIG, urn: comp }],
        };
        const o = sameOk(await onBoth(ours, ref, create(props)));
        expect(o.view.properties).to.deep.equal({
          __provider: scripted,
          act: "echo",
          withId: "bucket-1",
          urnOnly: comp,
          inList: [comp],
          keys: ["__provider", "act", "inList", "urnOnly", "withId"],
          types: { __provider: "str", act: "str", inList: "list", urnOnly: "str", withId: "str" },
        });
      });
    });
  });

  // ------------------------------------------------------------------ configure and the provider cache

  describe("configure and the provider cache", function () {
    const launched: Plugin[] = [];

    async function pair(env: NodeJS.ProcessEnv = {}): Promise<{ ours: Plugin; ref: Plugin }> {
      const p = await launchPython(env);
      launched.push(p.ours, p.ref);
      return p;
    }

    afterEach(async function () {
      await Promise.all(launched.splice(0).map((p) => p.stop()));
    });

    const createWith = (provider: string, extra: Props = {}) => (p: Plugin) =>
      p.client.create({ urn: urnOf("cfg"), properties: { __provider: provider, ...extra } });

    const ARGS = {
      "proj:a": "A",
      "project:a": "default-project-a",
      "colors:banana": "yellow",
      "proj:password": secret("hunter2"),
      "project:password": secret("default-pw"),
    };

    it("61/62/64/68 configure_secret_unwrapped, configure_namespacing (PULUMI_PROJECT), configure_once_per_string, provider_code_change_between_steps", async function () {
      const { ours, ref } = await pair({ PULUMI_PROJECT: "proj" });
      const configured = pythonProvider("configured");
      sameOk(await onBoth(ours, ref, (p) => p.client.configure(ARGS)));

      // 61 + 62: the secret reaches configure unwrapped; "a" reads proj:a, "colors:banana" is verbatim.
      const first = sameOk(await onBoth(ours, ref, createWith(configured)));
      expect(first.view).to.deep.equal({
        id: "cfg",
        properties: { __provider: configured, seen: { a: "A", banana: "yellow", password: "hunter2" }, calls: 1 },
      });

      // 64: more RPCs on the same text: one configure.
      sameOk(await onBoth(ours, ref, (p) => p.client.check({ urn: urnOf("cfg"), olds: {}, news: { __provider: configured, q: 1 } })));
      for (let i = 0; i < 2; i++) {
        const again = sameOk(await onBoth(ours, ref, createWith(configured)));
        expect(again.view.properties.calls).to.equal(1);
      }

      // 64 + 68 with counters: one unpickle and one configure per distinct text, however many RPCs.
      const [a, b] = [providerB("versionA"), providerB("versionB")];
      const chk = sameOk(await onBoth(ours, ref, (p) => p.client.check({ urn: urnOf("v"), olds: {}, news: { __provider: a } })));
      expect(chk.view.inputs).to.deep.equal({ __provider: a, checkedBy: "A" });
      const cA = sameOk(await onBoth(ours, ref, createWith(a)));
      expect(cA.view).to.deep.equal({
        id: "id-A",
        properties: { __provider: a, version: "A", configures: ["A"], unpickles: { A: 1 }, config: { a: "A", banana: "yellow" } },
      });
      const cB = sameOk(await onBoth(ours, ref, createWith(b)));
      expect(cB.view.properties).to.deep.equal({
        __provider: b,
        version: "B",
        configures: ["A", "B"],
        unpickles: { A: 1, B: 1 },
        config: { a: "A", banana: "yellow" },
      });
      // The old text still works for Delete (no reload), and for another create.
      const d = sameOk(await onBoth(ours, ref, (p) => p.client.delete({ urn: urnOf("v"), id: "id-A", properties: { __provider: a } })));
      expect(d.bytes).to.equal("");
      const cA2 = sameOk(await onBoth(ours, ref, createWith(a)));
      expect(cA2.view.properties).to.deep.include({ version: "A" });
      expect(cA2.view.properties.configures).to.deep.equal(["A", "B"]);
      expect(cA2.view.properties.unpickles).to.deep.equal({ A: 1, B: 1 });
      for (const p of [ours, ref]) {
        expect(p.userStdout, p.kind).to.deep.equal([]);
        expect(p.stderr, p.kind).to.equal("");
      }
    });

    it("67/62 rpc_before_configure gives None; configure_namespacing with PULUMI_PROJECT unset uses `project`", async function () {
      const { ours, ref } = await pair();
      const configured = pythonProvider("configured");
      // 67: no Configure yet: every get is None (nested None is null on the wire).
      const before = sameOk(await onBoth(ours, ref, createWith(configured)));
      expect(before.view).to.deep.equal({
        id: "cfg",
        properties: { __provider: configured, seen: { a: null, banana: null, password: null }, calls: 1 },
      });
      // Configure now: the cached text is not configured again.
      sameOk(await onBoth(ours, ref, (p) => p.client.configure(ARGS)));
      const after = sameOk(await onBoth(ours, ref, createWith(configured)));
      expect(after.view).to.deep.equal(before.view);
      // 62: a new text is configured with the project "project".
      const cA = sameOk(await onBoth(ours, ref, createWith(providerB("versionA"))));
      expect(cA.view.properties.config).to.deep.equal({ a: "default-project-a", banana: "yellow" });
    });

    it("63 configure_require_missing: require of a missing key fails every RPC with the ValueError", async function () {
      const { ours, ref } = await pair({ TEST_CONFIGURE_REQUIRE: "k", PULUMI_PROJECT: "proj" });
      const configured = pythonProvider("configured");
      sameOk(await onBoth(ours, ref, (p) => p.client.configure({ "proj:a": "A" })));
      for (let i = 0; i < 2; i++) {
        const [o, r] = await onBoth(ours, ref, createWith(configured));
        const view = sameTraceback(o, r, "Create", ["ValueError: missing required configuration key: k"]);
        expect(framesIn(view, "python_providers.py")).to.deep.equal(["configure"]);
        expect(framesIn(view, "pulumi/dynamic/config.py")).to.deep.equal(["require"]);
        // The reference's own frames: the RPC method, then get_provider.
        expect(plumbing(r.details, REFERENCE_MAIN)).to.deep.equal(["wrapper", "Create", "get_provider"]);
      }
      for (const p of [ours, ref]) expect(p.stderr, p.kind).to.equal("");
    });

    it("65 configure_throws_retry: a failed configure caches nothing; the next RPC re-unpickles and re-configures", async function () {
      const { ours, ref } = await pair({ TEST_CONFIGURE_RAISE_ONCE: "1", PULUMI_PROJECT: "proj" });
      sameOk(await onBoth(ours, ref, (p) => p.client.configure(ARGS)));
      // The fixture's counter is a class attribute of a class pickled by value: every retry unpickles a fresh
      // class whose counter starts at 0 again, so "raise once" raises on every RPC, in both.
      const configured = pythonProvider("configured");
      for (let i = 0; i < 2; i++) {
        const [o, r] = await onBoth(ours, ref, createWith(configured));
        const view = sameTraceback(o, r, "Create", ["Exception: configure failed once"]);
        expect(framesIn(view, "python_providers.py")).to.deep.equal(["configure"]);
      }
      // With the counter kept on sys: the first RPC fails, the next one unpickles again, configures again, succeeds.
      const flaky = providerB("flakyConfigure");
      const [o, r] = await onBoth(ours, ref, createWith(flaky));
      const view = sameTraceback(o, r, "Create", ["Exception: flaky configure fails the first time"]);
      expect(framesIn(view, "python_providers_b.py")).to.deep.equal(["configure"]);
      const next = sameOk(await onBoth(ours, ref, createWith(flaky)));
      expect(next.view).to.deep.equal({ id: "flaky", properties: { __provider: flaky, configures: 2, unpickles: 2, password: "hunter2" } });
      const third = sameOk(await onBoth(ours, ref, createWith(flaky)));
      expect(third.view).to.deep.equal(next.view);
      for (const p of [ours, ref]) expect(p.stderr, p.kind).to.equal("");
    });

    it("66 (Python side) configure_async_race: concurrent first creates all see a configured provider", async function () {
      const { ours, ref } = await pair();
      const slow = providerB("slowConfigure");
      const [o, r] = await onBoth(ours, ref, (p) => Promise.all([1, 2, 3].map((n) => createWith(slow, { n })(p))));
      expect(o).to.deep.equal(r);
      expect(o.map((x) => x.view)).to.deep.equal([1, 2, 3].map((n) => ({ id: `${n}.0`, properties: { __provider: slow, configured: true } })));
    });
  });

  // ------------------------------------------------------------------ large payload

  describe("large payload", function () {
    this.timeout(300_000);

    it("77 large_payload: a 100 MiB string round-trips through create in both; ours is not dramatically slower or bigger", async function () {
      const big = "x".repeat(100 * MiB);
      const { ours, ref } = await launchPython();
      const results: Record<string, { ms: number; rss: number; outcome: Outcome }> = {};
      try {
        // One at a time, so neither is measured while the other competes for the CPU.
        for (const p of [ref, ours]) {
          const t0 = performance.now();
          const outcome = await p.client.create({ urn: urnOf("big"), properties: { __provider: scripted, act: "big", big } });
          const ms = performance.now() - t0;
          results[p.kind] = { ms, rss: peakRss(p), outcome };
        }
      } finally {
        await Promise.all([ours.stop(), ref.stop()]);
      }
      const [o, r] = [results.ours, results.reference];
      for (const [name, x] of Object.entries(results)) {
        expect(x.outcome.code, `${name}: ${x.outcome.details?.slice(0, 2000)}`).to.equal(0);
        expect(x.outcome.view.id, name).to.equal("big");
        expect(x.outcome.view.properties.len, name).to.equal(100 * MiB);
        expect(x.outcome.view.properties.big === big, `${name}: the string came back intact`).to.equal(true);
        expect(x.outcome.view.properties.__provider === scripted, name).to.equal(true);
      }
      expect(o.outcome.bytes === r.outcome.bytes, "identical response bytes").to.equal(true);
      const fmt = (x: { ms: number; rss: number }) => `${(x.ms / 1000).toFixed(2)} s, peak RSS ${(x.rss / MiB).toFixed(0)} MiB`;
      console.log(`      large_payload: reference ${fmt(r)}; ours ${fmt(o)}`);
      expect(r.rss, "reference RSS measured").to.be.greaterThan(100 * MiB);
      expect(o.rss, "ours RSS measured").to.be.greaterThan(100 * MiB);
      expect(o.ms, "ours time vs reference").to.be.lessThan(3 * r.ms + 2000);
      expect(o.rss, "ours peak RSS vs reference").to.be.lessThan(3 * r.rss + 200 * MiB);
    });
  });
});
