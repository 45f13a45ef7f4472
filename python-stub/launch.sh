# Sourced by the pulumi-resource-pulumi-python launcher (sh), with `stub` set to
# this directory and the host's argv, then the engine's arguments, as "$@".
#
# Picks the interpreter as src/python-bridge/interpreter/interpreter.ts does (the Python
# reference launcher's rules) in the cases a shell can decide alone, and runs
# prestart.py in it: the worker starts now, beside the host, instead of after
# Node's start (docs/launcher.md). The host checks the worker it is handed and
# starts its own when it would have chosen otherwise (as in a project whose
# runtime is not python, where a .venv or the section's python: may choose
# another interpreter: src/python-bridge/interpreter/project-interpreter.ts). Where this script cannot
# decide (poetry not on PATH, a virtualenv it does not find, no /proc to check
# the worker by, the knob PULUMI_DYNAMIC_HOST_PRESTART=0), it runs the host
# alone, which starts its worker itself, as before.

pdh_python=
if [ "${PULUMI_DYNAMIC_HOST_PRESTART:-1}" != 0 ] && [ -z "${PULUMI_DYNAMIC_HOST_WORKER_SCRIPT:-}" ] && [ -d /proc/self ]; then
  pdh_venv=${PULUMI_RUNTIME_VIRTUALENV:-}
  if [ -z "$pdh_venv" ] && [ "${PULUMI_RUNTIME_TOOLCHAIN:-}" = uv ]; then pdh_venv=.venv; fi
  # As the reference's launcher: poetry's virtualenv, asked once here; the host takes the answer
  # (src/cli/compose/launcher-environment.ts) instead of asking again. Poetry's errors go to stderr, as there.
  if [ -z "$pdh_venv" ] && [ "${PULUMI_RUNTIME_TOOLCHAIN:-}" = poetry ] && command -v poetry >/dev/null 2>&1; then
    pdh_venv=$(poetry env info --path) || pdh_venv=
    PULUMI_DYNAMIC_HOST_POETRY_ENV=$pdh_venv
    export PULUMI_DYNAMIC_HOST_POETRY_ENV
  fi
  if [ -n "$pdh_venv" ]; then
    pdh_venv=${pdh_venv%/}
    case $pdh_venv in /*) ;; *) pdh_venv=$PWD/$pdh_venv ;; esac
    if [ -f "$pdh_venv/bin/python" ]; then pdh_python=$pdh_venv/bin/python; fi
  elif [ "${PULUMI_RUNTIME_TOOLCHAIN:-}" != poetry ] || [ -n "${PULUMI_DYNAMIC_HOST_POETRY_ENV+x}" ]; then
    pdh_python=${PULUMI_PYTHON_CMD:-python3}
    command -v "$pdh_python" >/dev/null 2>&1 || pdh_python=
  fi
fi
# The host makes no TLS connection in Python mode, so Node need not read extra CA
# certificates before it runs anything (about 30 ms where they are set): the
# variable is moved aside for the host's start and put back, for the worker and
# everything the host starts, by prestart.py and the host (src/cli/main.ts).
if [ -n "${NODE_EXTRA_CA_CERTS+x}" ]; then
  PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS
  export PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
fi
if [ -n "$pdh_python" ] && [ -f "$stub/prestart.py" ]; then
  exec "$pdh_python" -I -S "$stub/prestart.py" "$pdh_python" "${pdh_venv:-}" "$stub" "$@"
fi
exec "$@"
