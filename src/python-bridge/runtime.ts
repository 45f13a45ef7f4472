// src/python-bridge: the Python language adapter (runtime.ts) and the pools
// of other Pythons' workers (other-pythons.ts) at the top, on what the folders
// beside them hold: the worker channel (channel/), which Python
// (interpreter/), a payload read without running it (pickle/) and the workers
// (worker/). It may import the serving path and src/host's folders, never the
// Node adapter; src/cli (the composition root, doctor) and the conformance kit
// import it.
//
// The Python language adapter: each resource operation goes to a worker in
// the user's interpreter, which calls the user's provider with the values the
// Python reference would pass and returns a normalized result or the
// reference's error (code and details as grpc-python would send them).
import * as grpc from "@grpc/grpc-js";
import type * as z from "zod/mini";
import { BadRequestError, CancelledError, ProviderResultError, UserOperationError } from "../host/errors.js";
import { log } from "../host/diagnostics/log.js";
import { BoundedCache } from "../host/limits/bounded-cache.js";
import { redact } from "../host/secrets/redaction.js";
import type {
  Bag,
  CallInfo,
  CheckOutcome,
  CreateOutcome,
  DiffOutcome,
  DynamicRuntime,
  ProviderSource,
  ReadOutcome,
  UpdateOutcome,
} from "../host/runtime.js";
import type { ProviderReference } from "../host/references/provider-references.js";
import { EncodedStruct, StructBytesError } from "../host/wire/struct-bytes.js";
import { encodeStruct, propertyPath, unsetValueProblem } from "../host/wire/wire.js";
import { ChannelBrokenError, RpcError } from "./channel/connection.js";
import { inspectPayload, pythonMinor, type PickleFacts } from "./pickle/pickle-inspect.js";
import { badValueData, ErrorCodes, unsetValueData, userErrorData, type Method } from "./channel/protocol.js";
import type { WorkerPool } from "./worker/pool.js";
import { describeFound, driftMessage, type OtherPythons } from "./other-pythons.js";
import type { Found } from "./interpreter/interpreter-search.js";
import { InterpreterUnusableError, noPythonError } from "./interpreter/unusable-interpreter.js";

/** A bag of the worker's answer, passed on as the bytes it is; its top level is checked here. */
function encoded(call: CallInfo, field: string, bytes: unknown): EncodedStruct {
  try {
    return new EncodedStruct(bytes as Buffer).validated();
  } catch (e) {
    if (!(e instanceof StructBytesError)) throw e;
    throw new Error(`${call.operation} ${call.urn}: the Python worker's ${field} is ${e.message}`);
  }
}

/**
 * A `__provider` the worker could not load, said like every other error of
 * ours: "<Operation> <urn>: the resource's __provider could not be loaded:
 * <what was wrong>", then the worker's traceback below. A by-reference class
 * whose import failed is named, with where it was looked for. A provider
 * reference that failed (declared, or held by the helper's object) is said by
 * the worker whole: "<Operation> <urn>: the provider reference "m:a" declared
 * for <type> in <file>: <what was wrong>".
 */
function loadFailure(call: CallInfo, facts: PickleFacts | undefined, data: z.infer<typeof userErrorData>): UserOperationError {
  let reason = data.reason ?? `${data.type}: ${data.message}`;
  const cls = facts?.providerClass;
  if (data.reference === undefined && cls && !cls.byValue && ["ModuleNotFoundError", "ImportError", "AttributeError"].includes(data.type)) {
    reason = `its provider class ${cls.module}.${cls.name} could not be imported: ${reason}`;
  }
  const details = `${call.operation} ${call.urn}: ${data.reference === undefined ? "the resource's __provider could not be loaded: " : ""}${reason}`;
  return new UserOperationError(data.grpcCode, data.details ? `${details}\n\n${data.details}` : details);
}

