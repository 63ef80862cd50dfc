"""smoke notes a loss that rose at every step (issue 16), in its text output and its JSON; never a verdict.

The rule itself on plain sequences, then one real run: tests/smoke_cases/rising_loss.py climbs its loss
(SGD with maximize=True) and still passes, with the note; a script whose loss falls gets no note.
"""
from __future__ import annotations

import json
import os
import shutil

import pytest

from checks.verdict.loss_trend import rising_note
from tests.helpers import run_cli

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "smoke_cases")


@pytest.mark.parametrize("losses, noted", [
    ([2.70, 4.22, 5.67], True),
    ([1.0, 1.5, 1.6, 9.0], True),
    ([2.70, 4.22], False),  # one rise is not a trend
    ([2.70, 4.22, 4.22], False),  # flat is not a rise
    ([2.70, 2.10, 5.67], False),
    ([3.0, 2.0, 1.0], False),
    ([1.0, 2.0, float("nan")], False),  # a non-finite loss is a failure reason of its own
    ([], False),
])
def test_rising_note_only_when_every_step_rose(losses, noted):
    note = rising_note(losses)
    assert (note is not None) == noted
    if noted:
        assert note.startswith(f"loss rose at every step: {losses[0]:.3g} -> {losses[-1]:.3g}")
        assert "learning rate" in note


def test_rising_note_names_the_first_and_last_loss():
    assert rising_note([2.70, 4.22, 5.67]).startswith("loss rose at every step: 2.7 -> 5.67 over 3 steps;")


@pytest.mark.runtime
def test_a_script_whose_loss_rises_passes_with_the_note_in_text_and_json(tmp_path):
    report = tmp_path / "smoke.json"
    proc = run_cli("smoke", os.path.join(CASES, "rising_loss.py"), "--steps", "3", "--backend", "emulated", "-q",
                   "--json", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(report.read_text())
    losses = data["losses"]
    assert len(losses) == 3 and losses[0] < losses[1] < losses[2]
    assert data["verdict"] == "pass"
    assert len(data["notes"]) == 1 and data["notes"][0].startswith("loss rose at every step: ")
    text = " ".join(proc.stdout.decode().split())  # rich wraps long lines
    assert "note: loss rose at every step:" in text
    assert "check the learning rate" in text


@pytest.mark.runtime
def test_a_script_whose_loss_falls_gets_no_note(tmp_path):
    report = tmp_path / "smoke.json"
    script = tmp_path / "falling.py"
    source = open(os.path.join(CASES, "rising_loss.py"), encoding="utf-8").read()
    assert "maximize=True" in source
    script.write_text(source.replace("maximize=True", "maximize=False"))
    shutil.copy(os.path.join(CASES, "_common.py"), tmp_path / "_common.py")
    proc = run_cli("smoke", str(script), "--steps", "3", "--backend", "emulated", "-q", "--json", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(report.read_text())
    assert data["losses"][0] > data["losses"][-1]
    assert data["notes"] == []
    assert "note:" not in proc.stdout.decode()
