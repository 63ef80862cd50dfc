"""`validate --baseline BUNDLE NPU_SCRIPT`: the migrated script against a baseline recorded on another
host (`npu-migrate baseline`, checks/validate/baseline_record.py). Opens the bundle, takes its seed, steps, data
option, autocast policy and arguments, and hands the recorded run to `checks.validate.run.run_validate`
(`recorded=`): one comparison path for one host and two."""

from __future__ import annotations

import tempfile
from pathlib import Path

from checks.launch.child_config import SHARED_GENERATOR_ENV
from checks.validate.bundle import BundleError, open_bundle
from checks.validate.hosts import NO_DROPOUT_ENV, PACK_STATS_DUMPED_ENV, STRICT_FP32_ENV, script_note, tf32_in_use
from checks.validate.run import ValidateError, run_validate


def run_validate_baseline(bundle_path: str | Path, npu_script: str | Path, *, steps: int | None = None,
                          script_args: tuple[str, ...] | None = None, cwd: Path | None = None, **options):
    """`validate --baseline BUNDLE NPU_SCRIPT`: the migrated script with the bundle's seed, steps, data
    option, autocast policy and arguments, compared with the recorded run (checks.validate.run.run_validate,
    `recorded=`). A bundle that cannot be read, or steps that cannot match, is a ValidateError (exit 2)
    raised before anything is written."""
    with tempfile.TemporaryDirectory(prefix="npu-validate-bundle-") as tmp:
        try:
            bundle = open_bundle(bundle_path, Path(tmp))
        except BundleError as exc:
            raise ValidateError(str(exc)) from None
        manifest = bundle.manifest
        recorded_steps = len(bundle.losses)
        if recorded_steps < 1:
            raise ValidateError(f"baseline bundle {bundle_path} has no recorded loss: nothing to compare against")
        if steps is not None and steps > recorded_steps:
            raise ValidateError(f"--steps {steps} cannot match the baseline bundle: it recorded {recorded_steps} steps "
                                f"(record again with `npu-migrate baseline --steps {steps}`, or pass --steps {recorded_steps} or fewer)")
        notes = [f"baseline recorded {manifest.get('created')} on {manifest.get('device')} (backend {manifest.get('backend')}, "
                 f"torch {(manifest.get('versions') or {}).get('torch')}, npu-migrate {(manifest.get('tool') or {}).get('version')}): "
                 f"{bundle_path}"]
        recorded_args = tuple(manifest.get("args") or ())
        if script_args is None or tuple(script_args) == recorded_args:
            script_args = recorded_args
        else:
            notes.append(f"script arguments given here {list(script_args)} replace the recorded ones {list(recorded_args)}")
        recorded_env = {}  # what the recording set in its run, set here too (checks/validate/child.py)
        if manifest.get("dropout") == "removed":
            recorded_env[NO_DROPOUT_ENV] = "1"
            notes.append("dropout removed in the migrated run as in the recorded one (`baseline --no-dropout`: every "
                         "dropout's probability 0, msprobe's remove_dropout, attention's dropout_p included)")
        backend = manifest.get("backend")
        if backend == "cpu" or (backend != "cuda" and manifest.get("device_generator") != "own"):
            # the original drew from the CPU generator only: a plain-CPU run, or the twin before the emulated
            # device had a generator of its own; the migrated run's draws on the stand-in do the same
            recorded_env[SHARED_GENERATOR_ENV] = "1"
            if backend != "cpu":
                notes.append("the bundle was recorded before the emulated device had a random generator of its own: "
                             "the migrated run draws on the device from the CPU generator as that recording did")
        used = tf32_in_use(manifest.get("fp32_effective")) if manifest.get("backend") == "cuda" else ()
        if manifest.get("fp32") == "strict" and used:
            recorded_env[STRICT_FP32_ENV] = "1"
            notes.append(f"the recorded run asked for full float32 (`baseline --strict-fp32`) but its script turned TF32 on "
                         f"itself ({', '.join(used)} as the run left them): the baseline's float32 matrix products used "
                         "TF32's 10-bit mantissas and this run's do not, so matmul-type APIs (linear, matmul, attention, "
                         "convolutions) differ with identical inputs from the first step and the losses drift; set those "
                         "lines False in the original and record again for a comparison in full float32")
        elif manifest.get("fp32") == "strict":
            recorded_env[STRICT_FP32_ENV] = "1"
            notes.append("float32 in full precision in the migrated run as in the recorded one (`baseline --strict-fp32`: "
                         "HF32 off on the NPU, as TF32 was on the GPU)")
        elif used:
            notes.append(f"the baseline ran with TF32 on ({', '.join(used)} as the run left them): its float32 matrix "
                         "products used TF32's 10-bit mantissas, this run's do not, so losses can drift apart within a "
                         "few steps; set them False in the original (and record with `npu-migrate baseline "
                         "--strict-fp32`) for a comparison in full float32")
        elif manifest.get("backend") == "cuda":
            notes.append("the baseline ran with the GPU's default float32 precision (cuDNN convolutions may use TF32, "
                         "10-bit mantissas): losses can drift apart within a few steps of training; for a tight "
                         "comparison record with `npu-migrate baseline --strict-fp32` (TF32 off there, HF32 off here)")
        if manifest.get("pack_statistics_in_dump", int(manifest["schema_version"]) < 2):
            recorded_env[PACK_STATS_DUMPED_ENV] = "1"  # a schema-1 bundle: its dump numbers the pack's statistics too
            notes.append(f"bundle schema {manifest['schema_version']}: its API dump holds the config_check pack's own "
                         "statistics (Tensor.max/min/mean/norm before every forward); the migrated run's dump holds "
                         "them too, so that the same calls get the same numbers")
        if recorded_env:
            options["migrated_env"] = {**(options.get("migrated_env") or {}), **recorded_env}
        warning = script_note(bundle, Path(cwd or Path.cwd()), Path(npu_script))
        if warning:
            notes.append(warning)
        options["launch"] = _launch(bundle, options.get("launch"), bundle_path)
        return run_validate(
            manifest["script"]["path"], npu_script, steps=steps or recorded_steps, seed=int(manifest["seed"]),
            fake_data=bool(manifest.get("fake_data")), autocast=_policy(manifest.get("autocast")),
            script_args=tuple(script_args), recorded=bundle, notes=tuple(notes), **options)


def _policy(autocast: str | None) -> str:
    """The recorded policy as validate's --autocast takes it ('float32' is the plain-CPU baseline's 'off')."""
    return "off" if autocast in (None, "float32") else str(autocast)


def _launch(bundle, launch: dict | None, bundle_path) -> dict | None:
    """The migrated run's ranks: as many as the original recorded (`baseline --nproc-per-node N`), compared rank
    by rank; --nproc-per-node given here must say the same (the other torchrun options are this host's)."""
    recorded = bundle.nproc_per_node
    given = None if launch is None else int(launch["nproc_per_node"])
    if given is not None and given != recorded:
        held = f"{recorded} ranks" if recorded else "one process"
        raise ValidateError(f"--nproc-per-node {given} cannot match the baseline bundle {bundle_path}: it recorded {held} "
                            f"(record again with `npu-migrate baseline --nproc-per-node {given}`)")
    if recorded is None:
        return None
    return launch or {"nproc_per_node": recorded, "nnodes": "1", "node_rank": 0, "master_addr": None, "master_port": None}
