"use strict";
// A resource of a type whose provider the project declares in Pulumi.yaml
// (the pulumi-dynamic-host section), registered with its inputs alone: no
// provider object, no serialized code, no __provider. The pulumi-dynamic-host
// plugin serves every request of the type from the declaration, so the
// provider may be written in another language than the program. Usage and
// contracts: index.d.ts.
//
// @pulumi/pulumi is the program's own copy: required from here, it resolves
// from the project's node_modules when this package is installed in the
// project (an optional peer dependency, so package managers link that copy).
// A second copy would register with a runtime the engine never connected.

let pulumi;
try {
  pulumi = require("@pulumi/pulumi");
} catch (e) {
  if (!e || e.code !== "MODULE_NOT_FOUND" || !String(e.message).includes("@pulumi/pulumi")) throw e;
  throw new Error(
    `pulumi-dynamic-host/declared: @pulumi/pulumi cannot be found from ${__dirname}; ` +
      `install it in the project (npm install @pulumi/pulumi), beside pulumi-dynamic-host`,
    { cause: e },
  );
}

/** Each resource's type and the names it registered, inputs and outputs: what output() may be asked for. */
const registered = new WeakMap();

/**
 * Why a property name cannot be registered, or undefined when it can. The SDK
 * makes an Output property of the resource object for every registered name,
 * except `urn` and `id`, which it skips silently (the resource's own would
 * answer for them); it throws for a name the object already has, and names
 * beginning with `__` are its internal fields (and `__provider` is the
 * serialized-code path this helper exists to avoid). `prototype` is the
 * constructed class's, a subclass's own members included.
 */
function clash(name, prototype) {
  if (name === "urn" || name === "id") return `it is the resource's own ${name}`;
  if (name.startsWith("__")) return "names beginning with __ are reserved for the Pulumi SDK (and __provider for serialized providers)";
  if (name in prototype) return "it is a member of the resource object";
  return undefined;
}

class DeclaredResource extends pulumi.CustomResource {
  constructor(type, name, inputs, opts) {
    const { outputs = [], ...options } = opts ?? {};
    const label = `DeclaredResource ${type} ${JSON.stringify(name)}`;
    if (typeof type !== "string" || type === "") throw new TypeError(`DeclaredResource: the type must be a type token string, got ${typeof type}`);
    if (inputs === null || typeof inputs !== "object" || Array.isArray(inputs)) {
      throw new TypeError(`${label}: inputs must be an object of input properties`);
    }
    if (!Array.isArray(outputs) || outputs.some((o) => typeof o !== "string" || o === "")) {
      throw new TypeError(`${label}: opts.outputs must be an array of output property names`);
    }
    const props = { ...inputs };
    for (const output of outputs) if (!Object.prototype.hasOwnProperty.call(props, output)) props[output] = undefined;
    const names = Object.keys(props);
    for (const key of names) {
      const why = clash(key, new.target.prototype);
      if (why) {
        const role = Object.prototype.hasOwnProperty.call(inputs, key) ? "an input" : "an output";
        throw new Error(`${label}: ${JSON.stringify(key)} cannot be ${role} property: ${why}; rename it in the provider`);
      }
    }
    super(type, name, props, options);
    registered.set(this, { type, names: new Set(names) });
  }

  /**
   * The Output of a registered property (an input, or a name in opts.outputs):
   * the provider's value once the resource is created or read.
   */
  output(name) {
    const { type, names } = registered.get(this);
    if (!names.has(name)) {
      const known = [...names].map((n) => JSON.stringify(n)).join(", ") || "none";
      throw new Error(
        `DeclaredResource ${type}: ${JSON.stringify(name)} was not registered (registered: ${known}); ` +
          `the SDK resolves only the properties a resource registers: name it in opts.outputs`,
      );
    }
    return this[name];
  }
}

module.exports = { DeclaredResource };
