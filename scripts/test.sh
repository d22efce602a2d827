#!/usr/bin/env bash
# The whole gate: set up, then format check, lint, strict type check, import layers, the UI's
# generated API types up to date, the container image, every test (with the newest Feast of the
# supported range), then the tests that touch Feast again with the oldest (.venv-feast059, see
# pyproject.toml's dependency groups), then the tests again under Python 3.13 (scripts/py313.sh).
# Arguments go to the first pytest run; given any, the other runs are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

# Background jobs run in process groups of their own (setsid); those still running when the
# gate stops, whatever stops it, are stopped with it, with everything they started (apt,
# debootstrap, podman), so a gate run again at once does not race them.
BACKGROUND=()
trap 'for pid in "${BACKGROUND[@]}"; do kill -- "-$pid" 2>/dev/null || true; done' EXIT
background() {  # background LOG COMMAND...: start COMMAND, its output to LOG; sets LAST_PID
  local log=$1
  shift
  setsid "$@" >"$log" 2>&1 &
  LAST_PID=$!
  BACKGROUND+=("$LAST_PID")
}

# The Debian packages (apt) and the Python environments and web UI (uv, npm) share nothing:
# on a fresh machine they are installed side by side.
SYSTEM_DEPS_LOG=$(mktemp)
background "$SYSTEM_DEPS_LOG" ./scripts/system-deps.sh
SYSTEM_DEPS_PID=$LAST_PID
./scripts/bootstrap.sh
if ! wait "$SYSTEM_DEPS_PID"; then
  cat "$SYSTEM_DEPS_LOG"
  exit 1
fi
cat "$SYSTEM_DEPS_LOG"

# Bytecode, kept: every Python process of the gate (the pytest workers, each real server and
# CLI process the tests start, some 150 in all) would otherwise compile from source each module
# it imports, Feast, SQLAlchemy, FastAPI and the tests among them. With PYTHONDONTWRITEBYTECODE
# set in the environment (as on the test machines) none is ever kept and every process pays
# again: a `serve_lineage` process took 7.3 CPU seconds to answer ready without, 4.1 with.
# The compiled files go to build/pycache, not beside the sources or into the virtualenvs;
# Python checks each against its source, so a changed file is compiled again.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"

# The Python 3.13 pass's Debian 13 root and virtualenv (scripts/py313.sh) are made in the
# background while the checks and the first passes run: on a fresh machine that is a debootstrap
# and the locked wheels for CPython 3.13 (about 3 minutes); with the root cached, a few seconds.
if [ "$#" -eq 0 ]; then
  PY313_LOG=$(mktemp)
  background "$PY313_LOG" ./scripts/py313.sh prepare
  PY313_PID=$LAST_PID
fi
# The container image that tests/image/ runs. A script of its own: it needs root and
# podman, is cached between runs (about a minute; a fresh 2-core machine took 2 to 3
# minutes for the debootstrap base, the wheels and the image, about one core busy), and
# runs alone as `scripts/image.sh build|smoke`. Without arguments it is built in the
# background while the checks and the first pass run, and tests/image/ runs once it is
# built, after that pass; given arguments, it is built first.
if [ "$#" -eq 0 ]; then
  IMAGE_LOG=$(mktemp)
  background "$IMAGE_LOG" ./scripts/image.sh build
  IMAGE_PID=$LAST_PID
else
  ./scripts/image.sh build
fi

.venv/bin/ruff format --check src tests bench
.venv/bin/ruff check src tests bench
.venv/bin/mypy
.venv/bin/lint-imports --no-cache   # the import layers of .importlinter
./scripts/api_types.sh --check
# Two workers (pytest-xdist), one test file at a time each: most tests wait on servers and
# databases, so two files at once fit a 2-core machine. Each worker starts its own
# PostgreSQL and MariaDB (session fixtures, on free ports). Two kinds of tests run apart:
# - schemathesis gives every case of the OpenAPI conformance test one node id, which
#   pytest-xdist would run once: that file runs in a process of its own beside the workers;
# - the browser tests (tests/ui) time hovers, animations and the order of requests: they
#   run after, in one process, on a machine they have to themselves.
# Given arguments, pytest runs them as it is told, in one process.
if [ "$#" -eq 0 ]; then
  CONFORMANCE=tests/consumer/test_openapi_conformance.py
  CONFORMANCE_LOG=$(mktemp)
  background "$CONFORMANCE_LOG" .venv/bin/pytest -p no:cacheprovider -p no:xdist "$CONFORMANCE"
  CONFORMANCE_PID=$LAST_PID
  .venv/bin/pytest -p no:cacheprovider -n 2 --dist loadfile --durations=25 \
    --ignore="$CONFORMANCE" --ignore=tests/ui --ignore=tests/image
  echo "==> the container image, then tests/image"
  if ! wait "$IMAGE_PID"; then
    cat "$IMAGE_LOG"
    exit 1
  fi
  cat "$IMAGE_LOG"
  .venv/bin/pytest -p no:cacheprovider tests/image
  echo "==> $CONFORMANCE"
  if ! wait "$CONFORMANCE_PID"; then
    cat "$CONFORMANCE_LOG"
    exit 1
  fi
  tail -n 1 "$CONFORMANCE_LOG"
  echo "==> the browser tests"
  .venv/bin/pytest -p no:cacheprovider --durations=10 tests/ui
else
  .venv/bin/pytest -p no:cacheprovider "$@"
fi

# Everything that reaches Feast: the producer, the registry, the configuration, the CLI, the
# registry lineage endpoints, the server processes and the UI's Feast-only view. The store
# tests know nothing of Feast and run once, above.
# Two workers, a file at a time each, as in the first pass; the browser test after, alone.
FEAST_TESTS=(
  tests/producer
  tests/registry
  tests/config
  tests/test_cli.py
  tests/test_cli_docs.py
  tests/consumer/routes/test_registry.py
  tests/consumer/test_real_server.py
)
FEAST_BROWSER_TESTS=(tests/ui/test_lineage_tab.py)
# The real server's PostgreSQL and MariaDB stores ran above: its registry is a SQLite file
# whichever store it writes to, and the store imports nothing of Feast (.importlinter), so
# here it runs on SQLite (two server processes fewer). The tests whose Feast registry or
# command is on PostgreSQL or MariaDB still run on them.
FEAST_SKIP=(-k "not (test_real_server and (postgres or mysql))")
if [ "$#" -eq 0 ]; then
  echo "==> again with Feast $(.venv-feast059/bin/python -c 'import feast; print(feast.__version__)')"
  .venv-feast059/bin/pytest -p no:cacheprovider -n 2 --dist loadfile "${FEAST_SKIP[@]}" \
    "${FEAST_TESTS[@]}"
  .venv-feast059/bin/pytest -p no:cacheprovider "${FEAST_BROWSER_TESTS[@]}"
fi
# CPython 3.13, the newest supported: Debian 13's own, in a root made by debootstrap, with Feast
# 0.67 (the store tests on PostgreSQL and MariaDB ran above; there everything runs on SQLite).
if [ "$#" -eq 0 ]; then
  if ! wait "$PY313_PID"; then
    cat "$PY313_LOG"
    exit 1
  fi
  cat "$PY313_LOG"
  ./scripts/py313.sh
fi
echo "==> the gate took $((SECONDS / 60)) min $((SECONDS % 60)) s"
