// Bundles the host and the packages it runs with (grpc-js, protobufjs,
// zod, pickleparser, yaml, acorn) into CommonJS files in dist/bundle/cli, one
// per plugin name and one for everything (HOST_ENTRIES), and their loader into
// dist/bundle/boot.mjs, which is what every name in bin/ runs (bin/launch.mjs).
// Node 20 resolves and links every file of an ES module graph one by one; a
// bundle of the same code starts in a fraction of the time (the engine
// launches a plugin for every deployment, and waits for it). CommonJS, because
// V8's code cache for it can be kept between starts (src/boot/code-cache.ts);
// within a bundle, what is imported lazily (the runtimes, the commands) is
// compiled only if it runs. The bundles sit three folders deep; the one module
// that computes paths from import.meta.url (package.json, proto/, python-stub/:
// src/host/files/assets.ts) knows that depth and its own compiled one.
// The benchmark's calibration plugin is bundled too (as ES modules), so it
// stays the ceiling for start-up.
import { cpSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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
  platform: "node",
  target: "node20",
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
  plugins: [zodEnglishOnly],
};

const esm = {
  ...common,
  splitting: true,
  format: "esm",
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: 'import { createRequire as __pdhCreateRequire } from "node:module"; const require = __pdhCreateRequire(import.meta.url);' },
};

/** The host's bundles (src/boot/bundles.ts picks one): every command, and each plugin alone. */
export const HOST_ENTRIES = { host: "src/cli/main.ts", "host-nodejs": "src/cli/compose/plugin-nodejs.ts", "host-python": "src/cli/compose/plugin-python.ts" };

/**
 * The host, for its loader (src/boot/code-cache.ts): one CommonJS file whose text is Node's module
 * wrapper around the bundle (WRAPPER_START there), with its whitespace and syntax minified (names
 * kept): the source V8 holds and parses is a third smaller, 4 MiB less of the host's resident memory
 * at its first Create. The source maps (dist/bundle/cli/*.cjs.map, not in the npm package) map it back.
 * `fileOf` is the expression for the file the modules' import.meta.url names: the bundle's own, or the
 * single executable (scripts/dist.mjs).
 */
export const hostBundle = (fileOf = "__filename") => ({
  ...common,
  format: "cjs",
  minifyWhitespace: true,
  minifySyntax: true,
  // The modules' import.meta.url, in a CommonJS file: the file's own URL.
  define: { "import.meta.url": "__pdhMetaUrl" },
  // Strict, as the ES modules it is built from are (esbuild's own "use strict" comes after the banner, where it is no directive).
  banner: { js: `(function (exports, require, module, __filename, __dirname) {"use strict";var __pdhMetaUrl = require("node:url").pathToFileURL(${fileOf}).href;` },
  footer: { js: "\n})" },
});

/**
 * Builds `entryPoints` with `options` into `outdir`, then (unless `prune` is false: dist/bundle
 * holds the other two) removes what an earlier build left there (the npm package ships every host
 * file of dist/bundle/cli). Files are replaced, never the folder, so a plugin starting meanwhile
 * never finds it missing.
 */
async function bundle(options, outdir, entryPoints, { prune = true, ...extra } = {}) {
  const { metafile } = await build({ ...options, entryPoints, outdir, metafile: true, ...extra });
  const made = new Set(Object.keys(metafile.outputs).map((f) => path.resolve(f)));
  if (!prune) return;
  for (const f of readdirSync(outdir)) if (!made.has(path.resolve(outdir, f))) rmSync(path.join(outdir, f));
}

/**
 * The packages the conformance kit's Node provider scenarios require besides @pulumi/pulumi
 * (src/conformance/scenarios/node/*.cjs), copied from node_modules (pinned devDependencies) with
 * their licences: the kit installs them into the program folder it makes in a user's project
 * (src/conformance/kit-packages.ts), so the user installs nothing but the SDK. Shipped in the npm
 * package and embedded in the single executable (scripts/dist.mjs).
 */
export const KIT_PACKAGES = ["sleep-promise", "ms"];
export const KIT_PACKAGES_DIR = "dist/bundle/conformance-packages";
const KIT_PACKAGE_SKIP = /^(yarn\.lock|package-lock\.json|CHANGELOG\.md|README\.md|readme\.md)$/;

export function copyKitPackages() {
  const root = fileURLToPath(new URL("../", import.meta.url));
  rmSync(path.join(root, KIT_PACKAGES_DIR), { recursive: true, force: true });
  for (const name of KIT_PACKAGES) {
    cpSync(path.join(root, "node_modules", name), path.join(root, KIT_PACKAGES_DIR, name), { recursive: true, filter: (from) => !KIT_PACKAGE_SKIP.test(path.basename(from)) });
  }
}

// Run as a script (npm run build, prepack); scripts/dist.mjs imports hostBundle from here.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await Promise.all([
    bundle(hostBundle(), "dist/bundle/cli", HOST_ENTRIES, { outExtension: { ".js": ".cjs" } }),
    bundle({ ...common, format: "esm", plugins: [] }, "dist/bundle", { boot: "src/boot/launch.ts" }, { outExtension: { ".js": ".mjs" }, prune: false }),
    bundle(esm, "dist/bundle/bench", ["bench/ceiling-plugin.ts"]),
  ]);
  copyKitPackages();
}
