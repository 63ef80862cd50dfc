"""`npu-migrate profile SCRIPT [-- ARGS]`: performance pitfalls per training step, on the NPU or emulated.

Thin: parses options, calls checks.profile.run.run_profile (the parent side never imports torch),
hands the result to the reporters. Exit 0 no finding at or above --fail-on, 1 findings at or above
it, 2 could not run, 128+N ended by signal N (the steps measured before it reported, verdict "interrupted").
"""
from __future__ import annotations

import sys

import click

from migrate.commands._launch_options import launch_options
from migrate.commands._report_options import quiet_option, report_options, report_target


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
@click.option("--steps", type=click.IntRange(min=1), default=8, show_default=True, help="Optimizer steps to run (step 1, with the set-up, is not measured).")
@click.option("--backend", type=click.Choice(["auto", "npu", "emulated"]), default="auto", show_default=True, help="auto: the Ascend profiler when torch_npu works here, else the emulated measurement.")
@click.option("--fake-data", is_flag=True, help="Synthetic torchvision datasets, no weight downloads, no network.")
@report_options
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="npu_profile_out", show_default=True, help="Folder for summary.md (and the NPU trace, advisor reports).")
@click.option("--torch-npu-version", help="Target torch_npu release (default: the installed one, else the newest known).")
@click.option("--fail-on", help="Exit 1 on findings of these kinds (host_sync, cpu_fallback, dynamic_shape, float64, data_loading, optimizer, fusion) or at/above a severity (low|medium|high), or any; joined with ',' or '|'. Default: none.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=600, show_default=True, help="Seconds before the run (and all its children) is killed.")
@click.option("--no-advisor", is_flag=True, help="NPU: do not run msprof-analyze advisor on the trace.")
@click.option("--no-fusion", is_flag=True, help="Emulated: do not look for fused-operator chances (no `fusion` findings).")
@quiet_option
@launch_options
def profile(script, script_args, steps, backend, fake_data, fmt, output, json_legacy, out_dir, torch_npu_version, fail_on, timeout,
            no_advisor, no_fusion, quiet, launch, progress_timeout):
    """Find performance pitfalls of SCRIPT per training step, each at your own file and line.

    Arguments after `--` go to the script. With --nproc-per-node N every rank of a torchrun job is
    profiled (OUT/rankR/summary.md each; findings merged across ranks in OUT/summary.md).
    """
    from checks.launch.report import write_json
    from checks.profile.report import render
    from checks.profile.run import run_profile

    target = report_target(fmt, output, json_legacy)
    try:
        result = run_profile(script, steps=steps, backend=backend, fake_data=fake_data, torch_npu_version=torch_npu_version,
                             script_args=tuple(script_args), out_dir=out_dir, fail_on=fail_on, timeout=timeout,
                             stream=None if quiet else sys.stderr, advisor=not no_advisor, fusion=not no_fusion,
                             launch=launch, progress_timeout=progress_timeout, progress=quiet)
    except KeyboardInterrupt as exc:  # a signal: the run is ended; report the steps it measured
        result = getattr(exc, "partial", None)
        if result is None:
            raise
    if target.json:
        write_json(result, target.json)
    target.render(render, result)
    sys.exit(result.exit_code)