/**
 * A request value the worker's SDK refused (a Value with no kind set, or one
 * it cannot deserialize) as the bad request it is, after `subject` ("Create
 * <urn>"), naming the bag and the path; undefined for any other error. The
 * worker calls the props bag `props`: it is named as the request names it.
 */
function requestValueError(subject: string, propsField: string, e: RpcError): BadRequestError | undefined {
  const bag = (field: string) => (field === "props" ? propsField : field);
  if (e.code === ErrorCodes.UnsetValue) {
    const data = unsetValueData.safeParse(e.data);
    if (data.success) return new BadRequestError(`${subject}: ${unsetValueProblem(bag(data.data.field), propertyPath(data.data.path))}`);
  }
  if (e.code === ErrorCodes.BadValue) {
    const data = badValueData.safeParse(e.data);
    if (data.success) {
      const { field, path, type, message } = data.data;
      const where = `${bag(field)}${propertyPath(path)}`;
      return new BadRequestError(
        `${subject}: the request's ${bag(field)} holds a value the pulumi Python SDK cannot deserialize, at ${where}: ${type}: ${message}`,
      );
    }
  }
  return undefined;
}

/** " <module>.<Class>" of the provider a pickle holds, or "" when it cannot be read. */
function className(facts: PickleFacts): string {
  return facts.providerClass ? ` ${facts.providerClass.module}.${facts.providerClass.name}` : "";
}

/** The helper's class, as a pickle of its object names it (python-stub/helper/pulumi_dynamic_host/reference.py). */
const HELPER_CLASS = { module: "pulumi_dynamic_host.reference", name: "ProviderReference" };

/** What the worker is told of a declared reference: enough to load it and to say where it was declared. */
function declaration(reference: ProviderReference) {
  const told = { reference: reference.reference, typeToken: reference.typeToken, declaredIn: reference.declaredIn };
  // A provider package's modules are imported from its folder, then its dependencies' (src/host/packages).
  return reference.packageDir === undefined ? told : { ...told, paths: [reference.packageDir, ...(reference.dependencyDirs ?? [])] };
}

/** What vetting a payload decided: its facts, and the other Python that runs it when the program's cannot. */
interface Vetted {
  facts: PickleFacts;
  other?: { found: Found; pool: WorkerPool };
}

/** How many `__provider` texts' inspections are kept (src/host/limits/bounded-cache.ts); one used again after it went is inspected again. */
export const VETTED_TEXTS_LIMIT = 1000;

export class PythonRuntime implements DynamicRuntime {
  readonly language = "python" as const;
  /** Bags cross to the worker, and outs back, as the bytes they came in (src/host/wire/struct-bytes.ts). */
  readonly bags = "encoded" as const;
  /** By `__provider` text, the most recently used (a program may hold a distinct pickle per resource). */
  private readonly vetted = new BoundedCache<string, Vetted>(VETTED_TEXTS_LIMIT);
  /** Resources already warned that another Python runs their provider, by URN and interpreter. */
  private readonly warned = new Set<string>();
  /** By `__provider` text: the reference a pickle of the helper's object holds, or null for any other text. */
  private readonly heldReferences = new BoundedCache<string, string | null>(VETTED_TEXTS_LIMIT);

  /** `others`: where pickles of another Python minor run; without it they are refused. */
  constructor(
    readonly pool: WorkerPool,
    private readonly others?: OtherPythons,
  ) {}

  async configure(args: Bag): Promise<void> {
    const encoded = encodeStruct(args);
    try {
      await Promise.all([this.pool.configure(encoded), this.others?.configure(encoded)]);
    } catch (e) {
      throw (e instanceof RpcError && requestValueError("Configure", "args", e)) || e;
    }
  }

  async check(call: CallInfo, provider: ProviderSource, olds: Bag, news: Bag): Promise<CheckOutcome> {
    const r = await this.call(call, "check", { provider, olds: encodeStruct(olds), news: encodeStruct(news) });
    return { inputs: encoded(call, "inputs", r.inputs), failures: r.failures as CheckOutcome["failures"] };
  }

