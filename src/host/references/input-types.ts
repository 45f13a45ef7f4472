// The check of a request's inputs against the types its declaration gives
// (./declared-types.ts), made by the core in Check before any provider code
// runs: each mismatch is a check failure naming the property (a path such as
// `owner.uid` or `lines[2]`), the type expected and the type of the value the
// program gave; the engine shows it under the resource. A failure never
// holds the value itself, which may be a secret.
//
// A value the engine does not know yet (a preview, an output of another
// resource) passes, as does null for an optional property; `__provider`, the
// serialized code of a program that also passes it, is not an input of the
// type. An input the declaration does not name fails only when it has a
// value: the SDKs send an output the program asked for as null.
import type { PropertyMap, TypeShape } from "./declared-types.js";
import { typeText } from "./declared-types.js";
import { ARCHIVE_SIG, ASSET_SIG, PROVIDER_KEY, SIG_KEY, UNKNOWN_STRING_SENTINEL } from "../wire/wire.js";

/**
 * One input that failed a check: the property's path and why. A provider's own
 * check returns these too (../runtime.ts re-exports it as part of the adapters'
 * contract); it is defined here so that this check needs nothing of that contract.
 */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** Every mismatch between `inputs` and the declared input types `declared`. */
export function checkInputs(declared: PropertyMap, inputs: Record<string, unknown>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  checkObject(declared, inputs, "", failures, true);
  return failures;
}

function checkObject(declared: PropertyMap, value: Record<string, unknown>, at: string, failures: CheckFailure[], top: boolean): void {
  for (const [name, property] of declared) {
    const v = Object.prototype.hasOwnProperty.call(value, name) ? value[name] : undefined;
    const where = join(at, name);
    if (v === undefined || v === null) {
      if (!property.optional) failures.push({ property: where, reason: `is required (${typeText(property.shape)}) and was not given` });
      continue;
    }
    checkValue(property.shape, v, where, failures);
  }
  for (const name of Object.keys(value)) {
    if (declared.has(name) || (top && name === PROVIDER_KEY) || value[name] === null || value[name] === undefined) continue;
    const known = [...declared.keys()];
    const near = nearest(name, known);
    failures.push({
      property: join(at, name),
      reason:
        `is not ${top ? "an input of this type" : "a property of this object"}` +
        (near ? `; did you mean ${near}?` : known.length ? `; ${top ? "its inputs are" : "its properties are"} ${known.join(", ")}` : `; it declares none`),
    });
  }
}

function checkValue(shape: TypeShape, v: unknown, at: string, failures: CheckFailure[]): void {
  if (v === UNKNOWN_STRING_SENTINEL) return;
  const expected = typeText(shape);
  const fail = () => failures.push({ property: at, reason: `expected ${expected}, got ${valueType(v)}` });
  switch (shape.kind) {
    case "any":
      return;
    case "string":
    case "boolean":
      if (typeof v !== shape.kind) fail();
      return;
    case "number":
      if (typeof v !== "number") fail();
      return;
    case "integer":
      if (typeof v !== "number" || !Number.isInteger(v)) fail();
      return;
    case "asset":
    case "archive":
      if (signature(v) !== (shape.kind === "asset" ? ASSET_SIG : ARCHIVE_SIG)) fail();
      return;
    case "array":
      if (!Array.isArray(v)) return void fail();
      v.forEach((item, i) => {
        if (item === null) failures.push({ property: `${at}[${i}]`, reason: `expected ${typeText(shape.items)}, got null` });
        else checkValue(shape.items, item, `${at}[${i}]`, failures);
      });
      return;
    case "map":
      if (!isPlainObject(v)) return void fail();
      for (const [k, item] of Object.entries(v)) {
        const where = join(at, k);
        if (item === null) failures.push({ property: where, reason: `expected ${typeText(shape.values)}, got null` });
        else checkValue(shape.values, item, where, failures);
      }
      return;
    case "object":
      if (!isPlainObject(v)) return void fail();
      checkObject(shape.properties, v, at, failures, false);
      return;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && signature(v) === undefined;
}

function signature(v: unknown): unknown {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[SIG_KEY] : undefined;
}

/** What a value is, in the schema's words: never the value itself. */
function valueType(v: unknown): string {
  if (Array.isArray(v)) return "an array";
  if (typeof v === "number") return Number.isInteger(v) ? "a number (an integer)" : "a number (not an integer)";
  if (typeof v === "string") return "a string";
  if (typeof v === "boolean") return "a boolean";
  const sig = signature(v);
  if (sig === ASSET_SIG) return "an asset";
  if (sig === ARCHIVE_SIG) return "an archive";
  if (sig !== undefined) return "a resource reference or other special value";
  return "an object";
}

/** The known name `name` is most likely a typo of (a "did you mean"): within two edits (a swap of neighbours counts one), or undefined. */
export function nearest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** `a.b`, or `a["b c"]` for a name that is not an identifier. */
function join(at: string, name: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return at ? `${at}.${name}` : name;
  return `${at}[${JSON.stringify(name)}]`;
}
