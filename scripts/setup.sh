#!/usr/bin/env bash
# Idempotent set-up shared by `npm test`, `npm run demo` and CI: installs the
# locked npm packages when node_modules is missing or stale. Later steps (the
# Python virtualenv, the engine build) hang off here too, cached under
# ~/.cache/pulumi-dynamic-host so a warm machine is fast.
set -euo pipefail
cd "$(dirname "$0")/.."

# --engine: also build the real engine (tests, demo); --tests: also what only
# the tests use (pnpm, bun, the uv and poetry toolchains, a second Python, the Go
# end-to-end program).
engine=0
tests=0
for arg in "$@"; do
  case "$arg" in
    --engine) engine=1 ;;
    --tests) tests=1 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

# SHA-256 of stdin: sha256sum (GNU), or macOS's shasum.
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi
}

lock_sum=$(sha256 < package-lock.json | cut -d' ' -f1)
stamp=node_modules/.pulumi-dynamic-host-setup
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  echo "setup: installing npm packages (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_sum" > "$stamp"
fi

# The Python side of the tests: a virtualenv with the pinned `pulumi` and `dill`
# (and what generated Python SDKs need: test/python-requirements.txt) from
# PyPI, built once per requirements file and Python version under ~/.cache and
# linked at .cache/test-venv, where the tests look for it.
req=test/python-requirements.txt
python=${PULUMI_DYNAMIC_HOST_PYTHON:-python3}
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
key=$( (cat "$req"; echo "$pyver") | sha256 | cut -c1-16)
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

