// The Node half of the composition root (compose.ts): the runtime that serves
// pulumi-resource-pulumi-nodejs. Its own module so that the Node plugin's bundle
// (dist/bundle/cli/host-nodejs.cjs, src/cli/compose/plugin-nodejs.ts) holds no Python bridge.
import { NpmRegistry } from "../../host/packages/npm-registry.js";
import type { ServedRuntime } from "../../host/serve.js";
import { installUncaughtHandlers } from "../../node-dynamic/uncaught.js";

/** The runtime serving Node dynamic providers for the program in `cwd`. */
export async function nodeRuntime(cwd: string): Promise<ServedRuntime> {
  installUncaughtHandlers();
  const { NodeRuntime } = await import("../../node-dynamic/runtime.js");
  return { runtime: new NodeRuntime(cwd), registry: { use: new NpmRegistry() } };
}
