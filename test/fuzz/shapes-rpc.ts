// Shapes for the RPCs that are not resource operations: every refused one,
// Configure with odd config, Invoke, GetPluginInfo and Cancel with odd bodies,
// and a method the service does not have.
import { randomStruct, secretValue, sentinelValue } from "./adversarial.js";
import type { Shape } from "./cases.js";
import { CODE } from "./limits.js";
import { bytesField, stringField } from "./proto-bytes.js";
import type { Rng } from "./random.js";
import { REFUSED_RPCS, type RequestSpec } from "./requests.js";
import type { FStruct, FValue } from "./values.js";

/** An empty body, or a few bytes of unknown fields, or random bytes. */
function oddBody(rng: Rng): { raw: Buffer; what: string } {
  switch (rng.int(0, 2)) {
    case 0: return { raw: Buffer.alloc(0), what: "empty" };
    case 1: return { raw: bytesField(rng.int(50, 500), rng.bytes(rng.int(0, 30))), what: "an unknown field" };
    default: return { raw: rng.bytes(rng.int(1, 200)), what: "random bytes" };
  }
}

/** ConfigureRequest.variables entries (map<string, string>, field 1). */
function variables(rng: Rng): Buffer {
  const entries = Array.from({ length: rng.int(0, 5) }, (_, i) => bytesField(1, Buffer.concat([stringField(1, rng.chance(0.3) ? "" : `proj:k${i}`), stringField(2, rng.chance(0.3) ? "\u0000" : `v${rng.tag()}`)])));
  return Buffer.concat(entries);
}

export const RPC_SHAPES: Shape[] = [
  {
    name: "rpc.refused",
    weight: 3,
    make: (rng) => {
      const method = rng.pick(REFUSED_RPCS);
      const { raw, what } = oddBody(rng);
      // A body that is no message of the method's type may be refused as such, before the method is looked at.
      // Parameterize is answered (src/host/packages): a body naming no folder that is a provider package is a bad request.
      const codes =
        method === "Parameterize" ? [CODE.INVALID_ARGUMENT] : what === "random bytes" ? [CODE.UNIMPLEMENTED, CODE.INVALID_ARGUMENT] : [CODE.UNIMPLEMENTED];
      return { method, expect: "error", onlyCodes: codes, request: () => ({ method, raw }), note: `${what} body` };
    },
  },
  {
    name: "rpc.configure",
    weight: 2,
    make: (rng) => {
      const secrets: string[] = [];
      const args: FStruct = [...randomStruct(rng, 3, 4), ["password", secretValue(rng, secrets)], ["odd", sentinelValue(rng, secrets) as FValue]];
      const vars = variables(rng);
      return {
        method: "Configure",
        expect: "either",
        secrets,
        request: (): RequestSpec => ({ method: "Configure", bags: { args }, extra: vars }),
        note: "random config with secrets and sentinels",
      };
    },
  },
  {
    name: "rpc.invoke",
    weight: 1,
    make: (rng) => {
      const tok = rng.pick(["", "pkg:index:fn", "pulumi-nodejs:dynamic:Resource", "x".repeat(5000), "\u0000"]);
      return { method: "Invoke", expect: "error", onlyCodes: [CODE.UNKNOWN, CODE.UNIMPLEMENTED], request: () => ({ method: "Invoke", tok, bags: { args: randomStruct(rng.fork("args"), 2, 3) } }), note: `tok ${JSON.stringify(tok.slice(0, 20))}` };
    },
  },
  {
    name: "rpc.info-cancel",
    weight: 2,
    make: (rng) => {
      const method = rng.pick(["GetPluginInfo", "Cancel"] as const);
      const { raw, what } = oddBody(rng);
      // Random bytes may not be a valid Empty; the other bodies are.
      return { method, expect: what === "random bytes" ? "either" : "ok", request: () => ({ method, raw }), note: `${what} body` };
    },
  },
  {
    name: "rpc.unknown-method",
    weight: 1,
    make: (rng) => ({ method: "Nope", expect: "error", onlyCodes: [CODE.UNIMPLEMENTED], request: () => ({ method: "Nope", raw: oddBody(rng).raw }), note: "a method the service does not have" }),
  },
];
