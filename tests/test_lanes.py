"""scripts/test.sh runs the suite in lanes: static, runtime, e2e, in that order, stopping at the first
lane that fails; `--fast` runs the static lane only; a lane with no test (pytest exit 5) passes.

Run for real in a copy of the script, with a set-up step and a `.venv/bin/python` that only record
what they are asked (the real ones install and run the suite), and make chosen lanes fail.
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.helpers import ROOT

FAKE_PYTHON = """#!/usr/bin/env bash
# records the call; a pytest lane exits with the code named in LANE_EXIT_<lane> (default 0)
echo "$*" >> "$CALLS"
if [ "$2" = "pytest" ]; then
    while [ $# -gt 0 ]; do
        if [ "$1" = "-m" ]; then lane="$2"; fi
        shift
    done
    case "$lane" in
        static) exit "${LANE_EXIT_static:-0}" ;;
        "runtime and not e2e") exit "${LANE_EXIT_runtime:-0}" ;;
        e2e) exit "${LANE_EXIT_e2e:-0}" ;;
    esac
fi
"""


def _run(tmp_path, *args, **lane_exits):
    copy = tmp_path / "checkout"
    (copy / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "test.sh", copy / "scripts" / "test.sh")
    calls = tmp_path / "calls.txt"
    (copy / "scripts" / "setup_env.sh").write_text(f'#!/usr/bin/env bash\necho "setup $*" >> "{calls}"\n')
    python = copy / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    env = dict(os.environ, CALLS=str(calls), **{f"LANE_EXIT_{k}": str(v) for k, v in lane_exits.items()})
    proc = subprocess.run(["bash", "scripts/test.sh", *args], cwd=copy, env=env, capture_output=True, text=True)
    lines = calls.read_text().splitlines() if calls.exists() else []
    return proc.returncode, lines


def _lane(line: str) -> str | None:
    parts = line.split()
    if "pytest" not in parts:
        return None
    return next(label for label, expr in (("static", "static"), ("runtime", "runtime and not e2e"), ("e2e", "e2e"))
                if f"-m {expr} " in line + " ")


def _lanes(lines):
    return [lane for lane in map(_lane, lines) if lane]


def test_all_lanes_in_order_after_set_up_and_lint(tmp_path):
    code, lines = _run(tmp_path, "-k", "x")
    assert code == 0
    assert lines[0] == "setup test" and "ruff check ." in lines[1]
    assert _lanes(lines) == ["static", "runtime", "e2e"]
    assert all("--durations=15" in line and line.endswith("-k x") for line in lines if "pytest" in line)


@pytest.mark.parametrize("failing, ran", [("static", ["static"]), ("runtime", ["static", "runtime"]),
                                          ("e2e", ["static", "runtime", "e2e"])])
def test_stops_at_the_first_failing_lane(tmp_path, failing, ran):
    code, lines = _run(tmp_path, **{failing: 1})
    assert code == 1 and _lanes(lines) == ran


def test_a_lane_without_tests_passes(tmp_path):
    code, lines = _run(tmp_path, runtime=5)
    assert code == 0 and _lanes(lines) == ["static", "runtime", "e2e"]


def test_fast_runs_the_static_lane_only(tmp_path):
    code, lines = _run(tmp_path, "--fast")
    assert code == 0 and lines[0] == "setup test" and _lanes(lines) == ["static"]
