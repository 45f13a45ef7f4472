// src/host/secrets: secret handling: which request values are secret and their
// plaintexts (secret-inputs.ts), and keeping those out of every text the host
// sends (redaction.ts). It may import src/host/wire only.
//
// Secret values kept out of the error texts the host sends. A provider's
// exception often quotes its inputs; when an input is secret, its plaintext
// would reach the engine's output and logs in the error. The references send
// it as it is; we replace it with "[secret]".
//
// What the host can know is secret (docs/parity.md, "Secrets in error texts"):
// - values the request itself marks secret: a Struct {SIG_KEY: SECRET_SIG,
//   value}, at any depth of any Struct field of the request. The host answers
//   Configure with acceptSecrets=true, so the engine sends a resource's secret
//   inputs so marked in Check/Diff/Create/Read/Update/Delete (./secret-inputs.ts
//   unwraps them for the provider; this reads the request as it came);
// - secret stack config: Configure's args carry secure config values wrapped
//   that way (the engine marshals them with KeepSecrets), and the host
//   remembers them for every later request.
import { ResourceProviderService } from "../wire/proto.js";
import { mayHoldSecret } from "./secret-inputs.js";
import { EncodedStruct } from "../wire/struct-bytes.js";
import { decodeStruct, SECRET_SIG, SIG_KEY, valueKind, type WireStruct, type WireValue } from "../wire/wire.js";

/** What a secret's plaintext is replaced with. */
export const REDACTED = "[secret]";

/**
 * Plaintexts shorter than this are left alone: redacting "1", "yes" or "ok"
 * wherever they occur would garble ordinary text and hide little.
 */
export const MIN_SECRET_LENGTH = 4;

/** The Struct-typed fields of each RPC's request, by RPC name (from our .proto). */
const structFieldsByRpc = new Map<string, string[]>();
for (const method of Object.values(ResourceProviderService.methods)) {
  const type = method.resolvedRequestType!;
  const names = type.fieldsArray.filter((f) => f.resolve().resolvedType?.fullName === ".google.protobuf.Struct").map((f) => f.name);
  structFieldsByRpc.set(method.name, names);
}

/**
 * The secrets one plugin process knows: the secret config it was given, and
 * per request the values that request marks secret. Made once per server.
 */
export class Redaction {
  private config: readonly string[] = [];

  /** Remembers the secret values of Configure's args; they are redacted from every later answer. */
  rememberConfig(args: WireStruct | EncodedStruct | undefined): void {
    this.config = sortedForReplacement(new Set([...this.config, ...secretTexts([args])]));
  }

  /**
   * The texts to redact from an answer to `request` (a decoded request of
   * RPC `rpc`, its Struct fields decoded or still encoded): the config's
   * secrets and the request's own. Read only when an error is being answered.
   */
  secretsFor(rpc: string, request: unknown): readonly string[] {
    const fields = structFieldsByRpc.get(rpc);
    if (!fields || fields.length === 0 || request === null || typeof request !== "object") return this.config;
    const message = request as Record<string, unknown>;
    const own = secretTexts(fields.map((f) => structOf(message[f])));
    if (own.size === 0) return this.config;
    return sortedForReplacement(new Set([...this.config, ...own]));
  }
}

/** A request field as a Struct to search: decoded, encoded (a Buffer), or nothing. */
function structOf(field: unknown): WireStruct | EncodedStruct | undefined {
  if (Buffer.isBuffer(field)) return new EncodedStruct(field);
  if (field !== null && typeof field === "object" && "fields" in field) return field as WireStruct;
  return undefined;
}

/**
 * The plaintexts of every secret-wrapped value in `bags`, in every form an
 * error text is likely to quote: a string as it is and as it appears inside
 * JSON or a repr (escaped); a number as JavaScript and Python print it. Every
 * string, number or nested one inside a secret counts; booleans and null do
 * not (one bit, and redacting "true" everywhere would garble text). Walked
 * without recursion, so no depth overflows the stack; an encoded bag is only
 * decoded when its bytes contain the secret signature, and one that cannot
 * be decoded is skipped.
 */
export function secretTexts(bags: Iterable<WireStruct | EncodedStruct | undefined>): Set<string> {
  const found = new Set<string>();
  const pending: [WireValue, boolean][] = [];
  const pushStruct = (s: WireStruct | undefined, secret: boolean) => {
    const fields = s?.fields;
    if (!fields) return;
    const sig = fields[SIG_KEY];
    if (sig && valueKind(sig) === "string" && sig.stringValue === SECRET_SIG) {
      if (fields.value) pending.push([fields.value, true]);
      return;
    }
    for (const k of Object.keys(fields)) if (fields[k]) pending.push([fields[k], secret]);
  };
  for (const bag of bags) {
    if (!bag) continue;
    let decoded: WireStruct;
    if (bag instanceof EncodedStruct) {
      if (!mayHoldSecret(bag.bytes)) continue;
      try {
        decoded = decodeStruct(bag);
      } catch {
        continue;
      }
    } else {
      decoded = bag;
    }
    pushStruct(decoded, false);
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [v, secret] = next;
      switch (valueKind(v)) {
        case "struct":
          pushStruct(v.structValue, secret);
          break;
        case "list":
          for (const item of v.listValue!.values ?? []) if (item) pending.push([item, secret]);
          break;
        case "string":
          if (secret) addForms(found, v.stringValue!);
          break;
        case "number":
          if (secret) addNumberForms(found, v.numberValue!);
          break;
        default:
          break;
      }
    }
  }
  return found;
}

function addForms(found: Set<string>, text: string): void {
  if (text.length < MIN_SECRET_LENGTH) return;
  found.add(text);
  const escaped = JSON.stringify(text).slice(1, -1);
  if (escaped !== text) found.add(escaped);
}

function addNumberForms(found: Set<string>, n: number): void {
  addForms(found, String(n));
  // Python shows the float the SDK hands it: 1234.0 for an integral number.
  if (Number.isInteger(n) && Math.abs(n) < 1e16) addForms(found, `${n}.0`);
}

/** Longest first, so a secret that contains another is replaced whole. */
function sortedForReplacement(texts: Set<string>): readonly string[] {
  return [...texts].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every occurrence of each of `secrets` (sorted longest first)
 * replaced by REDACTED. One regular expression pass for ordinary secrets (a
 * few ms over 50 MiB, however many there are); V8 refuses a pattern of many
 * MiB, so the rare very long ones are replaced one by one before.
 */
export function redact(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text;
  let out = text;
  let i = 0;
  for (; i < secrets.length && secrets[i].length > LONG_SECRET; i++) {
    if (out.includes(secrets[i])) out = out.split(secrets[i]).join(REDACTED);
  }
  if (i === secrets.length) return out;
  const rest = secrets.slice(i);
  let pattern: RegExp;
  try {
    pattern = new RegExp(rest.map(escapeRegExp).join("|"), "g");
  } catch {
    // Too many to compile at once ("Regular expression too large"): one by one.
    for (const s of rest) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }
  return out.replace(pattern, REDACTED);
}

/** Longer secrets are replaced one by one (see redact). */
const LONG_SECRET = 4096;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
