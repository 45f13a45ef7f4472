// The closed set of ways an RPC can fail, and the one function that turns any of
// them into the gRPC status the engine receives. Adapters throw these; nothing
// else in the host builds a status by hand.
import * as grpc from "@grpc/grpc-js";
import { boundErrorText, boundErrorTexts, MAX_ERROR_TEXT_BYTES } from "./limits/error-text.js";
import { finish, INIT_FAILED_TYPE_URL, InitFailedType, StatusType } from "./wire/proto.js";
import { redact } from "./secrets/redaction.js";
import type { WireStruct } from "./wire/wire.js";

/** A partial failure: the resource exists (it has an id) but did not initialise. */
export interface InitFailure {
  id: string;
  properties: WireStruct;
  reasons: string[];
}

/**
 * The user's code failed (their method, their configure, or their module while
 * loading). Code and details are already what the language's reference shows.
 */
export class UserOperationError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
    readonly initFailed?: InitFailure,
    readonly trailers?: grpc.Metadata,
  ) {
    super(details);
    this.name = "UserOperationError";
  }
}

/** The provider returned something the protocol cannot carry; the message names the method and the property. */
export class ProviderResultError extends Error {
  override name = "ProviderResultError";
}

/** The request itself cannot be served (no provider in it, wrong package, …). */
export class BadRequestError extends Error {
  override name = "BadRequestError";
  constructor(message: string, readonly code: number = grpc.status.INVALID_ARGUMENT) {
    super(message);
  }
}

/** An RPC this plugin does not offer, answered with the per-language code and details text. */
export class NotImplementedError extends Error {
  override name = "NotImplementedError";
  constructor(message: string, readonly code: number = grpc.status.UNIMPLEMENTED) {
    super(message);
  }
}

/** The operation was abandoned: the call was cancelled, or its timeout passed. */
export class CancelledError extends Error {
  override name = "CancelledError";
  constructor(message: string, readonly code: number = grpc.status.CANCELLED) {
    super(message);
  }
}

/** The language worker that was running the operation went away. */
export class WorkerDiedError extends Error {
  override name = "WorkerDiedError";
}

export interface StatusAnswer {
  code: number;
  details: string;
  metadata: grpc.Metadata;
}

/** What toStatus knows of the request being answered. */
export interface StatusContext {
  /** The request's URN, if it has one: a text cut for size is prefixed with the RPC and this. */
  urn?: string;
  /** Plaintexts that must not be sent (./secrets/redaction.ts). */
  secrets?: readonly string[];
}

/**
 * Maps any thrown value to the status sent to the engine. Unknown errors are
 * host bugs and say so. Every text it sends (the details, an init failure's
 * reasons) first has the context's secrets replaced (./secrets/redaction.ts), then is
 * bounded in size (./limits/error-text.ts): this is the one place both happen.
 */
export function toStatus(err: unknown, where: string, context: StatusContext = {}): StatusAnswer {
  const metadata = new grpc.Metadata();
  const secrets = context.secrets ?? [];
  const subject = context.urn ? `${where} ${context.urn}` : where;
  const send = (text: string) => boundErrorText(redact(text, secrets), MAX_ERROR_TEXT_BYTES, subject);
  if (err instanceof UserOperationError) {
    const details = send(err.details);
    if (err.initFailed) {
      const reasons = boundErrorTexts(err.initFailed.reasons.map((r) => redact(r, secrets)));
      metadata.add("grpc-status-details-bin", encodeInitFailed(err.code, details, { ...err.initFailed, reasons }));
    }
    if (err.trailers) metadata.merge(err.trailers);
    return { code: err.code, details, metadata };
  }
  if (err instanceof ProviderResultError) return { code: grpc.status.UNKNOWN, details: send(err.message), metadata };
  if (err instanceof BadRequestError) return { code: err.code, details: send(err.message), metadata };
  if (err instanceof NotImplementedError) return { code: err.code, details: send(err.message), metadata };
  if (err instanceof CancelledError) return { code: err.code, details: send(err.message), metadata };
  if (err instanceof WorkerDiedError) return { code: grpc.status.UNAVAILABLE, details: send(err.message), metadata };
  const message = err instanceof Error ? err.stack ?? err.message : String(err);
  return { code: grpc.status.INTERNAL, details: send(`pulumi-dynamic-host internal error in ${where}: ${message}`), metadata };
}

/**
 * google.rpc.Status{code, message, details:[Any(ErrorResourceInitFailed)]}. The
 * code and message must equal the call's own status or grpc-go drops the detail.
 */
function encodeInitFailed(code: number, message: string, f: InitFailure): Buffer {
  const detail = InitFailedType.encode({ id: f.id, properties: f.properties, reasons: f.reasons }).finish();
  return finish(StatusType.encode({ code, message, details: [{ type_url: INIT_FAILED_TYPE_URL, value: detail }] }));
}
