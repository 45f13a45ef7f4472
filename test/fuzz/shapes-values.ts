// Shapes whose provider is good and whose values are not ordinary: random and
// odd trees, deep, wide and big values, odd numbers and keys, sentinels in odd
// places, and the provider's own errors carrying secrets or megabytes of text.
import { buried, oddKey, ODD_NUMBERS, plainData, randomStruct, randomValue, secretValue, sentinelValue } from "./adversarial.js";
import { pickResourceRpc, resourceRequest, urnFor, type Draft, type ModeInfo, type Shape } from "./cases.js";
import { CODE, LIST_LEVEL_COST, MAX_DEPTH } from "./limits.js";
import type { Rng } from "./random.js";
import { depthOf, list, num, obj, str, weightedDepth, type FStruct, type FValue } from "./values.js";

/** A case sending `fields` to the good provider; it must answer, and the echo must round-trip where the mode keeps values as they are. */
function echoCase(rng: Rng, m: ModeInfo, fields: FStruct, note: string, extra: Partial<Draft> = {}): Draft {
  const method = pickResourceRpc(rng);
  const urn = urnFor(m, rng);
  const plain = fields.every(([k, v]) => plainData(obj([[k, v]])));
  // The Python SDK turns sentinels into objects and back, and drops nulls (which the round trip allows for).
  const exact = m.language === "nodejs" || plain;
  return { method, urn, request: resourceRequest(method, urn, fields), expect: exact ? "ok" : "either", echoes: exact, note, ...extra };
}

// Each mode's limit and its edges, where decoders used to stop (protobufjs at 50, the Python SDK's lists at
// 326, the Node reference at 1090), and 10 000, past where an unbounded recursive decoder overflows its stack.
const depths = (limit: number) => [10, 49, 50, 51, 100, 326, 327, 392, 393, 999, 1090, limit - 1, limit, limit + 1, 2500, 4000, 10_000];

export const VALUE_SHAPES: Shape[] = [
  {
    name: "values.random",
    weight: 8,
    make: (rng, m) => echoCase(rng, m, randomStruct(rng, 6, 6), "a random tree"),
  },
  {
    name: "values.deep",
    weight: 4,
    make: (rng, m) => {
      const limit = MAX_DEPTH[m.language];
      const depth = rng.pick(depths(limit));
      const via = rng.pick(["struct", "list", "mixed"] as const);
      const deep: FValue = { k: "deep", depth, via, leaf: randomValue(rng, 1, 2, 0.1) };
      const fields: FStruct = [["deep", deep], ...randomStruct(rng, 2, 3, 0.1)];
      // The leaf may be a level of its own.
      const levels = depthOf(deep);
      const draft = echoCase(rng, m, fields, `${levels} levels of ${via}`);
      if (weightedDepth(deep, LIST_LEVEL_COST[m.language]) <= limit) return draft;
      // Past the mode's limit: refused before any provider code runs, naming the property and its depth.
      return { ...draft, expect: "error", echoes: false, onlyCodes: [CODE.INVALID_ARGUMENT], mentions: [new RegExp(`property "deep" nested ${levels} levels deep`)] };
    },
  },
  {
    name: "values.wide",
    weight: 1,
    make: (rng, m) => {
      const n = rng.int(5_000, 40_000);
      const wide: FValue = rng.chance(0.5)
        ? obj(Array.from({ length: n }, (_, i) => [`m${i}`, num(i)] as [string, FValue]))
        : list(...Array.from({ length: n * 2 }, (_, i) => (i % 3 === 0 ? str(`e${i}`) : num(i))));
      return echoCase(rng, m, [["wide", wide]], `${n} members`);
    },
  },
  {
    name: "values.big",
    weight: 1,
    make: (rng, m) => {
      const mib = rng.int(1, 4);
      const fields: FStruct = [["big", str("b".repeat(mib * 1024 * 1024 - 7) + rng.tag().slice(0, 7))], ...randomStruct(rng, 2, 3, 0)];
      return echoCase(rng, m, fields, `a ${mib} MiB string`);
    },
  },
  {
    name: "values.numbers",
    weight: 2,
    make: (rng, m) => {
      const fields: FStruct = ODD_NUMBERS.map((x, i) => [`n${i}`, rng.chance(0.3) ? buried(rng, num(x), rng.int(1, 3)) : num(x)] as [string, FValue]);
      return echoCase(rng, m, fields, "NaN, ±Infinity, -0 and the edges of doubles");
    },
  },
  {
    name: "values.keys",
    weight: 3,
    make: (rng, m) => {
      const fields: FStruct = Array.from({ length: rng.int(1, 6) }, () => [oddKey(rng), randomValue(rng, 2, 3)] as [string, FValue]);
      if (rng.chance(0.3)) fields.push(["nested", obj([["__provider", str("not the provider")]])]);
      return echoCase(rng, m, fields, `odd keys ${fields.map(([k]) => JSON.stringify(k.length > 12 ? `${k.slice(0, 8)}…(${k.length})` : k)).join(" ")}`);
    },
  },
  {
    name: "values.sentinels",
    weight: 5,
    make: (rng, m) => {
      const secrets: string[] = [];
      const fields: FStruct = Array.from({ length: rng.int(1, 4) }, (_, i) => [`s${i}`, buried(rng, sentinelValue(rng, secrets), rng.int(0, 4))] as [string, FValue]);
      const draft = echoCase(rng, m, [...fields, ...randomStruct(rng, 2, 2, 0.1)], "sentinels and signatures in odd places");
      return { ...draft, secrets };
    },
  },
  {
    name: "values.secret-in-error",
    weight: 2,
    make: (rng, m) => {
      const method = pickResourceRpc(rng);
      const urn = urnFor(m, rng);
      const secrets: string[] = [];
      const fields: FStruct = [["__fuzz", str("throwInput")], ["key", str("password")], ["password", secretValue(rng, secrets)], ...randomStruct(rng, 2, 3, 0)];
      return { method, urn, request: resourceRequest(method, urn, fields), expect: "error", userError: true, secrets, note: "the provider's error repeats a secret input" };
    },
  },
  {
    name: "values.huge-error",
    weight: 1,
    make: (rng, m) => {
      const method = pickResourceRpc(rng);
      const urn = urnFor(m, rng);
      const size = rng.pick([70_000, 1_000_000, 4_000_000]);
      const fields: FStruct = [["__fuzz", str("throwHuge")], ["size", num(size)]];
      return { method, urn, request: resourceRequest(method, urn, fields), expect: "error", userError: true, note: `the provider throws a ${size}-character message` };
    },
  },
  {
    name: "values.throw-string",
    weight: 1,
    make: (rng, m) => {
      const method = pickResourceRpc(rng);
      const urn = urnFor(m, rng);
      return { method, urn, request: resourceRequest(method, urn, [["__fuzz", str("throwString")]]), expect: "error", userError: true, note: "the provider throws a string" };
    },
  },
];
