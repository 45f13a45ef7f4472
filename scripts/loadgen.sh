#!/usr/bin/env bash
# Builds the benchmark's load driver (bench/loadgen, Go with grpc-go from the
# module proxy) into ~/.cache/pulumi-dynamic-host/loadgen-<key>/loadgen and
# prints its path. The key covers the sources, go.sum and the Go version, so a
# change rebuilds it and a warm cache is reused.
set -euo pipefail
cd "$(dirname "$0")/../bench/loadgen"

say() { echo "loadgen: $*" >&2; }
command -v go >/dev/null || { say "go is not installed: the bench's load driver is built with Go from the module proxy"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly

key=$( (cat go.mod go.sum ./*.go; go version) | sha256sum | cut -c1-16)
out=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/loadgen-$key
if [ ! -x "$out/loadgen" ]; then
  say "building the load driver with $(go version) into $out"
  mkdir -p "$out"
  go build -trimpath -o "$out/loadgen.tmp" .
  mv "$out/loadgen.tmp" "$out/loadgen"
fi
echo "$out/loadgen"
