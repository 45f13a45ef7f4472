// `pulumi-dynamic-host schema [--package NAME] [--version V] [DIR]`: the
// package schema the plugin's GetSchema answers for the project in DIR
// (default: here), made from its typed declarations (docs/schema.md), printed
// without an engine: for `pulumi package gen-sdk <file>`, a YAML program's
// author, or a review. It states a version (default 0.0.0), so that the SDKs
// generated from it work as generated: without one, the Node SDK's package.json
// says "${VERSION}", which every pulumi command then refuses.
import { isSemver } from "../host/packages/provider-package.js";
import { packageSchema, SchemaError } from "../host/references/package-schema.js";
import { DeclarationError, ProviderReferences, type ProviderReference } from "../host/references/provider-references.js";
import { usageError } from "./usage.js";

type Out = (line: string) => void;

export async function runSchema(args: readonly string[], out: Out): Promise<number> {
  let pkg: string | undefined;
  let dir: string | undefined;
  let version = DEFAULT_VERSION;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--package") {
      pkg = args[++i];
      if (!pkg) return usageError("schema", "--package needs a package name: pulumi-nodejs, pulumi-python or one of the project's own");
    } else if (a.startsWith("--package=")) pkg = a.slice("--package=".length);
    else if (a === "--version" || a.startsWith("--version=")) {
      const v = a === "--version" ? args[++i] : a.slice("--version=".length);
      if (!v || !isSemver(v)) return usageError("schema", `--version needs a semantic version (major.minor.patch, e.g. 1.2.0), got ${JSON.stringify(v ?? "")}`);
      version = v;
    }
    else if (a.startsWith("-")) return usageError("schema", `unknown option ${JSON.stringify(a)}`);
    else if (dir === undefined) dir = a;
    else return usageError("schema", `takes one directory, got ${JSON.stringify(dir)} and ${JSON.stringify(a)}`);
  }
  const all = await ProviderReferences.loadAll(dir ?? process.cwd());
  const file = all.file;
  const byPackage = new Map<string, ProviderReference[]>();
  for (const [name, refs] of all.packages) {
    try {
      byPackage.set(name, refs.all());
    } catch (e) {
      if (!(e instanceof DeclarationError)) throw e;
      if (pkg === undefined || pkg === name || name === "") return fail(e.message);
    }
  }
  if (!file) return fail(`no Pulumi.yaml at or above ${dir ?? process.cwd()}: the schema is made from a project's declarations`);
  const names = [...byPackage.keys()];
  if (names.length === 0) return fail(`${file} declares no dynamic types (pulumi-dynamic-host.providers); see docs/schema.md`);
  if (pkg === undefined) {
    if (names.length > 1) return fail(`${file} declares types of ${names.join(" and ")}: say which package's schema to print with --package`);
    pkg = names[0];
  }
  const declared = byPackage.get(pkg);
  if (!declared) return fail(`${file} declares no type of package ${pkg}; it declares types of ${names.join(", ")}`);
  try {
    out(JSON.stringify(packageSchema(declared, { name: pkg, version }), null, 2));
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    return fail(e.message);
  }
  return 0;
}

/**
 * The version a schema states unless told otherwise: the one the Python and Go
 * generators already fall back to, and one every plugin version satisfies (an
 * SDK asks the engine for at least its own version of the plugin).
 */
export const DEFAULT_VERSION = "0.0.0";

function fail(message: string): number {
  process.stderr.write(`pulumi-dynamic-host schema: ${message}\n`);
  return 1;
}
