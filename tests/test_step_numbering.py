"""One step numbering everywhere (issue 16): steps count from 1 in smoke's table, validate's losses.csv,
its summary and its messages. Step k's loss is computed before the k-th optimizer update.

A real validate run of a wrong learning rate (tests/validate_cases/wrong_lr_npu.py): its losses.csv is
read back, and the migrated run's own smoke result (migrated/smoke.json) is rendered by smoke's
renderer; both must give every loss the same step number, and the "diverge at step N" line must name
the first CSV row out of tolerance.
"""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from tests.helpers import run_cli

CASES = Path(__file__).resolve().parent / "validate_cases"


def _smoke_table(result_json: dict) -> dict[int, float]:
    from rich.console import Console

    from checks.verdict.smoke import SmokeResult

    values = dict(result_json)
    for key in ("losses", "step_times", "unsupported_ops", "float64_ops", "warnings", "reasons", "notes"):
        values[key] = tuple(values.get(key) or ())
    out = io.StringIO()
    from checks.smoke.run import render

    render(SmokeResult(**values), Console(file=out, width=200))
    rows = re.findall(r"│\s*(\d+)\s*│\s*([-0-9.e+]+)\s*│", out.getvalue())
    assert rows, out.getvalue()
    return {int(step): float(loss) for step, loss in rows}


@pytest.mark.runtime
def test_losses_csv_and_the_smoke_table_number_steps_alike(tmp_path):
    pytest.importorskip("msprobe")
    out = tmp_path / "out"
    proc = run_cli("validate", str(CASES / "train_gpu.py"), str(CASES / "wrong_lr_npu.py"), "--steps", "3", "-q",
                   "--no-dump", "--out", str(out))
    text = proc.stdout.decode()
    assert proc.returncode == 1, text + proc.stderr.decode()

    with open(out / "losses.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    csv_steps = [int(r["step"]) for r in rows]
    assert csv_steps == [1, 2, 3]

    table = _smoke_table(json.loads((out / "migrated" / "smoke.json").read_text()))
    assert sorted(table) == csv_steps
    for r in rows:  # the table shows 6 significant digits
        assert float(r["migrated_loss"]) == pytest.approx(table[int(r["step"])], rel=1e-5)

    first_bad = next(int(r["step"]) for r in rows if r["within_tolerance"] == "0")
    assert first_bad == 2  # step 1's loss comes from the same initial weights
    assert f"losses: diverge at step {first_bad};" in text
    assert f"loss diverges at step {first_bad}:" in text
    data = json.loads((out / "validate.json").read_text())
    assert data["losses"]["first_divergence"] == first_bad
    assert f"| {first_bad} |" in (out / "summary.md").read_text()
