"""`npu-migrate validate GPU_SCRIPT NPU_SCRIPT -- [script args]`: the migrated run against the original.

Thin: options in, `checks.validate.run.run_validate` does the work (and is the only place torch and
msprobe are touched, in child processes), the verdict decides the exit code.
"""

from __future__ import annotations

import sys

import click

from migrate.commands._launch_options import launch_options
from migrate.commands._report_options import quiet_option, report_target


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("gpu_script", type=click.Path(dir_okay=False))
@click.argument("npu_script", required=False)
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
@click.option("--steps", type=click.IntRange(min=1), default=20, show_default=True, help="Training steps per run.")
@click.option("--fake-data", is_flag=True, help="Replace the scripts' datasets with synthetic data (same for both runs).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="npu_validate_out", show_default=True,
              help="Output folder (summary.md, losses.csv/svg, msprobe results).")
@click.option("--force", is_flag=True, help="Replace a non-empty --out folder.")
@click.option("--rtol", type=click.FloatRange(min=0), help="Relative loss tolerance (default by loss dtype; 0 when both runs are on the CPU).")
@click.option("--atol", type=click.FloatRange(min=0), help="Absolute loss tolerance (default by loss dtype; 0 when both runs are on the CPU).")
@click.option("--dump/--no-dump", default=None, help="Always / never run the msprobe API dump + compare (default: when the losses diverge).")
@click.option("--seed", type=int, default=1234, show_default=True, help="Seed set in both runs.")
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True, help="Seconds per run.")
@click.option("--torch-npu-version", help="Target torch_npu release (default: the installed one, else the newest known).")
@click.option("--baseline-backend", type=click.Choice(["auto", "cuda", "emulated", "cpu"]), default="auto", show_default=True,
              help="Where the original runs: auto (the real GPU when present, else emulated), cuda, emulated (the CPU-backed "
                   "CUDA twin: the original's CUDA code paths), cpu (CUDA hidden: the original's CPU fallback).")
@click.option("--autocast", "autocast_policy", type=click.Choice(["off", "native", "bf16"]), default="off", show_default=True,
              help="Autocast policy of both emulated runs: off (float32, fastest), native (the device's float16), bf16.")
