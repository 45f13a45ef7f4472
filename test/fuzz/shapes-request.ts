// Shapes whose request fields are wrong: no URN, another package's URN or type,
// odd URNs, ids and types, a bag left out, odd timeouts; and the ones no stub
// would send: a Value with no kind, fields with the wrong wire type, unknown
// fields, truncated or random bytes, invalid UTF-8, impossible lengths.
import { isUtf8 } from "node:buffer";
import { buried, randomStruct } from "./adversarial.js";
import { pickResourceRpc, resourceRequest, urnFor, type Draft, type ModeInfo, type Shape } from "./cases.js";
import { CODE } from "./limits.js";
import { bytesField, doubleField, MAX_FIELD_NUMBER, tag, varint, varintField, STRUCT, VALUE, WIRE } from "./proto-bytes.js";
import type { Rng } from "./random.js";
import { FIELDS, PROVIDER_BAG, encodeRequest, fuzzUrn, type RequestSpec, type ResourceRpc } from "./requests.js";
import { encodeStruct, encodeValue, num, str, type FStruct, type FValue } from "./values.js";

const ODD_URNS = [
  "not-a-urn", "urn:pulumi:", "urn:pulumi:a::b", "urn:pulumi:dev::proj::::", "urn:pulumi:dev::proj::pulumi-x:dynamic:Resource::n",
  "urn:pulumi:дев::проект::TYPE::имя", "urn:pulumi:dev\u0000::proj", "urn:pulumi:dev::proj::parent$pulumi-TYPE:dynamic:Resource::n",
] as const;
const ODD_IDS = ["", " ", "\u0000", "id\u0000with-nul", "🆔", "04da6b54-80e4-46f7-96ec-b56ff0331ba9", "x".repeat(100_000)] as const;
const ODD_TYPES = ["", ":", "pulumi-TYPE", "x:y:z", "pulumi-TYPE:dynamic:Resource:extra", "Тип", "t".repeat(10_000)] as const;

/** A good request to the good provider, changed by `change`; expect `expect`. */
function changed(rng: Rng, m: ModeInfo, note: string, change: (spec: RequestSpec, method: ResourceRpc) => void, extra: Partial<Draft> = {}): Draft {
  const method = (extra.method as ResourceRpc | undefined) ?? pickResourceRpc(rng);
  const urn = urnFor(m, rng);
  const base = resourceRequest(method, urn, randomStruct(rng, 2, 3, 0.1));
  return {
    method, urn, expect: "either", note, ...extra,
    request: (p) => {
      const spec = base(p);
      change(spec, method);
      return spec;
    },
  };
}

const lang = (m: ModeInfo, s: string) => s.replace("TYPE", m.language);

export const FIELD_SHAPES: Shape[] = [
  { name: "fields.no-urn", weight: 1, make: (rng, m) => ({ ...changed(rng, m, "no urn", (s) => delete s.urn), urn: undefined }) },
  {
    name: "fields.other-package",
    weight: 2,
    make: (rng, m) => {
      const where = rng.pick(["urn", "type", "both"] as const);
      const other = fuzzUrn(m.otherType, `o${rng.tag()}`);
      const draft = changed(rng, m, `the other package in ${where}`, (s) => {
        if (where !== "type") s.urn = other;
        if (where !== "urn") s.type = m.otherType;
      }, { expect: "error", mentions: [/pulumi-nodejs/, /pulumi-python/], onlyCodes: [CODE.INVALID_ARGUMENT] });
      return { ...draft, urn: where === "type" ? draft.urn : other };
    },
  },
  {
    name: "fields.odd-urn",
    weight: 2,
    make: (rng, m) => {
      const urn = rng.chance(0.15) ? `urn:pulumi:dev::proj::${m.type}::${"n".repeat(rng.int(1_000, 200_000))}` : lang(m, rng.pick(ODD_URNS));
      const draft = changed(rng, m, `urn ${JSON.stringify(urn.slice(0, 40))}${urn.length > 40 ? `…(${urn.length})` : ""}`, (s) => (s.urn = urn));
      return { ...draft, urn: urn.length <= 1024 && !urn.includes("::pulumi-x") ? urn : undefined };
    },
  },
  {
    name: "fields.odd-id",
    weight: 1,
    make: (rng, m) => {
      const id = rng.pick(ODD_IDS);
      return changed(rng, m, `id ${JSON.stringify(id.slice(0, 20))}`, (s) => (s.id = id), { method: rng.pick(["Diff", "Read", "Update", "Delete"] as const), expect: "ok" });
    },
  },
  {
    name: "fields.missing-bag",
    weight: 2,
    make: (rng, m) => {
      const method = pickResourceRpc(rng);
      const bags = (Object.keys(FIELDS[method]!) as string[]).filter((k) => ["olds", "news", "properties", "inputs", "oldInputs"].includes(k));
      const gone = rng.pick(bags) as keyof NonNullable<RequestSpec["bags"]>;
      const holdsProvider = gone === PROVIDER_BAG[method];
      return changed(rng, m, `no ${gone}`, (s) => {
        delete s.bags![gone];
        // A user-driven get: Read with only inputs must load the provider from them.
        if (method === "Read" && gone === "properties" && rng.chance(0.5)) s.bags!.inputs = [["__provider", str("")]];
      }, { method, expect: holdsProvider ? "error" : "either", mentions: holdsProvider ? [new RegExp(`${gone}|__provider`)] : undefined });
    },
  },
  {
    name: "fields.timeout",
    weight: 2,
    make: (rng, m) => {
      const timeout = rng.pick([0, -1, NaN, Infinity, -Infinity, 1, 60, 2_592_000, 1e9, 1e300, Number.MAX_VALUE, 2 ** 31 / 1000, 1e-300, 5e-324, 1e-3]);
      // A deadline under a millisecond may pass before the provider answers; any other must let a quick provider finish.
      const tiny = timeout > 0 && timeout < 0.01;
      return changed(rng, m, `timeout ${timeout} s`, (s) => (s.timeout = timeout), { method: rng.pick(["Create", "Update", "Delete"] as const), expect: tiny ? "either" : "ok", codes: tiny ? [CODE.DEADLINE_EXCEEDED] : undefined });
    },
  },
  { name: "fields.preview", weight: 1, make: (rng, m) => changed(rng, m, "preview", (s) => (s.preview = true), { method: rng.pick(["Create", "Update"] as const), expect: "ok", echoes: true }) },
  {
    name: "fields.odd-type",
    weight: 1,
    make: (rng, m) => {
      const type = lang(m, rng.pick(ODD_TYPES));
      return changed(rng, m, `type ${JSON.stringify(type.slice(0, 30))}`, (s) => (s.type = type));
    },
  },
];

