"""The one recording of the original: its run (validate's run of a side) written into a folder as a baseline
bundle (checks/validate/bundle.py). `npu-migrate baseline` records through it into the bundle it hands over
(checks/validate/baseline_record.py); a same-host `validate` into a temporary bundle that it then compares
against exactly as `validate --baseline` does (checks/validate/run.py)."""

from __future__ import annotations

import csv
import json
import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from checks.validate import bundle as fmt
from checks.validate.copies import InstrumentedCopy, user_text
from checks.validate.hosts import (
    NO_DROPOUT_ENV,
    PACK_STATS_DUMPED_ENV,
    PACK_STEPS,
    PACK_STEPS_ENV,
    PRECISION_FLAGS_ENV,
    STRICT_FP32_ENV,
    tf32_in_use,
)


@dataclass(frozen=True)
class RecordedRun:
    """The original's run as `record_run` leaves it: its instrumented copy and smoke result, and the manifest
    of the bundle written into the folder (None when the run failed: `why`, nothing recorded)."""

    copy: InstrumentedCopy
    smoke: Any
    manifest: dict | None
    why: str | None = None


def _why(smoke, copy: InstrumentedCopy) -> str:
    """The run's reasons, its lines pointed at the user's script (not the instrumented copy's)."""
    why = "; ".join(str(r) for r in (getattr(smoke, "reasons", None) or ())) or f"exit {getattr(smoke, 'exit_code', 2)}"
    return user_text(why, copy)


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        path.unlink()


