// src/cli/inspect: `inspect`: a stack export's dynamic resources
// (inspect.ts), from the reading of the export and its payloads
// (stack-export.ts, which `doctor` reads exports with too). It may import
// src/python-bridge/pickle and the command table's usage texts (../usage.ts);
// nothing else.
//
// `pulumi-dynamic-host inspect <stack-export.json | -> [--json]`: every
// dynamic resource of a stack export and what its provider references, read
// without running anything (see stack-export.ts). The --json document is an
// array of InspectedResource, one per dynamic resource in export order; its
// fields are always present (null or [] where they do not apply).
import { COMMAND_USAGE } from "../usage.js";
import { analyzePayload, ENCRYPTED, encryptedAdvice, readStackExport, sharedPayloads, StackExportError, type DynamicResource, type Language } from "./stack-export.js";

const USAGE = COMMAND_USAGE.inspect;

export interface InspectedResource {
  urn: string;
  type: string;
  language: Language;
  /** ok: read; encrypted: a secret this export does not show; missing: no __provider; unreadable: see problem. */
  status: "ok" | "encrypted" | "missing" | "unreadable";
  problem: string | null;
  secret: boolean;
  /** UTF-8 bytes of the __provider text (base64 for Python), when the export shows it. */
  payloadBytes: number | null;
  /** URNs of the other resources whose __provider is the same text. */
  sharedWith: string[];
  /** Node: the ids its closure passes to require(); Python: the modules its pickle imports or takes names from. */
  modules: string[];
  /** Node: require() calls whose argument is not a string literal. */
  dynamicRequires: number | null;
  /** Python: the classes and functions the pickle names by reference, "module.name" (the pickle machinery's own left out). */
  classes: string[];
  providerClass: { module: string; name: string; byValue: boolean } | null;
  /**
   * For the reference helper's object (providerReference() / provider_reference()): the provider it
   * names, "<module>#<export>" or "<module>:<attribute>", which the host loads instead of the object.
   */
  reference: string | null;
  /** Python: the CPython versions that can have written its by-value code; null when it holds none. */
  pythonVersion: string | null;
  pickleProtocol: number | null;
}

const stderrLine = (line: string) => void process.stderr.write(`${line}\n`);

export async function runInspect(args: readonly string[], out: (line: string) => void, err: (line: string) => void = stderrLine): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    out(USAGE);
    return 0;
  }
  const json = args.includes("--json");
  const rest = args.filter((a) => a !== "--json");
  const unknown = rest.find((a) => a.startsWith("-") && a !== "-");
  if (unknown !== undefined || rest.length !== 1) {
    err(`pulumi-dynamic-host inspect: ${unknown !== undefined ? `unknown option ${JSON.stringify(unknown)}` : rest.length === 0 ? "needs a stack export file (or - for stdin)" : `takes one stack export file (or - for stdin), got ${rest.map((r) => JSON.stringify(r)).join(" ")}`}\n${USAGE}`);
    return 2;
  }
  let resources: DynamicResource[];
  try {
    resources = readStackExport(rest[0]);
  } catch (e) {
    if (!(e instanceof StackExportError)) throw e;
    err(`pulumi-dynamic-host inspect: ${e.message}`);
    return 2;
  }
  const inspected = inspectResources(resources);
  if (json) out(JSON.stringify(inspected, null, 2));
  else render(inspected, out);
  return 0;
}

export function inspectResources(resources: readonly DynamicResource[]): InspectedResource[] {
  const shared = sharedPayloads(resources);
  return resources.map((r) => {
    const base: InspectedResource = {
      urn: r.urn,
      type: r.type,
      language: r.language,
      status: "ok",
      problem: null,
      secret: r.payload.state === "encrypted" || (r.payload.state === "text" && r.payload.secret),
      payloadBytes: r.payload.state === "text" ? Buffer.byteLength(r.payload.text, "utf8") : null,
      sharedWith: shared.get(r) ?? [],
      modules: [],
      dynamicRequires: null,
      classes: [],
      providerClass: null,
      reference: null,
      pythonVersion: null,
      pickleProtocol: null,
    };
    const p = r.payload;
    if (p.state === "encrypted") return { ...base, status: "encrypted", problem: ENCRYPTED };
    if (p.state === "missing") return { ...base, status: "missing", problem: "it has no __provider in its outputs or inputs" };
    if (p.state === "invalid") return { ...base, status: "unreadable", problem: `its __provider is ${p.why}` };
    const a = analyzePayload(r.language, p.text);
    if (!a.ok) return { ...base, status: "unreadable", problem: a.problem };
    if (a.language === "nodejs") return { ...base, modules: a.requires, dynamicRequires: a.dynamicRequires, reference: a.reference ?? null };
    return {
      ...base,
      modules: a.modules,
      classes: a.classes,
      providerClass: a.facts.providerClass ?? null,
      reference: a.reference ?? null,
      pythonVersion: a.facts.code?.describe ?? null,
      pickleProtocol: a.facts.protocol ?? null,
    };
  });
}

function render(resources: readonly InspectedResource[], out: (line: string) => void): void {
  const list = (xs: readonly string[]) => (xs.length ? xs.join(", ") : "none");
  for (const r of resources) {
    out(r.urn);
    out(`  type: ${r.type}`);
    out(`  language: ${r.language}`);
    if (r.status === "encrypted") out(`  payload: ${ENCRYPTED}`);
    else if (r.payloadBytes !== null) out(`  payload: ${r.payloadBytes} bytes${r.secret ? " (a secret, shown by this export)" : ""}`);
    if (r.problem !== null && r.status !== "encrypted") out(`  problem: ${r.problem}`);
    if (r.status === "ok" && r.reference !== null) {
      out(`  provider: ${r.reference} (by reference, passed with ${r.language === "nodejs" ? "providerReference()" : "provider_reference()"}: loaded from the project when used)`);
    }
    if (r.status === "ok" && r.language === "nodejs") {
      out(`  requires: ${list(r.modules)}`);
      if (r.dynamicRequires) out(`  require() with a computed name: ${r.dynamicRequires}`);
    } else if (r.status === "ok") {
      const c = r.providerClass;
      if (r.reference === null) out(`  provider class: ${c ? `${c.module}.${c.name} (${c.byValue ? "by value" : "by reference: imported from its module when loaded"})` : "not recognised"}`);
      out(`  python: ${r.pythonVersion ?? "any (no code pickled by value)"}${r.pickleProtocol !== null ? `; pickle protocol ${r.pickleProtocol}` : ""}`);
      out(`  modules: ${list(r.modules)}`);
      out(`  classes: ${list(r.classes)}`);
    }
    if (r.sharedWith.length) out(`  shared with: ${r.sharedWith.join(", ")}`);
  }
  const count = (pred: (r: InspectedResource) => boolean) => resources.filter(pred).length;
  const langs = (["nodejs", "python"] as const).map((l) => `${count((r) => r.language === l)} ${l}`).join(", ");
  const encrypted = count((r) => r.status === "encrypted");
  if (encrypted > 0) out(`note: ${encryptedAdvice(encrypted, resources.length, "inspect -")}`);
  out(
    `${resources.length} dynamic resource${resources.length === 1 ? "" : "s"} (${langs}); ` +
      `${encrypted} encrypted, ${count((r) => r.status === "unreadable" || r.status === "missing")} unreadable`,
  );
}