/** Protobuf's names of the wire types, as a refusal names them. */
const WIRE_TYPE_NAMES: Record<number, string> = { [WIRE.varint]: "varint", [WIRE.fixed64]: "64-bit", [WIRE.fixed32]: "32-bit" };

/**
 * A field of `method` sent with a wire type it does not have, and the text
 * its refusal must hold: the request type, the field, its number and the wire
 * type it came with (a decoder that read it by its declared type instead would
 * make up a value from the bytes that follow).
 */
function wrongWireType(rng: Rng, method: ResourceRpc): { bytes: Buffer; names: RegExp } {
  const numbers = FIELDS[method]!;
  const field = rng.pick(["urn", PROVIDER_BAG[method], ...(numbers.id ? ["id"] : [])] as const);
  const no = numbers[field as keyof typeof numbers]!;
  const wt = rng.pick([WIRE.varint, WIRE.fixed64, WIRE.fixed32]);
  const body = wt === WIRE.varint ? varint(rng.int(1, 2 ** 30)) : rng.bytes(wt === WIRE.fixed64 ? 8 : 4);
  const names = new RegExp(`${method}Request\\.${field} \\(field ${no}\\) has wire type ${wt} \\(${WIRE_TYPE_NAMES[wt]}\\)`);
  return { bytes: Buffer.concat([tag(no, wt), body]), names };
}

/** Fields no request type defines, each of a valid number (up to protobuf's largest, 2^29 - 1) and wire type: every decoder skips them. */
const UNKNOWN_FIELDS = (rng: Rng): Buffer =>
  Buffer.concat([varintField(rng.pick([99, 1000, MAX_FIELD_NUMBER]), rng.int(0, 1e6)), doubleField(98, rng.next()), bytesField(97, rng.bytes(rng.int(0, 40))), Buffer.concat([tag(96, WIRE.fixed32), rng.bytes(4)])]);

/**
 * Field numbers past protobuf's largest: no message can have them, and
 * decoders refuse the message (Go's protowire: "invalid field number"), so the
 * host must too, naming the number. 2^61 - 1 is the largest a 10-byte tag holds.
 */
const PAST_MAX_FIELD_NUMBERS = [MAX_FIELD_NUMBER + 1, 2 ** 32, 2n ** 61n - 1n] as const;

