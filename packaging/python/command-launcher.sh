#!/bin/sh
# pulumi-dynamic-host of the wheel: the single executable is installed once,
# as pulumi-resource-pulumi-nodejs beside this file (pip keeps no hard links,
# and a second 88 MB copy is what this avoids); this runs it as the command
# for people. PULUMI_DYNAMIC_HOST_SERVE's file name, pulumi-dynamic-host, is
# what tells the executable so (src/host/plugin/modes.ts); the host removes it from
# its environment before anything else runs.
self=$0
while [ -h "$self" ]; do
  link=$(readlink "$self") || break
  case $link in /*) self=$link ;; *) self=${self%/*}/$link ;; esac
done
case $self in */*) bin=${self%/*} ;; *) bin=. ;; esac
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
bin=${bin%/.}
PULUMI_DYNAMIC_HOST_SERVE=$bin/pulumi-dynamic-host
export PULUMI_DYNAMIC_HOST_SERVE
exec "$bin/pulumi-resource-pulumi-nodejs" "$@"
