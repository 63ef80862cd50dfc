"""Rules NPU2xx device identity: beyond their embedded examples (aliases, false-positive traps, exact
spans, idempotent fixes, data-driven decisions), through the real engine and knowledge data.

Static tests: torch is never imported here.
"""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from migrate.knowledge import load, newest_version
from tests.rule_helpers import ALIASES, fix, run_rule
from tests.rule_helpers import analyze_api as analyze


def test_is_cuda_rewrite_needs_the_data_to_confirm_is_npu():
    kb = load(newest_version())
    source = "if x.is_cuda: pass"
    confirmed = run_rule("NPU202", source, dataclasses.replace(kb, tensor_npu_methods=True))
    unconfirmed = run_rule("NPU202", source, dataclasses.replace(kb, tensor_npu_methods=False))
    assert confirmed[0].fixable and not unconfirmed[0].fixable
    assert "is_npu" in unconfirmed[0].message and "does not confirm" in unconfirmed[0].message


def test_device_type_compare_variants():
    source = textwrap.dedent(
        """\
        a = x.device.type != "cuda"
        b = device_type == 'cuda'
        c = str(dev).startswith(("cuda", "mps"))
        d = x.device.type not in {"cuda"}
        e = x.device.type == "mps"
        """
    )
    assert [f.code for f in analyze(source)] == ["NPU201"] * 4
    fixed = fix(source)
    assert fixed.count('"npu"') + fixed.count("'npu'") == 4 and '"mps"' in fixed


def test_cudnn_one_finding_per_statement_and_writes_included():
    source = "import torch\ntorch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = True, False\nx = torch.backends.cudnn.enabled\n"
    findings = analyze(source)
    assert [(f.code, f.line) for f in findings] == [("NPU206", 2), ("NPU206", 3)]
    assert "benchmark" in findings[0].message and "deterministic" in findings[0].message


@pytest.mark.parametrize("code,source,expected", [a for a in ALIASES if a[0].startswith("NPU2")],
                         ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(ALIASES) if c.startswith("NPU2")])
def test_alias(code, source, expected):
    mine = [f for f in analyze(source) if f.code == code]
    if code in ("NPU206", "NPU207"):  # the cudnn / backends.cuda import line is its own construct (issue 11)
        mine = [f for f in mine if not source.splitlines()[f.line - 1].lstrip().startswith(("import ", "from "))]
    assert len(mine) == 1, [(f.code, f.message) for f in analyze(source)]
    if expected is None:
        assert not mine[0].fixable and mine[0].edits == ()
    else:
        assert mine[0].fixable
        assert fix(source, (code,)) == expected
