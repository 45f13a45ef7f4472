// Protobuf wire bytes written by hand: for what no encoder writes (wrong wire
// types, groups, cut-short fields), and for values nested deeper than
// google-protobuf's recursive encoder and decoder survive (about 1500 levels).
// Every builder here is iterative.
import { execFile } from "node:child_process";
import path from "node:path";
import { loadSdk, type Sdk } from "./client.js";
import { scenariosDirectory } from "./payloads-python.js";

export const varint = (n: number): Buffer => {
  const out: number[] = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n & 127) | 128);
  out.push(n);
  return Buffer.from(out);
};
// Multiplied, not shifted: `field << 3` wraps past 2^28.
export const tag = (field: number, wireType: number): Buffer => varint(field * 8 + wireType);
export const len = (field: number, body: Buffer): Buffer => Buffer.concat([tag(field, 2), varint(body.length), body]);
export const text = (field: number, s: string): Buffer => len(field, Buffer.from(s, "utf8"));

/** A Struct entry, which is itself a one-entry Struct: key = 1, value = 2. */
export const entry = (key: string, value: Buffer): Buffer => len(1, Buffer.concat([text(1, key), len(2, value)]));

/** Value kinds. */
export const stringValue = (s: string): Buffer => text(3, s);
export const numberValue = (n: number): Buffer => {
  const b = Buffer.alloc(9);
  b[0] = (2 << 3) | 1;
  b.writeDoubleLE(n, 1);
  return b;
};
export const structValue = (...entries: Buffer[]): Buffer => len(5, Buffer.concat(entries));
export const listValue = (...values: Buffer[]): Buffer => len(6, Buffer.concat(values.map((v) => len(1, v))));

/**
 * A Value nested `depth` levels (objects and lists within one another, as
 * bag-check.ts counts them) around the number 1: objects {d: …} for
 * "objects", lists [[…]] for "lists", and alternating {d: [ {d: [ … ] } ] }
 * for "mixed". Depth 0 is the number itself. Built inside out from the
 * prefixes of each level, joined once: linear in the depth.
 */
export function nestedValue(depth: number, shape: "objects" | "lists" | "mixed" = "mixed"): Buffer {
  const inner = numberValue(1);
  const prefixes: Buffer[] = [];
  let size = inner.length;
  const wrap = (field: number) => {
    const prefix = Buffer.concat([tag(field, 2), varint(size)]);
    prefixes.push(prefix);
    size += prefix.length;
  };
  for (let level = depth; level >= 1; level--) {
    const list = shape === "lists" || (shape === "mixed" && level % 2 === 0);
    if (list) {
      wrap(1); // ListValue.values
      wrap(6); // Value.list_value
    } else {
      wrap(2); // the entry's value
      const key = text(1, "d");
      prefixes.push(key);
      size += key.length;
      wrap(1); // Struct.fields: the entry
      wrap(5); // Value.struct_value
    }
  }
  return Buffer.concat([...prefixes.reverse(), inner]);
}

/** The plain value nestedValue encodes, for comparing with what comes back (only for depths google-protobuf survives). */
export function nestedPlain(depth: number, shape: "objects" | "lists" | "mixed" = "mixed"): unknown {
  let v: unknown = 1;
  for (let level = depth; level >= 1; level--) {
    const list = shape === "lists" || (shape === "mixed" && level % 2 === 0);
    v = list ? [v] : { d: v };
  }
  return v;
}

export interface RawOutcome {
  code: number;
  details: string;
  /** The response's bytes (ok answers only). */
  response?: Buffer;
}

/**
 * One unary call with a request's bytes as they are, from grpc-js. A status
 * whose details exceed 64 KiB never reaches a grpc-js client (Node's HTTP/2
 * refuses the header and the call hangs): use callFromPython where an answer
 * may carry one.
 */
export function call(port: number, method: string, body: Buffer, sdk: Sdk = loadSdk()): Promise<RawOutcome> {
  const grpc = sdk.grpc;
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { "grpc.max_receive_message_length": -1 });
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      `/pulumirpc.ResourceProvider/${method}`,
      (x: Buffer) => x,
      (x: Buffer) => x,
      body,
      (err: any, response: Buffer) => {
        client.close();
        resolve(err ? { code: err.code, details: err.details } : { code: 0, details: "", response });
      },
    );
  });
}

/**
 * The same call from the Python SDK's grpcio (C-core, as the engine's grpc-go
 * accepts status details up to 16 MiB), run by `python` (one with the SDK, hence
 * grpcio: scenarios/raw_client.py): answers of any size arrive, whole.
 */
export function callFromPython(python: string, port: number, method: string, body: Buffer): Promise<RawOutcome & { detailsLength: number }> {
  return new Promise((resolve, reject) => {
    const client = path.join(scenariosDirectory(), "raw_client.py");
    const child = execFile(python, [client, String(port), method], { maxBuffer: 64 << 20, encoding: "buffer" }, (err, stdout) => {
      if (err) return reject(err);
      const out = JSON.parse(stdout.toString("utf8")) as { code: number; details: string; response?: string };
      resolve({
        code: out.code,
        details: out.details,
        detailsLength: out.details.length,
        response: out.response === undefined ? undefined : Buffer.from(out.response, "base64"),
      });
    });
    child.stdin!.end(body);
  });
}
