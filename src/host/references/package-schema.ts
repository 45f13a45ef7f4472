// The Pulumi package schema of one served package, made from the project's
// typed declarations (./declared-types.ts, docs/schema.md): what GetSchema
// answers, what `pulumi-dynamic-host schema` prints, and what YAML's type
// checker and `pulumi package gen-sdk` read.
//
// Each declared type of the package becomes a resource: its inputs are the
// resource's input properties (required unless optional), and its properties
// (the state the engine keeps) are the inputs again, optional, since a
// provider need not return them, plus the declared outputs (present unless
// optional). An object property becomes a named type of the package, called
// after the resource and the property's path (TextFile's `owner` is
// `<module>:TextFileOwner`).
import path from "node:path";
import type { ProviderReference } from "./provider-references.js";
import type { PropertyMap, PropertyType, TypeShape } from "./declared-types.js";

type Json = Record<string, unknown>;

export interface SchemaOptions {
  /** The package's name: the first part of every type token it serves. */
  name: string;
  /**
   * The package version the schema states; left out when unset. Stated, the
   * Node SDK generator is told to use it (language.nodejs.respectSchemaVersion)
   * rather than write the "${VERSION}" placeholder a publishing pipeline fills in.
   */
  version?: string;
  /** The package's description (default: the project's declarations'). */
  description?: string;
  /**
   * A parameterized package's parameterization (docs/provider-packages.md): the
   * plugin that serves it and the value (base64) that restores it, which the
   * SDKs generated from the schema embed.
   */
  parameterization?: { baseProvider: { name: string; version: string }; parameter: string };
}

/** A schema cannot be made from these declarations: what and where. */
export class SchemaError extends Error {
  override name = "SchemaError";
}

/** The file a reference was declared in, relative to its project's folder (`Pulumi.yaml`). */
function projectRelative(ref: ProviderReference): string {
  const rel = path.relative(ref.projectDir, ref.declaredIn);
  return rel === "" || rel.startsWith("..") || path.isAbsolute(rel) ? path.basename(ref.declaredIn) : rel.split(path.sep).join("/");
}

/** The package schema for the declarations of `opts.name` among `references`. */
export function packageSchema(references: readonly ProviderReference[], opts: SchemaOptions): Json {
  const types: Record<string, Json> = {};
  const resources: Record<string, Json> = {};
  for (const ref of references) {
    if (!ref.typeToken.startsWith(`${opts.name}:`)) continue;
    const [, module, member] = splitToken(ref);
    const typed = ref.types;
    const namer = new TypeNamer(ref, opts.name, module, member, types);
    const inputProperties = properties(typed?.inputs, namer, []);
    const outputs = properties(typed?.outputs, namer, []);
    const resource: Json = {
      // The project file as the project names it, never this machine's path: every generated SDK carries it.
      description: typed?.description ?? `${member}, served by ${ref.reference} (declared in ${projectRelative(ref)}).`,
      properties: { ...inputProperties, ...outputs },
      inputProperties,
    };
    const required = requiredOf(typed?.outputs);
    const requiredInputs = requiredOf(typed?.inputs);
    if (required.length) resource.required = required;
    if (requiredInputs.length) resource.requiredInputs = requiredInputs;
    resources[ref.typeToken] = resource;
  }
  return {
    name: opts.name,
    ...(opts.version ? { version: opts.version } : {}),
    description: opts.description ?? `Dynamic resource types declared in the project's Pulumi.yaml, served by pulumi-dynamic-host.`,
    // Type tokens keep their module as written (dynamic/files), the way the programs register them.
    meta: { moduleFormat: "(.*)" },
    ...(opts.version ? { language: { nodejs: { respectSchemaVersion: true } } } : {}),
    ...(opts.parameterization ? { parameterization: opts.parameterization } : {}),
    types,
    resources,
  };
}

function splitToken(ref: ProviderReference): [string, string, string] {
  const parts = ref.typeToken.split(":");
  if (parts.length !== 3 || parts.some((p) => p === "")) {
    throw new SchemaError(
      `${ref.declaredIn}: the type token ${JSON.stringify(ref.typeToken)} is not <package>:<module>:<Type>, which a package schema needs`,
    );
  }
  return parts as [string, string, string];
}

function properties(map: PropertyMap | undefined, namer: TypeNamer, path: string[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [name, property] of map ?? []) out[name] = propertySpec(property, namer, [...path, name]);
  return out;
}

function requiredOf(map: PropertyMap | undefined): string[] {
  return [...(map ?? [])].filter(([, p]) => !p.optional).map(([name]) => name);
}

function propertySpec(property: PropertyType, namer: TypeNamer, path: string[]): Json {
  return {
    ...typeSpec(property.shape, namer, path),
    ...(property.description !== undefined ? { description: property.description } : {}),
    ...(property.secret ? { secret: true } : {}),
  };
}

function typeSpec(shape: TypeShape, namer: TypeNamer, path: string[]): Json {
  switch (shape.kind) {
    case "any": return { $ref: "pulumi.json#/Any" };
    case "asset": return { $ref: "pulumi.json#/Asset" };
    case "archive": return { $ref: "pulumi.json#/Archive" };
    case "array": return { type: "array", items: typeSpec(shape.items, namer, path) };
    case "map": return { type: "object", additionalProperties: typeSpec(shape.values, namer, path) };
    case "object": return { $ref: `#/types/${namer.define(shape.properties, path)}` };
    default: return { type: shape.kind };
  }
}

/** Names and defines the object types of one resource's properties. */
class TypeNamer {
  constructor(
    private readonly ref: ProviderReference,
    private readonly pkg: string,
    private readonly module: string,
    private readonly member: string,
    private readonly types: Record<string, Json>,
  ) {}

  define(props: PropertyMap, path: string[]): string {
    const name = this.member + path.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join("");
    const token = `${this.pkg}:${this.module}:${name}`;
    if (this.types[token] !== undefined) {
      throw new SchemaError(
        `${this.ref.declaredIn}: the object type of ${this.ref.typeToken}'s ${path.join(".")} would be named ${token}, ` +
          `which another object property already names; rename one of them`,
      );
    }
    this.types[token] = {}; // claimed before its properties are named
    const required = requiredOf(props);
    this.types[token] = {
      type: "object",
      properties: properties(props, this, path),
      ...(required.length ? { required } : {}),
    };
    return token;
  }
}
