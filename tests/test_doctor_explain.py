"""`npu-migrate doctor --explain`: the table's sources are checked against the real files, its
patterns against the real messages, and the CLI against logs on disk and stdin."""
from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate.commands.doctor import doctor
from migrate.doctor import explain
from tests.helpers import cached_wheel

ENTRIES = explain.known_errors()


@functools.lru_cache(maxsize=None)
def _wheel_bytes(member: str) -> bytes:
    """A member of the cached torch_npu wheel (the calling test skips when it is not cached)."""
    with zipfile.ZipFile(cached_wheel("torch_npu")) as zf:
        return zf.read(member)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.source["kind"] == "wheel"],
                         ids=lambda e: e.id)
def test_wheel_sourced_text_is_in_the_wheel(entry):
    data = _wheel_bytes(entry.source["file"])
    assert entry.source["text"].encode() in data


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.source["kind"] == "torch"],
                         ids=lambda e: e.id)
def test_torch_sourced_text_is_in_torch(entry):
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None:
        pytest.skip("torch not installed")
    path = Path(spec.origin).parent.parent / entry.source["file"]
    assert entry.source["text"] in path.read_text()


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.source["kind"] == "docs"],
                         ids=lambda e: e.id)
def test_docs_sourced_entries_cite_vendor_pages(entry):
    assert re.match(r"https://(www\.)?hiascend\.com/", entry.source["url"])


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.source["kind"] == "wheel"
                                   and e.id not in {"libhccl-missing", "libascendcl-missing",
                                                    "cann-lib-missing", "torch-symbol-mismatch"}],
                         ids=lambda e: e.id)
def test_pattern_matches_the_real_message(entry):
    """The message as the wheel prints it (its literal text) is what the pattern must catch."""
    assert re.search(entry.pattern, entry.source["text"]), entry.pattern
    if entry.context:
        assert re.search(entry.context, entry.source["text"]), entry.context


def test_needed_libraries_are_really_needed():
    """libhccl/libascendcl/libge_runner entries rest on libtorch_npu.so's NEEDED list."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        so = Path(tmp) / "libtorch_npu.so"
        so.write_bytes(_wheel_bytes("torch_npu/lib/libtorch_npu.so"))
        out = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("readelf not available")
    needed = set(re.findall(r"Shared library: \[([^\]]+)\]", out.stdout))
    assert {"libhccl.so", "libascendcl.so", "libge_runner.so"} <= needed
    # the doctor's CANN check relies on this: the RPATH names only the wheel's own folders, so
    # CANN's libraries must be on LD_LIBRARY_PATH (set_env.sh) or in the ld.so cache
    (rpath,) = re.findall(r"Library (?:rpath|runpath): \[([^\]]*)\]", out.stdout)
    assert all(entry.startswith("$ORIGIN") for entry in rpath.split(":")), rpath


# a log as a host without CANN prints it (messages from torch/__init__.py and the loader)
NO_CANN_LOG = """\
Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/torch/__init__.py", line 3483, in _import_device_backends
ImportError: libhccl.so: cannot open shared object file: No such file or directory

The above exception was the direct cause of the following exception:

