"""Every rule's embedded VALID / INVALID examples, run through the real engine (Fixit-style)."""

from __future__ import annotations

import pytest

from migrate.engine import Target, analyze_file
from migrate.knowledge import newest_version
from migrate.rewrite import apply_findings
from migrate.rules import all_rules
from migrate.rules.base import Invalid

KIND_FILENAMES = {"python": "example.py", "manifest": "requirements.txt", "launcher": "run.sh", "cuda-source": "kernel.cu"}


def _cases(kind_of_case):
    for rule in all_rules():
        examples = rule.VALID if kind_of_case == "valid" else rule.INVALID
        for index, example in enumerate(examples):
            yield pytest.param(rule, example, id=f"{rule.CODE}-{kind_of_case}-{index}")


def _analyze(example, default_filename):
    code = example if isinstance(example, str) else example.code
    kind = "python" if isinstance(example, str) else example.kind
    filename = default_filename if isinstance(example, str) else (example.filename if example.filename != "example.py" else KIND_FILENAMES.get(kind, "example.py"))
    kinds = (kind,) if kind != "python" or not filename.endswith("setup.py") else ("python", "manifest")
    result = analyze_file(Target(filename, kinds), code.encode("utf-8"), newest_version())
    assert not result.errors, result.errors
    return code, result.findings


@pytest.mark.parametrize("rule,example", list(_cases("valid")))
def test_valid_examples_have_no_finding(rule, example):
    _, findings = _analyze(example, "example.py")
    assert [f for f in findings if f.code == rule.CODE] == []


@pytest.mark.parametrize("rule,example", list(_cases("invalid")))
def test_invalid_examples_are_found_and_fixed(rule, example: Invalid):
    code, findings = _analyze(example, "example.py")
    mine = [f for f in findings if f.code == rule.CODE]
    assert mine, f"{rule.CODE} did not fire on {code!r}"
    if example.count is not None:
        assert len(mine) == example.count
    for f in mine:
        assert 1 <= f.line <= f.end_line and f.column >= 1
        assert f.severity is not None and f.message
    if example.expected is not None:
        assert rule.FIXABLE, "only fixable rules may give an expected rewrite"
        fixed, applied, _ = apply_findings(code, mine)
        assert applied
        assert fixed == example.expected


def test_every_rule_has_examples_and_docs():
    for rule in all_rules():
        assert rule.VALID and rule.INVALID, rule.CODE
        assert rule.docs(), rule.CODE
        assert rule.CODE.startswith("NPU") and len(rule.CODE) == 6
        hundreds = {"1": "device", "2": "identity", "3": "distributed", "4": "amp", "5": "third-party", "6": "ops", "7": "environment", "8": "training"}
        assert str(rule.CATEGORY) == hundreds[rule.CODE[3]], rule.CODE
        if rule.FIXABLE:
            assert any(isinstance(e, Invalid) and e.expected for e in rule.INVALID), f"{rule.CODE} is fixable but shows no rewrite"
