#!/usr/bin/env bash
# Builds the whole-command trace's instrument (bench/tracer, Go with x/net's
# HPACK decoder from the module proxy) once under ~/.cache and prints its path
# (go-bench-tool.sh).
exec bash "$(dirname "$0")/go-bench-tool.sh" tracer "whole-command trace instrument"
