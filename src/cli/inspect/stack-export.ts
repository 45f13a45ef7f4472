// A `pulumi stack export` document as `inspect` and `doctor` read it: its
// dynamic resources, each with its `__provider` payload unwrapped from a secret
// where the export shows the plaintext, and what a payload references, found
// without running it (acorn parses the Node closure text; pickle-inspect walks
// a Python pickle's opcodes). Nothing here prints a payload, a ciphertext or a
// plaintext: callers get facts about them.
import * as acorn from "acorn";
import fs from "node:fs";
import { z } from "zod";
import { inspectPayload, type PickleFacts } from "../../python-bridge/pickle/pickle-inspect.js";

export type Language = "nodejs" | "python";

/** The export could not be read: the message is one line naming the file and what is wrong. */
export class StackExportError extends Error {
  override name = "StackExportError";
}

export const ENCRYPTED = "secret (encrypted in the export; run `pulumi stack export --show-secrets` to inspect it)";

/**
 * The one line doctor and inspect print when `count` payloads are ciphertext: they could not be read,
 * and the export to make instead. `command` is how the caller is run ("doctor --stack-export -").
 */
export function encryptedAdvice(count: number, total: number, command: string): string {
  const which = count === total ? `all ${total} dynamic resources` : `${count} of ${total} dynamic resources`;
  return (
    `${count === 1 && total === 1 ? "the dynamic resource" : which} hold${count === 1 && total === 1 ? "s" : ""} __provider as ciphertext: the export was made without --show-secrets, ` +
    `so ${count === 1 ? "it" : "they"} could not be read; export with \`pulumi stack export --show-secrets >FILE\` ` +
    `(or \`pulumi stack export --show-secrets | pulumi-dynamic-host ${command}\`)`
  );
}

const SECRET_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** What the resource's `__provider` holds (taken from outputs, or inputs when outputs have none). */
export type Payload =
  | { state: "text"; text: string; secret: boolean }
  | { state: "encrypted" }
  | { state: "missing" }
  | { state: "invalid"; why: string };

export interface DynamicResource {
  urn: string;
  type: string;
  language: Language;
  payload: Payload;
}

const exportSchema = z.object({
  version: z.number(),
  deployment: z.object({
    resources: z
      .array(z.object({ urn: z.string(), type: z.string(), inputs: z.record(z.string(), z.unknown()).nullish(), outputs: z.record(z.string(), z.unknown()).nullish() }))
      .nullish(),
  }),
});

/** Reads an export from `file`, or from stdin when `file` is "-". Throws StackExportError. */
export function readStackExport(file: string, readStdin: () => string = () => fs.readFileSync(0, "utf8")): DynamicResource[] {
  const name = file === "-" ? "stdin" : file;
  let text: string;
  try {
    text = file === "-" ? readStdin() : fs.readFileSync(file, "utf8");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === "ENOENT" ? "no such file" : err.code === "EISDIR" ? "it is a directory" : (err.code ?? err.message);
    throw new StackExportError(`cannot read the stack export ${name}: ${why}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // V8 quotes the start of the text in its message; the text may hold secrets.
    const why = String((e as Error).message).replace(/, ".*" is not valid JSON$/s, "");
    throw new StackExportError(`${name} is not JSON (${why}); give the file \`pulumi stack export\` writes`);
  }
  const parsed = exportSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StackExportError(
      `${name} is not a stack export: at ${issue.path.length ? issue.path.join(".") : "the top"}: ${issue.message}; ` +
        `\`pulumi stack export\` writes {"version": 3, "deployment": {"resources": [...]}}`,
    );
  }
  const out: DynamicResource[] = [];
  for (const r of parsed.data.deployment.resources ?? []) {
    const language = languageOf(r.type);
    if (!language) continue;
    const held = r.outputs && "__provider" in r.outputs ? r.outputs.__provider : r.inputs?.__provider;
    out.push({ urn: r.urn, type: r.type, language, payload: unwrap(held) });
  }
  return out;
}

function languageOf(type: string): Language | undefined {
  if (type.startsWith("pulumi-nodejs:dynamic")) return "nodejs";
  if (type.startsWith("pulumi-python:dynamic")) return "python";
  return undefined;
}

function unwrap(value: unknown): Payload {
  if (value === undefined || value === null) return { state: "missing" };
  if (typeof value === "string") return { state: "text", text: value, secret: false };
  const v = value as Record<string, unknown>;
  if (typeof value === "object" && v[SECRET_KEY] === SECRET_SIG) {
    if (typeof v.plaintext === "string") {
      let inner: unknown;
      try {
        inner = JSON.parse(v.plaintext);
      } catch {
        return { state: "invalid", why: "a secret whose plaintext is not JSON" };
      }
      return typeof inner === "string" ? { state: "text", text: inner, secret: true } : { state: "invalid", why: `a secret holding ${kind(inner)}, not text` };
    }
    return "ciphertext" in v ? { state: "encrypted" } : { state: "invalid", why: "a secret with neither ciphertext nor plaintext" };
  }
  return { state: "invalid", why: `${kind(value)}, not text` };
}

function kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** For each resource with a readable payload, the other resources whose `__provider` is the same text. */
export function sharedPayloads(resources: readonly DynamicResource[]): Map<DynamicResource, string[]> {
  const byText = new Map<string, DynamicResource[]>();
  for (const r of resources) if (r.payload.state === "text") byText.set(r.payload.text, [...(byText.get(r.payload.text) ?? []), r]);
  const out = new Map<DynamicResource, string[]>();
  for (const group of byText.values()) for (const r of group) out.set(r, group.filter((o) => o !== r).map((o) => o.urn));
  return out;
}

export type Analysis =
  | { ok: false; problem: string }
  | { ok: true; language: "nodejs"; requires: string[]; dynamicRequires: number; reference?: string }
  | { ok: true; language: "python"; facts: PickleFacts; modules: string[]; classes: string[]; reference?: string };

/** The property of the Node reference helper's object (reference/index.cjs) that holds the reference it stands for. */
const NODE_REFERENCE_PROPERTY = "pulumiDynamicHostReference";

/** Globals of the pickle machinery itself (dill's constructors, builtins, copyreg, the import system dill rebuilds module specs with): not what the provider references. */
const MACHINERY = new Set(["dill._dill", "dill.dill", "builtins", "__builtin__", "copyreg", "copy_reg", "_codecs", "_frozen_importlib", "_frozen_importlib_external"]);

/** What a readable payload references, or why it cannot be read. Runs nothing. */
export function analyzePayload(language: Language, text: string): Analysis {
  return language === "nodejs" ? analyzeClosure(text) : analyzePickle(text);
}

function analyzePickle(text: string): Analysis {
  const inspection = inspectPayload(text);
  if (!inspection.ok) return inspection;
  const facts = inspection.facts;
  if (facts.parseError !== undefined) {
    return { ok: false, problem: `its __provider is base64 but not a pickle that can be read (${facts.parseError}): it looks truncated or corrupt` };
  }
  const globals = (facts.globals ?? []).filter((g) => !MACHINERY.has(g.module));
  const modules = [...new Set([...globals.map((g) => g.module), ...(facts.importedModules ?? [])])].filter((m) => !MACHINERY.has(m));
  return { ok: true, language: "python", facts, modules, classes: globals.map((g) => `${g.module}.${g.name}`), reference: facts.heldReference };
}

/** An ESTree node of acorn's tree, read generically. */
type Node = { type: string } & Record<string, unknown>;

/**
 * The closure text is a CommonJS function body in sloppy mode (it uses `with`),
 * compiled by the loader with vm.compileFunction, so a top-level return is legal.
 */
function analyzeClosure(text: string): Analysis {
  let program: acorn.Program;
  try {
    program = acorn.parse(text, { ecmaVersion: "latest", sourceType: "script", allowReturnOutsideFunction: true });
  } catch (e) {
    return { ok: false, problem: `its __provider is not valid JavaScript: ${(e as Error).message}` };
  }
  const requires = new Set<string>();
  let dynamicRequires = 0;
  let handler = false;
  let reference: string | undefined;
  walk(program, (n) => {
    if (n.type === "Property" && !n.computed && propertyName(n.key as Node) === NODE_REFERENCE_PROPERTY) {
      reference ??= stringLiteral(n.value as Node);
      return;
    }
    if (n.type === "CallExpression") {
      const callee = n.callee as Node;
      if (callee.type !== "Identifier" || callee.name !== "require") return;
      const literal = stringLiteral((n.arguments as Node[])[0]);
      if (literal !== undefined) requires.add(literal);
      else dynamicRequires++;
    } else if (n.type === "AssignmentExpression" && isExportsHandler(n.left as Node)) {
      handler = true;
    }
  });
  if (!handler) {
    return { ok: false, problem: "its __provider does not assign exports.handler: it is not the text @pulumi/pulumi's dynamic.Resource writes" };
  }
  // The helper's methods require() a name computed from the reference: those are not the provider's own.
  if (reference !== undefined) return { ok: true, language: "nodejs", requires: [...requires], dynamicRequires: 0, reference };
  return { ok: true, language: "nodejs", requires: [...requires], dynamicRequires };
}

/** "x" or `x` (a template without substitutions). */
function stringLiteral(arg: Node | undefined): string | undefined {
  if (arg?.type === "Literal" && typeof arg.value === "string") return arg.value;
  if (arg?.type === "TemplateLiteral" && (arg.expressions as Node[]).length === 0) {
    const cooked = ((arg.quasis as Node[])[0].value as { cooked?: string | null }).cooked;
    return typeof cooked === "string" ? cooked : undefined;
  }
  return undefined;
}

function propertyName(key: Node): string | undefined {
  if (key.type === "Identifier") return key.name as string;
  return key.type === "Literal" && typeof key.value === "string" ? key.value : undefined;
}

function isExportsHandler(n: Node): boolean {
  const object = n.object as Node | undefined;
  const property = n.property as Node | undefined;
  return n.type === "MemberExpression" && object?.type === "Identifier" && object.name === "exports" && !n.computed && property?.name === "handler";
}

/** Every node of the tree, parents first. */
function walk(value: unknown, visit: (n: Node) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (isNode(value)) {
    visit(value);
    for (const child of Object.values(value)) if (child && typeof child === "object") walk(child, visit);
  }
}

function isNode(v: unknown): v is Node {
  return !!v && typeof v === "object" && typeof (v as { type?: unknown }).type === "string";
}
