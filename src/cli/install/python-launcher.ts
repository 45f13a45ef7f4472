// The Python plugin's launcher for the single executable (archive, wheel, and
// what `install` places): a shell script that starts the Python worker beside
// the host (python-stub/launch.sh, docs/launcher.md), like the npm package's
// bin/pulumi-resource-pulumi-python. The executable's worker files live in the
// cache directory it extracts them to (src/host/files/assets.ts), under a name made
// of its version and their content, which is written into the script here; a
// first start that finds them missing runs the executable alone, which
// extracts them. The host is the executable under the Node plugin's name,
// which every layout places beside this script, told which plugin to serve by
// PULUMI_DYNAMIC_HOST_SERVE (this script as the engine ran it).
import { extractedDirectoryName, EMBEDDED } from "../../host/files/assets.js";
import { hostVersion } from "../../host/plugin/plugin-info.js";

/** The launcher's text; only the single executable has one (the npm package ships its own). */
export function embeddedPythonLauncher(): string {
  if (!EMBEDDED) throw new Error("only the single executable writes its Python launcher; the npm package ships bin/pulumi-resource-pulumi-python");
  return `#!/bin/sh
# pulumi-resource-pulumi-python of pulumi-dynamic-host ${hostVersion()} (the single executable).
# It starts the Python worker beside the host (docs/launcher.md); the host is
# pulumi-resource-pulumi-nodejs beside this file, serving as the Python plugin.
self=$0
while [ -h "$self" ]; do
  link=$(readlink "$self") || break
  case $link in /*) self=$link ;; *) self=\${self%/*}/$link ;; esac
done
case $self in */*) bin=\${self%/*} ;; *) bin=. ;; esac
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
bin=\${bin%/.}
PULUMI_DYNAMIC_HOST_SERVE=$0
export PULUMI_DYNAMIC_HOST_SERVE
set -- "$bin/pulumi-resource-pulumi-nodejs" "$@"
# Where the executable extracts its worker (src/host/files/cache-root.ts).
if [ -n "\${PULUMI_DYNAMIC_HOST_CACHE_DIR:-}" ]; then
  case $PULUMI_DYNAMIC_HOST_CACHE_DIR in /*) cache=$PULUMI_DYNAMIC_HOST_CACHE_DIR ;; *) cache=$PWD/$PULUMI_DYNAMIC_HOST_CACHE_DIR ;; esac
elif case \${XDG_CACHE_HOME:-} in /*) true ;; *) false ;; esac; then
  cache=$XDG_CACHE_HOME/pulumi-dynamic-host
else
  cache=\${HOME:-/nonexistent}/.cache/pulumi-dynamic-host
fi
stub=$cache/${extractedDirectoryName("python-stub")}/python-stub
# Only from a cache directory of this user's that no one else may write (as the host checks it).
if [ -f "$stub/launch.sh" ] && [ -O "$cache" ] && [ -z "$(find "$cache" "$stub/launch.sh" -prune \\( -perm -020 -o -perm -002 \\) 2>/dev/null)" ]; then
  . "$stub/launch.sh"
fi
exec "$@"
`;
}
