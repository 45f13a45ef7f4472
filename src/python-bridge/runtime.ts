// The Python language adapter: each resource operation goes to a worker in
// the user's interpreter, which calls the user's provider with the values the
// Python reference would pass and returns a normalized result or the
// reference's error (code and details as grpc-python would send them).
import { CancelledError, UserOperationError } from "../host/errors.js";
import { messageType } from "../host/proto.js";
import type {
  Bag,
  CallInfo,
  CheckOutcome,
  CreateOutcome,
  DiffOutcome,
  DynamicRuntime,
  ReadOutcome,
  UpdateOutcome,
} from "../host/runtime.js";
import type { WireStruct } from "../host/wire.js";
import { ChannelBrokenError, RpcError } from "./connection.js";
import { ErrorCodes, userErrorData, type Method } from "./protocol.js";
import type { WorkerPool } from "./pool.js";

const StructType = messageType("google.protobuf.Struct");

const encode = (bag: Bag): Buffer | undefined => (bag ? Buffer.from(StructType.encode(bag).finish()) : undefined);
const decode = (bytes: unknown): WireStruct => StructType.decode(bytes as Buffer) as unknown as WireStruct;

export class PythonRuntime implements DynamicRuntime {
  readonly language = "python" as const;

  constructor(readonly pool: WorkerPool) {}

  configure(args: Bag): Promise<void> {
    return this.pool.configure(encode(args));
  }

  async check(call: CallInfo, provider: string, olds: Bag, news: Bag): Promise<CheckOutcome> {
    const r = await this.call(call, "check", { provider, olds: encode(olds), news: encode(news) });
    return { inputs: decode(r.inputs), failures: r.failures as CheckOutcome["failures"] };
  }

  async diff(call: CallInfo, provider: string, id: string, olds: Bag, news: Bag): Promise<DiffOutcome> {
    const r = await this.call(call, "diff", { provider, id, olds: encode(olds), news: encode(news) });
    return { changes: r.changes as DiffOutcome["changes"], replaces: r.replaces as string[], deleteBeforeReplace: r.deleteBeforeReplace as boolean };
  }

  async create(call: CallInfo, provider: string, props: Bag): Promise<CreateOutcome> {
    const r = await this.call(call, "create", { provider, props: encode(props) });
    return { id: r.id as string, outs: decode(r.outs) };
  }

  async read(call: CallInfo, provider: string, id: string, props: Bag): Promise<ReadOutcome> {
    const r = await this.call(call, "read", { provider, id, props: encode(props) });
    const outcome: ReadOutcome = { id: r.id as string, outs: decode(r.outs) };
    if (r.inputs) outcome.inputs = decode(r.inputs);
    return outcome;
  }

  async update(call: CallInfo, provider: string, id: string, olds: Bag, news: Bag): Promise<UpdateOutcome> {
    const r = await this.call(call, "update", { provider, id, olds: encode(olds), news: encode(news) });
    return { outs: decode(r.outs) };
  }

  async delete(call: CallInfo, provider: string, id: string, props: Bag): Promise<void> {
    await this.call(call, "delete", { provider, id, props: encode(props) });
  }

  /** `async def` methods in flight are cancelled in the worker; synchronous ones finish. */
  cancelAll(): void {
    this.pool.cancelAll();
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** One request to the pool, its failure mapped onto the host's error kinds. */
  private async call(call: CallInfo, method: Method, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return await this.pool.request({ method, urn: call.urn, operation: call.operation }, { urn: call.urn, ...params }, call.signal);
    } catch (e) {
      if (e instanceof RpcError) {
        if (e.code === ErrorCodes.UserError || e.code === ErrorCodes.LoadError) {
          const data = userErrorData.safeParse(e.data);
          if (data.success) throw new UserOperationError(data.data.grpcCode, data.data.details);
        }
        if (e.code === ErrorCodes.Cancelled) throw new CancelledError(`${call.operation} ${call.urn}: ${e.message}`);
        throw new ChannelBrokenError(`${call.operation} ${call.urn}: the Python worker refused the request (${e.code}): ${e.message}`);
      }
      throw e;
    }
  }
}
