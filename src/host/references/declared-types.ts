// The types a project may give its declared dynamic types' properties in
// Pulumi.yaml (docs/schema.md), in Pulumi schema's vocabulary: what a
// property's declaration may say, read into one model that both the package
// schema (./package-schema.ts) and the check of a request's inputs
// (./input-types.ts) use.
//
// A property is a short string or an object:
//
//   path: string                  # string, number, integer, boolean, any, asset, archive
//   mode: integer?                # "?": optional (inputs are required unless optional)
//   lines: string[]               # an array of …
//   tags: map<string>             # a map from strings to …
//   owner:                        # the object form: every key is optional but one of type/properties
//     type: object                # string … archive, array, map, object
//     description: The file's owner.
//     properties: { name: string, uid: integer? }   # an object with these properties
//     items: string               # for array
//     additionalProperties: string  # for map
//     optional: true
//     secret: true                # the value is kept secret in the state
//
// Reading never throws: a malformed declaration is a problem naming where it
// is (`inputs.owner.properties.uid`), which the caller reports with its file.

export type Primitive = "string" | "number" | "integer" | "boolean" | "any" | "asset" | "archive";

export type TypeShape =
  | { kind: Primitive }
  | { kind: "array"; items: TypeShape }
  | { kind: "map"; values: TypeShape }
  | { kind: "object"; properties: PropertyMap };

export interface PropertyType {
  shape: TypeShape;
  optional: boolean;
  secret: boolean;
  description?: string;
}

/** Properties by name, in the declaration's order. */
export type PropertyMap = Map<string, PropertyType>;

const PRIMITIVES: ReadonlySet<string> = new Set<Primitive>(["string", "number", "integer", "boolean", "any", "asset", "archive"]);
const OBJECT_KEYS = new Set(["type", "description", "properties", "items", "additionalProperties", "optional", "secret"]);
const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The short form's grammar, for messages. */
export const SHORT_FORMS = "string, number, integer, boolean, any, asset, archive, <type>[], map<type>, each with a trailing ? for optional";

/** A declaration that cannot be read: where (a dotted path below the type's entry) and what is wrong. */
export interface TypeProblem {
  at: string;
  message: string;
}

/** Reads a map of property declarations (an entry's `inputs` or `outputs`), or says what is wrong first. */
export function readProperties(raw: unknown, at: string): PropertyMap | TypeProblem {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { at, message: `must be a map from property names to types (${SHORT_FORMS}, or an object with type:), not ${kindOf(raw)}` };
  }
  const out: PropertyMap = new Map();
  for (const [name, decl] of Object.entries(raw as Record<string, unknown>)) {
    const where = `${at}.${name}`;
    if (!PROPERTY_NAME.test(name)) {
      return { at: where, message: `${JSON.stringify(name)} is not a property name: use letters, digits and _, starting with a letter or _` };
    }
    if (name === "__provider" || name === "id" || name === "urn") {
      return { at: where, message: `"${name}" is reserved by the engine and the dynamic provider protocol; choose another name` };
    }
    const property = readProperty(decl, where);
    if ("message" in property) return property;
    out.set(name, property);
  }
  return out;
}

function readProperty(raw: unknown, at: string): PropertyType | TypeProblem {
  if (typeof raw === "string") {
    const optional = raw.trimEnd().endsWith("?");
    const shape = readShort(optional ? raw.trimEnd().slice(0, -1) : raw, at);
    return "message" in shape ? shape : { shape, optional, secret: false };
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { at, message: `must be a type (${SHORT_FORMS}) or an object with type:, not ${kindOf(raw)}` };
  }
  const o = raw as Record<string, unknown>;
  const unknownKey = Object.keys(o).find((k) => !OBJECT_KEYS.has(k));
  if (unknownKey !== undefined) {
    return { at: `${at}.${unknownKey}`, message: `is not a key of a property's type; the keys are ${[...OBJECT_KEYS].join(", ")}` };
  }
  for (const flag of ["optional", "secret"] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== "boolean") return { at: `${at}.${flag}`, message: `must be true or false, not ${kindOf(o[flag])}` };
  }
  if (o.description !== undefined && typeof o.description !== "string") {
    return { at: `${at}.description`, message: `must be a string, not ${kindOf(o.description)}` };
  }
  const shape = readObjectShape(o, at);
  if ("message" in shape) return shape;
  return {
    shape,
    optional: o.optional === true,
    secret: o.secret === true,
    ...(typeof o.description === "string" ? { description: o.description } : {}),
  };
}

