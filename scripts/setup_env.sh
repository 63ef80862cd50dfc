#!/usr/bin/env bash
# Create ./.venv (if missing) and install npu-migrate with the given extras (default: test).
# Never installs torch_npu: on a host without Ascend CANN it breaks `import torch` itself.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-test}"
PYTHON="${PYTHON:-python3}"
LOG=.venv/setup.log
if [ ! -x .venv/bin/python ]; then
    echo "setting up .venv (first run: torch 2.14.1 + torchvision 0.29.1 + mindstudio-probe, several minutes)" >&2
    "$PYTHON" -m venv .venv
fi
install() {
    if ! "$@" >>"$LOG" 2>&1; then
        echo "setup failed: $*" >&2
        grep -v "^WARNING: Location" "$LOG" | tail -30 >&2
        exit 2
    fi
}
: >"$LOG"
install .venv/bin/python -m pip install --upgrade pip
# torch/torchvision are pinned in pyproject.toml (2.14.1 / 0.29.1)
install .venv/bin/python -m pip install -e ".[${EXTRAS}]"
.venv/bin/python -c "import migrate, click, libcst" >/dev/null
if .venv/bin/python -c "import importlib.util,sys; sys.exit(0 if importlib.util.find_spec('torch_npu') else 1)"; then
    echo "error: torch_npu is installed in .venv; remove it (it breaks torch without Ascend CANN)" >&2
    exit 2
fi
