// The tests' ResourceProvider client is the conformance kit's (src/conformance/client.ts),
// built from the repository's own @pulumi/pulumi; `pb` is that SDK's generated stubs.
import { loadSdk } from "../../src/conformance/client.js";

export * from "../../src/conformance/client.js";

const sdk = loadSdk();
export const pb = { provider: sdk.provider, plugin: sdk.plugin, structPb: sdk.structPb, emptyPb: sdk.emptyPb, statusPb: sdk.statusPb, grpc: sdk.grpc };
