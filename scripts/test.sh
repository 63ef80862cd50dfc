#!/usr/bin/env bash
# Set everything up, lint the whole tree with ruff, then run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh test
.venv/bin/python -m ruff check .
.venv/bin/python -m pytest -n auto -q "$@"
