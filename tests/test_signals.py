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

from tests.helpers import ROOT, process_alive

CASE = ROOT / "tests" / "smoke_cases" / "loader_workers.py"


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
        assert all(process_alive(p) for p in pids)
        assert [p.name for p in tmp.iterdir() if p.name.startswith("npu-migrate-")], "no temp file to remove"
        tool.send_signal(signal.SIGTERM)
        out, err = tool.communicate(timeout=60)
        assert tool.returncode == 143, err.decode()[-2000:]
        assert not [p for p in pids if process_alive(p)], f"survivors of the run: {pids}"
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
            if process_alive(p):
                os.kill(p, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.runtime
@pytest.mark.parametrize("command", ["validate", "profile"])
def test_sigterm_to_validate_and_profile_writes_the_partial_result(tmp_path, command):
    """validate: the original finishes its steps, then SIGTERM comes during the migrated run (at its second
    step or later); profile: after the first measured step. Exit 143; no process the command started is
    left (each one recorded just before the signal: the runs, their DataLoader workers, validate's msprobe
    helper) and none of its temp files; the partial result (verdict "interrupted", the steps done) is in
    the -o JSON and in the output folder (summary.md; validate.json for validate)."""
    pids_dir, report, out = tmp_path / "pids", tmp_path / "out.json", tmp_path / "out"
    pids_dir.mkdir()
    tmp = Path(tempfile.mkdtemp(prefix="sig"))  # short: see the first test
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}
    if command == "validate":  # the original does not pause: its 20 steps are done before the migrated run starts
        args = ["validate", str(ROOT / "tests" / "validate_cases" / "loader_workers_gpu.py"), str(CASE), "--steps", "20"]
    else:
        args = ["profile", str(CASE), "--steps", "500", "--backend", "emulated"]
    tool = subprocess.Popen([sys.executable, "-m", "migrate", *args, "--out", str(out), "--format", "json", "-o",
                             str(report), "-q", "--", str(pids_dir)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    pids: list[int] = []
    try:
        _wait_for(pids_dir / "main", 120, tool)
        pids = sorted(_descendants(tool.pid) | {int((pids_dir / n).read_text()) for n in ("main", "worker-0", "worker-1")})
        assert all(process_alive(p) for p in pids)
        tool.send_signal(signal.SIGTERM)
        stdout, err = tool.communicate(timeout=60)
        assert tool.returncode == 143, err.decode()[-2000:]
        ps = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-p", ",".join(map(str, pids))], capture_output=True, text=True)
        assert not [p for p in pids if process_alive(p)], f"survivors:\n{ps.stdout}"
        assert not [p.name for p in tmp.iterdir() if p.name.startswith(("npu-migrate-", "npu-validate-"))]
        result = json.loads(report.read_text())
        assert result["verdict"] == "interrupted" and result["exit_code"] == 143
        assert "SIGTERM" in result["reasons"][0]
        assert "INTERRUPTED" in stdout.decode()
        if command == "validate":
            base, mig = result["runs"]
            assert (base["verdict"], base["steps"]) == ("pass", 20)
            assert mig["verdict"] == "interrupted" and mig["steps"] >= 2 and len(mig["losses"]) == mig["steps"]
            assert "baseline 20 of 20, migrated" in result["reasons"][0]
            assert json.loads((out / "validate.json").read_text()) == result
            assert "INTERRUPTED" in (out / "summary.md").read_text()
        else:
            assert result["steps"] >= 1 and result["steps_run"] >= 2
            assert "Interrupted" in (out / "summary.md").read_text()
    finally:
        if tool.poll() is None:
            tool.kill()
        for p in pids:
            if process_alive(p):
                os.kill(p, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


# what a profiled rank's child reports after two measured steps (checks/profile/child.py: to_json)
PROFILED_RANK = {"backend": "emulated", "steps_run": 3, "measured_steps": 2, "traced_steps": 0, "trace_stopped_after": None,
                 "op_trace": False, "step_seconds": [0.5, 0.5], "events": [], "data": [], "optimizers": [], "warnings": [],
                 "ascend": None, "ascend_error": None}


def test_an_interrupted_profile_job_ranks_what_each_rank_measured(tmp_path, monkeypatch):
    """profile --nproc-per-node: the job's partial result (checks/distributed/run.py, with real signals in
    the 2-ranks test above) becomes a profile result: each rank's measured steps ranked, verdict
    interrupted, 128 + N, summary.md saying so. The job is a recorded one: the launcher is replaced by one
    that writes each rank's profile report where the ranks write it and raises as the real one does."""
    import checks.distributed.run as dist_run
    from checks.profile.run import run_profile
    from checks.verdict.dist_result import DistributedSmokeResult
    from checks.verdict.smoke import SmokeResult
    from migrate.guard import Interrupted

    reason = "interrupted by SIGTERM after rank 0 3, rank 1 3 of 500 optimizer steps; every process of the job was ended"

    def interrupted_job(script, *, launch, steps, env, **kwargs):
        report = json.loads(env["NPU_MIGRATE_PROFILE"])["report"]
        for rank in (0, 1):
            Path(report.replace("{rank}", str(rank))).write_text(json.dumps(PROFILED_RANK))
        exc = Interrupted(signal.SIGTERM)
        ranks = tuple(SmokeResult("fail", 1, "emulated", script, steps=3, requested_steps=steps) for _ in (0, 1))
        exc.partial = DistributedSmokeResult("interrupted", 143, "emulated", script, launch, 2, ranks, (0, 1), reasons=(reason,))
        raise exc

    monkeypatch.setattr(dist_run, "run_distributed_smoke", interrupted_job)
    with pytest.raises(Interrupted) as caught:
        run_profile(str(CASE), steps=500, backend="emulated", launch={"nproc_per_node": 2}, out_dir=str(tmp_path / "out"))
    result = caught.value.partial
    assert (result.verdict, result.exit_code, result.reasons) == ("interrupted", 143, (reason,))
    assert [(r.rank, r.steps, r.verdict) for r in result.ranks] == [(0, 2, "interrupted"), (1, 2, "interrupted")]
    assert result.to_dict()["verdict"] == "interrupted"
    assert (tmp_path / "out" / "summary.md").read_text().count(f"**Interrupted**: {reason}") == 1


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
        assert all(process_alive(p) for p in pids)
        pids = sorted(set(pids) | _descendants(tool.pid))  # torchrun too
        tool.kill()
        tool.communicate(timeout=60)
        deadline = time.monotonic() + 20  # a DataLoader worker looks at its parent every 5 s
        while [p for p in pids if process_alive(p)] and time.monotonic() < deadline:
            time.sleep(0.2)
        ps = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-p", ",".join(map(str, pids))], capture_output=True, text=True)
        assert not [p for p in pids if process_alive(p)], f"survivors of the run:\n{ps.stdout}"
    finally:
        for p in pids:
            if process_alive(p):
                os.kill(p, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
