// The Python plugin's Node entry: what pulumi-resource-pulumi-python runs where
// no sh runs the shell launcher. npm's Windows shims run a bin by its shebang's
// program, and Windows has no sh; so on Windows (or anywhere, with
// PULUMI_DYNAMIC_HOST_PYTHON_ENTRY=node at install) bin/choose-python-entry.mjs,
// npm's preinstall, puts a Node script that imports this file under the
// plugin's name before npm links it (docs/launcher.md, "Where no sh runs it").
//
// It does what python-stub/launch.sh does when that cannot start the worker
// beside the host (no /proc, as on Windows): it names the plugin served in
// PULUMI_DYNAMIC_HOST_SERVE and runs the host, which starts its worker itself.
// A Node process cannot start the worker before its own start, nor become
// another program, so no worker starts early here. NODE_EXTRA_CA_CERTS stays as
// it is: this Node has read the certificates already.
import { servedPluginFile } from "./python-entry-choice.mjs";

// The file as run (the installed name, as the engine or npm's shim ran it); run
// by another name (node bin/python-entry.mjs), the plugin's name beside it.
process.env.PULUMI_DYNAMIC_HOST_SERVE = servedPluginFile(process.argv[1] ?? "");
import("./launch.mjs");
