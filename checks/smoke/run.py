"""`npu-migrate smoke`: run N real optimizer steps of a script and judge them (parent side).

The script runs in a child process (`python checks/child/bootstrap.py SCRIPT ARGS...`) in its own process
group; the whole tree is killed on timeout, on Ctrl-C, SIGTERM and SIGHUP (migrate/guard.py turns them
into Interrupted, which carries the partial result out) and when the child ends (no stray DataLoader
workers or grandchildren). The child's output is streamed to `stream` and its tail kept. The
bootstrap writes a JSON report to a temp file named in its configuration (checks/launch/child_config.py);
checks/verdict/smoke.py judges it. Never imports torch.

Backends: "npu" (real torch_npu), "emulated" (CPU-backed torch_npu stand-in, see
checks/standin/torch_npu/_emulator.py), and for an unmigrated GPU original: "cuda" (the real GPU),
"cuda-emulated" (the CUDA twin, checks/emulation/cudatwin.py: the original's CUDA code paths, computed on the
CPU) and "cpu" (the plain script with CUDA hidden: it takes its CPU fallback, if it has one).
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

from checks.launch import process, warmstart
from checks.launch.child_config import BOOTSTRAP, ChildConfig, prepare, reported_version
from checks.launch.report import read_reports, write_json
from checks.smoke import spawn_ranks
from checks.verdict.smoke import SmokeResult, emulated_note, judge

KILL_GRACE_S = 3.0


def _error(script: str, backend: str, reason: str, **kw) -> SmokeResult:
    note = emulated_note(backend)
    return SmokeResult("error", 2, backend, script, reasons=(reason,), note=note, **kw)


def run_smoke(script, *, steps: int = 5, timeout: float = 300, backend: str = "auto", fake_data: bool = False,
              torch_npu_version: str | None = None, script_args=(), json_report=None, strict_ops: bool = False,
              op_trace: bool = True, env: dict | None = None, cwd=None, stream=None, seed: int | None = None,
              emulate_autocast: bool | None = None, autocast: str = "off",
              python: str | None = None, memory_limit: int | None = None,
              wait_for_script: float = 0.0, progress: bool | str = False, loop_trace: bool = False,
              stop_after_checkpoint: bool = False) -> SmokeResult:
    """Run `script` for `steps` optimizer steps and judge it. Never raises for a bad script.

    autocast: the policy of an emulated device's autocast regions (emulated, cuda-emulated):
    "off" (default: regions and GradScaler run with the device's dtypes, the lower-precision ops
    computing in float32 and rounding to them, checks/emulation/autocast.py; fast, and identical on
    both sides of validate), "float32" (regions disabled, validate's plain-CPU baseline case), "native" (CPU autocast with the device's dtype, float16 unless the
    script names one: 5-20x slower on a CPU without AVX512-BF16/AMX), "bf16" (CPU autocast in
    bfloat16). emulate_autocast (older API): True is "native", False is "off".
    wait_for_script: the script is still being written (validate's instrumented copy): the child
    starts now and waits up to this many seconds for it (or for `SCRIPT.cancel`) before running it.
    progress: show "step k/N, elapsed" on stderr while it runs, when stderr is a terminal (checks/smoke/progress.py);
    a string: the label it starts with (default "smoke").
    loop_trace, stop_after_checkpoint: the runs of `--resume-check` (checks/smoke/resume_check.py).
    """
    if emulate_autocast is not None:
        autocast = "native" if emulate_autocast else "off"
    script = str(script)
    t0 = time.perf_counter()
    prep = prepare(script, steps=steps, timeout=timeout, backend=backend, autocast=autocast,
                   torch_npu_version=torch_npu_version, python=python, script_may_be_late=bool(wait_for_script))
    if prep.problem:
        return _finish(_error(script, backend, prep.problem), json_report)
    backend, kb_version = prep.backend, prep.kb_version

    report_fd, report_path = tempfile.mkstemp(prefix="npu-migrate-smoke-", suffix=".json")
    os.close(report_fd)
    os.unlink(report_path)
    config = ChildConfig.build(report=report_path, steps=steps, backend=backend, kb_version=kb_version,
                               op_trace=op_trace, fake_data=fake_data, seed=seed, autocast=autocast,
                               wait_for_script=wait_for_script, loop_trace=loop_trace,
                               stop_after_checkpoint=stop_after_checkpoint)
    child_env = config.child_env(os.environ, env, fake_data_dir=report_path + ".fakedata")
    cmd = [python or sys.executable, BOOTSTRAP, os.path.abspath(script), *map(str, script_args)]
    timed_out = False
    guard = process.ChildGuard(memory_limit)  # kills the whole tree, setsid() escapees included
    try:
        proc = None
        if python is None and warmstart.enabled():  # forked from a process that has imported torch
            proc = warmstart.start(cmd[1:], guard.env(child_env), cwd, os.path.abspath(script))
        elif python is None and memory_limit is None and warmstart.attach_allowed(child_env):
            # an ancestor's template (checks/launch/warm_client.py); not with a memory cap: the run would be the
            # template's child, outside the tree the guard measures
            cmd = [cmd[0], warmstart.CLIENT, "--raw", *cmd[1:]]
        if proc is None:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    env=guard.env(child_env), cwd=cwd, start_new_session=True)
    except OSError as exc:
        return _finish(_error(script, backend, f"could not start python: {exc}"), json_report)
    guard.start(proc)
    out_tail, err_tail = process.OutputTail(proc.stdout, stream), process.OutputTail(proc.stderr, stream)
    ticker = _progress(report_path, steps, progress) if progress else None
    try:
        timed_out = not guard.wait(timeout)
        rank_stacks = spawn_ranks.ask_stacks(report_path) if timed_out else {}  # mp.spawn ranks, before the kill
    except BaseException as exc:  # Ctrl-C, SIGTERM, SIGHUP (migrate/guard.py): nothing of the run may survive us
        try:
            guard.kill_all(KILL_GRACE_S)
            if isinstance(exc, KeyboardInterrupt):  # the steps done so far, for the caller to report
                exc.partial = _finish(_interrupted(script, backend, report_path, exc, proc, steps=steps, timeout=timeout,
                                                   strict_ops=strict_ops, kb_version=kb_version, t0=t0,
                                                   warnings=prep.warnings, guard=guard), json_report)
        finally:
            _cleanup(report_path)
        raise
    finally:
        if ticker is not None:
            ticker.stop()
    guard.kill_all(KILL_GRACE_S)  # the child has ended (or timed out): end its stray children too
    stdout, stderr = out_tail.text(), err_tail.text()
    report = read_reports(report_path)
    ranks = spawn_ranks.read(report_path)  # ranks the script started with mp.spawn, judged as one job
    _cleanup(report_path)
    result = judge(script, backend, report, returncode=proc.returncode, timed_out=timed_out, timeout=timeout,
                   steps=steps, strict_ops=strict_ops, stdout=stdout, stderr=stderr,
                   torch_npu_version=reported_version(backend, kb_version),
                   duration_s=time.perf_counter() - t0, extra_warnings=prep.warnings,
                   guard=guard)
    result = spawn_ranks.judge_spawned(result, ranks, script=script, backend=backend, steps=steps, timeout=timeout,
                                       torch_npu_version=reported_version(backend, kb_version),
                                       stacks=rank_stacks)
    return _finish(result, json_report)


def _interrupted(script, backend, report_path, exc, proc, *, steps, timeout, strict_ops, kb_version, t0, warnings,
                 guard):
    """The result of a run a signal ended: verdict "interrupted", exit status 128 + N, the steps done."""
    from dataclasses import replace

    from migrate.guard import exit_status

    result = judge(script, backend, read_reports(report_path), returncode=proc.returncode, timed_out=False,
                   timeout=timeout, steps=steps, strict_ops=strict_ops, torch_npu_version=reported_version(backend, kb_version),
                   duration_s=time.perf_counter() - t0, extra_warnings=warnings, guard=guard)
    reason = f"interrupted by {exc or 'SIGINT'} after {result.steps} of {steps} optimizer steps; every process of the run was ended"
    return replace(result, verdict="interrupted", exit_code=exit_status(exc), reasons=(reason,))


def _progress(report_path: str, steps: int, label: bool | str = True):
    from checks.smoke.progress import Progress

    return Progress(report_path, steps, label=label if isinstance(label, str) else "smoke").start()


def _cleanup(report_path: str) -> None:
    for path in (report_path, *glob.glob(glob.escape(report_path) + ".proc*")):
        try:
            os.unlink(path)
        except OSError:
            pass
    shutil.rmtree(report_path + ".fakedata", ignore_errors=True)
    spawn_ranks.cleanup(report_path)


def _finish(result: SmokeResult, json_report) -> SmokeResult:
    if json_report:
        write_json(result, json_report)
    return result


# ------------------------------------------------------------------------------ reporting
def render(result: SmokeResult, console=None) -> None:
    """Terminal report (rich)."""
    from rich.table import Table

    from migrate.report.terminal import escape, make_console

    console = console or make_console()
    if result.note:
        console.print(f"[yellow]{result.note}[/yellow]")
    table = Table(title=f"smoke: {escape(result.script)}", show_header=True)
    table.add_column("step", justify="right")
    table.add_column("loss", justify="right")
    table.add_column("time (s)", justify="right")
    for i, loss in enumerate(result.losses, 1):
        t = result.step_times[i - 1] if i - 1 < len(result.step_times) else None
        table.add_row(str(i), f"{loss:.6g}", f"{t:.3f}" if t is not None else "")
    if result.losses:
        console.print(table)
    facts = [
        ("backend", result.backend + (f" (torch_npu {result.torch_npu_version})" if result.torch_npu_version else "")),
        ("steps", f"{result.steps} of {result.requested_steps}"
                  + (" (one per backward(): no optimizer)" if result.step_source == "backward" else "")
                  + (f" ({result.child_steps} in worker processes)" if result.child_steps else "")),
        ("loss dtype / device", f"{result.loss_dtype} / {result.loss_device}"),
        ("parameters", ", ".join(f"{n} on {d}" for d, n in sorted(result.param_device.items())) or "-"),
        ("peak memory", f"{result.peak_memory / 2**20:.0f} MiB" if result.peak_memory else "-"),
        *((("spawned ranks", "; ".join(f"rank {r['rank']} {r['verdict']} {r['steps']} steps" for r in result.spawned_ranks)),)
          if result.spawned_ranks else ()),
        *((("replicas", result.replicas),) if result.replicas else ()),
        ("op coverage", f"{result.ops_traced} ops traced, {len(result.unsupported_ops)} without NPU kernel, "
                        f"{len(result.float64_ops)} float64/complex" if result.ops_traced else "not traced"),
    ]
    from checks.child.loop_observer import describe

    facts += describe(result.loop)
    for key, value in facts if result.verdict != "error" else ():
        console.print(f"  {key:20} {escape(value)}", highlight=False)
    # reasons quote the script's errors (gloo's "[.../pair.cc:561]"), escaped as all user text

    for w in result.warnings:
        console.print(f"  [yellow]warning:[/yellow] {escape(w)}", highlight=False)
    for n in result.notes:
        console.print(f"  note: {escape(n)}", highlight=False)
    for r in result.reasons:
        console.print(f"  [red]reason:[/red] {escape(r)}", highlight=False)
    colour = {"pass": "green", "fail": "red", "interrupted": "yellow"}.get(result.verdict, "magenta")
    suffix = f" ({result.note})" if result.note else ""
    console.print(f"[bold {colour}]smoke: {result.verdict.upper()}[/bold {colour}]{suffix}", highlight=False)
