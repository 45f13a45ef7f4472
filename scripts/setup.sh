#!/usr/bin/env bash
# Idempotent set-up shared by `npm test`, `npm run demo` and CI: installs the
# locked npm packages when node_modules is missing or stale. Later steps (the
# Python virtualenv, the engine build) hang off here too, cached under
# ~/.cache/pulumi-dynamic-host so a warm machine is fast.
set -euo pipefail
cd "$(dirname "$0")/.."

lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.pulumi-dynamic-host-setup
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  echo "setup: installing npm packages (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_sum" > "$stamp"
fi