  async diff(call: CallInfo, provider: ProviderSource, id: string, olds: Bag, news: Bag): Promise<DiffOutcome> {
    const r = await this.call(call, "diff", { provider, id, olds: encodeStruct(olds), news: encodeStruct(news) });
    const outcome: DiffOutcome = { changes: r.changes as DiffOutcome["changes"], replaces: r.replaces as string[], deleteBeforeReplace: r.deleteBeforeReplace as boolean };
    if (r.byDefault === true) outcome.byDefault = true;
    return outcome;
  }

  async create(call: CallInfo, provider: ProviderSource, props: Bag): Promise<CreateOutcome> {
    const r = await this.call(call, "create", { provider, props: encodeStruct(props) });
    return { id: r.id as string, outs: encoded(call, "outs", r.outs) };
  }

  async read(call: CallInfo, provider: ProviderSource, id: string, props: Bag): Promise<ReadOutcome> {
    const r = await this.call(call, "read", { provider, id, props: encodeStruct(props) });
    const outcome: ReadOutcome = { id: r.id as string, outs: encoded(call, "outs", r.outs) };
    if (r.inputs) outcome.inputs = encoded(call, "inputs", r.inputs);
    return outcome;
  }

  async update(call: CallInfo, provider: ProviderSource, id: string, olds: Bag, news: Bag): Promise<UpdateOutcome> {
    const r = await this.call(call, "update", { provider, id, olds: encodeStruct(olds), news: encodeStruct(news) });
    // No outs: the provider has no update of its own, and the core keeps the old outputs.
    return r.outs === undefined ? {} : { outs: encoded(call, "outs", r.outs) };
  }

  async delete(call: CallInfo, provider: ProviderSource, id: string, props: Bag): Promise<void> {
    await this.call(call, "delete", { provider, id, props: encodeStruct(props), oldInputs: encodeStruct(call.oldInputs) });
  }

  /** Read from the pickle without running it: the helper's class, holding this reference string. */
  isReferenceText(text: string, reference: ProviderReference): boolean {
    let held = this.heldReferences.get(text);
    if (held === undefined) {
      const inspection = inspectPayload(text);
      const facts = inspection.ok ? inspection.facts : undefined;
      const cls = facts?.providerClass;
      const isHelper = cls !== undefined && !cls.byValue && cls.module === HELPER_CLASS.module && cls.name === HELPER_CLASS.name;
      held = isHelper ? (facts?.heldReference ?? null) : null;
      this.heldReferences.set(text, held);
    }
    return held === reference.reference;
  }

