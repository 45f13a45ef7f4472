// The names a Node module exports, read from its source without running it:
// for doctor, which must say whether a provider reference's export exists but
// may not execute the project's code. TypeScript is parsed with the compiler
// the reference would be compiled with (syntax only: no program, no type
// check); JavaScript with acorn. The answer is "names" only when the source
// says them all; anything the parse cannot follow (`export * from`, an
// `exports` object built at run time) makes it "unknown", never a guess.
import * as acorn from "acorn";
import fs from "node:fs";
import { createRequire } from "node:module";

export type StaticExports = { known: true; names: string[] } | { known: false; why: string };

const TYPESCRIPT = /\.(c|m)?tsx?$/;

/** The exports of `file`; `typescript` is the path of the compiler that resolves for a TypeScript file. */
export function staticExports(file: string, typescript?: string): StaticExports {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    return { known: false, why: `${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  if (TYPESCRIPT.test(file)) {
    if (!typescript) return { known: false, why: "no TypeScript compiler to parse it with" };
    return typeScriptExports(file, text, typescript);
  }
  return javaScriptExports(text);
}

class Collector {
  readonly names = new Set<string>();
  opaque: string | undefined;
  add(name: string): void {
    this.names.add(name);
  }
  unknown(why: string): void {
    this.opaque ??= why;
  }
  result(): StaticExports {
    return this.opaque ? { known: false, why: this.opaque } : { known: true, names: [...this.names] };
  }
}

/** A minimal view of the compiler API: the parts used here exist in TypeScript 3.8 (the copy @pulumi/pulumi vendors) and later. */
interface TsNode {
  kind: number;
  modifiers?: readonly TsNode[];
  name?: TsNode & { text?: string; elements?: readonly TsNode[] };
  text?: string;
  forEachChild<T>(cb: (n: TsNode) => T | undefined): T | undefined;
  [k: string]: unknown;
}

function typeScriptExports(file: string, text: string, typescript: string): StaticExports {
  let ts: Record<string, any>;
  try {
    ts = createRequire(typescript)(typescript);
  } catch (e) {
    return { known: false, why: `the compiler ${typescript} did not load (${(e as Error).message.split("\n")[0]})` };
  }
  const K = ts.SyntaxKind;
  const source: TsNode = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const c = new Collector();
  const modifiers = (n: TsNode): readonly TsNode[] => (ts.canHaveModifiers?.(n) ? (ts.getModifiers(n) ?? []) : (n.modifiers ?? []));
  const has = (n: TsNode, kind: number) => modifiers(n).some((m) => m.kind === kind);
  const bindingNames = (name: TsNode | undefined): void => {
    if (!name) return;
    if (name.kind === K.Identifier) c.add(name.text as string);
    else for (const el of (name.elements ?? []) as TsNode[]) bindingNames(el.name);
  };
  for (const st of (source as unknown as { statements: TsNode[] }).statements) {
    if (st.kind === K.ExportDeclaration) {
      const clause = st.exportClause as TsNode | undefined;
      if (st.isTypeOnly) continue;
      if (!clause) c.unknown(`it re-exports everything of ${(st.moduleSpecifier as TsNode).text}`);
      else if (clause.kind === K.NamedExports) for (const el of clause.elements as TsNode[]) c.add(el.name!.text as string);
      else c.add(clause.name!.text as string);
    } else if (st.kind === K.ExportAssignment) {
      if (st.isExportEquals) c.unknown("it assigns `export =`");
      else c.add("default");
    } else if (has(st, K.ExportKeyword) && !has(st, K.DeclareKeyword)) {
      if (st.kind === K.InterfaceDeclaration || st.kind === K.TypeAliasDeclaration) continue;
      if (has(st, K.DefaultKeyword)) c.add("default");
      else if (st.kind === K.VariableStatement) for (const d of (st.declarationList as { declarations: TsNode[] }).declarations) bindingNames(d.name);
      else if (st.name?.text) c.add(st.name.text);
    } else if (st.kind === K.ExpressionStatement) {
      commonJsAssignment(tsAssignment(ts, st.expression as TsNode), c);
    }
  }
  return c.result();
}

/** `exports.X = …`, `module.exports.X = …`, `module.exports = …` as a neutral shape, from a TypeScript expression. */
function tsAssignment(ts: Record<string, any>, e: TsNode): Assignment | undefined {
  const K = ts.SyntaxKind;
  if (e.kind !== K.BinaryExpression || (e.operatorToken as TsNode).kind !== K.EqualsToken) return undefined;
  const path = memberPath(ts, e.left as TsNode);
  if (!path) return undefined;
  const right = e.right as TsNode;
  const keys =
    right.kind === K.ObjectLiteralExpression
      ? (right.properties as TsNode[]).map((p) => (p.kind === K.SpreadAssignment || !p.name || p.name.kind === K.ComputedPropertyName ? undefined : (p.name.text as string)))
      : undefined;
  return { path, objectKeys: keys };
}

function memberPath(ts: Record<string, any>, n: TsNode): string[] | undefined {
  const K = ts.SyntaxKind;
  if (n.kind === K.Identifier) return [n.text as string];
  if (n.kind !== K.PropertyAccessExpression) return undefined;
  const head = memberPath(ts, n.expression as TsNode);
  return head && [...head, n.name!.text as string];
}

interface Assignment {
  path: string[];
  /** For an object literal on the right: its keys, undefined for a spread or computed one. */
  objectKeys?: (string | undefined)[];
}

function commonJsAssignment(a: Assignment | undefined, c: Collector): void {
  if (!a) return;
  const p = a.path.join(".");
  if (p === "module.exports" || p === "exports") {
    if (p === "exports") return; // rebinding the local `exports` exports nothing
    if (!a.objectKeys || a.objectKeys.includes(undefined)) c.unknown("it assigns module.exports a value built at run time");
    else for (const k of a.objectKeys) c.add(k!);
  } else if (a.path.length === 2 && a.path[0] === "exports") c.add(a.path[1]);
  else if (a.path.length === 3 && a.path[0] === "module" && a.path[1] === "exports") c.add(a.path[2]);
}

type EsNode = { type: string } & Record<string, any>;

function javaScriptExports(text: string): StaticExports {
  let program: acorn.Program;
  try {
    program = acorn.parse(text, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true, allowReturnOutsideFunction: true });
  } catch {
    try {
      program = acorn.parse(text, { ecmaVersion: "latest", sourceType: "script", allowHashBang: true, allowReturnOutsideFunction: true });
    } catch (e) {
      return { known: false, why: `it does not parse as JavaScript (${(e as Error).message})` };
    }
  }
  const c = new Collector();
  const bindingNames = (n: EsNode | null | undefined): void => {
    if (!n) return;
    if (n.type === "Identifier") c.add(n.name);
    else if (n.type === "ObjectPattern") for (const p of n.properties) bindingNames(p.type === "RestElement" ? p.argument : p.value);
    else if (n.type === "ArrayPattern") for (const el of n.elements) bindingNames(el);
    else if (n.type === "AssignmentPattern") bindingNames(n.left);
    else if (n.type === "RestElement") bindingNames(n.argument);
  };
  const name = (n: EsNode) => (n.type === "Identifier" ? n.name : String(n.value));
  for (const st of program.body as unknown as EsNode[]) {
    if (st.type === "ExportNamedDeclaration") {
      if (st.declaration?.type === "VariableDeclaration") for (const d of st.declaration.declarations) bindingNames(d.id);
      else if (st.declaration) c.add(st.declaration.id.name);
      for (const s of st.specifiers ?? []) c.add(name(s.exported));
    } else if (st.type === "ExportDefaultDeclaration") c.add("default");
    else if (st.type === "ExportAllDeclaration") {
      if (st.exported) c.add(name(st.exported));
      else c.unknown(`it re-exports everything of ${st.source.value}`);
    } else if (st.type === "ExpressionStatement") {
      commonJsAssignment(esAssignment(st.expression), c);
      definePropertyExport(st.expression, c);
    }
  }
  return c.result();
}

function esAssignment(e: EsNode): Assignment | undefined {
  if (e.type !== "AssignmentExpression" || e.operator !== "=") return undefined;
  const path = esMemberPath(e.left);
  if (!path) return undefined;
  const keys =
    e.right.type === "ObjectExpression"
      ? (e.right.properties as EsNode[]).map((p) => (p.type !== "Property" || p.computed ? undefined : p.key.type === "Identifier" ? p.key.name : String(p.key.value)))
      : undefined;
  return { path, objectKeys: keys };
}

function esMemberPath(n: EsNode): string[] | undefined {
  if (n.type === "Identifier") return [n.name];
  if (n.type !== "MemberExpression" || n.computed) return undefined;
  const head = esMemberPath(n.object);
  return head && [...head, n.property.name];
}

/** `Object.defineProperty(exports, "X", …)`, as compilers write exports. */
function definePropertyExport(e: EsNode, c: Collector): void {
  if (e.type !== "CallExpression") return;
  const callee = esMemberPath(e.callee)?.join(".");
  const [target, key] = e.arguments as EsNode[];
  if (callee !== "Object.defineProperty" || !target || !key) return;
  const t = esMemberPath(target)?.join(".");
  if ((t === "exports" || t === "module.exports") && key.type === "Literal" && typeof key.value === "string" && key.value !== "__esModule") c.add(key.value);
}
