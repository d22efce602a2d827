#!/usr/bin/env bash
# The whole gate: set up, then format check, lint, strict type check, the UI's
# generated API types up to date, every test.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/bootstrap.sh
./scripts/system-deps.sh

.venv/bin/ruff format --check src tests bench
.venv/bin/ruff check src tests bench
.venv/bin/mypy
./scripts/api_types.sh --check
.venv/bin/pytest -p no:cacheprovider "$@"
