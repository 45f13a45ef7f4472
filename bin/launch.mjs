// What every installed name runs (bin/pulumi-dynamic-host and the two plugin
// names, real files so that npm pack keeps them). The name it was run by stays
// in process.argv[1] and picks the mode (src/cli/main.ts). The host itself is
// one CommonJS bundle, loaded with V8's code cache (src/boot/code-cache.ts).
import("../dist/bundle/boot.mjs")
  .then((m) => m.launch(process.argv))
  .catch((err) => {
    console.error(`pulumi-dynamic-host: failed to start: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  });
