#!/usr/bin/env bash
# Builds the real Pulumi engine (the pulumi CLI) from the Go module proxy at a
# pinned release, into ~/.cache/pulumi-dynamic-host/engine-<version>/bin, and
# prints that directory. A warm cache is reused; a cold one is built (several
# minutes on 2 cores). v3.259.0 is the newest CLI release the module proxy
# reachable here serves whole (later pkg/v3 versions answer 403); the SDKs the
# tests pin (3.270.0) work with it.
#
# The CLI cannot be `go install`ed at a version (pkg/go.mod carries replace
# directives), so a wrapper module requires pkg/v3 and sdk/v3 at the release
# and builds the main package.
#
# The nodejs and python language hosts are separate, untagged modules that the
# module proxy reachable here does not serve at any version (403 "This module
# version is not available"), so they are not built: the end-to-end suite runs
# its TypeScript and Python programs through the SDKs' Automation API inline
# programs, where the program's own process is the language host and the real
# CLI drives it (`pulumi up --client`).
set -euo pipefail

VERSION=${PULUMI_ENGINE_VERSION:-v3.259.0}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host
OUT=$CACHE/engine-$VERSION
BIN=$OUT/bin

say() { echo "engine: $*" >&2; }

if [ -x "$BIN/pulumi" ] && [ -f "$OUT/.complete" ]; then
  say "using the cached build in $BIN ($("$BIN/pulumi" version))"
  echo "$BIN"
  exit 0
fi

command -v go >/dev/null || { say "go is not installed: the engine is built with Go from the module proxy"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
work=$OUT/src
rm -rf "$OUT"
mkdir -p "$work" "$BIN"
say "building pulumi $VERSION with $(go version) in $work (cold builds take several minutes)"
started=$(date +%s)
cat > "$work/go.mod" <<GOMOD
module localbuild/pulumi-engine

go 1.25.11

require (
	github.com/pulumi/pulumi/pkg/v3 $VERSION
	github.com/pulumi/pulumi/sdk/v3 $VERSION
)

// The fork upstream pins too (it changes only how Windows loads user32.dll).
replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e

tool github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
GOMOD
cd "$work"
say "resolving modules (go mod tidy)"
go mod tidy
say "compiling"
go build -trimpath -tags osusergo,grpcnotrace \
  -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$VERSION" \
  -o "$BIN/" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
touch "$OUT/.complete"
say "built $("$BIN/pulumi" version) in $(( $(date +%s) - started )) s"
echo "$BIN"
