"""Golden rewrites: every fixture case's files after `apply`, in `fixtures/gpu_scripts/<case>/expected/`.

Only files that change have an expected copy; a file without one must come out byte-identical.
Regenerate after an intended change with `pytest tests/test_apply_golden.py --update-golden`, then
read the diff (`git diff fixtures/`) before committing it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from migrate.config import Config
from migrate.engine import Target, analyze_file
from migrate.knowledge import newest_version
from migrate.rewrite import ApplyOptions, plan_tree, rewrite_file
from tests.conftest import FIXTURES

CASES = sorted(p for p in FIXTURES.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
EXPECTED = "expected"


def options() -> ApplyOptions:
    return ApplyOptions(torch_npu_version=newest_version(), config=Config(exclude=(EXPECTED, "expected_findings.txt", "CASE.md")))


def rewrites(case: Path):
    result = plan_tree(str(case), options(), jobs=1)
    return {os.path.relpath(f.path, case): f for f in result.files}


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_fixture_rewrite_matches_golden(case: Path, update_golden: bool):
    files = rewrites(case)
    expected_dir = case / EXPECTED
    actual = {rel: f.output for rel, f in files.items() if f.changed}
    if update_golden or not expected_dir.exists() and actual:
        if expected_dir.exists():
            shutil.rmtree(expected_dir)
        for rel, data in actual.items():
            target = expected_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if not update_golden:
            pytest.fail(f"{expected_dir} did not exist; written now, review it and run again")
    golden = {}
    if expected_dir.exists():
        golden = {str(p.relative_to(expected_dir)): p.read_bytes() for p in expected_dir.rglob("*") if p.is_file()}
    assert sorted(actual) == sorted(golden)
    for rel in actual:
        assert actual[rel] == golden[rel], f"{case.name}/{rel} differs from {EXPECTED}/{rel}"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_fixture_rewrite_is_idempotent_and_leaves_nothing_fixable(case: Path):
    version = newest_version()
    for rel, first in rewrites(case).items():
        second = rewrite_file(first.path, first.output, options=options(), version=version)
        assert second.output == first.output, f"{case.name}/{rel}: a second apply changed it"
        from migrate.sources import classify

        left = analyze_file(Target(first.path, classify(first.path) or ("python",)), first.output, version)
        assert [f for f in left.findings if f.fixable] == [], f"{case.name}/{rel}: fixable findings left"


def test_clean_case_is_byte_identical():
    assert not any(f.changed for f in rewrites(FIXTURES / "clean_cpu").values())
