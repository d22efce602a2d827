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
# Two locked environments, one per end of the supported Feast range (see
# pyproject.toml's dependency groups): .venv with the newest Feast, where every
# check runs, and .venv-feast059 with the oldest, where scripts/test.sh runs
# the tests that touch Feast again.
SYNC=(sync --locked --extra postgres --extra mysql --extra oidc --quiet)
UV_PROJECT_ENVIRONMENT="$PWD/.venv" "$UV" "${SYNC[@]}"
UV_PROJECT_ENVIRONMENT="$PWD/.venv-feast059" "$UV" "${SYNC[@]}" --no-group feast067 --group feast059

# The web UI: Node packages exactly as package-lock.json pins them, built by
# Vite into src/feast_lineage/webui/, which `feast-lineage ui` serves (no
# Node.js at run time). Skipped when nothing in ui/ changed since the last build.
WEBUI=src/feast_lineage/webui
if ! command -v npm >/dev/null 2>&1; then
  echo "bootstrap: npm is missing; the web UI needs Node.js 20.19+ with npm to build" >&2
  exit 1
fi
UI_SUM=$( (cd ui && cat package.json package-lock.json index.html vite.config.ts tsconfig.json tsconfig.node.json \
  && find src -type f | LC_ALL=C sort | xargs cat) | sha256sum | cut -d' ' -f1)
if [ ! -f "$WEBUI/index.html" ] || [ "$(cat "$WEBUI/.build-sum" 2>/dev/null)" != "$UI_SUM" ]; then
  echo "==> building the web UI (npm ci, then vite build into $WEBUI/)"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build >/dev/null)
  echo "$UI_SUM" > "$WEBUI/.build-sum"
fi
