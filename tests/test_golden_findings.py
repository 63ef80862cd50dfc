"""Golden files: each fixture case's expected findings (`expected_findings.txt` in the case folder).

Regenerate after an intended change with `pytest tests/test_golden_findings.py --update-golden`,
then read the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from migrate.config import Config
from migrate.engine import scan
from migrate.knowledge import newest_version
from tests.conftest import FIXTURES

CASES = sorted(p for p in FIXTURES.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
GOLDEN = "expected_findings.txt"


def render(case: Path) -> str:
    cwd = os.getcwd()
    os.chdir(case)
    try:
        result = scan(["."], Config(exclude=("expected", GOLDEN, "CASE.md")), use_cache=False, jobs=1,
                      torch_npu_version=newest_version())
    finally:
        os.chdir(cwd)
    lines = [f"{e.path}:{e.line}:{e.column}: {e.code} {e.message}" for e in result.errors]
    for f in result.findings:
        where = f.path if f.cell is None else f"{f.path}[cell {f.cell}]"
        lines.append(f"{where}:{f.line}:{f.column}: {f.code} {f.severity} {'fixable' if f.fixable else 'manual'} {f.message}")
    return "\n".join(line.replace("./", "", 1) for line in lines) + "\n"


def test_there_are_enough_realistic_cases():
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_fixture_findings_match_golden(case: Path, update_golden: bool):
    actual = render(case)
    golden = case / GOLDEN
    if update_golden or not golden.exists():
        golden.write_text(actual, encoding="utf-8")
        if not update_golden:
            pytest.fail(f"{golden} did not exist; written now, review it and run again")
    assert actual == golden.read_text(encoding="utf-8")


def test_clean_script_has_no_findings():
    assert render(FIXTURES / "clean_cpu").strip() == ""
