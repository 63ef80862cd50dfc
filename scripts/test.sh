#!/usr/bin/env bash
# Set everything up, lint the whole tree with ruff, then run the test suite in three lanes, in this
# order, stopping at the first lane that fails (what CI runs):
#   static   no torch (parsers, rules, rewrites, reports)        `scripts/test.sh --fast` runs only this
#   runtime  one test per runtime mechanism (smoke children, torchrun ranks)
#   e2e      real scripts end to end and every README command (slow)
# pytest prints the 15 slowest tests of each lane. Other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
if [ "${1:-}" = "--fast" ]; then
    fast=1
    shift
fi
bash scripts/setup_env.sh test
.venv/bin/python -m ruff check .

lane() {
    local name="$1" expr="$2"
    shift 2
    echo "== lane $name (-m \"$expr\")"
    local rc=0
    .venv/bin/python -m pytest -n auto -q --durations=15 -m "$expr" "$@" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then  # 5: no test in this lane (e.g. a -k that selects none)
        echo "lane $name failed (pytest exit $rc); later lanes not run" >&2
        exit "$rc"
    fi
}

lane static "static" "$@"
if [ "$fast" -eq 1 ]; then
    exit 0
fi
lane runtime "runtime and not e2e" "$@"
lane e2e "e2e" "$@"
