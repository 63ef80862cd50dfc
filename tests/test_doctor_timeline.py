"""`npu-migrate doctor --explain DIR`: every rank's log and plog in one folder, errors ordered by
time, the first failing rank named, the other ranks' timeouts marked as its consequences. The
folder tests/doctor_cases/two_ranks quotes real log lines (SOURCES.toml says from where)."""
from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate._toml import toml as tomllib
from migrate.commands.doctor import doctor
from migrate.doctor import timeline

CASE = Path(__file__).parent / "doctor_cases" / "two_ranks"


def test_the_quoted_lines_are_in_the_case_files():
    sources = tomllib.loads((CASE / "SOURCES.toml").read_text())["line"]
    assert len(sources) >= 5
    for entry in sources:
        text = (CASE / entry["file"]).read_text()
        for piece in entry["text"].split(" ... "):
            assert piece.strip(". ") in text, (entry["file"], piece)
        assert entry["from"].startswith(("https://", "message: https://", "layout as https://"))


def test_rank_1_failed_first_and_rank_0_timeouts_are_its_consequences():
    result = timeline.build(CASE)
    assert result.first_rank == 1
    assert result.first.id == "ACL 507035"
    assert result.first.role == "first failure"
    rank0 = [e for e in result.events if e.rank == 0]
    assert {e.id for e in rank0} >= {"EI0002", "npu-task-timeout-107020", "EI0006"}
    for e in rank0:
        if e.timeout:
            assert e.role == "consequence of rank 1", e
    # rank 0's log comes first and its ERR02200 is not a timeout: only the times put rank 1 first
    assert [e.time for e in result.events if e.time] == sorted(e.time for e in result.events
                                                               if e.time)


def test_plog_lines_get_the_rank_of_their_process(tmp_path):
    result = timeline.build(CASE)
    plog = [e for e in result.events if "plog-" in e.file]
    assert plog and all(e.rank == 0 for e in plog)  # PID 1066925 is RankID:0 in rank0.log


def test_without_times_file_order_decides_and_says_so(tmp_path):
    (tmp_path / "rank0.log").write_text(
        "RuntimeError: NPU function error: call aclnnInplaceCopy failed, error code is 561103\n")
    (tmp_path / "rank1.log").write_text("EI0002: The wait execution of the Notify register times "
                                        "out.\n")
    result = timeline.build(tmp_path)
    assert result.first_rank == 0
    assert "file order" in result.why
    assert [e.role for e in result.events if e.rank == 1] == ["consequence of rank 0"]


def test_only_timeouts_names_the_earliest_and_warns(tmp_path):
    (tmp_path / "rank0.log").write_text("EI0002: [PID: 7] 2025-01-01-10:00:05.000.000 The wait "
                                        "execution of the Notify register times out.\n")
    (tmp_path / "rank1.log").write_text("EI0002: [PID: 8] 2025-01-01-10:00:01.000.000 The wait "
                                        "execution of the Notify register times out.\n")
    result = timeline.build(tmp_path)
    assert result.first_rank == 1
    assert "every error is a timeout" in result.why


def test_torchrun_prefixed_lines_in_one_file_split_by_rank(tmp_path):
    shutil.copy(CASE / "rank1.log", tmp_path / "rank1.log")
    text = "".join(f"[rank1]:{line}\n" for line in (CASE / "rank1.log").read_text().splitlines())
    text += "".join(f"[rank0]:{line}\n" for line in (CASE / "rank0.log").read_text().splitlines())
    (tmp_path / "rank1.log").unlink()
    (tmp_path / "job.log").write_text(text)
    result = timeline.build(tmp_path)
    assert result.first_rank == 1
    assert {e.rank for e in result.events} == {0, 1}


@pytest.mark.parametrize("line,expected", [
    ("EI0006: 2024-08-05-18:15:21.270.506 Getting socket times out.",
     datetime(2024, 8, 5, 18, 15, 21, 270506)),
    ("[ERROR] 2025-04-29-18:46:11 (PID:1066924, Device:1, RankID:-1) ERR00100",
     datetime(2025, 4, 29, 18, 46, 11)),
    ("2025-04-29 18:45:50,101 - train - INFO - step 120", datetime(2025, 4, 29, 18, 45, 50, 101000)),
    ("2025-04-29T18:45:50.123456 rank 0", datetime(2025, 4, 29, 18, 45, 50, 123456)),
    ("no time here", None),
])
def test_parse_time(line, expected):
    assert timeline.parse_time(line) == expected


def test_cli_on_a_folder_names_the_first_rank(tmp_path):
    out = tmp_path / "t.json"
    result = CliRunner().invoke(doctor, ["--explain", str(CASE), "--format", "json",
                                         "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert "first failing: rank 1 (ACL 507035" in result.output
    assert "[consequence of rank 1]" in result.output
    data = json.loads(out.read_text())
    assert data["first_failing_rank"] == 1
    assert data["first_failure"]["file"] == "rank1.log"


def test_cli_on_a_folder_without_errors_exits_0(tmp_path):
    (tmp_path / "rank0.log").write_text("2025-04-29 18:45:50,101 - INFO - step 1 loss 2.0\n")
    result = CliRunner().invoke(doctor, ["--explain", str(tmp_path), "--format", "text"])
    assert result.exit_code == 0, result.output
    assert "no known Ascend / torch_npu error" in result.output
