"""What Huawei's msFmkTransplt gets wrong (measured, see shared FACTS) is what users compare us on.
Each test here pins one of those behaviours in our tool."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import Target, analyze_file
from migrate.knowledge import load, newest_version
from tests.helpers import analyze_json

IGNORED_BY_MSFMKTRANSPLT = '''\
import os
import subprocess

import torch
import torch.nn as nn

os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
print(torch.version.cuda)
rank = int(os.environ.get("LOCAL_RANK", 0))
device = torch.device(f"cuda:{rank}")

try:
    from apex.optimizers import FusedAdam
except ImportError:
    raise SystemExit("this script needs apex")
import triton
import bitsandbytes as bnb
import xformers.ops
from deepspeed.ops.transformer import DeepSpeedTransformerLayer

subprocess.run(["nvidia-smi"])
'''

EXPECTED = {
    "NPU701": "CUDA_VISIBLE_DEVICES",
    "NPU703": "PYTORCH_CUDA_ALLOC_CONF",
    "NPU206": "cudnn",
    "NPU207": "allow_tf32",
    "NPU205": "torch.version.cuda",
    "NPU104": 'f"cuda:{rank}"',
    "NPU504": "nvidia-smi",
}


def _findings(source: str, version: str | None = None):
    result = analyze_file(Target("train.py", ("python",)), source.encode(), version or newest_version())
    assert not result.errors
    return result.findings


def test_constructs_msfmktransplt_ignores_are_found():
    findings = _findings(IGNORED_BY_MSFMKTRANSPLT)
    lines = IGNORED_BY_MSFMKTRANSPLT.splitlines()
    by_code = {}
    for f in findings:
        by_code.setdefault(f.code, []).append(lines[f.line - 1])
    for code, text in EXPECTED.items():
        assert code in by_code, f"{code} missing; got {sorted(by_code)}"
        assert any(text in line for line in by_code[code]), (code, by_code[code])
    third_party = " ".join(by_code.get("NPU501", []))
    for package in ("apex", "triton", "bitsandbytes", "xformers", "deepspeed"):
        assert package in third_party, package


def test_nvtx_and_cudart_are_not_mapped_to_apis_torch_npu_lacks():
    findings = _findings("import torch\ntorch.cuda.nvtx.range_push('x')\ntorch.cuda.cudart()\n")
    codes = {f.line: f for f in findings}
    for line in (2, 3):
        assert codes[line].code == "NPU103" and not codes[line].fixable
    kb = load(newest_version())
    assert not kb.has_api("torch.npu.nvtx") and not kb.has_api("torch.npu.cudart")
    assert "mstx" in codes[2].message


def test_ordinary_ops_are_not_reported_unsupported():
    source = (
        "import torch\nimport torch.nn as nn\n"
        "pool = nn.MaxPool2d(2)\nloss = nn.functional.cross_entropy(torch.randn(2, 3), torch.tensor([0, 1]))\n"
        "torch.nn.utils.clip_grad_norm_(pool.parameters(), 1.0)\n"
    )
    for version in ("2.1.0", "2.13.0", newest_version()):
        assert [f for f in _findings(source, version) if f.code == "NPU601"] == []


def test_findings_exit_nonzero_and_paths_with_plus_work(tmp_path: Path):
    folder = tmp_path / "repo+v1.0 (copy)"
    folder.mkdir()
    (folder / "train+old.py").write_text("import torch\nmodel = torch.nn.Linear(1, 1).cuda()\n")
    rc, report = analyze_json(str(folder))
    assert rc == 1 and report["findings"][0]["path"].endswith("train+old.py")
