#!/usr/bin/env bash
# Set everything up and run the main job on the bundled example:
# GPU script -> analyze -> apply (with the diff) -> smoke on the CPU-backed torch_npu stand-in.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh test
EXAMPLE=fixtures/gpu_scripts/cnn_cifar/train.py
OUT="${OUT:-out/demo}"
mkdir -p "$OUT"
NPU=.venv/bin/npu-migrate
echo "== 1. analyze $EXAMPLE"
"$NPU" analyze "$EXAMPLE" || true   # exit 1 = findings, expected for a GPU script
echo
echo "== 2. apply: the diff it will make"
"$NPU" apply "$EXAMPLE" --diff || true
echo
echo "== 3. apply -> $OUT/npu_train.py and smoke it on the NPU, or on the CPU-backed torch_npu stand-in"
"$NPU" apply "$EXAMPLE" -o "$OUT/npu_train.py" --force --config-pack "$OUT/npu_config_pack.zip" \
    --report "$OUT/changes.json" --smoke --steps 10 --fake-data
