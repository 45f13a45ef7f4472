#!/usr/bin/env bash
# Builds Pulumi YAML's language host, pulumi-language-yaml, from the Go module
# proxy (the version test/e2e/yaml-host/go.mod names) into
# ~/.cache/pulumi-dynamic-host/yaml-host-<hash of go.mod>/bin and prints the
# executable's path. A complete build is reused; cold, it takes about two
# minutes. The go.mod is copied into the build directory first: -mod=mod
# writes go.sum there, never in the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=test/e2e/yaml-host
key=$(sha256sum "$SRC/go.mod" | cut -c1-16)
OUT=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/yaml-host-$key
EXE=$OUT/bin/pulumi-language-yaml

say() { echo "yaml-host: $*" >&2; }

if [ -x "$EXE" ] && [ -f "$OUT/.complete" ]; then
  echo "$EXE"
  exit 0
fi

command -v go >/dev/null || { say "go is not installed: Pulumi YAML's language host is built with Go from the module proxy"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/bin"
cp "$SRC/go.mod" "$OUT/src/"
say "building pulumi-language-yaml with $(go version) in $OUT/src"
started=$(date +%s)
(cd "$OUT/src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath -o "$EXE" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml)
touch "$OUT/.complete"
say "built in $(( $(date +%s) - started )) s"
echo "$EXE"
