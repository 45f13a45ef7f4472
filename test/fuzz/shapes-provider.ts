// Shapes whose `__provider` is wrong: missing, of the wrong kind, empty,
// truncated, bit-flipped, the other language's, huge, or a payload that loads
// but is no provider (Python pickles written by hand here, so none of them is
// made by running Python).
import { SECRET_SIG, SIG, UNKNOWN } from "../helpers/payloads.js";
import { randomStruct } from "./adversarial.js";
import { pickResourceRpc, resourceRequest, urnFor, type Draft, type ModeInfo, type Payloads, type Shape } from "./cases.js";
import { CODE } from "./limits.js";
import type { Rng } from "./random.js";
import { bool, list, nul, num, obj, str, type FValue } from "./values.js";

const b64 = (bytes: string): string => Buffer.from(bytes, "latin1").toString("base64");

/** Payloads that load (or start to) but are no provider, per language, with what they are. */
const NOT_PROVIDERS: Record<ModeInfo["language"], [string, string][]> = {
  nodejs: [
    ["exports.handler = 5;", "a handler that is a number"],
    ["exports.handler = function () { return null; };", "a handler returning null"],
    ["exports.handler = function () { return { create: 5, check: 'x', diff: null, read: [], update: {}, delete: true }; };", "methods that are not functions"],
    ["module.exports = {};", "no handler"],
    ["throw 42;", "a number thrown while loading"],
    ["exports.handler = function () { throw new Error('handler failed'); };", "a handler that throws"],
  ],
  python: [
    [b64("\x80\x02K\x05."), "a pickled int"],
    [b64("\x80\x02N."), "a pickled None"],
    [b64("\x80\x02}X\x01\x00\x00\x00aK\x01s."), "a pickled dict"],
    [b64("\x80\x02cbuiltins\nint\nX\x03\x00\x00\x00abc\x85R."), "a pickle that raises while loading"],
    [b64("\x80\x02cnonexistent_module_xyz\nThing\n."), "a pickle naming a module that does not exist"],
    [b64("\x80\x02cos\n_exit\nK\x03\x85R."), "a pickle that ends the process while loading"],
  ],
};

/** A case whose provider bag holds `payload` (undefined: no `__provider` at all) and must be refused. */
function badProvider(rng: Rng, m: ModeInfo, payload: (p: Payloads) => FValue | undefined, note: string, extra: Partial<Draft> = {}): Draft {
  const method = pickResourceRpc(rng);
  const urn = urnFor(m, rng);
  const fields = randomStruct(rng, 2, 3, 0.1);
  return { method, urn, request: resourceRequest(method, urn, fields, { payload }), expect: "error", note, ...extra };
}

/** `text` with one to three of its bits flipped (Python: in the decoded pickle, re-encoded as base64). */
function flipped(rng: Rng, m: ModeInfo, text: string): string {
  const bytes = m.language === "python" ? Buffer.from(text, "base64") : Buffer.from(text, "latin1");
  for (let i = rng.int(1, 3); i > 0; i--) bytes[rng.int(0, bytes.length - 1)] ^= 1 << rng.int(0, m.language === "python" ? 7 : 6);
  return m.language === "python" ? bytes.toString("base64") : bytes.toString("latin1");
}

export const PROVIDER_SHAPES: Shape[] = [
  { name: "provider.missing", weight: 2, make: (rng, m) => badProvider(rng, m, () => undefined, "no __provider", { mentions: [/__provider/] }) },
  {
    name: "provider.wrong-kind",
    weight: 2,
    make: (rng, m) => {
      const [value, what] = rng.pick([[num(5), "a number"], [bool(true), "a boolean"], [nul, "null"], [obj({ a: str("x") }), "an object"], [list(str("x")), "a list"], [{ k: "unset" }, "a Value with no kind"]] as [FValue, string][]);
      return badProvider(rng, m, () => value, `__provider is ${what}`, { mentions: [/__provider/] });
    },
  },
  { name: "provider.empty", weight: 1, make: (rng, m) => badProvider(rng, m, () => str(rng.pick(["", " ", "\n\t "])), "an empty or blank __provider") },
  {
    name: "provider.truncated",
    weight: 2,
    make: (rng, m) => {
      const f = rng.next();
      return badProvider(rng, m, (p) => str(p.good.slice(0, Math.floor(p.good.length * f))), `cut to ${(f * 100).toFixed(0)} %`);
    },
  },
  {
    name: "provider.bit-flipped",
    weight: 2,
    make: (rng, m) => {
      const r = rng.fork("flips");
      // A flip may land where it changes nothing that matters: then the provider works. Or it may leave
      // code that loads but fails when it runs (`undefined` becomes `undevined`): then the error is the
      // provider's own, passed on as the reference passes it (Node mode echoes it in Check, Diff, Read and
      // Delete), and naming the method and resource is not ours to add. Load failures must name them:
      // provider.truncated, .empty, .huge and .other-language hold the host to that.
      return badProvider(rng, m, (p) => str(flipped(r, m, p.good)), "bits flipped", { expect: "either", userError: true, codes: [CODE.UNAVAILABLE] });
    },
  },
  { name: "provider.other-language", weight: 1, make: (rng, m) => badProvider(rng, m, (p) => str(p.other), "the other language's payload") },
  {
    name: "provider.huge",
    weight: 1,
    make: (rng, m) => {
      const mib = rng.int(1, 8);
      const junk = rng.bytes(64).toString("base64");
      const text = m.language === "python" || rng.chance(0.5) ? junk.repeat(Math.ceil((mib << 20) / junk.length)) : "x".repeat(mib << 20);
      return badProvider(rng, m, () => str(text), `${mib} MiB of junk`);
    },
  },
  {
    name: "provider.not-a-provider",
    weight: 2,
    make: (rng, m) => {
      const [text, what] = rng.pick(NOT_PROVIDERS[m.language]);
      const draft = badProvider(rng, m, () => str(text), what, { codes: [CODE.UNAVAILABLE] });
      // `diff: null` is no diff method, in the references too: the default answers.
      return draft.method === "Diff" && what === "methods that are not functions" ? { ...draft, expect: "ok" } : draft;
    },
  },
  {
    name: "provider.unknown",
    weight: 2,
    make: (rng, m) => {
      const method = pickResourceRpc(rng);
      const urn = urnFor(m, rng);
      const fields = randomStruct(rng, 2, 3, 0.1);
      const fromOlds = (method === "Check" || method === "Diff") && rng.chance(0.7);
      // Preview of a changed provider: news holds the unknown sentinel and olds the provider that made the resource.
      const request = resourceRequest(method, urn, fields, {
        payload: () => str(UNKNOWN),
        rest: fromOlds ? { bags: { olds: [] } } : undefined,
      });
      return {
        method,
        urn,
        expect: fromOlds ? "ok" : "error",
        note: fromOlds ? "unknown __provider in news, the provider in olds" : "unknown __provider",
        request: fromOlds
          ? (p) => {
              const spec = request(p);
              spec.bags!.olds = [["__provider", str(p.good)], ...fields];
              return spec;
            }
          : request,
      };
    },
  },
  {
    name: "provider.secret-wrapped",
    weight: 1,
    make: (rng, m) => badProvider(rng, m, (p) => obj({ [SIG]: str(SECRET_SIG), value: str(p.good) }), "__provider wrapped as a secret", { expect: "either" }),
  },
];
