#!/usr/bin/env bash
# Create ./.venv (if missing) and install npu-migrate with the given extras (default: test), then fill the
# wheel cache the tests read (scripts/fetch_wheels.py: downloaded, never installed). Says each step on
# stderr, and while pip works (minutes on a first run) where it is every 15 s; pip's own output goes to
# .venv/setup.log. Never installs torch_npu: on a host without Ascend CANN it breaks `import torch` itself.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-test}"
PYTHON="${PYTHON:-python3}"
LOG=.venv/setup.log
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv (first run: torch 2.14.1 + torchvision 0.29.1 + mindstudio-probe, several minutes)" >&2
    "$PYTHON" -m venv .venv
fi
# run "$@" with its output in the log; every 15 s say how long it has run and pip's latest step
install() {
    local what="$1"
    shift
    echo "setup: $what" >&2
    "$@" >>"$LOG" 2>&1 &
    local pid=$! start=$SECONDS last=$SECONDS step shown=""
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        if [ $((SECONDS - last)) -ge 15 ]; then
            last=$SECONDS
            step=$(grep -E "^ *(Collecting|Downloading|Using cached|Building|Installing)" "$LOG" | tail -1 | cut -c1-110 || true)
            if [ "$step" = "$shown" ]; then  # pip is still on it (unpacking torch's wheels takes minutes)
                echo "setup:   ... $((SECONDS - start)) s" >&2
            else
                echo "setup:   ... $((SECONDS - start)) s${step:+: ${step# *}}" >&2
                shown=$step
            fi
        fi
    done
    if ! wait "$pid"; then
        echo "setup failed: $*" >&2
        grep -v "^WARNING: Location" "$LOG" | tail -30 >&2
        exit 2
    fi
}
: >"$LOG"
install "upgrading pip" .venv/bin/python -m pip install --upgrade pip
# torch/torchvision are pinned in pyproject.toml (2.14.1 / 0.29.1)
install "installing npu-migrate[${EXTRAS}] and its dependencies (log: $LOG)" .venv/bin/python -m pip install -e ".[${EXTRAS}]"
.venv/bin/python -c "import migrate, click, libcst" >/dev/null
if .venv/bin/python -c "import importlib.util,sys; sys.exit(0 if importlib.util.find_spec('torch_npu') else 1)"; then
    echo "error: torch_npu is installed in .venv; remove it (it breaks torch without Ascend CANN)" >&2
    exit 2
fi
# the wheels tests read as zips; a failed download is said (WARNING) and those tests skip, set-up goes on
if ! .venv/bin/python scripts/fetch_wheels.py; then
    echo "setup: the wheel cache is incomplete (see the WARNING above): the tests that read those wheels will skip" >&2
fi
echo "setup: done" >&2
