// npm's preinstall (package.json): picks what the Python plugin's name runs in
// this installed copy, before npm links the names (npm runs preinstall first;
// on Windows its shims are written from each bin's first line then).
//
// The package ships bin/pulumi-resource-pulumi-python as the shell launcher
// (python-stub/launch.sh: the worker starts beside the host). npm's Windows
// shims would run it with `sh`, which Windows lacks, so there, or wherever
// PULUMI_DYNAMIC_HOST_PYTHON_ENTRY=node, the file becomes a Node script that
// runs bin/python-entry.mjs. PULUMI_DYNAMIC_HOST_PYTHON_ENTRY=sh keeps the shell
// launcher everywhere. Installs with scripts turned off keep the shell launcher
// (docs/launcher.md, "Where no sh runs it").
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { choosePythonEntry, KNOB } from "./python-entry-choice.mjs";

const chosen = choosePythonEntry(process.platform, process.env[KNOB]);
if (chosen.problem) {
  console.error(`pulumi-dynamic-host: ${chosen.problem}`);
  process.exit(1);
}
if (chosen.entry === "node") {
  const file = fileURLToPath(new URL("pulumi-resource-pulumi-python", import.meta.url));
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(
    tmp,
    "#!/usr/bin/env node\n" +
      "// Installed as pulumi-resource-pulumi-python where no sh runs the shell launcher\n" +
      "// (bin/choose-python-entry.mjs chose it at install); bin/python-entry.mjs says what it does.\n" +
      'import("./python-entry.mjs");\n',
    { mode: 0o755 },
  );
  fs.renameSync(tmp, file);
}
