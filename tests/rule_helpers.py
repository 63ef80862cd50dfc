"""Helpers for the rule tests grouped by code family (`test_rules_npu*.py`). No torch import."""

from __future__ import annotations

import ast

from migrate import knowledge
from migrate.context import PythonContext
from migrate.engine import Target, analyze_file
from migrate.rewrite import apply_findings
from migrate.rules import rules_by_code

VERSION = knowledge.newest_version()

# The codes about torch APIs (device, identity, AMP): their tests look at these findings only.
TORCH_API_CODES = (
    "NPU102", "NPU103", "NPU104", "NPU105",
    "NPU201", "NPU202", "NPU203", "NPU204", "NPU205", "NPU206", "NPU207",
    "NPU401", "NPU402", "NPU403", "NPU404",
)  # fmt: skip


def analyze(code: str, filename: str = "example.py", kinds: tuple[str, ...] = ("python",), version: str = VERSION):
    """Every finding of one file through the real engine (which must read it without errors)."""
    result = analyze_file(Target(filename, kinds), code.encode("utf-8"), version)
    assert not result.errors, result.errors
    return list(result.findings)


def of_code(findings, code: str) -> list:
    return [f for f in findings if f.code == code]


def analyze_api(source: str, version: str | None = None, filename: str = "example.py"):
    return [f for f in analyze(source, filename, version=version or VERSION) if f.code in TORCH_API_CODES]


def api_codes(source: str, version: str | None = None) -> list[str]:
    return [f.code for f in analyze_api(source, version)]


def fix(source: str, only: tuple[str, ...] = TORCH_API_CODES, version: str | None = None) -> str:
    """The source with the edits of the findings of `only` applied (apply's own edit applier)."""
    findings = [f for f in analyze_api(source, version) if f.code in only]
    fixed, _, _ = apply_findings(source, findings)
    return fixed


def fix_and_recheck(code: str, code_id: str, filename: str, kinds: tuple[str, ...]) -> str:
    found = of_code(analyze(code, filename, kinds), code_id)
    assert found and all(f.fixable for f in found), found
    fixed, applied, _ = apply_findings(code, found)
    assert applied
    assert of_code(analyze(fixed, filename, kinds), code_id) == []
    return fixed


def spanned(source: str, finding) -> str:
    """The source text a finding points at (columns are 1-based, end exclusive)."""
    lines = source.splitlines(keepends=True)
    if finding.line == finding.end_line:
        return lines[finding.line - 1][finding.column - 1 : finding.end_column - 1]
    parts = [lines[finding.line - 1][finding.column - 1 :], *lines[finding.line : finding.end_line - 1]]
    return "".join(parts) + lines[finding.end_line - 1][: finding.end_column - 1]


def run_rule(code: str, source: str, kb) -> list:
    """Run one rule directly on a context with a given (possibly altered) knowledge base."""
    ctx = PythonContext("example.py", source, ast.parse(source), kb)
    return list(rules_by_code()[code]().check(ctx))


# (code, source, expected rewrite or None when reported but not rewritten): import aliases of every kind
ALIASES = [
    ("NPU102", "import torch as th\nth.cuda.synchronize()", "import torch as th\nth.npu.synchronize()"),
    ("NPU102", "import torch.cuda\ntorch.cuda.empty_cache()", "import torch.cuda\ntorch.npu.empty_cache()"),
    ("NPU102", "from torch import cuda\ncuda.empty_cache()", None),  # reported, not rewritten
    ("NPU102", "import torch.cuda as tc\ntc.synchronize()", None),
    ("NPU102", "from torch.cuda import *\nsynchronize()", None),  # star import: resolved, not rewritten
    ("NPU102", "from torch.cuda import synchronize as sync\nsync()", "from torch.npu import synchronize as sync\nsync()"),
    ("NPU103", "from torch.cuda.nvtx import range_push\nrange_push('x')", None),
    ("NPU203", "import torch as T\nif T.cuda.is_available(): pass", "import torch as T\nif T.npu.is_available(): pass"),
    ("NPU401", "import torch as th\ns = th.cuda.amp.GradScaler()", "import torch as th\ns = th.npu.amp.GradScaler()"),
    ("NPU401", "from torch.cuda import amp\nwith amp.autocast(): pass", "from torch.npu import amp\nwith amp.autocast(): pass"),
    ("NPU401", "from torch.cuda.amp import autocast as ac\nwith ac(): pass", "from torch.npu.amp import autocast as ac\nwith ac(): pass"),
    ("NPU401", "from torch.cuda.amp import *\ns = GradScaler()", None),
    ("NPU401", "import torch.cuda.amp as camp\ns = camp.GradScaler()", None),
    ("NPU402", 'from torch import autocast\nwith autocast("cuda"): pass', 'from torch import autocast\nwith autocast("npu"): pass'),
    ("NPU402", 'import torch.amp as tamp\nwith tamp.autocast(device_type="cuda"): pass', 'import torch.amp as tamp\nwith tamp.autocast(device_type="npu"): pass'),
    ("NPU403", 'from torch.amp import GradScaler as GS\ns = GS("cuda")', 'from torch.amp import GradScaler as GS\ns = GS("npu")'),
    ("NPU404", "import apex.amp as aamp\naamp.initialize(m, o)", None),
    ("NPU404", "from apex import amp as apex_amp\napex_amp.scale_loss(l, o)", None),
    ("NPU105", "from torch.nn.parallel import DistributedDataParallel as DDP\nDDP(m, device_ids=[0])", None),
    ("NPU105", "import torch.nn.parallel as par\npar.DistributedDataParallel(m, output_device=0)", None),
    ("NPU204", "from torch.cuda import get_device_capability as cap\nif cap() >= (8, 0): pass", None),
    ("NPU205", "import torch.version\nv = torch.version.cuda.split('.')", None),
    ("NPU206", "from torch.backends import cudnn as cd\ncd.deterministic = True", None),
    ("NPU207", "import torch.backends.cuda as tbc\ntbc.matmul.allow_tf32 = False", None),
    ("NPU104", 'from torch import device as D\nd = D("cuda:1")', 'from torch import device as D\nd = D("npu:1")'),
]
