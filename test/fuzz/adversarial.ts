// Random and adversarial property values: odd keys and numbers, long strings,
// mixed lists, and the Pulumi sentinels (unknown, and the secret, asset,
// archive, resource-reference and output-value signatures) with valid and
// invalid companions, placed anywhere in a tree. Every choice comes from the
// case's Rng, so a seed gives the same value on every run.
import { ASSET_SIG, RESOURCE_SIG, SECRET_SIG, SIG, UNKNOWN } from "../helpers/payloads.js";
import type { Rng } from "./random.js";
import { bool, list, nul, num, obj, str, type FStruct, type FValue } from "./values.js";

export const ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7";
export const OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4";

export const ODD_KEYS = [
  "", " ", "__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "__defineGetter__",
  "a\u0000b", "\u0000", "ключ", "鍵", "🔑", "\u202eevil", "e\u0301", "0", "-1", "1e3", "NaN", "a.b", "a[0]", "$ref",
  "\\", '"', "\n", "\t", UNKNOWN, "__fuzz_not_an_act",
] as const;

export const ODD_NUMBERS = [
  NaN, Infinity, -Infinity, -0, 0, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 53, 2 ** 53 + 2, 1e21, 0.1, -1, 1.5, 123456789.125,
] as const;

const ODD_STRINGS = ["", "true", "null", "0", "{}", "[]", '{"a":1}', "a\u0000b", "🙂 مرحبا 你好", "\ud83d\ude00", "\r\n", UNKNOWN, SIG, SECRET_SIG] as const;

export function oddKey(rng: Rng): string {
  return rng.chance(0.08) ? "k".repeat(rng.int(256, 4096)) : rng.pick(ODD_KEYS);
}

export function oddString(rng: Rng): string {
  if (rng.chance(0.1)) return "s".repeat(rng.int(1024, 64 * 1024));
  return rng.pick(ODD_STRINGS);
}

/** A key for a plain member: mostly ordinary, sometimes odd. */
function key(rng: Rng, oddness: number): string {
  return rng.chance(oddness) ? oddKey(rng) : `k${rng.int(0, 30)}`;
}

export function scalar(rng: Rng, oddness = 0.3): FValue {
  switch (rng.int(0, 4)) {
    case 0: return nul;
    case 1: return num(rng.chance(oddness) ? rng.pick(ODD_NUMBERS) : rng.int(-1000, 1000) / 8);
    case 2: return bool(rng.chance(0.5));
    default: return str(rng.chance(oddness) ? oddString(rng) : `v${rng.tag()}`);
  }
}

/** A random tree: at most `depth` levels, `width` members per level, mixed kinds. */
export function randomValue(rng: Rng, depth: number, width: number, oddness = 0.3): FValue {
  if (depth <= 0 || rng.chance(0.35)) return scalar(rng, oddness);
  const n = rng.int(0, width);
  const children = Array.from({ length: n }, () => randomValue(rng, depth - 1, width, oddness));
  return rng.chance(0.6) ? obj(children.map((c) => [key(rng, oddness), c])) : list(...children);
}

export function randomStruct(rng: Rng, depth: number, width: number, oddness = 0.3): FStruct {
  return Array.from({ length: rng.int(1, width) }, () => [key(rng, oddness), randomValue(rng, depth - 1, width, oddness)] as [string, FValue]);
}

/**
 * A secret input: a distinctive text (so an error that repeats it is caught)
 * wrapped in the secret signature, as an engine sends it to a plugin that
 * accepts secrets. The text is added to `secrets`.
 */
export function secretValue(rng: Rng, secrets: string[]): FValue {
  const text = `s3cret-${rng.tag()}${rng.tag()}`;
  secrets.push(text);
  return obj({ [SIG]: str(SECRET_SIG), value: str(text) });
}

/** One sentinel-bearing value: well-formed or not, chosen at random. */
export function sentinelValue(rng: Rng, secrets: string[]): FValue {
  const sig = (s: string, rest: Record<string, FValue> = {}) => obj({ [SIG]: str(s), ...rest });
  const choices: (() => FValue)[] = [
    () => str(UNKNOWN),
    () => secretValue(rng, secrets),
    () => sig(SECRET_SIG),
    () => sig(SECRET_SIG, { value: randomValue(rng, 3, 3), extra: str("x") }),
    () => sig(SECRET_SIG, { value: sig(SECRET_SIG, { value: str(UNKNOWN) }) }),
    () => obj({ [SIG]: num(1), value: str("x") }),
    () => obj({ [SIG]: str(UNKNOWN) }),
    () => obj({ [SIG]: obj({ a: nul }) }),
    () => sig(ASSET_SIG, { text: str("hello") }),
    () => sig(ASSET_SIG, { path: str("/nonexistent/asset.txt"), hash: str("00") }),
    () => sig(ASSET_SIG, { uri: str("http://127.0.0.1:1/asset") }),
    () => sig(ASSET_SIG),
    () => sig(ASSET_SIG, { text: num(5) }),
    () => sig(ASSET_SIG, { hash: str("abc") }),
    () => sig(ARCHIVE_SIG, { assets: obj({ a: sig(ASSET_SIG, { text: str("x") }) }) }),
    () => sig(ARCHIVE_SIG, { assets: str("not a map") }),
    () => sig(ARCHIVE_SIG),
    () => sig(RESOURCE_SIG, { urn: str("urn:pulumi:dev::proj::pkg:index:Thing::t"), id: str("id-1"), packageVersion: str("1.0.0") }),
    () => sig(RESOURCE_SIG, { urn: str("urn:pulumi:dev::proj::pkg:index:Thing::t") }),
    () => sig(RESOURCE_SIG, { id: str("no-urn") }),
    () => sig(RESOURCE_SIG, { urn: num(7) }),
    () => sig(RESOURCE_SIG, { urn: str("not a urn") }),
    () => sig(OUTPUT_SIG, { value: str("v"), secret: bool(true), dependencies: list(str("urn:pulumi:dev::proj::a:b:C::d")) }),
    () => sig(OUTPUT_SIG),
    () => sig(OUTPUT_SIG, { dependencies: str("nope") }),
    () => sig("ffffffffffffffffffffffffffffffff", { value: str("?") }),
  ];
  return rng.pick(choices)();
}

/** `inner` placed at a random spot `depth` levels down a random tree (in a Struct or a list). */
export function buried(rng: Rng, inner: FValue, depth: number): FValue {
  let v = inner;
  for (let i = 0; i < depth; i++) {
    const siblings = Array.from({ length: rng.int(0, 2) }, () => scalar(rng, 0.1));
    v = rng.chance(0.5) ? obj([[key(rng, 0.2), v], ...siblings.map((s, j) => [`s${j}`, s] as [string, FValue])]) : list(...siblings, v);
  }
  return v;
}

/** True when the value holds no sentinel string or signature key anywhere: the Python SDK hands it back unchanged. */
export function plainData(v: FValue): boolean {
  switch (v.k) {
    case "str": return v.v !== UNKNOWN;
    case "struct": return v.f.every(([k, x]) => k !== SIG && plainData(x));
    case "list": return v.v.every(plainData);
    case "deep": return plainData(v.leaf);
    default: return true;
  }
}
