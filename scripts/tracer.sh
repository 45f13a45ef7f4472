#!/usr/bin/env bash
# Builds the whole-command trace's instrument (bench/tracer, Go with x/net's
# HPACK decoder from the module proxy) into
# ~/.cache/pulumi-dynamic-host/tracer-<key>/tracer and prints its path. The key covers the sources, go.sum and the Go version, so a
# change rebuilds it and a warm cache is reused.
set -euo pipefail
cd "$(dirname "$0")/../bench/tracer"

say() { echo "tracer: $*" >&2; }
command -v go >/dev/null || { say "go is not installed: the bench's whole-command trace instrument is built with Go from the module proxy"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly

key=$( (cat go.mod go.sum ./*.go; go version) | sha256sum | cut -c1-16)
out=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/tracer-$key
if [ ! -x "$out/tracer" ]; then
  say "building the whole-command trace instrument with $(go version) into $out"
  mkdir -p "$out"
  go build -trimpath -o "$out/tracer.tmp" .
  mv "$out/tracer.tmp" "$out/tracer"
fi
echo "$out/tracer"
