// What every installed name runs (bin/pulumi-dynamic-host and the two plugin
// names, real files so that npm pack keeps them). The name it was run by stays
// in process.argv[1] and picks the mode (src/cli/main.ts).
import("../dist/bundle/cli/main.js")
  .then((m) => m.main(process.argv))
  .catch((err) => {
    console.error(`pulumi-dynamic-host: failed to start: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  });