  /** `async def` methods in flight are cancelled in the worker; synchronous ones finish. */
  cancelAll(): void {
    this.pool.cancelAll();
    this.others?.cancelAll();
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.others?.close()]);
  }

  /**
   * What a payload holds, read once per distinct text without running it;
   * payloads that cannot work (not base64, JavaScript, code from another
   * Python no interpreter found can run) are refused before any worker
   * unpickles them. Code from another Python that one found can run is
   * routed to that Python's workers, with a warning under the resource.
   */
  private vet(call: CallInfo, text: string): Vetted | Promise<Vetted> {
    const known = this.vetted.get(text);
    if (known) {
      this.warnOther(call, known);
      return known;
    }
    return this.vetNew(call, text).then((vetted) => {
      this.warnOther(call, vetted);
      return vetted;
    });
  }

  /** Once per resource and interpreter: the warning that another Python runs its provider. */
  private warnOther(call: CallInfo, vetted: Vetted): void {
    if (vetted.other) {
      const key = `${call.urn}\0${vetted.other.found.probe.python}`;
      if (!this.warned.has(key)) {
        this.warned.add(key);
        call.log?.(
          "warning",
          `this resource's provider${className(vetted.facts)} was pickled by ${vetted.facts.code!.describe}, and this program's Python ` +
            `cannot run that bytecode; running it with ${describeFound(vetted.other.found)}. \`pulumi up\` under the program's ` +
            `Python writes a new __provider for resources it updates`,
        );
      }
    }
  }

  /** vet for a text not seen before. */
  private async vetNew(call: CallInfo, text: string): Promise<Vetted> {
    const inspection = inspectPayload(text);
    if (!inspection.ok) throw new BadRequestError(`${call.operation} ${call.urn}: ${inspection.problem}`, grpc.status.UNKNOWN);
    const facts = inspection.facts;
    let vetted: Vetted = { facts };
    if (facts.code) {
      // A worker that cannot start fails the request itself, with an error naming it.
      const worker = await this.pool.workerInfo();
      const version = worker && pythonMinor(worker.python);
      if (worker && version && !facts.code.accepts(version)) {
        const search = await this.others?.find(facts.code);
        if (!search?.found) {
          throw new BadRequestError(
            driftMessage({
              subject: `${call.operation} ${call.urn}: the${className(facts)} provider`,
              origin: facts.code,
              dill: facts.dillModule === "dill.dill" ? "dill 0.2" : "dill ≥ 0.3",
              mine: `${worker.python} (${this.others ? `${this.others.main.python}, ` : ""}dill ${worker.dill})`,
              search,
            }),
            grpc.status.UNKNOWN,
          );
        }
        vetted = { facts, other: { found: search.found, pool: this.others!.poolFor(search.found) } };
      }
    }
    this.vetted.set(text, vetted);
    return vetted;
  }

  /** One request to the pool, its failure mapped onto the host's error kinds. */
  private async call(call: CallInfo, method: Method, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const source = params.provider as ProviderSource;
    let facts: PickleFacts | undefined;
    let pool = this.pool;
    if (source.reference) {
      params.provider = undefined;
      params.reference = declaration(source.reference);
    } else {
      params.provider = source.text;
      const pending = this.vet(call, source.text);
      const vetted = pending instanceof Promise ? await pending : pending;
      facts = vetted.facts;
      if (vetted.other) pool = vetted.other.pool;
    }
    params.urn = call.urn;
    params.context = { name: call.name ?? "", type: call.type ?? "", preview: call.preview, deadline: call.deadline };
    // What the provider prints comes back as $/log notifications for this call's output.
    if (call.output) params.logs = true;
    try {
      return await pool.request({ method, urn: call.urn, operation: call.operation, output: call.output }, params, call.signal);
    } catch (e) {
      if (e instanceof InterpreterUnusableError) {
        throw noPythonError(call, source, `${e.python} cannot import ${e.module} (${e.error})`, pool.interpreter.choice, e.python);
      }
      if (e instanceof RpcError) {
        if (e.code === ErrorCodes.UserError || e.code === ErrorCodes.LoadError) {
          const data = userErrorData.safeParse(e.data);
          // The answer shows the user's frames; the worker's own are for whoever asked for logs.
          if (data.success && data.data.trace !== undefined) {
            log(1, redact(`${call.operation} ${call.urn}: the whole Python traceback, the worker's own frames included:\n${data.data.trace.trimEnd()}`, call.secrets()));
          }
          if (data.success && e.code === ErrorCodes.LoadError) throw loadFailure(call, facts, data.data);
          if (data.success) throw new UserOperationError(data.data.grpcCode, data.data.details);
        }
        const refused = requestValueError(`${call.operation} ${call.urn || "(no urn)"}`, call.propsField ?? "properties", e);
        if (refused) throw refused;
        if (e.code === ErrorCodes.Cancelled) throw new CancelledError(`${call.operation} ${call.urn}: ${e.message}`);
        throw new ChannelBrokenError(`${call.operation} ${call.urn}: the Python worker refused the request (${e.code}): ${e.message}`);
      }
      throw e;
    }
  }
}
