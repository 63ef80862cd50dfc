"""`python -c '...'` in a launcher is Python (migrate/shell_python.py): not where the line is a comment or echo text,
and not an import that only reads the package's installation metadata (a `pip show`-like query)."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

INSTALL = """#!/bin/bash
# Auto-detects the installed vLLM directory via `python3 -c 'import vllm'`.
echo "run: python3 -c 'import vllm'"
VLLM_DIR=$(python3 -c 'import vllm, os; print(os.path.dirname(vllm.__file__))')
python3 -c 'import vllm; print(vllm.LLM)'
python3 -c "import vllm as v; print(v.__version__)"
"""


def test_inline_python_in_comments_echo_and_metadata_probes_is_no_import(tmp_path: Path):
    write_files(tmp_path, {"tools/install.sh": INSTALL})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "tools/install.sh") == [5]
