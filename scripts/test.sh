#!/usr/bin/env bash
# The whole gate: set up, then format check, lint, strict type check, import
# layers, the UI's generated API types up to date, every test.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/bootstrap.sh
./scripts/system-deps.sh

.venv/bin/ruff format --check src tests bench
.venv/bin/ruff check src tests bench
.venv/bin/mypy
.venv/bin/lint-imports --no-cache   # the import layers of .importlinter
./scripts/api_types.sh --check
.venv/bin/pytest -p no:cacheprovider "$@"
