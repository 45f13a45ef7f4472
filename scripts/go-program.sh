#!/usr/bin/env bash
# Builds an end-to-end Go program, test/e2e/<NAME> (default go-program: an
# Automation API driver with an inline program; schema-tool: Pulumi's schema
# binder and SDK generators) into
# ~/.cache/pulumi-dynamic-host/<NAME>-<hash of go.mod and main.go>/bin and
# prints the executable's path. A complete build for the same sources is
# reused; otherwise it is built from the Go module proxy (a minute or two cold).
#
# The sources are copied into the build directory first: -mod=mod lets `go
# build` resolve the module graph and write go.sum there, never in the
# checkout. The committed go.mod names only the direct requirement and the one
# version the proxy forces (see its comment); minimal version selection makes
# the rest deterministic, and go.sum is checked against the checksum database
# as it is written.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=${1:-go-program}
SRC=test/e2e/$NAME
[ -f "$SRC/main.go" ] || { echo "go-program: no Go program $SRC" >&2; exit 2; }
key=$(cat "$SRC/go.mod" "$SRC/main.go" | sha256sum | cut -c1-16)
OUT=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/$NAME-$key
EXE=$OUT/bin/$NAME

say() { echo "$NAME: $*" >&2; }

if [ -x "$EXE" ] && [ -f "$OUT/.complete" ]; then
  echo "$EXE"
  exit 0
fi

command -v go >/dev/null || { say "go is not installed: the Go end-to-end program is built with Go from the module proxy"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/bin"
cp "$SRC/go.mod" "$SRC/main.go" "$OUT/src/"
say "building with $(go version) in $OUT/src"
started=$(date +%s)
(cd "$OUT/src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath -o "$EXE" .)
touch "$OUT/.complete"
say "built in $(( $(date +%s) - started )) s"
echo "$EXE"
