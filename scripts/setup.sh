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

# The Python side of the tests: a virtualenv with the pinned `pulumi` and `dill`
# from PyPI, built once per requirements file and Python version under
# ~/.cache and linked at .cache/test-venv, where the tests look for it.
req=test/python-requirements.txt
python=${PULUMI_DYNAMIC_HOST_PYTHON:-python3}
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
key=$( (cat "$req"; echo "$pyver") | sha256sum | cut -c1-16)
venv=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/venv-$key
if [ ! -f "$venv/.complete" ]; then
  echo "setup: creating the test virtualenv $venv (python $pyver, $(grep -v '^#' "$req" | tr '\n' ' '))" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  touch "$venv/.complete"
fi
mkdir -p .cache
ln -sfn "$venv" .cache/test-venv

# A second Python for the Python-version-drift tests (test/python-drift.test.ts):
# a virtualenv of another CPython minor than the test virtualenv's, with the
# same pinned pulumi and dill, linked at .cache/test-venv-other, beside
# .cache/test-venv, where the host looks for sibling virtualenvs. uv's managed
# 3.12 first; offline (uv cannot download), a pyenv-installed 3.12 or 3.10.
# No second Python is an error: the drift tests must not silently skip.
other_python() {
  local v p
  if command -v uv >/dev/null 2>&1 && uv python install 3.12 >&2 && p=$(uv python find 3.12) && [ "$("$p" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$pyver" ]; then
    echo "$p"; return 0
  fi
  for v in 3.12 3.10; do
    [ "$v" = "$pyver" ] && continue
    for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/python"$v"; do
      if [ -x "$p" ] && "$p" -c 'import venv' 2>/dev/null; then echo "$p"; return 0; fi
    done
  done
  return 1
}
if ! other=$(other_python); then
  echo "setup: no second Python found for the drift tests (tried uv python install 3.12, pyenv 3.12 and 3.10)" >&2
  exit 1
fi
other_ver=$("$other" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
other_key=$( (cat "$req"; echo "$other_ver") | sha256sum | cut -c1-16)
other_venv=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/venv-$other_key
if [ ! -f "$other_venv/.complete" ]; then
  echo "setup: creating the second-Python test virtualenv $other_venv (python $other_ver from $other)" >&2
  rm -rf "$other_venv"
  "$other" -m venv "$other_venv"
  "$other_venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  touch "$other_venv/.complete"
fi
ln -sfn "$other_venv" .cache/test-venv-other

# The real engine (the pulumi CLI from the Go module proxy), for the end-to-end
# tests and the demo: built once per version under ~/.cache, reused after.
if [ "${1:-}" = "--engine" ]; then
  bash scripts/engine.sh >/dev/null
fi
