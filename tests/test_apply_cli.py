"""`npu-migrate apply` / `instrument` as a user runs them: in-process through click's CliRunner (exit
codes and streams as the console entry point gives them); one test runs the real process."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.helpers import invoke_cli, run_cli

LIB = b"import torch\n\n\ndef f(x):\n    return x.cuda()\n"
MANUAL = b"import torch\n\nv = torch.version.cuda\n"
CLEAN = b"import os\nprint(os.getcwd())\n"


def test_file_to_output_and_refusals(tmp_path: Path):
    src = tmp_path / "lib.py"
    src.write_bytes(LIB)
    out = tmp_path / "out" / "lib_npu.py"
    proc = invoke_cli("apply", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"x.npu()" in out.read_bytes() and src.read_bytes() == LIB
    assert b"NPU101 x1" in proc.stderr
    # existing output: refused without --force, nothing written
    out.write_bytes(b"keep")
    proc = invoke_cli("apply", str(src), "-o", str(out))
    assert proc.returncode == 2 and out.read_bytes() == b"keep"
    assert invoke_cli("apply", str(src), "-o", str(out), "--force").returncode == 0
    assert b"x.npu()" in out.read_bytes()
    # the input as output
    assert invoke_cli("apply", str(src), "-o", str(src), "--force").returncode == 2
    assert src.read_bytes() == LIB
    # no destination at all
    assert invoke_cli("apply", str(src)).returncode == 2


def test_exit_1_when_manual_items_remain(tmp_path: Path):
    src = tmp_path / "m.py"
    src.write_bytes(MANUAL)
    proc = run_cli("apply", str(src), "-o", str(tmp_path / "o.py"))  # a real process: the real exit status
    assert proc.returncode == 1 and b"NPU205" in proc.stderr


def test_quiet_prints_only_what_is_left_by_hand(tmp_path: Path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "lib.py").write_bytes(LIB)
    (src / "m.py").write_bytes(MANUAL)
    loud = invoke_cli("apply", str(src), "-o", str(tmp_path / "loud"))
    quiet = invoke_cli("apply", str(src), "-o", str(tmp_path / "quiet"), "-q")
    assert quiet.returncode == loud.returncode == 1
    assert b"apply: 1 of 2 files changed" in loud.stderr and b"added import torch_npu" in loud.stderr
    lines = quiet.stderr.decode().splitlines()
    assert lines[0] == "1 manual item left (not rewritten):" and len(lines) == 2 and "NPU205" in lines[1], lines
    assert (tmp_path / "quiet" / "lib.py").read_bytes() == (tmp_path / "loud" / "lib.py").read_bytes()
    # nothing left by hand: nothing at all on stderr, also for a single file (no `apply: wrote` line)
    one = invoke_cli("apply", str(src / "lib.py"), "-o", str(tmp_path / "lib_npu.py"), "-q")
    assert one.returncode == 0 and one.stderr == b"" and b"x.npu()" in (tmp_path / "lib_npu.py").read_bytes()


def test_diff_writes_nothing(tmp_path: Path):
    src = tmp_path / "lib.py"
    src.write_bytes(LIB)
    before = sorted(os.listdir(tmp_path))
    proc = invoke_cli("apply", str(src), "--diff")
    assert proc.returncode == 0
    assert "-    return x.cuda()\n+    return x.npu()\n" in proc.stdout.decode()
    assert sorted(os.listdir(tmp_path)) == before and src.read_bytes() == LIB


def test_stdin_to_stdout():
    proc = invoke_cli("apply", "-", stdin=LIB)
    assert proc.returncode == 0 and proc.stdout == LIB.replace(b"import torch\n", b"import torch\nimport torch_npu\n").replace(b"cuda", b"npu")
    proc = invoke_cli("apply", "-", stdin=CLEAN)
    assert proc.stdout == CLEAN


def test_directory_copy(tmp_path: Path):
    src = tmp_path / "proj"
    shutil.copytree(FIXTURES / "shell_launcher", src)
    (src / "run.sh").chmod(0o755)
    (src / "data.bin").write_bytes(bytes(range(256)))
    (src / "link.py").symlink_to("train.py")
    (src / ".git").mkdir()
    (src / ".git" / "HEAD").write_text("ref: x\n")
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "x.pyc").write_bytes(b"\0")
    out = tmp_path / "out"
    proc = invoke_cli("apply", str(src), "-o", str(out), "--report", str(tmp_path / "r.json"))
    assert proc.returncode == 1, proc.stderr.decode()  # NCCL_* and nvidia-smi stay manual
    assert (out / "data.bin").read_bytes() == bytes(range(256))
    assert os.stat(out / "run.sh").st_mode & 0o777 == 0o755
    assert os.path.islink(out / "link.py") and os.readlink(out / "link.py") == "train.py"
    assert not (out / ".git").exists() and not (out / "__pycache__").exists()
    assert (out / "CASE.md").read_bytes() == (src / "CASE.md").read_bytes()
    assert b"ASCEND_RT_VISIBLE_DEVICES" in (out / "run.sh").read_bytes()
    assert b"CUDA_VISIBLE_DEVICES" in (src / "run.sh").read_bytes()  # input untouched
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["files_changed"] == 3 and report["counts"]["NPU701"] >= 3
    assert {"file", "start_line", "end_line", "code", "before", "after"} <= set(report["changes"][0])
    assert any(m["code"] == "NPU702" for m in report["manual"])
    # output inside the input, and an existing output, are refused
    assert invoke_cli("apply", str(src), "-o", str(src / "npu")).returncode == 2
    assert not (src / "npu").exists()
    assert invoke_cli("apply", str(src), "-o", str(out)).returncode == 2


def test_csv_report(tmp_path: Path):
    src = tmp_path / "lib.py"
    src.write_bytes(LIB + MANUAL)
    proc = invoke_cli("apply", str(src), "-o", str(tmp_path / "o.py"), "--report", str(tmp_path / "r.csv"))
    assert proc.returncode == 1
    rows = list(csv.DictReader((tmp_path / "r.csv").open(encoding="utf-8")))
    change = next(r for r in rows if r["kind"] == "change")
    assert (change["code"], change["start_line"], change["before"].strip(), change["after"].strip()) == ("NPU101", "5", "return x.cuda()", "return x.npu()")
    assert any(r["kind"] == "manual" and r["code"] == "NPU205" for r in rows)


def git(cwd: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_place_needs_clean_git_tree_or_backup(tmp_path: Path):
    src = tmp_path / "lib.py"
    src.write_bytes(LIB)
    # not a git work tree
    assert invoke_cli("apply", str(src), "--in-place").returncode == 2
    assert src.read_bytes() == LIB
    # with --backup it goes ahead and keeps the original
    assert invoke_cli("apply", str(src), "--in-place", "--backup").returncode == 0
    assert b"x.npu()" in src.read_bytes() and (tmp_path / "lib.py.orig").read_bytes() == LIB
    # a git repo: dirty refused, clean accepted
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "lib.py").write_bytes(LIB)
    assert invoke_cli("apply", str(repo / "lib.py"), "--in-place").returncode == 2
    git(repo, "add", "lib.py")
    git(repo, "commit", "-q", "-m", "x")
    assert invoke_cli("apply", str(repo / "lib.py"), "--in-place").returncode == 0
    assert b"x.npu()" in (repo / "lib.py").read_bytes()
    assert not (repo / "lib.py.orig").exists()


def test_instrument_cli(tmp_path: Path):
    src = tmp_path / "gpu_train.py"
    src.write_bytes((FIXTURES / "mnist_basic" / "train.py").read_bytes())
    out = tmp_path / "gpu_train_cc.py"
    proc = invoke_cli("instrument", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    text = out.read_bytes()
    assert b'_npu_config_check(model, "gpu_config_check/gpu_config_pack_rank{rank}.zip")' in text
    assert b".cuda(" in text and b"torch_npu" not in text  # only the hooks, no NPU rewrites
    assert b"\r\n" in text and b"\n" not in text.replace(b"\r\n", b"")  # CRLF kept
    no_model = tmp_path / "nomodel.py"
    no_model.write_bytes(b"import torch\nprint(torch.zeros(1))\n")
    assert invoke_cli("instrument", str(no_model), "-o", str(tmp_path / "x.py")).returncode == 1


def test_check_on_apply_output_finds_nothing_fixable(tmp_path: Path):
    out = tmp_path / "out"
    assert invoke_cli("apply", str(FIXTURES / "ddp_torchrun"), "-o", str(out)).returncode in (0, 1)
    proc = invoke_cli("check", "--format", "json", "--no-progress", "--no-cache", "--fail-on", "info", str(out))
    assert proc.returncode == 1  # manual items (NPU302, NPU702 ...) remain and check still reports them
    findings = json.loads(proc.stdout)["findings"]
    assert findings and not [f for f in findings if f["fixable"]]
    before = json.loads(invoke_cli("analyze", "--format", "json", "--no-progress", "--no-cache", str(FIXTURES / "ddp_torchrun")).stdout)
    assert [f for f in before["findings"] if f["fixable"]]  # there was something to fix


def test_info_only_leftovers_do_not_fail_apply(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\ntorch.backends.cudnn.benchmark = True\nx = torch.ones(1).cuda()\n")
    proc = invoke_cli("apply", str(script), "-o", str(tmp_path / "out.py"), "--no-config-check")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"NPU206 [info]" in proc.stderr  # still listed for the user
    script.write_text("import torch\nprint(torch.version.cuda)\nx = torch.ones(1).cuda()\n")
    proc = invoke_cli("apply", str(script), "-o", str(tmp_path / "out2.py"), "--no-config-check")
    assert proc.returncode == 1 and b"NPU205 [warning]" in proc.stderr
