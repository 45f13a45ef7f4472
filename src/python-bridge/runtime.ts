// The Python side of the host: the DynamicRuntime that will hand each call to a
// supervised Python worker (python-stub) over JSON-RPC. Until that bridge
// lands, Python mode answers every resource operation with a clear refusal
// instead of guessing, so a stack is never half-managed.
import * as grpc from "@grpc/grpc-js";
import { NotImplementedError } from "../host/errors.js";
import type { Bag, CallInfo, DynamicRuntime } from "../host/runtime.js";

export class PythonRuntime implements DynamicRuntime {
  readonly language = "python" as const;

  async configure(_args: Bag): Promise<void> {}

  private refuse(call: CallInfo): never {
    throw new NotImplementedError(
      `${call.operation} ${call.urn}: this build of pulumi-dynamic-host does not run Python dynamic providers yet; ` +
        `use the pulumi-resource-pulumi-python plugin shipped with the pulumi Python SDK`,
      grpc.status.UNIMPLEMENTED,
    );
  }

  async check(call: CallInfo): Promise<never> { this.refuse(call); }
  async diff(call: CallInfo): Promise<never> { this.refuse(call); }
  async create(call: CallInfo): Promise<never> { this.refuse(call); }
  async read(call: CallInfo): Promise<never> { this.refuse(call); }
  async update(call: CallInfo): Promise<never> { this.refuse(call); }
  async delete(call: CallInfo): Promise<never> { this.refuse(call); }
  async close(): Promise<void> {}
}