@quiet_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Report format: the text summary, or the result as JSON (validate.json's content).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the report to FILE instead of stdout (with --format json the text summary still shows).")
@click.option("--memory-limit", help="Kill a run (all its processes) when their resident memory exceeds this size, e.g. 4G.")
@click.option("--repeat", type=click.IntRange(min=0), default=5, show_default=True,
              help="When the losses differ: up to N more runs of the original, to tell a rewrite error from an original "
                   "that does not repeat itself (judged then against its own run-to-run spread); 0: never.")
@click.option("--baseline", "bundle", type=click.Path(), metavar="BUNDLE",
              help="Compare against a baseline recorded on another host (`npu-migrate baseline`): then the one script "
                   "is NPU_SCRIPT, run with the bundle's seed, steps, arguments and ranks.")
@click.option("--keep", is_flag=True,
              help="Keep the bundle the original is recorded into as OUT/baseline_bundle (for `validate --baseline`).")
@click.option("--xlsx", is_flag=True, help="Also write msprobe's config_check result.xlsx into OUT/config_check/.")
@launch_options
def validate(gpu_script, npu_script, script_args, steps, fake_data, out_dir, force, rtol, atol, dump, seed, timeout,
             torch_npu_version, baseline_backend, autocast_policy, quiet, fmt, output, launch, progress_timeout,
             memory_limit, repeat, bundle, keep, xlsx):
    """Run GPU_SCRIPT (baseline) and NPU_SCRIPT (migrated) and compare them: msprobe config_check,
    per-step losses, and an msprobe API dump naming the first diverging API when they differ.

    Arguments after `--` go to both scripts; one naming a CUDA device (`--device=cuda:0`,
    `cuda`) reaches the migrated script as its NPU device (`npu:0`). Exit 0 pass, 1 fail, 2 could not run.
    """
    from checks.launch.child_config import notebook_problem
    from checks.launch.process import parse_size
    from checks.validate.run import ValidateError, run_validate

    target = report_target(fmt, output, None)
    if bundle is not None and keep:
        raise click.UsageError("--keep keeps the bundle a validate of two scripts records; with --baseline the bundle exists")
    if bundle is not None:  # validate --baseline BUNDLE NPU_SCRIPT [-- ARGS]: the one script is the first argument
        rest = tuple(script_args) if npu_script is None else (npu_script, *script_args)
        _validate_baseline(bundle, gpu_script, rest, target=target, out_dir=out_dir,
                           force=force, rtol=rtol, atol=atol, timeout=timeout, torch_npu_version=torch_npu_version,
                           quiet=quiet, launch=launch, progress_timeout=progress_timeout, memory_limit=memory_limit,
                           steps=steps, dump=dump, xlsx=xlsx)
    if npu_script is None:
        raise click.UsageError("Missing argument 'NPU_SCRIPT' (or pass --baseline BUNDLE with one script).")

    for script in (gpu_script, npu_script):  # before any copy is made: a notebook is refused as smoke refuses it
        if str(script).endswith(".ipynb"):
            click.echo(f"npu-migrate validate: {notebook_problem(script)}", err=True)
            sys.exit(2)
    try:
        limit = parse_size(memory_limit) if memory_limit else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--memory-limit") from None

    try:
        result = run_validate(
            gpu_script, npu_script, steps=steps, fake_data=fake_data, out_dir=out_dir, rtol=rtol, atol=atol,
            dump=dump, script_args=tuple(script_args), timeout=timeout, force=force, seed=seed,
            torch_npu_version=torch_npu_version, baseline_backend=baseline_backend, autocast=autocast_policy,
            stream=None if quiet else sys.stderr, launch=launch, progress_timeout=progress_timeout, memory_limit=limit,
            repeat=repeat, progress=quiet, keep=keep, xlsx=xlsx,
        )
    except ValidateError as exc:
        click.echo(f"npu-migrate validate: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt as exc:  # a signal: the runs are ended; report what was done (checks/validate/run.py)
        result = partial_result(exc)
    report(result, target)
    sys.exit(result.exit_code)


def report(result, target) -> None:
    """The verdict's report where --format/-o send it (the output folder has every file regardless)."""
    from checks.launch.report import write_json
    from checks.validate.report import terminal_text

    if target.json:
        write_json(result, target.json)
    target.render(lambda r, console: console.out(terminal_text(r), highlight=False), result)


# options whose value a baseline bundle fixes: given with --baseline they would silently differ from the record
_FIXED_BY_BUNDLE = ("seed", "fake_data", "autocast_policy", "baseline_backend", "repeat")


def _validate_baseline(bundle, npu_script, script_args, *, target, steps, quiet, memory_limit, **options):
    from click.core import ParameterSource

    from checks.launch.process import parse_size
    from checks.validate.baseline import run_validate_baseline
    from checks.validate.run import ValidateError

    ctx = click.get_current_context()
    fixed = [f"--{n.replace('_policy', '').replace('_', '-')}" for n in _FIXED_BY_BUNDLE
             if ctx.get_parameter_source(n) not in (ParameterSource.DEFAULT, None)]
    if fixed:
        raise click.UsageError(f"{', '.join(fixed)} come from the baseline bundle with --baseline; record again to change them")
    if str(npu_script).endswith(".ipynb"):
        from checks.launch.child_config import notebook_problem

        click.echo(f"npu-migrate validate: {notebook_problem(npu_script)}", err=True)
        sys.exit(2)
    try:
        result = run_validate_baseline(
            bundle, npu_script, steps=None if ctx.get_parameter_source("steps") == ParameterSource.DEFAULT else steps,
            script_args=tuple(script_args) or None, stream=None if quiet else sys.stderr, progress=quiet,
            memory_limit=parse_size(memory_limit) if memory_limit else None, **options)
    except ValidateError as exc:
        click.echo(f"npu-migrate validate: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt as exc:
        result = partial_result(exc)
    report(result, target)
    sys.exit(result.exit_code)


def partial_result(exc: KeyboardInterrupt):
    """The result a signal left (verdict "interrupted", exit 128 + N), or the signal again when there is none
    (it came before the runs started: migrate/cli.py then says so and exits 128 + N)."""
    result = getattr(exc, "partial", None)
    if result is None:
        raise exc
    return result
