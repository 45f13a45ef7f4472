// Secret resource inputs. The host answers Configure with `acceptSecrets:
// true`, so the engine sends every secret of a resource request (Check, Diff,
// Create, Read, Update, Delete; news, olds, state, old inputs) wrapped in the
// secret signature object `{4dabf…: 1b470…, value}` instead of stripping it.
// The host needs that to know which values are secret: their plaintext is
// then kept out of what the provider prints and of error texts (./redaction.ts
// reads the wrapped request).
//
// Provider code must not notice: both reference plugins answer
// `acceptSecrets: false`, so under the engine their providers see plain
// values, and the engine itself puts secretness back on what they return
// (by property name: the SDK's plugin code, `annotateSecrets`). Here the
// host does both halves of that:
//
// - unwrapSecrets: each bag that holds a secret is handed to the adapter with
//   every secret replaced by its value, exactly what the engine would have
//   sent a plugin that does not accept secrets. A bag without the signature's
//   bytes is left as it is (one indexOf). Only well-formed secrets (the two
//   keys, a string signature) are unwrapped; anything else stays for the
//   adapter to read or refuse as it does today.
// - annotateSecrets: what the provider returns is marked secret where the
//   engine marks it for a plugin that does not accept secrets: for each
//   property of the request's bag, the same-named property of the result is
//   made secret when the request's holds a secret (objects on both sides are
//   compared property by property). One refinement: a property returned
//   equal to the request's (an echo) goes back exactly as the request had it,
//   its secrets where they were (the engine would make a list holding one
//   secret item secret as a whole). Applied to Check's inputs (against news),
//   Create's outputs (properties), Read's outputs and inputs (properties,
//   inputs), Update's outputs (news).
import { EncodedStruct } from "../wire/struct-bytes.js";
import { decodeStruct, encodeStruct, sameValue, SECRET_SIG, SIG_KEY, valueKind, type AnyStruct, type WireStruct, type WireValue } from "../wire/wire.js";

const SECRET_SIG_BYTES = Buffer.from(SECRET_SIG, "utf8");

/** Whether the bytes of an encoded bag could hold a secret (they hold the signature). */
export function mayHoldSecret(bytes: Buffer): boolean {
  return bytes.indexOf(SECRET_SIG_BYTES) >= 0;
}

/**
 * `bag` with every well-formed secret replaced by its value, in the form it
 * came (encoded stays encoded); `bag` itself when it holds none.
 */
export function unwrapSecrets(bag: AnyStruct): AnyStruct {
  if (bag instanceof EncodedStruct && !mayHoldSecret(bag.bytes)) return bag;
  const decoded = decodeStruct(bag);
  const plain = unwrapStruct(decoded);
  if (plain === decoded) return bag;
  return bag instanceof EncodedStruct ? new EncodedStruct(encodeStruct(plain)!) : plain;
}

/** The value of a well-formed secret `{SIG_KEY: SECRET_SIG, value}`, or undefined for anything else. */
function secretValue(s: WireStruct | undefined): WireValue | undefined {
  const fields = s?.fields;
  if (!fields) return undefined;
  const keys = Object.keys(fields);
  if (keys.length !== 2 || !keys.includes(SIG_KEY) || !keys.includes("value")) return undefined;
  const sig = fields[SIG_KEY];
  if (valueKind(sig) !== "string" || sig.stringValue !== SECRET_SIG || valueKind(fields.value) === "unset") return undefined;
  return fields.value;
}

function unwrapStruct(s: WireStruct): WireStruct {
  const fields = s.fields ?? {};
  let out: Record<string, WireValue> | undefined;
  for (const k of Object.keys(fields)) {
    const v = fields[k];
    const u = unwrapValue(v);
    if (u !== v && !out) {
      out = Object.create(null) as Record<string, WireValue>;
      for (const j of Object.keys(fields)) out[j] = fields[j];
    }
    if (out) out[k] = u;
  }
  return out ? { fields: out } : s;
}

function unwrapValue(v: WireValue): WireValue {
  switch (valueKind(v)) {
    case "struct": {
      const inner = secretValue(v.structValue);
      if (inner !== undefined) return unwrapValue(inner);
      const s = unwrapStruct(v.structValue!);
      return s === v.structValue ? v : { structValue: s };
    }
    case "list": {
      const values = v.listValue!.values ?? [];
      let out: WireValue[] | undefined;
      for (let i = 0; i < values.length; i++) {
        const u = unwrapValue(values[i]);
        if (u !== values[i] && !out) out = values.slice(0, i);
        if (out) out.push(u);
      }
      return out ? { listValue: { values: out } } : v;
    }
    default:
      return v;
  }
}

/** Whether `v` is a secret (the signature, whatever else the object holds). */
function isSecret(v: WireValue): boolean {
  if (valueKind(v) !== "struct") return false;
  const sig = v.structValue!.fields?.[SIG_KEY];
  return valueKind(sig) === "string" && sig.stringValue === SECRET_SIG;
}

/** Whether `v` is an object (a Struct that is no signature object: not a secret, an asset, an archive, …). */
function isObject(v: WireValue): boolean {
  return valueKind(v) === "struct" && valueKind(v.structValue!.fields?.[SIG_KEY]) === "unset";
}

/** Whether a secret is anywhere in `v`. */
function containsSecret(v: WireValue): boolean {
  switch (valueKind(v)) {
    case "struct": {
      if (isSecret(v)) return true;
      const fields = v.structValue!.fields ?? {};
      for (const k of Object.keys(fields)) if (containsSecret(fields[k])) return true;
      return false;
    }
    case "list":
      for (const item of v.listValue!.values ?? []) if (containsSecret(item)) return true;
      return false;
    default:
      return false;
  }
}

/**
 * `outs` with secretness carried over from the request bag `ins` (as it came,
 * secrets wrapped), property by property as described above; `outs` itself
 * when nothing changes (always when `ins` is unset or holds no secret).
 */
export function annotateSecrets(outs: AnyStruct, ins: AnyStruct | undefined): AnyStruct {
  if (!ins) return outs;
  if (ins instanceof EncodedStruct && !mayHoldSecret(ins.bytes)) return outs;
  const inStruct = decodeStruct(ins);
  const outStruct = decodeStruct(outs);
  const annotated = annotateStruct(outStruct, inStruct);
  return annotated === outStruct ? outs : annotated;
}

function annotateStruct(outs: WireStruct, ins: WireStruct): WireStruct {
  const outFields = outs.fields ?? {};
  const inFields = ins.fields ?? {};
  let changed: Record<string, WireValue> | undefined;
  for (const key of Object.keys(inFields)) {
    if (!Object.prototype.hasOwnProperty.call(outFields, key)) continue;
    const outValue = outFields[key];
    const inValue = inFields[key];
    let next = outValue;
    if (containsSecret(inValue) && sameValue(outValue, unwrapValue(inValue))) {
      // Echoed as it came: its secrets go back exactly where they were.
      next = inValue;
    } else if (isObject(outValue) && isObject(inValue)) {
      const s = annotateStruct(outValue.structValue!, inValue.structValue!);
      if (s !== outValue.structValue) next = { structValue: s };
    } else if (!isSecret(outValue) && containsSecret(inValue)) {
      next = { structValue: { fields: { [SIG_KEY]: { stringValue: SECRET_SIG }, value: outValue } } };
    }
    if (next === outValue) continue;
    if (!changed) {
      changed = Object.create(null) as Record<string, WireValue>;
      for (const k of Object.keys(outFields)) changed[k] = outFields[k];
    }
    changed[key] = next;
  }
  return changed ? { fields: changed } : outs;
}
