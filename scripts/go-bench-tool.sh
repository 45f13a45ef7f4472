#!/usr/bin/env bash
# Builds one of the benchmark's Go programs, bench/<name> (its modules from the
# module proxy), into ~/.cache/pulumi-dynamic-host/<name>-<key>/<name> and
# prints its path. The key covers the sources, go.sum and the Go version, so a
# change rebuilds it and a warm cache is reused. scripts/loadgen.sh and
# scripts/tracer.sh name the program: usage: go-bench-tool.sh <name> <what it is>
set -euo pipefail
name=$1 what=$2
cd "$(dirname "$0")/../bench/$name"

say() { echo "$name: $*" >&2; }
command -v go >/dev/null || { say "go is not installed: the bench's $what is built with Go from the module proxy"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly

key=$( (cat go.mod go.sum ./*.go; go version) | sha256sum | cut -c1-16)
out=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/$name-$key
if [ ! -x "$out/$name" ]; then
  say "building the $what with $(go version) into $out"
  mkdir -p "$out"
  go build -trimpath -o "$out/$name.tmp" .
  mv "$out/$name.tmp" "$out/$name"
fi
echo "$out/$name"
