"""Distributed smoke runs: N ranks under torch's own launcher, judged as one job (parent side).

`run_distributed_smoke(script, launch=LaunchSpec(nproc_per_node=N), ...)` starts

    python -m torch.distributed.run --nproc-per-node N [--standalone | --nnodes ... --master-addr ...]
           --log-dir DIR --redirects 3 [--tee 3 --local-ranks-filter 0]  checks/child/bootstrap.py SCRIPT ARGS

so every rank runs the bootstrap (hooks, stand-in, step counting) and writes its own report,
progress file and (on request) stack dump into one report folder (checks/child/dist_child.py). torchrun
keeps one stdout/stderr log per rank; rank 0 is also streamed live with torchrun's `[default0]:`
prefix. The parent watches the progress files; at the timeout (or when no rank made progress for
`progress_timeout` seconds, counted from the first step) it asks every live rank for its stack (SIGUSR1 -> faulthandler), kills
torchrun and every rank's process group, and names the rank that stopped (checks/verdict/dist.py).

`launch_command` is the reusable part for other commands (profile): it builds the torchrun command
line for any per-rank entry point. Never imports torch.
"""
from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import tempfile
import time

from checks.launch import process, warm_wire, warmstart
from checks.launch.child_config import BOOTSTRAP, ChildConfig, prepare, reported_version
from checks.launch.rank_files import child_report, read_progress, read_reports, request_stacks
from checks.launch.report import write_json
from checks.verdict import dist as dist_verdict
from checks.verdict.dist_result import DistributedSmokeResult, JobOutcome, LaunchSpec
from checks.verdict.smoke import emulated_note, judge

POLL_S = 0.2
KILL_GRACE_S = 3.0

def launch_command(launch: LaunchSpec, entry: list[str], *, log_dir: str, python: str | None = None,
                   stream_rank0: bool = True) -> list[str]:
    """`python -m torch.distributed.run ... ENTRY...`: one log per rank in log_dir, rank 0 teed live."""
    cmd = [python or sys.executable, "-m", "torch.distributed.run", *launch.torchrun_args(),
           "--max-restarts", "0", "--log-dir", log_dir, "--redirects", "3"]
    if stream_rank0:
        cmd += ["--tee", "3", "--local-ranks-filter", "0"]
    return cmd + list(entry)