def record_run(script: Path, folder: Path, work: Path, *, backend: str, steps: int, dump_steps: int, common: dict,
               env: dict, notes: list[str], say, stream, run_side, heading: str | None = None,
               pack_steps: int = PACK_STEPS) -> RecordedRun | str:
    """Run the original (validate's run of a side, checks.validate.run.run_side) and record it into `folder` as a
    bundle: the files of checks/validate/bundle.py and manifest.json with their checksums. The one recording of
    the original: `npu-migrate baseline` writes it into the bundle it hands over, a same-host `validate` into a
    temporary one (or OUT/baseline_bundle with --keep) that it then compares against, as `validate --baseline`.

    common: validate's per-side run options (script_args and cwd per side, launch for N ranks); notes: the
    manifest's notes (the backend chosen and why); run_side: checks.validate.run.run_side (passed in: that module
    records through this one); heading: the progress line's start (run_side's, `validate: running the baseline`,
    by default). A script that cannot be prepared gives its reason as a string."""

    folder.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    dumped = asked = tuple(range(min(dump_steps, steps)))
    run_env = dict(env)
    # the pack's per-forward items of the first pack_steps forwards (0: every forward, msprobe's own packs)
    run_env.pop(PACK_STEPS_ENV, None)
    if pack_steps:
        pack_steps = max(int(pack_steps), fmt.FINGERPRINT_BATCHES)
        run_env[PACK_STEPS_ENV] = str(pack_steps)
    if dumped:  # msprobe's statistics dump of the first steps, in the same run (checks/validate/child.py)
        from checks.validate.msprobe_bridge import write_dump_config

        config = write_dump_config(work / "dump_config.json", folder / "dump", list(dumped))
        run_env["NPU_VALIDATE_DUMP_CONFIG"] = str(config)
    flags_path = work / "precision_flags.json"  # the float32 switches as the run left them (checks/validate/child.py)
    run_env[PRECISION_FLAGS_ENV] = str(flags_path)
    ran = run_side("baseline", script, script.name, work / "run", folder, backend, steps=steps, env=run_env,
                   common=common, say=say, stream=stream, heading=heading)
    if isinstance(ran, str):
        return ran
    copy, smoke = ran
    losses = tuple(float(x) for x in (getattr(smoke, "losses", None) or ()))
    if int(getattr(smoke, "exit_code", 2)) != 0 and dumped and not losses and not getattr(smoke, "timed_out", False):
        # msprobe wraps torch's APIs before the script's imports: an import that compiles TorchScript then can fail
        # (pytorch-ignite under torch 2.11: torch.distributed.optim's functional optimizers), a run that trains
        # without the dump. Once more without it, said in the manifest; a script that fails both ways does not run.
        # (Not after a timeout: a run that hangs before its first step would make the user wait twice.)
        first = _why(smoke, copy)
        say(f"baseline: the original failed under msprobe's API dump before its first step ({first[:200]}); "
            "running it again without the dump")
        for name in ("dump", fmt.PACK, os.path.splitext(fmt.PACK)[0] + ".log"):
            _remove(folder / name)
        dumped = ()
        run_env.pop("NPU_VALIDATE_DUMP_CONFIG", None)
        ran = run_side("baseline", script, script.name, work / "run_without_dump", folder, backend, steps=steps,
                       env=run_env, common=common, say=say, stream=stream, heading=heading)
        if isinstance(ran, str):
            return ran
        copy, smoke = ran
        losses = tuple(float(x) for x in (getattr(smoke, "losses", None) or ()))
        if int(getattr(smoke, "exit_code", 2)) == 0:
            notes.append(f"the original failed under msprobe's API dump before its first step ({first[:300]}) and "
                         "was recorded without it: no API dump, so validate cannot name the first diverging API")
        else:
            return RecordedRun(copy, smoke, None, f"the original {script.name} does not run, with or without msprobe's "
                                                  f"API dump ({_why(smoke, copy)}): nothing recorded")
    if int(getattr(smoke, "exit_code", 2)) != 0:
        return RecordedRun(copy, smoke, None, f"the original {script.name} does not run ({_why(smoke, copy)}): nothing recorded")
    if not losses:
        return RecordedRun(copy, smoke, None, f"no loss was captured from {script.name}: nothing to record")
    with open(folder / fmt.LOSSES, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["step", "loss"])
        writer.writerows((i, repr(x)) for i, x in enumerate(losses, 1))
    fingerprint = fmt.data_fingerprint(folder / fmt.PACK, samples=fmt.run_samples(smoke), carried=fmt.run_carried(smoke))
    (folder / fmt.FINGERPRINT).write_text(json.dumps(fingerprint, indent=1, sort_keys=True), encoding="utf-8")
    (folder / "pip_list.txt").write_text("\n".join(fmt.pip_list()) + "\n", encoding="utf-8")
    (folder / "env.json").write_text(json.dumps(fmt.environment({**os.environ, **env}), indent=1), encoding="utf-8")
    real = getattr(smoke, "backend", backend)
    device = (fmt.gpu_name() or "a CUDA GPU") if real == "cuda" else f"CPU ({fmt.versions()['cpu']})"
    fp32_effective = _read_json(flags_path)
    used = tf32_in_use(fp32_effective) if real == "cuda" else ()
    if used and env.get(STRICT_FP32_ENV) == "1":
        notes.append(f"--strict-fp32 did not hold: the script turned TF32 on itself ({', '.join(used)} as the run left "
                     "them): its float32 matrix products ran with TF32's 10-bit mantissas; set them False in the script "
                     "for a comparison in full float32")
    if real == "cuda-emulated":
        notes.append("no CUDA GPU on this host: the original ran on the CUDA twin (its CUDA code paths, computed on the CPU)")
    # what the run itself warned of (parameters off the GPU, fewer steps than asked, no optimizer step): in the
    # recording's output and the manifest, not only in the bundle's smoke.json
    notes.extend(f"the original's run: {warning}" for warning in (getattr(smoke, "warnings", None) or ()))
    from migrate import __version__

    cwd = Path.cwd()
    run_folder = (common.get("cwd") or {}).get("baseline")
    launch = common.get("launch")
    manifest = {
        "tool": {"name": "npu-migrate", "version": __version__},
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "script": {"name": script.name, "path": str(script), "sha256": fmt.sha256_file(script),
                   "relative": os.path.relpath(script, cwd) if script.is_relative_to(cwd) else None},
        # where the run started: the user's working folder (the script at `relative` below it) or the script's folder
        "run_folder": "working folder" if run_folder is not None else "script folder",
        "args": list(common["script_args"]["baseline"]), "steps": steps, "recorded_steps": len(losses),
        "seed": common["seed"], "fake_data": common["fake_data"], "autocast": common["autocast"], "backend": real,
        "emulated": real != "cuda", "device": device, "versions": fmt.versions(),
        "loss_dtype": getattr(smoke, "loss_dtype", None), "losses": list(losses),
        "launch": ({"nproc_per_node": int(launch["nproc_per_node"]), "ranks": list(getattr(smoke, "rank_ids", ()))}
                   if launch is not None else None),
        "config_check_hooks": copy.config_check, "instrument_message": copy.message,
        "config_check_pack": (folder / fmt.PACK).is_file(),  # False: the packs were turned off (NPU_MIGRATE_CONFIG_CHECK=0)
        # the instrumented copy that ran and its line map: its frames in the recorded texts point at the user's lines
        "copy": {"path": str(copy.copy), "line_map": list(copy.line_map)},
        "data_fingerprint": {**{k: v for k, v in fingerprint.items() if k not in ("batches", "samples")},
                             "sample_batches": len(fingerprint.get("samples") or ())},
        "dump_steps": [s for s in dumped if (folder / "dump" / f"step{s}").is_dir()],
        # the steps `--dump-steps` asked for: a dump holding fewer is said as such, not "record with --dump-steps N"
        "dump_steps_requested": list(asked),
        # the pack's statistics run with the dump paused (checks/validate/child.py): not among the dumped APIs
        "pack_statistics_in_dump": {**os.environ, **env}.get(PACK_STATS_DUMPED_ENV) == "1",
        # the pack's dataset and weights items cover the first N forwards of the model (None: every forward); validate
        # --baseline collects the same in the migrated run (checks/validate/hosts.py PACK_STEPS)
        "pack_steps": pack_steps or None,
        "dropout": "removed" if env.get(NO_DROPOUT_ENV) == "1" else "as written",  # baseline --no-dropout
        "fp32": "strict" if env.get(STRICT_FP32_ENV) == "1" else "device default",  # baseline --strict-fp32
        # draws on the device come from a generator of its own (on the twin too: checks/emulation/devicemap.py);
        # validate --baseline of a bundle without this key, recorded on the twin, gives the migrated run the shared one
        "device_generator": "own",
        "fp32_effective": fp32_effective,  # the switches as the run left them (None: not read, the run ended early)
        "notes": notes, "seconds": float(getattr(smoke, "duration_s", 0.0) or 0.0),
    }
    return RecordedRun(copy, smoke, fmt.write_manifest(folder, manifest))
