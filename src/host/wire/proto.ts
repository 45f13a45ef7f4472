// Loads our .proto subset once and exposes the message types the host encodes
// and decodes. Callers get plain objects; protobufjs classes stay in here and in
// the service definition built from them.
import protobuf from "protobufjs";
import { readAsset } from "../files/assets.js";
import { MAX_VALUE_DEPTH } from "./bag-check.js";

/**
 * protobufjs refuses messages nested more than 100 deep (protoc's default),
 * and a property value costs two levels of nesting per object or list (a
 * Struct or ListValue, then a Value), so bags nested 50 levels failed to
 * decode. Bags are checked before protobufjs sees them (bag-check.ts), so its
 * limit only needs room for what the host accepts and for the messages around
 * a bag (a response, an error's details). It is one setting of the process,
 * read by every decoder and encoder when they run.
 */
const PROTOBUF_NESTING_LIMIT = 2 * Math.max(MAX_VALUE_DEPTH.nodejs, MAX_VALUE_DEPTH.python) + 16;
protobuf.util.recursionLimit = PROTOBUF_NESTING_LIMIT;
protobuf.Reader.recursionLimit = PROTOBUF_NESTING_LIMIT;

/**
 * Parses our .proto files and what they import, read as host assets (on disk,
 * or embedded in the single executable); google/protobuf/* come from
 * protobufjs' bundled well-known types.
 */
function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  const pending = ["pulumirpc/provider.proto", "google/rpc/status.proto"];
  const loaded = new Set<string>();
  for (let file = pending.shift(); file !== undefined; file = pending.shift()) {
    if (loaded.has(file)) continue;
    loaded.add(file);
    const wellKnown = protobuf.common.get(file);
    if (wellKnown) {
      root.addJSON(wellKnown.nested ?? {});
      continue;
    }
    const parsed = protobuf.parse(readAsset(`proto/${file}`), root, { keepCase: true });
    pending.push(...(parsed.imports ?? []), ...(parsed.weakImports ?? []));
  }
  root.resolveAll();
  return root;
}

export const root = loadRoot();

export const ResourceProviderService = root.lookupService("pulumirpc.ResourceProvider");

/**
 * A writer's bytes as a Buffer without copying them (protobufjs already
 * returns a Buffer under Node; Buffer.from would copy a 100 MiB message).
 */
export function finish(writer: protobuf.Writer): Buffer {
  const bytes = writer.finish();
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function messageType(name: string): protobuf.Type {
  return root.lookupType(name);
}

export const StatusType = messageType("google.rpc.Status");
export const InitFailedType = messageType("pulumirpc.ErrorResourceInitFailed");

export const INIT_FAILED_TYPE_URL = "type.googleapis.com/pulumirpc.ErrorResourceInitFailed";

/** DiffResponse.DiffChanges */
export const DiffChanges = { DIFF_UNKNOWN: 0, DIFF_NONE: 1, DIFF_SOME: 2 } as const;
