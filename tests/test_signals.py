"""A signal to the tool ends everything it started (migrate/guard.py, checks/launch/process.py): SIGTERM to a
real `npu-migrate smoke` of a script whose DataLoader has two worker processes leaves no process of
the run (checked by pid in /proc) and none of the tool's temp files, prints the steps done, writes
the --json result with verdict "interrupted" (each rank's steps for a torchrun job), and exits 143 (128 + SIGTERM) as shells expect."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT

CASE = ROOT / "tests" / "smoke_cases" / "loader_workers.py"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for(path, timeout: float, tool: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline and tool.poll() is None:
        time.sleep(0.2)
    if not path.exists():
        if tool.poll() is None:
            tool.send_signal(signal.SIGTERM)
        out, err = tool.communicate(timeout=60)
        raise AssertionError(f"the script never reached its second step ({path} missing); the tool said:\n"
                             f"{out.decode()[-3000:]}\n{err.decode()[-3000:]}")


@pytest.mark.runtime
@pytest.mark.parametrize("ranks", [0, 2], ids=["one-process", "2-ranks"])
def test_sigterm_to_smoke_ends_the_run_its_workers_and_temp_files(tmp_path, ranks):
    pids_dir, report = tmp_path / "pids", tmp_path / "out.json"
    pids_dir.mkdir()
    # a short TMPDIR: the DataLoader workers pass batches over an AF_UNIX socket under $TMPDIR/pymp-*/,
    # whose path must stay under 108 bytes (tmp_path under xdist is too long: the run hangs)
    tmp = Path(tempfile.mkdtemp(prefix="sig"))
    # the tool's own temp files land in TMPDIR; a cold child, as a user's run starts (no warm template)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp), "NPU_MIGRATE_WARM_START": "0"}
    env.pop("NPU_MIGRATE_WARM_ADDR", None)
    launch = ["--nproc-per-node", str(ranks)] if ranks else []
    tool = subprocess.Popen([sys.executable, "-m", "migrate", "smoke", str(CASE), "--steps", "500", "--backend",
                             "emulated", "--no-op-trace", "--json", str(report), "-q", *launch, "--", str(pids_dir)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    pids: list[int] = []
    try:
        for rank in [str(r) for r in range(ranks)] or [""]:
            _wait_for(pids_dir / f"main{rank}", 120, tool)
            pids += [int((pids_dir / name).read_text()) for name in (f"main{rank}", f"worker{rank}-0", f"worker{rank}-1")]
        assert all(_alive(p) for p in pids)
        assert [p.name for p in tmp.iterdir() if p.name.startswith("npu-migrate-")], "no temp file to remove"
        tool.send_signal(signal.SIGTERM)
        out, err = tool.communicate(timeout=60)
        assert tool.returncode == 143, err.decode()[-2000:]
        assert not [p for p in pids if _alive(p)], f"survivors of the run: {pids}"
        assert not [p.name for p in tmp.iterdir() if p.name.startswith("npu-migrate-")]
        result = json.loads(report.read_text())
        assert result["verdict"] == "interrupted" and result["exit_code"] == 143
        assert "SIGTERM" in result["reasons"][0]
        if ranks:  # each rank's steps done (the partial result of the job)
            assert [r["rank"] for r in result["ranks"]] == [0, 1] and all(r["steps"] >= 2 for r in result["ranks"])
        else:
            assert result["steps"] >= 2
        assert "INTERRUPTED" in out.decode()
    finally:
        if tool.poll() is None:
            tool.kill()
        for p in pids:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_signal_raises_interrupted_once_and_the_handlers_are_restored():
    from migrate.guard import Interrupted, signals_interrupt

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as caught:
        with signals_interrupt():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)  # interrupted at once
            finally:
                os.kill(os.getpid(), signal.SIGHUP)  # the second signal, during clean-up: ignored
                time.sleep(0.05)
    assert caught.value.signum == signal.SIGTERM and caught.value.exit_status == 143
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_cli_exits_128_plus_the_signal_number(monkeypatch, capsys):
    from migrate import cli
    from migrate.guard import Interrupted

    def interrupted(*args, **kwargs):
        raise Interrupted(signal.SIGHUP)

    monkeypatch.setattr(cli.cli, "main", interrupted)
    assert cli.main(["analyze", "."]) == 129
    assert "interrupted by SIGHUP" in capsys.readouterr().err



def test_ctrl_c_inside_a_command_exits_130_not_2(monkeypatch, tmp_path):
    """click turns a KeyboardInterrupt inside a command into Abort: still 130, not "could not run"."""
    from migrate import cli
    from migrate.commands.analyze import analyze

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(analyze, "callback", ctrl_c)
    assert cli.main(["analyze", str(tmp_path)]) == 130


def _descendants(pid: int) -> set[int]:
    table = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True, check=True).stdout.split()
    children: dict[int, list[int]] = {}
    for child, parent in zip(table[::2], table[1::2]):
        children.setdefault(int(parent), []).append(int(child))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@pytest.mark.runtime
@pytest.mark.parametrize("ranks", [0, 2], ids=["one-process", "2-ranks"])
def test_sigkill_of_the_tool_ends_the_run_and_its_workers(tmp_path, ranks):
    """SIGKILL reaches no handler: the run's processes ask the kernel to die with their parent
    (PR_SET_PDEATHSIG, checks/launch/process.py); the DataLoader workers end when their parent is gone."""
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    tmp = Path(tempfile.mkdtemp(prefix="sig"))  # short: see the test above
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp), "NPU_MIGRATE_WARM_START": "0"}
    env.pop("NPU_MIGRATE_WARM_ADDR", None)
    launch = ["--nproc-per-node", str(ranks)] if ranks else []
    tool = subprocess.Popen([sys.executable, "-m", "migrate", "smoke", str(CASE), "--steps", "500", "--backend",
                             "emulated", "--no-op-trace", "-q", *launch, "--", str(pids_dir)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    pids: list[int] = []
    try:
        for rank in [str(r) for r in range(ranks)] or [""]:
            _wait_for(pids_dir / f"main{rank}", 120, tool)
            pids += [int((pids_dir / name).read_text()) for name in (f"main{rank}", f"worker{rank}-0", f"worker{rank}-1")]
        assert all(_alive(p) for p in pids)
        pids = sorted(set(pids) | _descendants(tool.pid))  # torchrun too
        tool.kill()
        tool.communicate(timeout=60)
        deadline = time.monotonic() + 20  # a DataLoader worker looks at its parent every 5 s
        while [p for p in pids if _alive(p)] and time.monotonic() < deadline:
            time.sleep(0.2)
        ps = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-p", ",".join(map(str, pids))], capture_output=True, text=True)
        assert not [p for p in pids if _alive(p)], f"survivors of the run:\n{ps.stdout}"
    finally:
        for p in pids:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
