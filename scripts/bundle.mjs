// Bundles the host and the packages it runs with (grpc-js, protobufjs,
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
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

/**
 * zod re-exports every one of its ~60 error-message locales (`z.locales`);
 * the host uses none but the English one zod configures itself with. Bundled
 * whole they were half of zod's 756 KB, which the Python bridge loads right
 * after the port line (1.4 MiB of RSS, and the parse, measured for issue 21).
 * The locales' index resolves to a module exporting only `en`.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: "zod-locales", namespace: "zod-english-only", pluginData: args.resolveDir } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: 'export { default as en } from "../locales/en.js";',
      resolveDir: args.pluginData,
    }));
  },
};

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
  plugins: [zodEnglishOnly],
};

/**
 * Builds into `outdir`, then removes what an earlier build left there (the npm
 * package ships every chunk in dist/bundle/cli). Files are replaced, never the
 * folder, so a plugin starting meanwhile never finds it missing.
 */
async function bundle(entry, outdir) {
  const { metafile } = await build({ ...common, entryPoints: [entry], outdir, metafile: true });
  const made = new Set(Object.keys(metafile.outputs).map((f) => path.resolve(f)));
  for (const f of readdirSync(outdir)) if (!made.has(path.resolve(outdir, f))) rmSync(path.join(outdir, f));
}

await Promise.all([bundle("src/cli/main.ts", "dist/bundle/cli"), bundle("bench/ceiling-plugin.ts", "dist/bundle/bench")]);
