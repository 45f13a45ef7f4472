// Outputs a Node provider returns: `pulumi.secret(v)` (or any Output of the
// program's own @pulumi/pulumi) in the object a method returns. The Node
// reference hands such an object to google-protobuf as it is, which fails on
// the Output's functions (`Unexpected struct type.`): a provider cannot return
// a secret (pulumi#3012). Here each Output is awaited and replaced by its
// value; a secret one by the secret signature object `{4dabf…: 1b470…, value}`,
// which the engine reads back as a secret whatever the plugin said in
// Configure (it unmarshals every provider result with KeepSecrets), so the
// state holds it encrypted (docs/parity.md, "Secrets out").
//
// Who calls: the Node adapter (./runtime.ts), on what check, create, read and
// update return, before the value is turned into a Struct. Guarantees: a
// value without Outputs is returned as it is (the same object, untouched, and
// no promise: one synchronous walk finds none, ≈ half a jsToStruct of it);
// with Outputs, the containers on the way to them are copied (own and
// inherited enumerable keys, as the Struct writer reads them) and the user's
// objects are left alone. The walk stops where jsToStruct would refuse the
// value anyway (too deep, or circular), so that the writer names the problem.
import { ProviderResultError } from "../host/errors.js";
import type { CallInfo } from "../host/runtime.js";
import { MAX_VALUE_DEPTH } from "../host/wire/bag-check.js";
import { SECRET_SIG, SIG_KEY } from "../host/wire/wire.js";

type Obj = Record<string, unknown>;

/** The members of an Output that matter here (the SDK's OutputImpl: realm and copy of the SDK do not matter). */
interface OutputLike {
  __pulumiOutput: true;
  isKnown: Promise<boolean>;
  isSecret: Promise<boolean>;
  promise(withUnknowns?: boolean): Promise<unknown>;
}

/** As the SDK's Output.isInstance: a member `__pulumiOutput` that is `true`, on any copy of the SDK. */
export function isOutput(v: unknown): v is OutputLike {
  return v !== null && typeof v === "object" && (v as Obj).__pulumiOutput === true;
}

/**
 * `value` with every Output in it replaced by its value, a secret one wrapped
 * as a secret; `value` itself (not a promise) when it holds none. `what`
 * names the value in an error ("outs"). An Output whose value is not known
 * cannot be stored: an error naming where it is.
 */
export function resolveOutputs(call: CallInfo, method: string, what: string, value: unknown): unknown {
  if (!holdsOutput(value)) return value;
  return resolve(call, method, what, value, 0);
}

/**
 * resolveOutputs for a method's answer, boxed: a value that is itself a
 * Promise (not an Output) is not awaited here but handed on as it is, for the
 * Struct writer to refuse ("await it") rather than this wait to hide it.
 */
export async function outputsResolved(call: CallInfo, method: string, what: string, value: unknown): Promise<{ value: unknown }> {
  const resolved = resolveOutputs(call, method, what, value);
  return { value: resolved === value ? value : await resolved };
}

/** Thrown inside the walk when a value nests deeper than the Struct writer carries (a circular one never ends). */
const TOO_DEEP = Symbol("too deep");

/**
 * Whether an Output sits somewhere in `v`. One depth-first walk, no record of
 * objects seen: a value nested past the writer's limit (a circular one) stops
 * the walk at the first path that deep, and counts as none, so that the
 * writer reports it; a walk that went on along other paths could take
 * exponential time on a value that refers to itself more than once.
 */
function holdsOutput(v: unknown): boolean {
  try {
    return walk(v, 0);
  } catch (e) {
    if (e === TOO_DEEP) return false;
    throw e;
  }
}

function walk(v: unknown, level: number): boolean {
  if (v === null || typeof v !== "object") return false;
  if ((v as Obj).__pulumiOutput === true) return true;
  if (level >= MAX_VALUE_DEPTH.nodejs) throw TOO_DEEP;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (walk(v[i], level + 1)) return true;
    return false;
  }
  const o = v as Obj;
  for (const k in o) if (walk(o[k], level + 1)) return true;
  return false;
}

async function resolve(call: CallInfo, method: string, path: string, v: unknown, level: number): Promise<unknown> {
  if (v === null || typeof v !== "object" || level >= MAX_VALUE_DEPTH.nodejs) return v;
  if (isOutput(v)) {
    const [known, secret] = await Promise.all([v.isKnown, v.isSecret]);
    if (!known) {
      throw new ProviderResultError(
        `${call.operation} ${call.urn}: the dynamic provider's ${method} returned ${path} = an Output whose value is ` +
          `not known; the engine stores only known values, so return the value itself (or an Output of it)`,
      );
    }
    // The value of an Output holds no Outputs (the SDK lifts them), but a plain object may: walk it too.
    const inner = await resolve(call, method, path, await v.promise(), level);
    return secret ? { [SIG_KEY]: SECRET_SIG, value: inner } : inner;
  }
  if (!holdsOutput(v)) return v;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) out.push(await resolve(call, method, `${path}[${i}]`, v[i], level + 1));
    return out;
  }
  const o = v as Obj;
  const out: Obj = {};
  for (const k in o) {
    const resolved = await resolve(call, method, `${path}${segment(k)}`, o[k], level + 1);
    if (k === "__proto__") Object.defineProperty(out, k, { value: resolved, writable: true, enumerable: true, configurable: true });
    else out[k] = resolved;
  }
  return out;
}

function segment(k: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
}
