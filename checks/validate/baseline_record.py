"""`npu-migrate baseline`: record the original's run on the GPU host as a bundle (checks/validate/bundle.py).

The run is validate's baseline run (checks.validate.run.run_side: the instrumented copy, the smoke
machinery, the ConfigChecker pack), recorded by `checks.validate.record.record_run` (the one recording of the original: a
same-host validate records through it too) into a partial folder beside `--out` and moved into place
only when complete: an interrupted or failed recording leaves nothing half-written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from checks.validate import bundle as fmt
from checks.validate.copies import run_folders
from checks.validate.hosts import NO_DROPOUT_ENV, STRICT_FP32_ENV
from checks.validate.record import record_run


@dataclass(frozen=True)
class Recorded:
    path: Path  # the bundle folder or archive
    backend: str
    device: str
    losses: tuple[float, ...]
    loss_dtype: str | None
    fingerprint: str  # what the data fingerprint holds, or why there is none
    notes: tuple[str, ...]
    seconds: float


def target_path(out: str | Path, archive: bool) -> Path:
    out = Path(out)
    if archive and not out.name.endswith(".tar.gz"):
        out = out.with_name(out.name + ".tar.gz")
    return out


def record_baseline(
    script: str | Path,
    out: str | Path,
    *,
    steps: int = 20,
    seed: int = 1234,
    fake_data: bool = False,
    script_args: tuple[str, ...] = (),
    archive: bool = False,
    force: bool = False,
    baseline_backend: str = "auto",
    autocast: str = "off",
    timeout: float = 600,
    dump_steps: int = 2,
    pack_steps: int | None = None,
    env: dict[str, str] | None = None,
    stream: TextIO | None = None,
    progress: bool = False,
    no_dropout: bool = False,
    strict_fp32: bool = False,
    launch: dict | None = None,
    progress_timeout: float | None = None,
    memory_limit: int | None = None,
) -> Recorded:
    """Run the original and write the bundle. Raises fmt.BundleError (exit 2) when it cannot.

    dump_steps: msprobe statistics dumps of the first N steps (0: none), recorded in the same run, for
    validate to name the first diverging API when the losses diverge within them. pack_steps: the config_check pack's
    dataset and weights items of the first N forwards (None: checks/validate/hosts.py PACK_STEPS; 0: every forward,
    as msprobe packs them; never fewer than the data fingerprint's batches). progress: "baseline: step
    k/N" on a terminal while it runs (the quiet mode's status line). no_dropout: every dropout's probability 0
    in the run (msprobe's remove_dropout; attention's dropout_p too), recorded so that validate --baseline does the same. strict_fp32: TF32
    off (cuDNN and cuBLAS float32 in full precision), recorded so that validate --baseline turns HF32 off. launch: N ranks under torchrun
    (--nproc-per-node, checks/validate/dist.py), each rank's losses recorded (smoke.json)."""
    from checks.validate.log import SplitLog
    from checks.validate.run import BASELINE_BACKENDS, baseline_backend_for, run_side

    script = Path(script).resolve()
    if not script.is_file():
        raise fmt.BundleError(f"no such script: {script}")
    if script.suffix == ".ipynb":
        from checks.launch.child_config import notebook_problem

        raise fmt.BundleError(notebook_problem(script))
    if baseline_backend not in BASELINE_BACKENDS:
        raise fmt.BundleError(f"--baseline-backend must be one of {', '.join(BASELINE_BACKENDS)}")
    target = target_path(out, archive).absolute()
    if target.exists() and not force:
        raise fmt.BundleError(f"{target} exists; choose another --out or pass --force to replace it")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    t0 = time.perf_counter()
    try:
        log = SplitLog(partial / "record.log", stream)
        try:
            notes: list[str] = []
            backend = baseline_backend_for(baseline_backend, notes)
            env = {**(env or {}), **({NO_DROPOUT_ENV: "1"} if no_dropout else {}), **({STRICT_FP32_ENV: "1"} if strict_fp32 else {})}
            if no_dropout:
                notes.append("--no-dropout: every dropout's probability 0 (msprobe's remove_dropout), attention's dropout_p "
                             "included; validate --baseline does the same")
            if strict_fp32:
                notes.append("--strict-fp32: TF32 off (torch.backends.cudnn/cuda.matmul.allow_tf32 = False); validate --baseline turns HF32 off")
            if backend == "cpu" and autocast == "off":
                autocast = "float32"  # as validate: the plain CPU runs the original's autocast("cuda") regions disabled
            # the run starts where the user's own run would: the working folder when the script is at or below it
            # (checks/validate/copies.run_folders), else the script's own folder; the manifest says which
            common = dict(fake_data=fake_data, script_args={"baseline": tuple(script_args)}, timeout=timeout, seed=seed,
                          torch_npu_version=None, autocast=autocast, memory_limit=memory_limit,
                          progress="baseline" if progress else False, cwd=run_folders(script, script, Path.cwd().resolve()))
            if launch is not None:
                common.update(launch=launch, progress_timeout=progress_timeout)
            with tempfile.TemporaryDirectory(prefix="npu-baseline-") as tmp:
                ran = record_run(script, partial, Path(tmp), backend=backend, steps=steps, dump_steps=dump_steps,
                                 common=common, env=env, notes=notes, say=log.say, stream=log, run_side=run_side,
                                 heading="baseline: recording the original",
                                 **({} if pack_steps is None else {"pack_steps": pack_steps}))
        finally:
            log.close()
        if isinstance(ran, str):
            raise fmt.BundleError(ran)
        if ran.manifest is None:
            raise fmt.BundleError(ran.why)
        manifest = fmt.write_manifest(partial, ran.manifest)  # again: record.log is complete now
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
        if archive:
            fmt.make_archive(partial, target)
        else:
            os.replace(partial, target)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    fp = manifest["data_fingerprint"]
    unhooked = "" if manifest.get("config_check_hooks") else f" ({manifest.get('instrument_message')})"
    return Recorded(target, manifest["backend"], manifest["device"], tuple(manifest["losses"]), manifest["loss_dtype"],
                    fp.get("what") if fp.get("observed") else f"not observed: {fp.get('why')}{unhooked}",
                    tuple(manifest["notes"]), time.perf_counter() - t0)