def kill_job(proc: subprocess.Popen, pids) -> None:
    """torchrun starts each rank in its own session: end torchrun's group and every rank's group."""
    groups = [proc.pid, *pids]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pgid in groups:
            try:
                os.killpg(pgid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        if sig == signal.SIGTERM:
            try:
                proc.wait(KILL_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
    proc.wait()


def run_job(cmd, *, env, cwd, report_dir, timeout: float, progress_timeout: float | None,
            stream=None, template=None, guard: process.ChildGuard | None = None) -> JobOutcome:
    """Run the torchrun command, watching the ranks' progress; stop it on timeout, stall, or when the
    job's resident memory goes over the guard's cap (checks.launch.process.ChildGuard, as for one process).
    With a warm template (checks/launch/warmstart.py), torchrun itself is forked from it (its own session, as here)."""
    guard = guard or process.ChildGuard()
    env = guard.env(env)
    proc = template.spawn(cmd[1:], env, cwd, merge_stderr=True) if template is not None else None
    if proc is None:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=cwd, start_new_session=True, preexec_fn=process.die_with_parent)
    guard.start(proc)
    tail = process.OutputTail(proc.stdout, stream)
    start = time.monotonic()
    last, last_change = None, start
    timed_out = stalled = False
    progress: dict = {}
    try:
        while True:
            try:
                proc.wait(POLL_S)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if guard.memory_limit:
                guard.poll()
                if guard.memory_exceeded:
                    break
            progress = read_progress(report_dir)
            snapshot = sorted((k, v[1]) for k, v in progress.items())
            if snapshot != last:
                last, last_change = snapshot, now
            if now - start >= timeout:
                timed_out = True
            elif progress_timeout and any(steps for _, steps in progress.values()) and now - last_change >= progress_timeout:
                # counted from the first optimizer step of any rank: before it (imports, data set-up,
                # which may be long) only the overall timeout applies
                stalled = True
            if timed_out or stalled:
                break
    except BaseException:  # Ctrl-C: nothing of the job may survive us
        kill_job(proc, [pid for pid, _ in read_progress(report_dir).values()])
        raise
    stacks = {}
    if timed_out or stalled:
        progress = read_progress(report_dir)
        stacks = request_stacks(report_dir, progress)
    progress = read_progress(report_dir) or progress
    kill_job(proc, [pid for pid, _ in progress.values()])
    memory = None
    if guard.memory_exceeded:
        guard.kill_all(KILL_GRACE_S)  # what the job started outside torchrun's and the ranks' groups
        memory = (guard.memory_limit, guard.peak_rss)
    guard.release()  # torchrun and the ranks' groups are ended (kill_job)
    ended = not (timed_out or stalled or memory)
    return JobOutcome(proc.returncode if ended else None, timed_out, stalled, tail.text(), stacks, progress, memory)


def rank_logs(log_dir: str, local_rank: int) -> tuple[str, str]:
    """(stdout, stderr) tails of one local rank from torchrun's log folder."""
    out = []
    for stream_name in ("stdout", "stderr"):
        paths = sorted(glob.glob(os.path.join(log_dir, "*", "attempt_*", str(local_rank), f"{stream_name}.log")))
        text = ""
        if paths:
            try:
                with open(paths[-1], encoding="utf-8", errors="replace") as f:
                    text = f.read()[-8000:]
            except OSError:
                pass
        out.append(text)
    return out[0], out[1]


def run_distributed_smoke(script, *, launch: LaunchSpec, steps: int = 5, timeout: float = 300,
                          progress_timeout: float | None = None, backend: str = "auto", fake_data: bool = False,
                          torch_npu_version: str | None = None, script_args=(), json_report=None,
                          strict_ops: bool = False, op_trace: bool = True, env: dict | None = None, cwd=None,
                          stream=None, seed: int | None = None, autocast: str = "off",
                          emulate_autocast: bool | None = None, memory_limit: int | None = None,
                          python: str | None = None, log_dir: str | None = None,
                          progress: bool | str = False) -> DistributedSmokeResult:
    """Run `script` as launch.nproc_per_node ranks (this node's share) and judge the job.

    Every option that checks.smoke.run.run_smoke takes means the same here: the ranks get the same child
    configuration (checks/launch/child_config.py); `memory_limit` caps the resident memory of the whole job
    (torchrun and every rank); `progress` shows rank 0's step on a terminal, as for one process."""
    if emulate_autocast is not None:  # the older API, as in run_smoke
        autocast = "native" if emulate_autocast else "off"
    script = str(script)
    t0 = time.perf_counter()
    prep = prepare(script, steps=steps, timeout=timeout, backend=backend, autocast=autocast,
                   torch_npu_version=torch_npu_version, python=python)
    problem = prep.problem
    if problem is None and launch.nproc_per_node < 1:
        problem = f"--nproc-per-node must be at least 1 (got {launch.nproc_per_node})"
    if problem:
        return _finish(_error(script, backend, launch, problem), json_report)
    backend, kb_version = prep.backend, prep.kb_version
    warnings = list(prep.warnings)
    cores = os.cpu_count() or 1
    if backend in ("emulated", "cpu") and launch.nproc_per_node > cores:
        warnings.append(f"{launch.nproc_per_node} ranks on {cores} CPU cores: the ranks time-share the cores "
                        "(slower steps, same results)")

    with tempfile.TemporaryDirectory(prefix="npu-migrate-dist-") as tmp:
        report_dir = os.path.join(tmp, "reports")
        os.makedirs(report_dir)
        logs = log_dir or os.path.join(tmp, "logs")
        os.makedirs(logs, exist_ok=True)
        config = ChildConfig.build(report=os.path.join(report_dir, "unused.json"), steps=steps, backend=backend,
                                   kb_version=kb_version, op_trace=op_trace, fake_data=fake_data, seed=seed,
                                   autocast=autocast, dist_dir=report_dir)
        child_env = config.child_env(os.environ, env, fake_data_dir=os.path.join(tmp, "fakedata"))
        entry = [BOOTSTRAP, os.path.abspath(script), *map(str, script_args)]
        # not with a memory cap: a job forked from the template would be outside the tree the guard measures
        template = warm_template(child_env, script, python) if memory_limit is None else None
        if template is not None:  # torchrun and every rank forked from a process that has imported torch
            child_env[warm_wire.ADDRESS_ENV] = template.address
            entry = [warmstart.CLIENT, *entry]
        cmd = launch_command(launch, entry, log_dir=logs, python=python, stream_rank0=stream is not None)
        guard = process.ChildGuard(memory_limit)
        ticker = None
        if progress:  # checks/smoke/progress.py, on the first rank's report
            from checks.smoke.progress import Progress

            ticker = Progress(os.path.join(report_dir, f"rank{launch.global_rank(0)}.json"), steps,
                              label=progress if isinstance(progress, str) else "smoke").start()
        interrupted = None
        try:
            outcome = run_job(cmd, env=child_env, cwd=cwd, report_dir=report_dir,
                              timeout=timeout,
                              progress_timeout=progress_timeout, stream=stream, template=template, guard=guard)
        except OSError as exc:
            return _finish(_error(script, backend, launch, f"could not start torchrun: {exc}"), json_report)
        except KeyboardInterrupt as exc:  # a signal (migrate/guard.py): the job is ended; judge the steps done
            interrupted = exc
            outcome = JobOutcome(None, False, False, "", {}, read_progress(report_dir))
        finally:
            if ticker is not None:
                ticker.stop()
        reports, infos = read_reports(report_dir), read_reports(report_dir, ".dist.json")
        per_rank = []
        for local in launch.local_ranks():
            rank = launch.global_rank(local)
            out, err = rank_logs(logs, local)
            report = reports.get(f"rank{rank}")
            info = dict(infos.get(f"rank{rank}") or {}, report=report is not None)
            result = judge(script, backend, child_report(report), returncode=outcome.returncode, timed_out=outcome.timed_out or outcome.stalled,
                           timeout=progress_timeout if outcome.stalled else timeout, steps=steps,
                           strict_ops=strict_ops, stdout=out, stderr=err,
                           torch_npu_version=reported_version(backend, kb_version))
            per_rank.append((rank, local, info, result))
        result = dist_verdict.judge_job(
            script, backend, launch, per_rank, outcome, steps=steps, timeout=timeout,
            progress_timeout=progress_timeout, warnings=warnings, note=emulated_note(backend),
            log_dir=log_dir, duration_s=time.perf_counter() - t0, cwd=cwd)
        if interrupted is not None:  # the partial result travels on the exception, as for one process
            interrupted.partial = _finish(_interrupted(result, interrupted, steps), json_report)
            raise interrupted
    return _finish(result, json_report)


def _interrupted(result: DistributedSmokeResult, exc: KeyboardInterrupt, steps: int) -> DistributedSmokeResult:
    """Verdict "interrupted", exit status 128 + N, each rank's steps done."""
    from dataclasses import replace

    from migrate.guard import exit_status

    done = ", ".join(f"rank {rank} {r.steps}" for rank, r in zip(result.rank_ids, result.ranks))
    reason = (f"interrupted by {exc or 'SIGINT'} after {done or 'no'} of {steps} optimizer steps; "
              "every process of the job was ended")
    return replace(result, verdict="interrupted", exit_code=exit_status(exc), reasons=(reason,))


def warm_template(env: dict, script: str, python: str | None):
    """The warm-start template for this job (checks/launch/warmstart.py), or None: torchrun and the ranks start
    cold (the option is off, another python, or one of warmstart's reasons)."""
    if python is not None or not warmstart.enabled():
        return None
    return warmstart.template_for(env, os.path.abspath(script))


def _error(script, backend, launch, reason) -> DistributedSmokeResult:
    return DistributedSmokeResult("error", 2, backend, script, launch, 0, reasons=(reason,), note=emulated_note(backend))


def _finish(result: DistributedSmokeResult, json_report) -> DistributedSmokeResult:
    if json_report:
        write_json(result, json_report)
    return result


