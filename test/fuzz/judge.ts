// What every case must show, whatever it sent: an answer within the bound, a
// plugin still serving, nothing printed, the expected kind of answer, and for
// an error a details text that says what was wrong and where, within the cap,
// with no secret in it. judge() lists what a case got wrong (empty: it passed);
// the same list, for a reference plugin, is recorded for comparison only.
import { splitWhere } from "../../src/conformance/client.js";
import type { Case } from "./cases.js";
import { CODE, DETAILS_CAP_BYTES } from "./limits.js";
import { canonStruct, lastBody, readFields } from "./proto-bytes.js";
import { ECHO_FIELD, PROVIDER_BAG, RESOURCE_RPCS, type RequestSpec, type ResourceRpc } from "./requests.js";
import { encodeStruct } from "./values.js";

/** What one case observed on one plugin. */
export interface Observation {
  /** No answer within the bound. */
  hung: boolean;
  code: number;
  details: string;
  body?: Buffer;
  ms: number;
  /** How the plugin ended, when it did during the case. */
  exited?: string;
  /** Lines on stdout, and text on stderr, that the case caused (the provider writes none). */
  stdout: string[];
  stderr: string;
}

/** One thing a case got wrong; `kind` groups them in the summary. */
export interface Violation {
  kind: "hang" | "crash" | "stdout" | "stderr" | "expectation" | "unclear" | "internal" | "too-long" | "secret" | "worker-died" | "data-loss";
  text: string;
}

const isResourceRpc = (m: string): m is ResourceRpc => (RESOURCE_RPCS as readonly string[]).includes(m);
/** Long texts shortened to their head and tail (where a traceback says what it is). */
const clip = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n / 2)} …(${s.length} chars)… ${s.slice(-n / 2)}` : s);

export function judge(c: Case, spec: RequestSpec, o: Observation, language: "nodejs" | "python"): Violation[] {
  const out: Violation[] = [];
  const v = (kind: Violation["kind"], text: string) => out.push({ kind, text });
  if (o.exited) v("crash", `the plugin exited during the case (${o.exited})`);
  if (o.hung) v("hang", `no answer within ${o.ms} ms`);
  if (o.stdout.length > 0) v("stdout", `wrote to stdout: ${clip(JSON.stringify(o.stdout))}`);
  // As the Node reference, Node mode echoes what the provider threw in Check, Diff, Read and Delete to stderr.
  const echoes = language === "nodejs" && c.userError && ["Check", "Diff", "Read", "Delete"].includes(c.method);
  // A bit-flipped pickle is code that runs in the worker: CPython may print what it makes of the objects
  // the damaged opcodes build, as it would under the reference (a bytearray freed while a view of it is
  // held: "SystemError: deallocated bytearray object has exported buffers", printed by the interpreter
  // itself, outside any request's capture). Exception lines of the interpreter's, and nothing else.
  const interpreters = language === "python" && c.shape === "provider.bit-flipped" && /^(?:[A-Za-z_][\w.]*(?:Error|Exception|Warning): [^\n]*\n)+$/.test(o.stderr);
  if (o.stderr.length > 0 && !echoes && !interpreters) v("stderr", `wrote to stderr: ${clip(JSON.stringify(o.stderr))}`);
  for (const s of c.secrets) if (o.stderr.includes(s) || o.stdout.some((l) => l.includes(s))) v("secret", `the plugin's output holds the secret input ${s}`);
  if (o.hung || o.exited) return out;

  if (o.code === CODE.OK) {
    if (c.expect === "error") v("expectation", "answered OK to a request that must be refused");
    else if (c.echoes) roundTrip(c, spec, o, language, v);
    return out;
  }
  if (c.expect === "ok") v("expectation", `failed where it must succeed: code ${o.code}: ${clip(o.details)}`);
  if (c.onlyCodes && !c.onlyCodes.includes(o.code)) v("expectation", `code ${o.code}, not ${c.onlyCodes.join(" or ")}`);
  clearError(c, o, v);
  return out;
}

function clearError(c: Case, o: Observation, v: (kind: Violation["kind"], text: string) => void): void {
  const d = o.details ?? "";
  const bytes = Buffer.byteLength(d);
  if (bytes > DETAILS_CAP_BYTES) v("too-long", `the error text is ${bytes} bytes, over the ${DETAILS_CAP_BYTES}-byte cap`);
  if (d.trim() === "") v("unclear", `code ${o.code} with no text`);
  if (o.code === CODE.INTERNAL || /internal error/i.test(d)) v("internal", `an internal error for bad input: code ${o.code}: ${clip(d)}`);
  if (o.code === CODE.UNAVAILABLE && !(c.codes ?? []).includes(CODE.UNAVAILABLE)) v("worker-died", `UNAVAILABLE: ${clip(d)}`);
  // The block below a user error (where it was thrown, in the user's frames: splitWhere) is ours on purpose.
  if (/^\s+at .+[(:]\d+/m.test(splitWhere(d)[0])) v("unclear", `the text holds a JavaScript stack: ${clip(d)}`);
  if (!c.userError && isResourceRpc(c.method)) {
    const head = d.slice(0, 2048);
    if (/^Traceback \(most recent call last\)/.test(d)) v("unclear", `a bare Python traceback: ${clip(d)}`);
    if (!head.includes(c.method)) v("unclear", `does not name the method ${c.method}: ${clip(d)}`);
    if (c.urn && !d.includes(c.urn)) v("unclear", `does not name the resource ${clip(c.urn, 80)}: ${clip(d)}`);
    for (const m of c.mentions ?? []) if (!m.test(d)) v("unclear", `does not say what was wrong (${m}): ${clip(d)}`);
  }
  for (const s of c.secrets) if (d.includes(s)) v("secret", `the error text holds the secret input ${s}`);
}

/** The provider echoes the bag it got: the answer must hold the same values (the Python SDK drops nulls from objects). */
function roundTrip(c: Case, spec: RequestSpec, o: Observation, language: string, v: (kind: Violation["kind"], text: string) => void): void {
  if (!isResourceRpc(c.method) || o.body === undefined) return;
  const field = ECHO_FIELD[c.method];
  const sent = spec.bags?.[PROVIDER_BAG[c.method]];
  if (field === undefined || sent === undefined) return;
  const dropNulls = language === "python";
  const want = canonStruct(Buffer.isBuffer(sent) ? sent : encodeStruct(sent), dropNulls);
  const got = canonStruct(lastBody(readFields(o.body), field) ?? Buffer.alloc(0), dropNulls);
  if (got !== want) v("data-loss", `the echo differs from what was sent: ${firstDifference(want, got)}`);
}

function firstDifference(want: string, got: string): string {
  let i = 0;
  while (i < want.length && want[i] === got[i]) i++;
  const from = Math.max(0, i - 40);
  return `at character ${i}: sent …${JSON.stringify(want.slice(from, i + 60))}, got …${JSON.stringify(got.slice(from, i + 60))}`;
}
