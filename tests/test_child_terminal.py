"""The smoke child has no terminal (stdin /dev/null, output piped): a script that sizes a progress bar
gets a sane width from COLUMNS/LINES, and when it fails in a helper module (`stty size` has no
terminal to ask) the reason names the helper's failing line first, then the entry script's line that
led there (what `smoke -q` prints), not only the entry's import line."""
from __future__ import annotations

import os

import pytest

from checks.smoke.run import run_smoke

CASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "smoke_cases", "term_helper")


@pytest.mark.runtime
def test_a_helper_modules_terminal_failure_is_named_at_its_own_line(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    r = run_smoke(os.path.join(CASE, "train.py"), steps=2, backend="emulated", timeout=120, op_trace=False)
    assert r.verdict == "fail", r.reasons
    helper, entry = os.path.join(CASE, "progressbar.py"), os.path.join(CASE, "train.py")
    reason = r.reasons[0]
    assert reason.startswith("ValueError: not enough values to unpack"), reason
    assert f"(at {helper}:8 in <module>: rows, columns = " in reason
    assert reason.endswith(f"; from {entry}:6)")
    assert r.error_location == f"{helper}:8"
    width = int(r.stdout.split("progress bar width ")[1].split()[0])
    assert width > 0  # COLUMNS from the tool: without it, a pipe gives the fallback, 0
