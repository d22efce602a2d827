#!/usr/bin/env bash
# The web UI's API types, generated from the server's own description of its API:
#   ui/src/api/openapi.json  the OpenAPI document of create_app (no server runs)
#   ui/src/api/schema.d.ts   its TypeScript types, by openapi-typescript
# Both are committed.
#
#   ./scripts/api_types.sh          regenerate both (after changing consumer/schemas.py or a route)
#   ./scripts/api_types.sh --check  fail when either is stale (scripts/test.sh runs this)
set -euo pipefail
cd "$(dirname "$0")/.."

API_DIR=ui/src/api

# Writes openapi.json and schema.d.ts into the directory $1.
generate() {
  # Every endpoint: the consumer's, the registry's and the UI's.
  .venv/bin/python - >"$1/openapi.json" <<'PY'
import json

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings

settings = AppSettings(consumer=ConsumerSettings(), database_url="sqlite://", serve_ui=True)
print(json.dumps(create_app(settings).openapi(), indent=2, ensure_ascii=False))
PY
  if [ ! -x ui/node_modules/.bin/openapi-typescript ]; then
    (cd ui && npm ci --no-audit --no-fund --loglevel=error)
  fi
  local log
  log=$(mktemp)
  if ! ui/node_modules/.bin/openapi-typescript "$1/openapi.json" --output "$1/schema.d.ts" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}

case "${1:-}" in
  "")
    generate "$API_DIR"
    echo "api_types: wrote $API_DIR/openapi.json and $API_DIR/schema.d.ts"
    ;;
  --check)
    fresh=$(mktemp -d)
    trap 'rm -rf "$fresh"' EXIT
    generate "$fresh"
    stale=0
    for file in openapi.json schema.d.ts; do
      if ! diff -u "$API_DIR/$file" "$fresh/$file" >"$fresh/$file.diff"; then
        echo "api_types: $API_DIR/$file is stale; its difference from the server's API:" >&2
        head -n 40 "$fresh/$file.diff" >&2
        stale=1
      fi
    done
    if [ "$stale" -ne 0 ]; then
      echo "api_types: regenerate with ./scripts/api_types.sh, then commit the result" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac
