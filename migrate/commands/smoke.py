"""`npu-migrate smoke SCRIPT [-- ARGS]`: run N real training steps on the NPU or the CPU-backed stand-in.

Thin: parses options, calls checks.smoke.run.run_smoke (imported lazily: torch is only ever imported in
the child process), renders the result. Exit 0 pass, 1 fail, 2 could not run, 128+N ended by
signal N (the partial result printed: verdict "interrupted" and the steps done).
"""

from __future__ import annotations

import sys

import click

from migrate.commands._launch_options import launch_options
from migrate.commands._report_options import quiet_option, report_options, report_target


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
@click.option("--steps", type=click.IntRange(min=1), default=5, show_default=True, help="Optimizer steps to run.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=300, show_default=True, help="Seconds before the run (and all its children) is killed.")
@click.option("--backend", type=click.Choice(["auto", "npu", "emulated", "cpu", "cuda", "cuda-emulated"]), default="auto", show_default=True, help="auto: the real NPU when torch_npu works here, else the CPU-backed stand-in. For an unmigrated GPU script: cuda (the real GPU), cuda-emulated (the CPU-backed CUDA twin), cpu (CUDA hidden).")
@click.option("--fake-data", is_flag=True, help="Synthetic torchvision datasets, no weight downloads, no network.")
@report_options
@click.option("--torch-npu-version", help="Target torch_npu release (default: the installed one, else the newest known).")
@click.option("--strict-ops", is_flag=True, help="Fail on ops without an NPU kernel and on float64/complex tensors.")
@click.option("--no-op-trace", is_flag=True, help="Do not trace the ops of the training steps (emulated mode).")
@click.option("--seed", type=int, help="Seed torch, random and numpy before the script runs.")
@click.option("--autocast", "autocast_policy", type=click.Choice(["off", "native", "bf16"]), default="off", show_default=True, help="Emulated devices: autocast regions compute in float32 (off, fastest), in the device's dtype (native, float16 unless the script names one; slow on a CPU), or in bfloat16.")
@click.option("--no-autocast", is_flag=True, hidden=True, help="Same as --autocast off (older option).")
@quiet_option
@click.option("--rank-logs", type=click.Path(file_okay=False), help="With --nproc-per-node: keep torchrun's per-rank stdout/stderr logs in DIR.")
@click.option("--memory-limit", help="Kill the run (all its processes) when their resident memory exceeds this size, e.g. 4G, 512M.")
@click.option("--resume-check", "resume_args", metavar="RESUME_ARGS", help="Check that a resume continues the same training: run until the first checkpoint after --steps steps, run again from scratch, then resume with ARGS + RESUME_ARGS ({ckpt}: that checkpoint) for --steps more and compare step by step (docs/smoke.md).")
@launch_options
def smoke(script, script_args, steps, timeout, backend, fake_data, fmt, output, json_legacy, torch_npu_version, strict_ops,
          no_op_trace, seed, autocast_policy, no_autocast, quiet, rank_logs, launch, progress_timeout, memory_limit,
          resume_args):
    """Run SCRIPT for --steps optimizer steps and judge them: 0 pass, 1 fail, 2 could not run.

    Arguments after `--` go to the script.
    """
    from checks.launch.process import parse_size

    target = report_target(fmt, output, json_legacy)
    if rank_logs and launch is None:  # one process writes no per-rank logs: say so, never ignore it
        raise click.UsageError("--rank-logs needs --nproc-per-node (one process streams its output, or use -o)")

    try:
        limit = parse_size(memory_limit) if memory_limit else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--memory-limit") from None
    # one set of options for one process and for N ranks: each means the same under --nproc-per-node
    options = dict(steps=steps, timeout=timeout, backend=backend, fake_data=fake_data, torch_npu_version=torch_npu_version,
                   script_args=tuple(script_args), strict_ops=strict_ops, op_trace=not no_op_trace,
                   stream=None if quiet else sys.stderr, seed=seed, autocast="off" if no_autocast else autocast_policy,
                   memory_limit=limit, progress=quiet)
    if resume_args is not None:  # three runs compared step by step (checks/smoke/resume_check.py)
        if launch is not None:
            raise click.BadParameter("not with --nproc-per-node (one process only)", param_hint="--resume-check")
        from checks.smoke.resume_check import render as render_resume
        from checks.smoke.resume_check import run_resume_check

        options.pop("op_trace")
        options.pop("progress")
        check = run_resume_check(script, resume_args=resume_args, json_report=target.json, **options)
        target.render(render_resume, check)
        sys.exit(check.exit_code)
    if launch is not None:  # N ranks under torchrun, one verdict for the job (docs/distributed.md)
        from checks.distributed.cli import smoke_distributed

        sys.exit(smoke_distributed(script, launch=launch, progress_timeout=progress_timeout, target=target,
                                   log_dir=rank_logs, **options))
    from checks.smoke.run import render, run_smoke

    try:
        result = run_smoke(script, **options)
    except KeyboardInterrupt as exc:  # a signal: the run is ended; report the steps it had done
        result = getattr(exc, "partial", None)
        if result is None:
            raise
    if target.json:
        from checks.launch.report import write_json

        write_json(result, target.json)
    target.render(render, result)
    sys.exit(result.exit_code)