/** Bytes that are not UTF-8 (two invalid bytes, a character cut short, a surrogate), and one that is, though odd (a NUL). */
const BAD_UTF8 = [Buffer.from([0xff, 0xfe]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from("ok\u0000", "utf8")];

export const WIRE_SHAPES: Shape[] = [
  {
    name: "wire.unset-value",
    weight: 3,
    make: (rng, m) => {
      const method = pickResourceRpc(rng);
      const urn = urnFor(m, rng);
      const fields: FStruct = [["u", buried(rng, { k: "unset" }, rng.int(0, 3))], ...randomStruct(rng, 2, 2, 0)];
      // The text must name the bag and the property the Value is in: Diff and Update send the bag as olds too, so either.
      const bags = method === "Diff" || method === "Update" ? "olds|news" : PROVIDER_BAG[method];
      return { method, urn, request: resourceRequest(method, urn, fields), expect: "error", mentions: [new RegExp(`(${bags})\\.u\\b`)], onlyCodes: [CODE.INVALID_ARGUMENT], note: "a Value with no kind" };
    },
  },
  {
    name: "wire.wrong-wire-type",
    weight: 3,
    make: (rng, m) => {
      const method = pickResourceRpc(rng);
      const wrong = wrongWireType(rng.fork("prefix"), method);
      // The rest of the request is good: the answer must be the refusal of the bad field, naming it and the URN sent.
      return changed(rng, m, "a field with the wrong wire type before the good ones", (s) => (s.prefix = wrong.bytes), {
        method, expect: "error", onlyCodes: [CODE.INVALID_ARGUMENT], mentions: [wrong.names],
      });
    },
  },
  {
    name: "wire.unknown-fields",
    weight: 2,
    make: (rng, m) => {
      const r = rng.fork("unknown");
      const inner: FValue = { k: "raw", b: Buffer.concat([encodeValue(num(1)), varintField(9, 7)]) };
      const fields = UNKNOWN_FIELDS(r);
      // Now and then one more whose number no message can have.
      const past = r.chance(0.25) ? r.pick(PAST_MAX_FIELD_NUMBERS) : undefined;
      const extra = past === undefined ? fields : Buffer.concat([fields, varintField(past, 1)]);
      const draft = changed(rng, m, past === undefined ? "unknown fields in the request and in a Value" : `a field number past the largest, ${past}`, (s, method) => {
        s.extra = extra;
        (s.bags![PROVIDER_BAG[method]] as FStruct).push(["withUnknown", inner]);
      }, { expect: "ok" });
      if (past === undefined) return draft;
      return { ...draft, expect: "error", onlyCodes: [CODE.INVALID_ARGUMENT], mentions: [new RegExp(`field number ${past}\\b`)] };
    },
  },
  {
    name: "wire.truncated",
    weight: 2,
    make: (rng, m) => {
      const f = rng.next();
      return changed(rng, m, `cut to ${(f * 100).toFixed(0)} %`, (s) => {
        const whole = encodeRequest(s);
        s.raw = whole.subarray(0, Math.floor(whole.length * f));
      }, { urn: undefined });
    },
  },
  {
    name: "wire.garbage",
    weight: 2,
    make: (rng, m) => {
      const bytes = rng.bytes(rng.int(1, 4096));
      return { ...changed(rng, m, `${bytes.length} random bytes`, (s) => (s.raw = bytes)), urn: undefined };
    },
  },
  {
    name: "wire.bad-utf8",
    weight: 2,
    make: (rng, m) => {
      const odd = rng.pick(BAD_UTF8);
      const bad = Buffer.concat([Buffer.from("x"), odd, Buffer.from("y")]);
      const where = rng.pick(["urn", "key", "value", "__provider"] as const);
      const method = pickResourceRpc(rng);
      const draft = changed(rng, m, `invalid UTF-8 in the ${where}`, (s) => {
        const numbers = FIELDS[method]!;
        if (where === "urn") {
          delete s.urn;
          s.prefix = bytesField(numbers.urn!, bad);
          return;
        }
        const bag = s.bags![PROVIDER_BAG[method]] as FStruct;
        const entry = (key: Buffer, value: Buffer) => bytesField(STRUCT.fields, Buffer.concat([bytesField(STRUCT.key, key), bytesField(STRUCT.value, value)]));
        const oddEntry =
          where === "key" ? entry(bad, encodeValue(str("v"))) : entry(Buffer.from(where === "value" ? "bad" : "__provider"), bytesField(VALUE.string, bad));
        s.bags![PROVIDER_BAG[method]] = Buffer.concat([encodeStruct(where === "__provider" ? bag.filter(([k]) => k !== "__provider") : bag), oddEntry]);
      }, { method, ...(where === "urn" ? { urn: undefined } : {}) });
      if (isUtf8(odd)) return draft;
      // Proto3 strings are UTF-8: refused, naming the field (and the property), never replaced or misread.
      const field = {
        urn: `${method}Request\\.urn \\(field ${FIELDS[method]!.urn}\\)`,
        key: "the key of an entry \\(field 1\\)",
        value: 'in property "bad": the string_value of a Value \\(field 3\\)',
        __provider: 'in property "__provider": the string_value of a Value \\(field 3\\)',
      }[where];
      return { ...draft, expect: "error", onlyCodes: [CODE.INVALID_ARGUMENT], mentions: [new RegExp(`${field} is not valid UTF-8`)] };
    },
  },
  {
    name: "wire.bad-lengths",
    weight: 1,
    make: (rng, m) => {
      const bad = rng.pick([
        Buffer.concat([tag(2, WIRE.bytes), varint(2 ** 31 - 1), Buffer.from("short")]),
        Buffer.from([0x8a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
        Buffer.from([0x00, 0x01]),
        Buffer.from([0x0e, 0x00]),
        Buffer.concat([tag(3, WIRE.bytes), varint(3), Buffer.from([0x0a, 0x05, 0x01])]),
      ]);
      return { ...changed(rng, m, `impossible bytes ${bad.toString("hex").slice(0, 24)}`, (s) => (s.extra = bad)), urn: undefined };
    },
  },
  {
    name: "wire.empty",
    weight: 1,
    make: (rng, m) => ({ ...changed(rng, m, "an empty message", (s) => (s.raw = Buffer.alloc(0)), { expect: "error", mentions: [/__provider/] }), urn: undefined }),
  },
];
