"use strict";
// Pass a dynamic provider by reference instead of by closure.
//
//   const { providerReference } = require("pulumi-dynamic-host/reference");
//   new pulumi.dynamic.Resource(providerReference("./providers#textFileProvider"), name, props);
//
// The SDK serializes the object this returns: a reference string and a few
// small methods, nothing of the program captured, no machine paths. The
// pulumi-dynamic-host plugin recognizes it and loads the provider from the
// project itself (TypeScript included). Under Pulumi's own plugins the methods
// below load the module with require() from the project directory, which works
// for JavaScript modules (or TypeScript compiled to JavaScript).
//
// The methods are written to be serialized: each is self-contained and uses
// only `this`, `require` and `process`, so the text is the same on every
// machine and across changes to the provider's own code.

/** The reference syntax: "<module>#<export>", the module a path relative to the project or a package. */
function providerReference(reference) {
  if (typeof reference !== "string" || !/^[^#]+#[A-Za-z_$][\w$]*$/.test(reference)) {
    throw new TypeError(
      `providerReference(${JSON.stringify(reference)}): a provider reference is "<module>#<export>", ` +
        `e.g. "./providers#textFileProvider" (a path relative to the project directory, where Pulumi.yaml is) ` +
        `or "my-package/providers#TextFileProvider"`,
    );
  }
  return {
    pulumiDynamicHostReference: reference,
    check(olds, news) {
      const t = this.target();
      return t.check ? t.check(olds, news) : { inputs: news };
    },
    diff(id, olds, news) {
      const t = this.target();
      return t.diff ? t.diff(id, olds, news) : {};
    },
    create(inputs) {
      return this.target().create(inputs);
    },
    read(id, props) {
      const t = this.target();
      return t.read ? t.read(id, props) : { id, props };
    },
    update(id, olds, news) {
      const t = this.target();
      return t.update ? t.update(id, olds, news) : {};
    },
    delete(id, props) {
      const t = this.target();
      return t.delete ? t.delete(id, props) : undefined;
    },
    configure(req) {
      const t = this.target();
      return t.configure ? t.configure(req) : undefined;
    },
    target() {
      const fs = require("fs");
      const path = require("path");
      const ref = this.pulumiDynamicHostReference;
      const hash = ref.lastIndexOf("#");
      let spec = ref.slice(0, hash);
      if (spec.startsWith("./") || spec.startsWith("../")) {
        let dir = process.cwd();
        while (!fs.existsSync(path.join(dir, "Pulumi.yaml")) && !fs.existsSync(path.join(dir, "Pulumi.yml"))) {
          const up = path.dirname(dir);
          if (up === dir) {
            dir = process.cwd();
            break;
          }
          dir = up;
        }
        spec = path.resolve(dir, spec);
      }
      const exported = require(spec)[ref.slice(hash + 1)];
      if (typeof exported === "function") return new exported();
      if (exported && typeof exported === "object") return exported;
      throw new Error(`provider reference ${ref}: the export is ${exported === null ? "null" : typeof exported}, not a provider object or class`);
    },
  };
}

module.exports = { providerReference };
