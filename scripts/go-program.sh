#!/usr/bin/env bash
# Builds an end-to-end Go program of the module test/e2e/<NAME> (default
# go-program: an Automation API driver with an inline program; schema-tool:
# Pulumi's schema binder and SDK generators) into
# ~/.cache/pulumi-dynamic-host/<NAME>-<hash of go.mod and *.go>/bin and prints
# the executable's path. PACKAGE, when given, is a main package of one of the
# module's requirements to build instead of the module's own (yaml-host:
# github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml, Pulumi YAML's
# language host); the executable is then named after its last element.
#
#   scripts/go-program.sh [NAME [PACKAGE]]
#
# GO_PROGRAM_SDKS="<module path>=<dir> …": Go packages generated from a schema
# (test/e2e/go-declared.test.ts), each copied into the build as a module of
# that path, required and replaced by the program's go.mod; the program is
# then built with the tag generatedsdk (its sdk_program.go), and the cache key
# covers the packages' files. A complete build for the same sources is
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
PACKAGE=${2:-.}
SRC=test/e2e/$NAME
shopt -s nullglob
sources=("$SRC"/*.go)
[ -f "$SRC/go.mod" ] && { [ "$PACKAGE" != . ] || [ ${#sources[@]} -gt 0 ]; } || { echo "go-program: no Go program $SRC" >&2; exit 2; }
SDKS=${GO_PROGRAM_SDKS:-}
sdk_sum=""
for pair in $SDKS; do
  sdk_sum+=$(cd "${pair#*=}" && find . -type f -print0 | sort -z | xargs -0 cat | sha256sum)
  sdk_sum+=" ${pair%%=*}"
done
TAG=${GO_PROGRAM_TAG:-generatedsdk}
# The tag is in the key only when it is not the default, so that existing builds keep their key.
key=$( (cat "$SRC/go.mod" "${sources[@]}"; echo "$PACKAGE $sdk_sum${GO_PROGRAM_TAG:+ $TAG}") | sha256sum | cut -c1-16)
OUT=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/$NAME${SDKS:+-sdk}-$key
EXE=$OUT/bin/$( [ "$PACKAGE" = . ] && echo "$NAME" || basename "$PACKAGE")

say() { echo "$NAME: $*" >&2; }

if [ -x "$EXE" ] && [ -f "$OUT/.complete" ]; then
  echo "$EXE"
  exit 0
fi

command -v go >/dev/null || { say "go is not installed: the Go end-to-end program is built with Go from the module proxy"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/bin"
cp "$SRC/go.mod" "${sources[@]}" "$OUT/src/"
tags=()
n=0
for pair in $SDKS; do
  n=$((n + 1))
  module=${pair%%=*}
  cp -r "${pair#*=}" "$OUT/sdk-$n"
  sdk_version=$(sed -n 's|^require github.com/pulumi/pulumi/sdk/v3 \(v[^ ]*\).*|\1|p' "$SRC/go.mod")
  printf 'module %s\n\ngo 1.22\n\nrequire github.com/pulumi/pulumi/sdk/v3 %s\n' "$module" "$sdk_version" > "$OUT/sdk-$n/go.mod"
  printf '\nrequire %s v0.0.0\n\nreplace %s => ../sdk-%s\n' "$module" "$module" "$n" >> "$OUT/src/go.mod"
  tags=(-tags "$TAG")
done
say "building with $(go version) in $OUT/src"
started=$(date +%s)
(cd "$OUT/src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath "${tags[@]}" -o "$EXE" "$PACKAGE")
touch "$OUT/.complete"
say "built in $(( $(date +%s) - started )) s"
echo "$EXE"
