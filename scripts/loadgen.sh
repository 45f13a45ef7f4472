#!/usr/bin/env bash
# Builds the benchmark's load driver (bench/loadgen, Go with grpc-go from the
# module proxy) once under ~/.cache and prints its path (go-bench-tool.sh).
exec bash "$(dirname "$0")/go-bench-tool.sh" loadgen "load driver"
