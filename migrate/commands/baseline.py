"""`npu-migrate baseline GPU_SCRIPT --out BUNDLE -- [script args]`: record the original on the GPU host.

Thin: options in, `checks.validate.baseline_record.record_baseline` runs the original (validate's baseline run)
and writes the bundle that `npu-migrate validate --baseline BUNDLE NPU_SCRIPT` compares against on the
NPU host. Exit 0 recorded, 2 could not record (nothing written).
"""

from __future__ import annotations

import sys

import click

from migrate.commands._launch_options import launch_options
from migrate.commands._report_options import quiet_option


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("gpu_script", type=click.Path(dir_okay=False))
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
@click.option("--out", "out", type=click.Path(), required=True,
              help="The bundle folder to write (with --archive: BUNDLE.tar.gz). Refused when it exists, unless --force.")
@click.option("--steps", type=click.IntRange(min=1), default=20, show_default=True, help="Training steps to record.")
@click.option("--seed", type=int, default=1234, show_default=True, help="Seed of the run (validate --baseline reuses it).")
@click.option("--fake-data", is_flag=True, help="Synthetic datasets (validate --baseline gives the migrated run the same).")
@click.option("--archive", is_flag=True, help="Write one .tar.gz instead of a folder (easier to copy between hosts).")
@click.option("--force", is_flag=True, help="Replace an existing bundle.")
@click.option("--baseline-backend", type=click.Choice(["auto", "cuda", "emulated", "cpu"]), default="auto", show_default=True,
              help="auto (the real GPU when present, else the CPU-backed CUDA twin), cuda, emulated, cpu (CUDA hidden).")
@click.option("--autocast", "autocast_policy", type=click.Choice(["off", "native", "bf16"]), default="off", show_default=True,
              help="Autocast policy of an emulated run (no effect on a real GPU).")
@click.option("--dump-steps", type=click.IntRange(min=0), default=2, show_default=True,
              help="msprobe API statistics dumps of the first N steps, for validate to name the first diverging API (0: none).")
@click.option("--pack-steps", type=click.IntRange(min=0), default=None,
              help="The config_check pack's dataset and weights items for the first N forwards of the model "
                   "(default 5, at least the data fingerprint's 3; 0: every forward, as msprobe packs them).")
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True, help="Seconds for the run.")
@click.option("--no-dropout", is_flag=True,
              help="Every dropout's probability 0 (msprobe's remove_dropout, as its seed_all(rm_dropout=True)), attention's "
                   "dropout_p included (scaled_dot_product_attention, multi_head_attention_forward): dropout "
                   "masks come from the device's random generator and differ across hardware; validate --baseline does the same.")
@click.option("--strict-fp32", is_flag=True,
              help="float32 convolutions and matrix products in full precision: TF32 off here (cuDNN allows it by default), "
                   "HF32 off in validate --baseline (torch_npu allows it for convolutions). A script that sets them itself wins.")
@quiet_option
@launch_options
def baseline(gpu_script, script_args, out, steps, seed, fake_data, archive, force, baseline_backend, autocast_policy,
             dump_steps, pack_steps, timeout, no_dropout, strict_fp32, quiet, launch, progress_timeout):
    """Run GPU_SCRIPT (the original) and record it as a baseline bundle: manifest (versions, device,
    checksums), per-step losses, the msprobe config_check pack, a fingerprint of the first batches,
    pip list and environment. Copy the bundle to the NPU host and run
    `npu-migrate validate --baseline BUNDLE NPU_SCRIPT` there.
    """
    from checks.validate.baseline_record import record_baseline
    from checks.validate.bundle import BundleError

    try:
        rec = record_baseline(gpu_script, out, steps=steps, seed=seed, fake_data=fake_data, script_args=tuple(script_args),
                              archive=archive, force=force, baseline_backend=baseline_backend, autocast=autocast_policy,
                              timeout=timeout, dump_steps=dump_steps, pack_steps=pack_steps, stream=None if quiet else sys.stderr,
                              progress=quiet, no_dropout=no_dropout, strict_fp32=strict_fp32, launch=launch,
                              progress_timeout=progress_timeout)
    except BundleError as exc:
        click.echo(f"npu-migrate baseline: {exc}", err=True)
        sys.exit(2)
    click.echo(f"baseline: recorded {len(rec.losses)} steps of {gpu_script} on {rec.device} (backend {rec.backend}, "
               f"{rec.loss_dtype or 'float32'} losses) in {rec.seconds:.1f} s")
    click.echo(f"  losses: {', '.join(f'{x:.6g}' for x in rec.losses[:5])}{' ...' if len(rec.losses) > 5 else ''}")
    click.echo(f"  data fingerprint: {rec.fingerprint}")
    for note in rec.notes:
        click.echo(f"  note: {note}")
    click.echo(f"  bundle: {rec.path}")
    click.echo(f"  next, on the NPU host: npu-migrate validate --baseline {rec.path.name} NPU_SCRIPT")
    sys.exit(0)
