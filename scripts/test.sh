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
# The container image that tests/image/ runs. A script of its own: it needs root and
# podman, is cached between runs (about a minute; a fresh 2-core machine took 10.5
# minutes for the debootstrap base, the wheels and the image), and runs alone as
# `scripts/image.sh build|smoke`.
./scripts/image.sh build
.venv/bin/pytest -p no:cacheprovider "$@"
