#!/usr/bin/env bash
# Set up (or bring up to date) the project's virtualenv in .venv from uv.lock.
# Idempotent: a second run only checks that everything is in place.
set -euo pipefail
cd "$(dirname "$0")/.."

UV_VERSION=0.13.9
if command -v uv >/dev/null 2>&1; then
  UV=$(command -v uv)
else
  UV=.tools/bin/uv
  if [ ! -x "$UV" ]; then
    echo "==> installing uv $UV_VERSION into .tools/"
    python3 -m venv .tools
    .tools/bin/pip install --quiet "uv==$UV_VERSION"
  fi
fi
export UV_PROJECT_ENVIRONMENT="$PWD/.venv"
"$UV" sync --locked --extra postgres --quiet
