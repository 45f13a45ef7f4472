// Bundles the host and the packages it runs with (grpc-js, protobufjs, execa,
// zod, pickleparser, yaml, acorn) into a few ES modules under dist/bundle/cli,
// which is what every name in bin/ loads (bin/launch.mjs). Node 20 resolves and links every file of an ES
// module graph one by one; a bundle of the same code starts in a fraction of the
// time (the engine launches a plugin for every deployment, and waits for it).
// The Node runtime, the Python bridge and the commands for people stay in their
// own chunks, loaded only when used. The output sits three folders deep, as dist/src/host does, so
// the paths the modules compute from import.meta.url (package.json, proto/,
// python-stub/) stay the same.
// The benchmark's calibration plugin is bundled the same way, so it stays the
// ceiling for start-up too.
import { rmSync } from "node:fs";
import { build } from "esbuild";

const common = {
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: 'import { createRequire as __pdhCreateRequire } from "node:module"; const require = __pdhCreateRequire(import.meta.url);' },
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
};

// A clean output: the npm package ships every chunk in dist/bundle/cli.
rmSync("dist/bundle", { recursive: true, force: true });
await Promise.all([
  build({ ...common, entryPoints: ["src/cli/main.ts"], outdir: "dist/bundle/cli" }),
  build({ ...common, entryPoints: ["bench/ceiling-plugin.ts"], outdir: "dist/bundle/bench" }),
]);
