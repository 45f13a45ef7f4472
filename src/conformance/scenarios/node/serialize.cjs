// Serializes a provider object the way pulumi.dynamic.Resource does: the real
// closure serializer of @pulumi/pulumi, secrets allowed.
"use strict";
const { runtime } = require("@pulumi/pulumi");

async function serializeProvider(provider) {
  const result = await runtime.serializeFunction(() => provider, { allowSecrets: true });
  return result.text;
}

/** A fixture module's exports: `serialize(name)`, the `__provider` text of the named provider, and the names. */
function providerFixture(providers) {
  async function serialize(name) {
    const p = providers[name];
    if (!p) throw new Error(`no test provider named ${name}`);
    return serializeProvider(p);
  }
  return { serialize, names: Object.keys(providers) };
}

module.exports = { serializeProvider, providerFixture };
