"""`npu-migrate baseline`: record the original's run on the GPU host as a bundle (checks/validate/bundle.py).

The run is validate's baseline run (checks.validate.run.run_side: the instrumented copy, the smoke
machinery, the ConfigChecker pack), written into a partial folder beside `--out` and moved into place
only when complete: an interrupted or failed recording leaves nothing half-written.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from checks.validate import bundle as fmt
from checks.validate.hosts import NO_DROPOUT_ENV, STRICT_FP32_ENV


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
    env: dict[str, str] | None = None,
    stream: TextIO | None = None,
    progress: bool = False,
    no_dropout: bool = False,
    strict_fp32: bool = False,
) -> Recorded:
    """Run the original and write the bundle. Raises fmt.BundleError (exit 2) when it cannot.

    dump_steps: msprobe statistics dumps of the first N steps (0: none), recorded in the same run, for
    validate to name the first diverging API when the losses diverge within them. progress: "baseline: step
    k/N" on a terminal while it runs (the quiet mode's status line). no_dropout: every dropout's probability 0
    in the run (msprobe's remove_dropout), recorded so that validate --baseline does the same. strict_fp32: TF32
    off (cuDNN and cuBLAS float32 in full precision), recorded so that validate --baseline turns HF32 off."""
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
            result = _record(script, partial, log, steps=steps, dump_steps=dump_steps, seed=seed, fake_data=fake_data,
                             script_args=tuple(script_args), baseline_backend=baseline_backend, autocast=autocast,
                             timeout=timeout, env={**(env or {}), **({NO_DROPOUT_ENV: "1"} if no_dropout else {}),
                                                       **({STRICT_FP32_ENV: "1"} if strict_fp32 else {})}, run_side=run_side, pick_backend=baseline_backend_for,
                             progress=progress)
        finally:
            log.close()
        manifest = fmt.write_manifest(partial, result)
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


def _record(script, partial, log, *, steps, dump_steps, seed, fake_data, script_args, baseline_backend, autocast, timeout, env,
            run_side, pick_backend, progress=False) -> dict:
    notes: list[str] = []
    backend = pick_backend(baseline_backend, notes)
    if env.get(NO_DROPOUT_ENV) == "1":
        notes.append("--no-dropout: every dropout's probability 0 (msprobe's remove_dropout); validate --baseline does the same")
    if env.get(STRICT_FP32_ENV) == "1":
        notes.append("--strict-fp32: TF32 off (torch.backends.cudnn/cuda.matmul.allow_tf32 = False); validate --baseline turns HF32 off")
    if backend == "cpu" and autocast == "off":
        autocast = "float32"  # as validate: the plain CPU runs the original's autocast("cuda") regions disabled
    common = dict(fake_data=fake_data, script_args={"baseline": script_args}, timeout=timeout, seed=seed,
                  torch_npu_version=None, autocast=autocast, memory_limit=None, progress="baseline" if progress else False)
    dumped = tuple(range(min(dump_steps, steps)))
    with tempfile.TemporaryDirectory(prefix="npu-baseline-") as tmp:
        run_env = dict(env)
        if dumped:  # msprobe's statistics dump of the first steps, in the same run (checks/validate/child.py)
            from checks.validate.msprobe_bridge import write_dump_config

            config = write_dump_config(Path(tmp) / "dump_config.json", partial / "dump", list(dumped))
            run_env["NPU_VALIDATE_DUMP_CONFIG"] = str(config)
        ran = run_side("baseline", script, script.name, Path(tmp) / "run", partial, backend, steps=steps, env=run_env,
                       common=common, say=log.say, stream=log)
    if isinstance(ran, str):
        raise fmt.BundleError(ran)
    copy, smoke = ran
    losses = tuple(float(x) for x in (getattr(smoke, "losses", None) or ()))
    if int(getattr(smoke, "exit_code", 2)) != 0:
        why = "; ".join(str(r) for r in (getattr(smoke, "reasons", None) or ())) or f"exit {smoke.exit_code}"
        raise fmt.BundleError(f"the original {script.name} does not run ({why}): nothing recorded")
    if not losses:
        raise fmt.BundleError(f"no loss was captured from {script.name}: nothing to record")
    with open(partial / fmt.LOSSES, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["step", "loss"])
        writer.writerows((i, repr(x)) for i, x in enumerate(losses, 1))
    fingerprint = fmt.data_fingerprint(partial / fmt.PACK, samples=fmt.run_samples(smoke))
    (partial / fmt.FINGERPRINT).write_text(json.dumps(fingerprint, indent=1, sort_keys=True), encoding="utf-8")
    (partial / "pip_list.txt").write_text("\n".join(fmt.pip_list()) + "\n", encoding="utf-8")
    run_env = {**os.environ, **env}
    (partial / "env.json").write_text(json.dumps(fmt.environment(run_env), indent=1), encoding="utf-8")
    real = getattr(smoke, "backend", backend)
    device = (fmt.gpu_name() or "a CUDA GPU") if real == "cuda" else f"CPU ({fmt.versions()['cpu']})"
    if real == "cuda-emulated":
        notes.append("no CUDA GPU on this host: the original ran on the CUDA twin (its CUDA code paths, computed on the CPU)")
    from migrate import __version__

    cwd = Path.cwd()
    return {
        "tool": {"name": "npu-migrate", "version": __version__},
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "script": {"name": script.name, "path": str(script), "sha256": fmt.sha256_file(script),
                   "relative": os.path.relpath(script, cwd) if script.is_relative_to(cwd) else None},
        "args": list(script_args), "steps": steps, "recorded_steps": len(losses), "seed": seed,
        "fake_data": fake_data, "autocast": autocast, "backend": real, "emulated": real != "cuda", "device": device,
        "versions": fmt.versions(), "loss_dtype": getattr(smoke, "loss_dtype", None), "losses": list(losses),
        "config_check_hooks": copy.config_check, "instrument_message": copy.message,
        "data_fingerprint": {**{k: v for k, v in fingerprint.items() if k not in ("batches", "samples")},
                             "sample_batches": len(fingerprint.get("samples") or ())},
        "dump_steps": [s for s in dumped if (partial / "dump" / f"step{s}").is_dir()],
        "dropout": "removed" if env.get(NO_DROPOUT_ENV) == "1" else "as written",
        "fp32": "strict" if env.get(STRICT_FP32_ENV) == "1" else "device default",
        "notes": notes, "seconds": float(getattr(smoke, "duration_s", 0.0) or 0.0),
    }
