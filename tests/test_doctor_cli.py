"""`npu-migrate doctor` from the command line on this machine (no torch_npu, no CANN, no NPU):
says so plainly, exit 1, no traceback; --json; exit 2 when the doctor cannot run."""
from __future__ import annotations

import json

from click.testing import CliRunner

from migrate.cli import main
from migrate.commands.doctor import doctor
from migrate.doctor.runner import NO_STACK

# a machine like ours / CI: nothing of the Ascend stack in the environment
CLEAN_ENV = {"ASCEND_HOME_PATH": None, "ASCEND_TOOLKIT_HOME": None, "PATH": "/usr/bin:/bin",
             "CUDA_VISIBLE_DEVICES": None, "PYTHONPATH": None}


def _no_stack_here():
    import importlib.metadata as md
    import os
    from pathlib import Path

    try:
        md.version("torch_npu")
        return False
    except md.PackageNotFoundError:
        pass
    return not list(Path("/dev").glob("davinci*")) and not os.path.exists("/usr/local/Ascend")


def test_machine_without_ascend_says_so(tmp_path):
    assert _no_stack_here(), "this test describes a machine without the Ascend stack"
    report = tmp_path / "doctor.json"
    result = CliRunner().invoke(doctor, ["--format", "json", "-o", str(report)], env=CLEAN_ENV)
    assert result.exit_code == 1, result.output
    assert result.output.startswith(NO_STACK)
    assert "Traceback" not in result.output
    assert "NOT READY" in result.output
    data = json.loads(report.read_text())
    assert data["ready"] is False and data["exit_code"] == 1 and data["headline"] == NO_STACK
    assert [c["id"] for c in data["checks"]] == [
        "python", "packages", "cann", "driver", "cann_stack", "cann_python", "import", "npu",
        "env", "tools"]
    by_id = {c["id"]: c for c in data["checks"]}
    assert by_id["import"]["status"] == "skip" and by_id["npu"]["status"] == "skip"
    assert {b["id"] for b in data["blocking"]} >= {"packages", "cann", "driver"}
    assert all(b["fix"] for b in data["blocking"])


def test_json_to_stdout():
    result = CliRunner().invoke(doctor, ["--format", "json"], env=CLEAN_ENV)
    assert result.exit_code == 1
    assert json.loads(result.output)["ready"] is False
    old = CliRunner().invoke(doctor, ["--json", "-"], env=CLEAN_ENV)  # the older spelling, kept this release
    assert json.loads(old.stdout)["checks"] == json.loads(result.output)["checks"]
    assert "--json REPORT is deprecated and goes in the next release: use --format json\n" in old.stderr


def test_rich_table_output():
    result = CliRunner().invoke(doctor, ["--format", "rich"], env=CLEAN_ENV)
    assert result.exit_code == 1
    assert "npu-migrate doctor" in result.output and "NOT READY" in result.output


def test_unknown_torch_npu_version_exit_2(capsys):
    assert main(["doctor", "--torch-npu-version", "9.9.9"]) == 2
    assert "unknown torch_npu release '9.9.9'" in capsys.readouterr().err


def test_unwritable_report_exit_2(tmp_path):
    result = CliRunner().invoke(doctor, ["--format", "json", "-o", str(tmp_path / "no" / "dir" / "r.json")],
                                env=CLEAN_ENV)
    assert result.exit_code == 2
    assert "cannot write" in result.output and "Traceback" not in result.output


def test_registered_in_cli(capsys):
    assert main(["--help"]) == 0
    assert "doctor" in capsys.readouterr().out


def test_output_option_follows_the_convention_of_every_command(tmp_path):
    """-o FILE: with --format json the JSON goes to FILE (as the older --json FILE) and the text summary
    still shows; with a text format the report itself goes to FILE and nothing to stdout."""
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    by_o = CliRunner().invoke(doctor, ["--format", "json", "-o", str(new)], env=CLEAN_ENV)
    by_json = CliRunner().invoke(doctor, ["--json", str(old), "--format", "text"], env=CLEAN_ENV)
    assert by_o.exit_code == by_json.exit_code == 1 and "NOT READY" in by_o.output
    assert by_json.stderr == "npu-migrate: --json REPORT is deprecated and goes in the next release: use --format json -o REPORT\n"
    assert by_o.stderr == ""
    assert json.loads(new.read_text())["checks"] == json.loads(old.read_text())["checks"]
    text = tmp_path / "doctor.txt"
    to_file = CliRunner().invoke(doctor, ["--format", "text", "-o", str(text)], env=CLEAN_ENV)
    assert to_file.exit_code == 1 and to_file.output == ""
    assert text.read_text() == by_json.stdout
    clash = CliRunner().invoke(doctor, ["--json", str(old), "-o", str(new)], env=CLEAN_ENV)
    assert clash.exit_code == 2