function readObjectShape(o: Record<string, unknown>, at: string): TypeShape | TypeProblem {
  const type = o.type ?? (o.properties !== undefined ? "object" : undefined);
  if (type === undefined) return { at: `${at}.type`, message: `is missing: say the property's type (${[...PRIMITIVES].join(", ")}, array, map, object)` };
  if (typeof type !== "string") return { at: `${at}.type`, message: `must be a string, not ${kindOf(type)}` };
  const misplaced = (key: string, belongs: string): TypeProblem => ({ at: `${at}.${key}`, message: `belongs to a property of type ${belongs}, and this one is ${type}` });
  if (type !== "array" && o.items !== undefined) return misplaced("items", "array");
  if (type !== "map" && o.additionalProperties !== undefined) return misplaced("additionalProperties", "map");
  if (type !== "object" && o.properties !== undefined) return misplaced("properties", "object");
  if (PRIMITIVES.has(type)) return { kind: type as Primitive };
  if (type === "array") {
    if (o.items === undefined) return { at: `${at}.items`, message: "is missing: an array says the type of its items" };
    const items = readNested(o.items, `${at}.items`);
    return "message" in items ? items : { kind: "array", items };
  }
  if (type === "map") {
    if (o.additionalProperties === undefined) return { at: `${at}.additionalProperties`, message: "is missing: a map says the type of its values" };
    const values = readNested(o.additionalProperties, `${at}.additionalProperties`);
    return "message" in values ? values : { kind: "map", values };
  }
  if (type === "object") {
    if (o.properties === undefined) {
      return { at: `${at}.properties`, message: "is missing: an object says its properties (for free-form values use type: any, or map<…>)" };
    }
    const properties = readProperties(o.properties, `${at}.properties`);
    return "message" in properties ? properties : { kind: "object", properties };
  }
  return { at: `${at}.type`, message: `${JSON.stringify(type)} is not a type; the types are ${[...PRIMITIVES].join(", ")}, array, map, object` };
}

/** An array's items or a map's values: a type, never optional. */
function readNested(raw: unknown, at: string): TypeShape | TypeProblem {
  const property = readProperty(raw, at);
  if ("message" in property) return property;
  if (property.optional) return { at, message: "an array's items and a map's values cannot be optional" };
  if (property.secret) return { at, message: "mark the property holding the array or map secret, not its items or values" };
  return property.shape;
}

function readShort(text: string, at: string): TypeShape | TypeProblem {
  const t = text.trim();
  if (PRIMITIVES.has(t)) return { kind: t as Primitive };
  if (t.endsWith("[]")) {
    const items = readShort(t.slice(0, -2), at);
    return "message" in items ? items : { kind: "array", items };
  }
  const map = /^map\s*<(.*)>$/.exec(t);
  if (map) {
    const values = readShort(map[1], at);
    return "message" in values ? values : { kind: "map", values };
  }
  return { at, message: `${JSON.stringify(text)} is not a type; a type is one of ${SHORT_FORMS}, or an object with type:` };
}

/** How a type reads in a message: "string", "map<integer>", "object { name, uid }". */
export function typeText(shape: TypeShape): string {
  switch (shape.kind) {
    case "array": return `${typeText(shape.items)}[]`;
    case "map": return `map<${typeText(shape.values)}>`;
    case "object": return `object { ${[...shape.properties.keys()].join(", ")} }`;
    default: return shape.kind;
  }
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  return `${typeof v} ${JSON.stringify(v)}`;
}
