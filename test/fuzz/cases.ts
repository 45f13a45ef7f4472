// What a fuzz case is, and the schedule that turns a seed into one: every shape
// (values.*, provider.*, fields.*, wire.*, rpc.*) has a weight, the schedule
// lists each shape that many times, and a case's seed picks its slot (seed mod
// the schedule's length) and then drives every random choice of the shape.
import { Rng, hex } from "./random.js";
import { PROVIDER_BAG, RESOURCE_RPCS, fuzzUrn, type RequestSpec, type ResourceRpc, type Rpc } from "./requests.js";
import { str, type FStruct, type FValue } from "./values.js";

export type Language = "nodejs" | "python";

/** The `__provider` payloads a case may send, made by the real SDKs' serializers for the mode under test. */
export interface Payloads {
  /** The echo provider of this mode's language (test/fixtures/*fuzz*). */
  good: string;
  /** The echo provider of the other language. */
  other: string;
}

export interface Case {
  seed: number;
  shape: string;
  method: Rpc;
  /** What must come back: an answer, an error, or either (an error must still be clear). */
  expect: "ok" | "error" | "either";
  request: (p: Payloads) => RequestSpec;
  /** On an OK answer the provider's echo must equal the bag it was given (the round trip loses nothing). */
  echoes?: boolean;
  /** Secret input values: no error text may contain one. */
  secrets: string[];
  /** The URN every error must name (unset when the request has none worth naming). */
  urn?: string;
  /** Texts an error must also match, saying what was wrong. */
  mentions?: RegExp[];
  /** The error is the provider's own (it threw): the host passes it on, so it need not name the method. */
  userError?: boolean;
  /** The only status codes this case may answer with, when the contract fixes them. */
  onlyCodes?: number[];
  /** Error codes this case may answer with besides the usual (e.g. UNAVAILABLE when the payload kills the worker). */
  codes?: number[];
  /** A few words for the test title. */
  note: string;
}

/** Everything a shape needs to know about the mode under test. */
export interface ModeInfo {
  language: Language;
  /** The dynamic resource type of this mode, and the other's. */
  type: string;
  otherType: string;
}

export const modeInfo = (language: Language): ModeInfo => ({
  language,
  type: `pulumi-${language}:dynamic:Resource`,
  otherType: `pulumi-${language === "nodejs" ? "python" : "nodejs"}:dynamic:Resource`,
});

export type Draft = Omit<Case, "seed" | "shape" | "secrets"> & { secrets?: string[] };

export interface Shape {
  name: string;
  weight: number;
  make: (rng: Rng, m: ModeInfo) => Draft;
}

/** A resource request whose provider bag holds `fields` after `__provider` (`payload` picks it, good by default). */
export function resourceRequest(
  method: ResourceRpc,
  urn: string,
  fields: FStruct,
  opts: { payload?: (p: Payloads) => FValue | undefined; rest?: Partial<RequestSpec> } = {},
): (p: Payloads) => RequestSpec {
  return (p) => {
    const provider = opts.payload ? opts.payload(p) : str(p.good);
    const bag: FStruct = provider === undefined ? fields : [["__provider", provider], ...fields];
    const spec: RequestSpec = { method, urn, ...opts.rest, bags: { [PROVIDER_BAG[method]]: bag, ...opts.rest?.bags } };
    // The engine always sends olds: empty for a new resource's Check, the state's outputs otherwise.
    if (method === "Check" && !spec.bags!.olds) spec.bags!.olds = [];
    if ((method === "Diff" || method === "Update") && !spec.bags!.olds) spec.bags!.olds = bag;
    if ((method === "Diff" || method === "Read" || method === "Update" || method === "Delete") && spec.id === undefined) spec.id = "fuzz-id";
    return spec;
  };
}

export const pickResourceRpc = (rng: Rng): ResourceRpc => rng.pick(RESOURCE_RPCS);

export const urnFor = (m: ModeInfo, rng: Rng): string => fuzzUrn(m.type, `r${rng.tag()}`);

export class Schedule {
  readonly slots: Shape[];

  constructor(readonly shapes: Shape[]) {
    this.slots = shapes.flatMap((s) => Array.from({ length: s.weight }, () => s));
  }

  /** The case a seed stands for, in one mode. */
  caseFor(seed: number, m: ModeInfo): Case {
    const shape = this.slots[seed % this.slots.length];
    const draft = shape.make(new Rng(seed), m);
    return { ...draft, secrets: draft.secrets ?? [], seed, shape: shape.name };
  }
}

export const title = (c: Case): string => `${c.shape} ${c.method} (${c.note}) seed=${hex(c.seed)}`;