RuntimeError: Failed to load the backend extension: torch_npu. You can disable extension auto-loading with TORCH_DEVICE_BACKEND_AUTOLOAD=0.
"""
# the HCCL link-timeout line as quoted in the vendor's HCCL troubleshooting guide (EI0006 page)
HCCL_LOG = ("[ERROR] HCCL(3977573,all_reduce_test):2025-11-22-17:37:04.447.996 "
            "[hccl_socket_manager.cc:816] [3977663][Wait][LinkEstablish]wait socket establish "
            "timeout, role[0] rank[0] timeout[120 s]\n")


def test_explain_finds_both_causes_in_order():
    ids = [m.id for m in explain.explain(NO_CANN_LOG)]
    assert ids == ["libhccl-missing", "backend-autoload"]


def test_explain_vendor_quoted_log_line():
    assert [m.id for m in explain.explain(HCCL_LOG)] == ["EI0006"]


def test_err_code_decoded_from_the_wheel_format():
    """torch_npu formats codes as "ERR{:0>2d}{:0>3d}" (submodule, error): DIST=2, HCCL=200."""
    code = "ERR{:0>2d}{:0>3d}".format(2, 200)
    assert explain.decode_err_code(code) == "DIST: call hccl api failed"
    line = f"[ERROR] 2026-11-23-01:00:00 (PID:1, Device:0, RankID:0) {code} DIST call hccl api failed"
    (match,) = explain.explain(line)
    assert match.id == code and "DIST: call hccl api failed" in match.explanation


def test_err_codes_match_the_wheel_enums():
    source = _wheel_bytes("torch_npu/utils/_error_code.py").decode()
    for code, entry in explain.err_codes()["codes"].items():
        assert f'{entry["name"]} = ({int(code)}, "{entry["message"]}")' in source


def test_unknown_text_explains_nothing():
    # ERR55123: no submodule 55; ERR00000 is "success", not an error
    assert explain.explain("loss 0.123 step 10\nall good\nERR55123 ERR00000\n") == []


def test_symbol_error_needs_torch_npu_context():
    """'undefined symbol' alone is any library's problem; only torch_npu's is explained."""
    other = "ImportError: /x/libfoo.so: undefined symbol: bar\n"
    assert explain.explain(other) == []
    ours = "ImportError: /site/torch_npu/lib/libtorch_npu.so: undefined symbol: _ZN3c10\n"
    assert [m.id for m in explain.explain(ours)] == ["torch-symbol-mismatch"]


def test_lines_and_counts_in_a_long_log():
    lines = ["step %d loss 0.1" % i for i in range(1000)]
    lines[10] = "wait socket establish timeout, role[0]"
    lines[500] = "EI0006: Getting socket times out."
    (match,) = explain.explain("\n".join(lines))
    assert (match.id, match.line_no, match.count) == ("EI0006", 11, 2)


def test_repeated_error_counted_once():
    (match,) = explain.explain("No NPUs are available\nretry\nNo NPUs are available\n")
    assert (match.id, match.line_no, match.count) == ("no-npus", 1, 2)


# ------------------------------------------------------------------------------------ CLI
def test_cli_explain_file(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(NO_CANN_LOG)
    result = CliRunner().invoke(doctor, ["--explain", str(log), "--format", "text"])
    assert result.exit_code == 1, result.output
    assert "libhccl-missing" in result.output and "backend-autoload" in result.output
    assert "fix: source /usr/local/Ascend/ascend-toolkit/set_env.sh" in result.output


def test_cli_explain_stdin_json():
    result = CliRunner().invoke(doctor, ["--explain", "-", "--format", "json"], input=HCCL_LOG)
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert [m["id"] for m in data["matches"]] == ["EI0006"]
    assert data["matches"][0]["source"].startswith("https://www.hiascend.com/")


def test_cli_explain_clean_log_exit_0(tmp_path):
    log = tmp_path / "ok.log"
    log.write_text("epoch 1 loss 0.5\n")
    result = CliRunner().invoke(doctor, ["--explain", str(log)])
    assert result.exit_code == 0
    assert "no known" in result.output


def test_cli_explain_missing_file_exit_2(tmp_path):
    result = CliRunner().invoke(doctor, ["--explain", str(tmp_path / "nope.log")])
    assert result.exit_code == 2
    assert "cannot read" in result.output and "Traceback" not in result.output


def test_cli_explain_rich_table(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(NO_CANN_LOG)
    result = CliRunner().invoke(doctor, ["--explain", str(log), "--format", "rich"])
    assert result.exit_code == 1
    assert "known errors in the log" in result.output


def test_cli_explain_writes_the_json_report_beside_the_text(tmp_path):
    log, report = tmp_path / "train.log", tmp_path / "explain.json"
    log.write_text(HCCL_LOG)
    result = CliRunner().invoke(doctor, ["--explain", str(log), "--format", "json", "-o", str(report)])
    assert result.exit_code == 1, result.output
    assert "EI0006" in result.output and not result.output.lstrip().startswith("{")  # text on stdout
    to_stdout = CliRunner().invoke(doctor, ["--explain", str(log), "--format", "json"])
    assert json.loads(report.read_text()) == json.loads(to_stdout.output)


def test_cli_explain_report_path_that_is_a_folder_exit_2(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(HCCL_LOG)
    (tmp_path / "taken").mkdir()
    result = CliRunner().invoke(doctor, ["--explain", str(log), "--json", str(tmp_path / "taken")])
    assert result.exit_code == 2
    assert "cannot write" in result.output and "Traceback" not in result.output
    assert (tmp_path / "taken").is_dir() and not list((tmp_path / "taken").iterdir())


def test_cli_explain_report_into_a_fifo_reaches_its_reader(tmp_path):
    import stat
    import threading

    log, fifo = tmp_path / "train.log", tmp_path / "explain.pipe"
    log.write_text(HCCL_LOG)
    os.mkfifo(fifo)
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = CliRunner().invoke(doctor, ["--explain", str(log), "--format", "json", "-o", str(fifo)])
    reader.join(60)
    assert result.exit_code == 1, result.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [m["id"] for m in json.loads(chunks[0])["matches"]] == ["EI0006"]
