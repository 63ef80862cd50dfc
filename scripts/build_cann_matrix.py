"""Generate migrate/knowledge/data/cann_matrix.json: which CANN each torch_npu release is published
for, read from the vendor's own table (developer-run, never in CI).

Source: Ascend/pytorch COMPATIBILITY.en.md, "TorchNPU version mapping table" (active rows and the
historical/EOL rows in the <details> block): `| torch_npu | branch | PyTorch | CANN x |`.
Usage: python scripts/build_cann_matrix.py GIT_DIR   (a clone or `fetch github:Ascend/pytorch` mirror)
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "migrate" / "knowledge" / "data" / "cann_matrix.json"
FILE = "COMPATIBILITY.en.md"
_ROW = re.compile(r"^\|\s*([\w.]+)(?:\s*\(beta\))?\s*\|\s*([\w.\-]+)\s*\|\s*([\d.]+)\s*\|\s*CANN ([\w.]+)\s*\|$")


def parse(markdown: str) -> list[dict]:
    rows = []
    for line in markdown.splitlines():
        match = _ROW.match(line.strip())
        if match:
            npu, branch, torch, cann = match.groups()
            rows.append({"torch_npu": npu, "branch": branch, "torch": torch, "cann": cann})
    return rows


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    git_dir = args[0]
    commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    text = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{FILE}"], check=True,
                          capture_output=True, text=True).stdout
    rows = parse(text)
    data = {"source": {"repo": "Ascend/pytorch", "commit": commit, "path": FILE,
                       "table": "TorchNPU version mapping table (active and historical rows)"},
            "generator": "scripts/build_cann_matrix.py", "rows": rows}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{OUT}: {len(rows)} rows from Ascend/pytorch@{commit[:12]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
