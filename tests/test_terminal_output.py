"""The terminal reporters print user text as written (migrate/report/terminal.py): a location like
`npu_train.py:100:` is not an emoji, `[bold]` in a path is not markup, and piped output (CliRunner's
captured stdout is not a terminal) is not wrapped at 80 columns, so paths stay on one line. The
commands run through click's CliRunner with their runner replaced by a recorded result (static)."""
from __future__ import annotations

import checks.profile.run
import checks.smoke.run
from checks.profile.findings import PerfFinding, ProfileResult
from checks.verdict.smoke import SmokeResult
from tests.helpers import invoke_cli

LONG_DIR = "/data/experiments/" + "very_long_folder_name_" * 6  # a path far over 80 columns
SCRIPT = LONG_DIR + "[bold]npu_train.py"


def test_smoke_output_keeps_user_text_and_does_not_wrap(monkeypatch, tmp_path):
    result = SmokeResult("fail", 1, "emulated", SCRIPT, steps=2, requested_steps=5, losses=(0.5, 0.4),
                         reasons=(f"RuntimeError at {SCRIPT}:100: bad [red]thing[/red]",))
    monkeypatch.setattr(checks.smoke.run, "run_smoke", lambda script, **kw: result)
    out = invoke_cli("smoke", str(tmp_path / "x.py"), "--backend", "emulated").stdout.decode()
    assert f"{SCRIPT}:100: bad [red]thing[/red]" in out  # one line: no wrap, no emoji, no markup
    assert f"smoke: {SCRIPT}" in out
    assert "\N{HUNDRED POINTS SYMBOL}" not in out


def test_profile_output_keeps_locations_and_does_not_wrap(monkeypatch, tmp_path):
    finding = PerfFinding("host_sync", LONG_DIR + "npu_train.py", 100, 1.0, "loss.item() [bold]syncs[/bold]",
                          "log every N steps", 2.5, "high", ".item()")
    result = ProfileResult(SCRIPT, "emulated", 0, steps=3, steps_run=4, findings=(finding,), step_time_ms=10.0)
    monkeypatch.setattr(checks.profile.run, "run_profile", lambda script, **kw: result)
    out = invoke_cli("profile", str(tmp_path / "x.py"), "--out", str(tmp_path / "o")).stdout.decode()
    assert f"{LONG_DIR}npu_train.py:100: loss.item() [bold]syncs[/bold]" in out
    assert "\N{HUNDRED POINTS SYMBOL}" not in out
