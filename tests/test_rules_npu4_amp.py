"""Rules NPU4xx AMP: beyond their embedded examples (aliases, false-positive traps, exact
spans, idempotent fixes, data-driven decisions), through the real engine and knowledge data.

Static tests: torch is never imported here.
"""

from __future__ import annotations

import dataclasses

import pytest

from migrate.knowledge import load, newest_version
from tests.rule_helpers import ALIASES, fix, run_rule
from tests.rule_helpers import analyze_api as analyze


def test_same_import_edit_from_several_uses_is_applied_once():
    source = "from torch.cuda.amp import GradScaler, autocast\ns = GradScaler()\nwith autocast():\n    pass\nwith autocast():\n    pass"
    findings = [f for f in analyze(source) if f.code == "NPU401"]
    # reported where apply edits (issue 11): at the import, once per imported name
    assert sorted((f.line, f.column) for f in findings) == [(1, 28), (1, 40)]
    assert fix(source).splitlines()[0] == "from torch.npu.amp import GradScaler, autocast"


def test_cuda_amp_not_fixable_when_data_lacks_npu_amp():
    kb = load(newest_version())
    modules = {k: v for k, v in kb.modules.items() if not k.startswith("torch_npu.npu.amp")}
    modules["torch_npu.npu"] = frozenset(n for n in kb.modules["torch_npu.npu"] if n != "amp")
    without_amp = dataclasses.replace(kb, modules=modules)
    assert not without_amp.has_api("torch.npu.amp.GradScaler")
    findings = run_rule("NPU401", "import torch\ns = torch.cuda.amp.GradScaler()", without_amp)
    assert len(findings) == 1 and not findings[0].fixable and findings[0].edits == ()
    assert "torch.npu.amp" not in findings[0].message
    with_amp = run_rule("NPU401", "import torch\ns = torch.cuda.amp.GradScaler()", kb)
    assert with_amp[0].fixable


def test_crlf_and_multiline_import_rewrite():
    source = "import torch\r\nfrom torch.cuda.amp import (\r\n    GradScaler,\r\n)\r\ns = GradScaler()\r\n"
    assert fix(source) == "import torch\r\nfrom torch.npu.amp import (\r\n    GradScaler,\r\n)\r\ns = GradScaler()\r\n"


def test_grad_scaler_insert_goes_inside_the_parentheses():
    source = "import torch\ns = torch.amp.GradScaler (  # keep\n    init_scale=2.0**10)\n"
    assert fix(source) == 'import torch\ns = torch.amp.GradScaler (  # keep\n    init_scale=2.0**10)\n'.replace("(  #", '("npu",   #')


@pytest.mark.parametrize("code,source,expected", [a for a in ALIASES if a[0].startswith("NPU4")],
                         ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(ALIASES) if c.startswith("NPU4")])
def test_alias(code, source, expected):
    mine = [f for f in analyze(source) if f.code == code]
    assert len(mine) == 1, [(f.code, f.message) for f in analyze(source)]
    if expected is None:
        assert not mine[0].fixable and mine[0].edits == ()
    else:
        assert mine[0].fixable
        assert fix(source, (code,)) == expected


@pytest.mark.parametrize("version,reported", [("2.1.0", True), ("2.3.1", False), (newest_version(), False)])
def test_old_torch_gradscaler_fallback_depends_on_the_target_torch(version, reported):
    """timm / open_clip: `try: torch.amp.GradScaler(device=...) except (AttributeError, TypeError):
    torch.cuda.amp.GradScaler()`. The fallback only runs on a torch without torch.amp.GradScaler
    (before 2.3), so it is a construct for the 2.1 release line and dead code after."""
    source = (
        "import torch\ntry:\n    scaler = torch.amp.GradScaler(device=device)\n"
        "except (AttributeError, TypeError):\n    scaler = torch.cuda.amp.GradScaler()\n"
    )
    found = [f.line for f in analyze(source, version) if f.code == "NPU401"]
    assert found == ([5] if reported else [])
    # the same fallback with torch.amp.autocast in the body is dead code on every supported line
    auto = source.replace("GradScaler(device=device)", 'autocast("cuda")').replace("amp.GradScaler()", "amp.autocast()")
    assert [f for f in analyze(auto, version) if f.code == "NPU401"] == []