if [ "$tests" = 1 ]; then
  # pnpm, pinned, from the npm registry, for the end-to-end test of a pnpm
  # project whose dependencies move (test/e2e/node-moved-paths.test.ts):
  # installed once under ~/.cache and linked at .cache/pnpm, where the test looks.
  pnpm_version=10.34.9
  pnpm_dir=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/pnpm-$pnpm_version
  if [ ! -f "$pnpm_dir/.complete" ]; then
    echo "setup: installing pnpm $pnpm_version in $pnpm_dir" >&2
    rm -rf "$pnpm_dir"
    npm install --no-audit --no-fund --loglevel=error --prefix "$pnpm_dir" "pnpm@$pnpm_version" >&2
    touch "$pnpm_dir/.complete"
  fi
  ln -sfn "$pnpm_dir" .cache/pnpm

  # Bun, pinned, from the npm registry (the `bun` package's postinstall puts
  # the runtime of this platform in place), for the end-to-end test of a
  # program run by Bun (test/e2e/bun-declared.test.ts) and the declared
  # helper's unit test: installed once under ~/.cache, linked at .cache/bun.
  bun_version=1.4.5
  bun_dir=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/bun-$bun_version
  if [ ! -f "$bun_dir/.complete" ] || ! "$bun_dir/node_modules/.bin/bun" --version >/dev/null 2>&1; then
    echo "setup: installing bun $bun_version in $bun_dir" >&2
    rm -rf "$bun_dir"
    npm install --no-audit --no-fund --loglevel=error --prefix "$bun_dir" "bun@$bun_version" >&2
    "$bun_dir/node_modules/.bin/bun" --version >/dev/null
    touch "$bun_dir/.complete"
  fi
  ln -sfn "$bun_dir" .cache/bun

  # The package registries the provider-package tests publish to and install
  # from, started on loopback by the tests (test/e2e/provider-package-registries.test.ts):
  # verdaccio (an npm registry) and pypiserver (a Python package index), pinned,
  # installed once under ~/.cache and linked at .cache/verdaccio and
  # .cache/pypiserver.
  # 6.5.0: the last that runs on Node 20 (6.10 asks for 22). verdaccio-audit asks
  # for node-fetch by the dist-tag "cjs", which a registry mirror may not carry:
  # the override names the version that tag points to.
  verdaccio_version=6.5.0
  verdaccio_dir=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/verdaccio-$verdaccio_version
  if [ ! -f "$verdaccio_dir/.complete" ]; then
    echo "setup: installing verdaccio $verdaccio_version in $verdaccio_dir" >&2
    rm -rf "$verdaccio_dir"
    mkdir -p "$verdaccio_dir"
    printf '{"private":true,"dependencies":{"verdaccio":"%s"},"overrides":{"verdaccio-audit":{"node-fetch":"2.7.0"}}}\n' "$verdaccio_version" >"$verdaccio_dir/package.json"
    (cd "$verdaccio_dir" && npm install --no-audit --no-fund --loglevel=error >&2)
    touch "$verdaccio_dir/.complete"
  fi
  ln -sfn "$verdaccio_dir" .cache/verdaccio
  # hatchling beside it builds the wheels the tests publish (pip wheel --no-build-isolation).
  pypiserver_req="pypiserver==2.4.2 hatchling==1.33.0"
  pypiserver_key=$(echo "$pypiserver_req $pyver" | sha256 | cut -c1-16)
  pypiserver_dir=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/pypiserver-$pypiserver_key
  if [ ! -f "$pypiserver_dir/.complete" ]; then
    echo "setup: installing $pypiserver_req in $pypiserver_dir" >&2
    rm -rf "$pypiserver_dir"
    "$python" -m venv "$pypiserver_dir"
    # shellcheck disable=SC2086 # the list is words on purpose
    "$pypiserver_dir/bin/python" -m pip install --quiet --disable-pip-version-check $pypiserver_req >&2
    touch "$pypiserver_dir/.complete"
  fi
  ln -sfn "$pypiserver_dir" .cache/pypiserver

  # The Python toolchains the end-to-end tests run programs under (Pulumi.yaml's
  # runtime.options.toolchain: uv, poetry), from PyPI at pinned versions, in a
  # virtualenv of their own under ~/.cache; their commands are linked at
  # .cache/python-toolchains/bin, which the tests put on the plugins' PATH.
  toolchains_req="uv==0.13.8 poetry==2.5.1"
  toolchains_key=$(echo "$toolchains_req $pyver" | sha256 | cut -c1-16)
  toolchains=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/python-toolchains-$toolchains_key
  if [ ! -f "$toolchains/.complete" ]; then
    echo "setup: installing the Python toolchains $toolchains_req in $toolchains" >&2
    rm -rf "$toolchains"
    "$python" -m venv "$toolchains/venv"
    # shellcheck disable=SC2086 # the list is words on purpose
    "$toolchains/venv/bin/python" -m pip install --quiet --disable-pip-version-check $toolchains_req >&2
    mkdir -p "$toolchains/bin"
    ln -sfn "$toolchains/venv/bin/uv" "$toolchains/bin/uv"
    ln -sfn "$toolchains/venv/bin/poetry" "$toolchains/bin/poetry"
    touch "$toolchains/.complete"
  fi
  ln -sfn "$toolchains" .cache/python-toolchains

  # A second Python for the Python-version-drift tests (test/python/drift.test.ts):
  # a virtualenv of another CPython minor than the test virtualenv's, with the
  # same pinned pulumi and dill, linked at .cache/test-venv-other, beside
  # .cache/test-venv, where the host looks for sibling virtualenvs. uv's managed
  # 3.12 first; offline (uv cannot download), a pyenv-installed 3.12 or 3.10.
  # Without one the link is removed and the drift tests fail saying so (they never
  # skip); the demo and the benchmark, which share this set-up, do not need it.
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
    echo "setup: no second Python found for the drift tests (tried uv python install 3.12, pyenv 3.12 and 3.10); they will fail" >&2
    rm -f .cache/test-venv-other
  else
    other_ver=$("$other" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    other_key=$( (cat "$req"; echo "$other_ver") | sha256 | cut -c1-16)
    other_venv=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/venv-$other_key
    if [ ! -f "$other_venv/.complete" ]; then
      echo "setup: creating the second-Python test virtualenv $other_venv (python $other_ver from $other)" >&2
      rm -rf "$other_venv"
      "$other" -m venv "$other_venv"
      "$other_venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
      touch "$other_venv/.complete"
    fi
    ln -sfn "$other_venv" .cache/test-venv-other
  fi
fi

# actionlint, pinned, from the Go module proxy, for the lint of the GitHub Actions
# workflows (test/unit/ci-workflow.test.ts): built once under ~/.cache (about 35 s
# cold, downloads included), linked at .cache/actionlint. It checks the workflows'
# run: scripts with shellcheck when that is on PATH (Debian: apt-get install shellcheck).
if [ "$tests" = 1 ]; then
  actionlint_version=1.7.12
  actionlint_dir=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/actionlint-$actionlint_version
  if [ ! -x "$actionlint_dir/actionlint" ]; then
    command -v go >/dev/null || { echo "setup: go is not installed: actionlint is built with Go from the module proxy" >&2; exit 1; }
    echo "setup: building actionlint $actionlint_version in $actionlint_dir" >&2
    GOTOOLCHAIN=local GOFLAGS=-mod=mod GOBIN="$actionlint_dir" go install "github.com/rhysd/actionlint/cmd/actionlint@v$actionlint_version" >&2
  fi
  ln -sfn "$actionlint_dir/actionlint" .cache/actionlint
fi

# An older @pulumi/pulumi (3.248.0, what `npm install @pulumi/pulumi` gives on
# Node 20, whose plugin answers a read without properties as releases before
# 3.268.0 do), for the conformance kit's check that Pulumi's Node plugin of an
# earlier release conforms too (test/conformance/readme-commands.test.ts):
# installed once under ~/.cache, linked at .cache/sdk-nodejs-3.248.0.
if [ "$tests" = 1 ]; then
  old_sdk=3.248.0
  old_sdk_dir=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dynamic-host/sdk-nodejs-$old_sdk
  if [ ! -f "$old_sdk_dir/.complete" ]; then
    echo "setup: installing @pulumi/pulumi $old_sdk in $old_sdk_dir" >&2
    rm -rf "$old_sdk_dir"
    mkdir -p "$old_sdk_dir"
    echo '{"name":"sdk-nodejs-old","private":true}' > "$old_sdk_dir/package.json"
    npm install --no-audit --no-fund --loglevel=error --prefix "$old_sdk_dir" "@pulumi/pulumi@$old_sdk" >&2
    touch "$old_sdk_dir/.complete"
  fi
  ln -sfn "$old_sdk_dir" .cache/sdk-nodejs-$old_sdk
fi

# The Go end-to-end program (test/e2e/go-program, an Automation API driver), for
# test/e2e/go-declared.test.ts: built once per source hash under ~/.cache
# (about 2.5 min cold on 2 cores, downloads included), reused after. The test
# builds it too when missing, so this only moves the wait into set-up.
if [ "$tests" = 1 ]; then
  bash scripts/go-program.sh >/dev/null
fi

# The real engine (the pulumi CLI from the Go module proxy), for the end-to-end
# tests and the demo: built once per version under ~/.cache, reused after.
if [ "$engine" = 1 ]; then
  bash scripts/engine.sh >/dev/null
fi
