"""`npu-migrate validate`: does the migrated script train like the GPU original, and if not, why.

The command line is `npu-migrate validate` (migrate/commands/validate.py); this module is its library.

Pipeline (one call of `run_validate`):
1. instrumented temporary copies of both scripts (msprobe ConfigChecker + a dormant API-dump hook;
   the user's files are never written);
2. both run through the smoke machinery (`checks.smoke.run.run_smoke`) with the same seed, steps, data
   and deterministic settings: the original on the baseline backend ("cpu": the plain script, which
   is CUDA when the host has it), the migrated one on the NPU, else the CPU-backed stand-in;
3. msprobe config_check comparison of the two packs (env, pip, dataset, weights, random);
4. per-step loss alignment against tolerances for the loss precision (exact when both sides run on
   this CPU: then validate is an equivalence check of the rewrite);
5. with `dump=True`, or when the losses diverge, a second pair of runs with msprobe's statistics
   dump of the steps around the first divergence, `msprobe compare`, and the first diverging API
   with its call stack in the user's script;
6. verdict and exit code (0 pass, 1 fail, 2 could not run) plus a one-page summary in the output folder.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from checks.child.loop_observer import SAMPLES_ENV
from checks.launch.child_config import SHARED_GENERATOR_ENV
from checks.validate import hosts as validate_hosts
from checks.validate import loss_compare, loss_plot, msprobe_bridge
from checks.validate import repeat as validate_repeat
from checks.validate.args import migrated_args
from checks.validate.args import note as note_args
from checks.validate.bundle import SAMPLE_BATCHES, open_bundle
from checks.validate.copies import InstrumentedCopy, copy_path, make_copy, run_folders, user_text

DEFAULT_OUT = "npu_validate_out"
DEFAULT_SEED = 1234
SIDES = ("baseline", "migrated")
LOG_NAME = "validate.log"
BASELINE_BACKENDS = ("auto", "cuda", "emulated", "cpu")
KEPT_DUMP_STEPS = 2  # --keep: the API dump of the first steps in the recording (npu-migrate baseline --dump-steps' default)


class ValidateError(Exception):
    """validate could not start (bad arguments, output folder in the way): exit 2."""


@dataclass(frozen=True)
class RunInfo:
    side: str
    script: Path
    backend: str
    exit_code: int
    verdict: str
    steps: int
    losses: tuple[float, ...]
    loss_dtype: str | None
    reasons: tuple[str, ...]
    config_check_hooks: bool
    instrument_message: str
    autocast: str | None = None  # "policy; requested dtypes" (policy "device": a real device's own regions)
    autocast_regions: tuple[tuple[str, str, int], ...] = ()  # (policy, dtype, regions) of the run's autocast regions
    param_device: tuple[tuple[str, int], ...] = ()  # (device type, optimized parameters on it) at the run's end


@dataclass(frozen=True)
class ValidateResult:
    verdict: str  # pass / fail / error
    exit_code: int
    reasons: tuple[str, ...]
    out_dir: Path
    equivalence: bool  # both runs on this CPU: identical losses expected
    runs: tuple[RunInfo, ...] = ()
    losses: loss_compare.LossAlignment | None = None
    loss_csv: Path | None = None
    loss_plot: Path | None = None  # losses.svg
    plot_note: str | None = None
    config_check: msprobe_bridge.ConfigCheckResult | None = None
    api: msprobe_bridge.ApiCompareResult | None = None
    dump_steps: tuple[int, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    repeat: validate_repeat.Repeat | None = None  # the original run again (losses differed): its own spread
    baseline_runs: int = 1  # how many times the original ran for the loss comparison
    summary_md: Path | None = None
    summary_html: Path | None = None
    files: tuple[str, ...] = ()  # every file written to the output folder (relative paths; big folders as a count)

    def run(self, side: str) -> RunInfo | None:
        return next((r for r in self.runs if r.side == side), None)

    def to_dict(self) -> dict:
        """validate.json's content (for checks.launch.report.write_json, the one JSON writer of results)."""
        from checks.validate.report import to_json  # (report imports this module: imported when called)

        return to_json(self)


def prepare_out_dir(out_dir: Path, force: bool) -> Path:
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValidateError(f"--out {out_dir} exists and is not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        if not force:
            raise ValidateError(f"--out {out_dir} is not empty; choose another folder or pass --force to replace it")
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir


def run_validate(
    gpu_script: str | Path,
    npu_script: str | Path,
    *,
    steps: int = 20,
    fake_data: bool = False,
    out_dir: str | Path = DEFAULT_OUT,
    rtol: float | None = None,
    atol: float | None = None,
    dump: bool | None = None,
    script_args: tuple[str, ...] = (),
    timeout: float = 600,
    force: bool = False,
    seed: int = DEFAULT_SEED,
    torch_npu_version: str | None = None,
    migrated_backend: str = "auto",
    baseline_backend: str = "auto",
    autocast: str = "off",
    env: dict[str, str] | None = None,
    baseline_env: dict[str, str] | None = None,
    migrated_env: dict[str, str] | None = None,
    stream: TextIO | None = None,
    launch: dict | None = None,
    progress_timeout: float | None = None,
    memory_limit: int | None = None,
    repeat: int = validate_repeat.DEFAULT_REPEAT,
    recorded=None,
    notes: tuple[str, ...] = (),
    progress: bool = False,
    keep: bool = False,
    xlsx: bool = False,
) -> ValidateResult:
    """Run both scripts, compare, write the summary. Never raises for a failed comparison.

    dump: True always runs the msprobe API dump, False never, None (default) when the losses diverge.
    baseline_backend: "auto" (the real GPU when torch sees one, else the CUDA twin), "cuda", "emulated"
    (the CUDA twin, checks/emulation/cudatwin.py) or "cpu" (the original with CUDA hidden: its CPU fallback).
    autocast: the autocast policy of both emulated sides (see checks.smoke.run.run_smoke); one policy for
    both runs, so precision never differs by construction.
    repeat: the most extra runs of the original when the losses differ (0: never), to tell a rewrite
    error from an original that does not repeat itself (checks/validate/repeat.py).
    recorded: a baseline bundle (checks.validate.bundle.Bundle, `validate --baseline`): the original is not run,
    its recorded run is the baseline; gpu_script is then the recorded path (it need not exist here).
    progress: "validate baseline: step k/N" (then "validate migrated: ...") on a terminal while each run goes
    (the quiet mode's status line, checks/smoke/progress.py).
    keep: the bundle the original is recorded into on this host stays as OUT/baseline_bundle (a temporary
    folder otherwise), for `validate --baseline OUT/baseline_bundle` of later migrations.
    xlsx: msprobe's config_check also writes its tables to OUT/config_check/result.xlsx (the summary is taken
    from them in memory either way).

    One path for one host and two: without `recorded`, the original is first recorded into a bundle
    (checks.validate.record.record_run, what `npu-migrate baseline` runs), then compared exactly as
    `validate --baseline` compares against a bundle from another host; what only this host can do (run the
    original again when the losses differ, dump both sides around a divergence the bundle holds no dump of)
    comes on top.
    """
    if baseline_backend not in BASELINE_BACKENDS:
        raise ValidateError(f"--baseline-backend must be one of {', '.join(BASELINE_BACKENDS)} (got {baseline_backend!r})")
    gpu_script, npu_script = Path(gpu_script).resolve(), Path(npu_script).resolve()
    for script in (gpu_script, npu_script) if recorded is None else (npu_script,):
        if not script.is_file():
            raise ValidateError(f"no such script: {script}")
    if steps < 1:
        raise ValidateError("--steps must be at least 1")
    if repeat < 0:
        raise ValidateError("--repeat must be 0 or more")
    hint = swapped_hint(gpu_script, npu_script) if recorded is None else None
    if hint:
        raise ValidateError(hint)
    out = prepare_out_dir(Path(out_dir), force).resolve()
    from checks.validate.log import SplitLog

    log = SplitLog(out / LOG_NAME, stream)
    say = log.say
    say(f"validate: msprobe's log lines and Python warnings go to {out / LOG_NAME}")
    stream = log
    try:
        return _validate(gpu_script, npu_script, out, say, stream, steps=steps, fake_data=fake_data, rtol=rtol,
                         atol=atol, dump=dump, script_args=script_args, timeout=timeout, seed=seed,
                         torch_npu_version=torch_npu_version, migrated_backend=migrated_backend,
                         baseline_backend=baseline_backend, autocast=autocast, env=env, baseline_env=baseline_env,
                         migrated_env=migrated_env, launch=launch, progress_timeout=progress_timeout,
                         memory_limit=memory_limit, repeat=repeat, recorded=recorded, notes=list(notes), progress=progress,
                         keep=keep, xlsx=xlsx)
    finally:
        log.close()


def _validate(gpu_script, npu_script, out, say, stream, *, steps, fake_data, rtol, atol, dump, script_args, timeout,
              seed, torch_npu_version, migrated_backend, baseline_backend, autocast, env, baseline_env,
              migrated_env, launch, progress_timeout, memory_limit, repeat, recorded=None, notes=None,
              progress=False, keep=False, xlsx=False) -> ValidateResult:
    scripts = {"baseline": gpu_script, "migrated": npu_script}
    side_env = {"baseline": {**(env or {}), **(baseline_env or {})}, "migrated": {**(env or {}), **(migrated_env or {})}}
    notes = notes if notes is not None else []
    if recorded is not None:  # the original ran on the other host: nothing of it runs again here
        base_backend = str(recorded.manifest["backend"])
        repeat = 0
    else:
        base_backend = baseline_backend_for(baseline_backend, notes)
    if base_backend == "cpu" and autocast != "off":
        notes.append(f"--autocast {autocast} applies to the migrated run only: the plain-CPU baseline has no CUDA, "
                     "so its autocast('cuda') regions are off; use --baseline-backend emulated for the same policy on both sides")
    if base_backend == "cpu" and autocast == "off":
        autocast = "float32"  # the plain CPU runs the original's autocast("cuda") regions disabled: the same here
    if base_backend == "cpu":  # the plain-CPU original draws from the CPU generator only: the migrated run too
        side_env["migrated"].setdefault(SHARED_GENERATOR_ENV, "1")  # (checks/emulation/devicemap.device_generator)
    backends = {"baseline": base_backend, "migrated": migrated_backend}
    npu_args, changed = migrated_args(script_args)
    if note_args(changed):
        notes.append(note_args(changed))
    # script_args per side: a CUDA device argument reaches the migrated run as its NPU name
    common = dict(fake_data=fake_data, script_args={"baseline": tuple(script_args), "migrated": npu_args},
                  timeout=timeout, seed=seed, torch_npu_version=torch_npu_version, autocast=autocast,
                  memory_limit=memory_limit, progress=progress)
    # each run starts where the user's own run would (relative paths, PYTHONPATH=.)
    common["cwd"] = (run_folders(gpu_script, npu_script, Path.cwd().resolve()) if recorded is None
                     else validate_hosts.run_folders_against(recorded, npu_script, Path.cwd().resolve()))
    if launch is not None:  # N ranks per side, compared rank by rank (checks/validate/dist.py)
        common.update(launch=launch, progress_timeout=progress_timeout)
        if dump:
            notes.append("--dump is not run for distributed jobs (--nproc-per-node)")
        dump = False

    # msprobe's import for the config_check comparison: a one-process migrated run compares the packs itself
    # (msprobe_bridge.compare_in_run); for distributed jobs, whose ranks do not, a child imports it now while
    # the runs go and waits (validate's own overhead, bench: validate wall time <= 1.1x its two runs).
    warm = msprobe_bridge.WarmChild() if launch is not None else None
    try:
        return _validate_runs(gpu_script, npu_script, out, say, stream, warm, scripts, side_env, backends, common,
                              notes, steps=steps, rtol=rtol, atol=atol, dump=dump, repeat=repeat,
                              recorded=recorded, keep=keep, xlsx=xlsx)
    finally:
        if warm is not None:
            warm.close()


@dataclass
class _Progress:
    """What a validate has finished so far, for the partial result when a signal ends it."""

    steps: int
    backends: dict
    phase: str = "preparing the runs"
    runs: dict = field(default_factory=dict)  # side -> (InstrumentedCopy, smoke result) of a finished run
    alignment: loss_compare.LossAlignment | None = None
    equivalence: bool = False


def _validate_runs(gpu_script, npu_script, out, say, stream, warm, scripts, side_env, backends, common, notes, *,
                   steps, rtol, atol, dump, repeat=0, recorded=None, keep=False, xlsx=False) -> ValidateResult:
    """Everything after the set-up. A signal (migrate/guard.py: SIGINT, SIGTERM, SIGHUP) ends the run in
    progress (checks/launch/process.py) and unwinds through here: the runs finished so far and the steps the
    interrupted one had done become the result (verdict "interrupted", exit 128 + N), written to the output
    folder as any result is and attached to the exception as `partial` for the command to report."""
    done = _Progress(steps, backends)
    try:
        return _validate_steps(gpu_script, npu_script, out, say, stream, warm, scripts, side_env, backends, common,
                               notes, done, steps=steps, rtol=rtol, atol=atol, dump=dump, repeat=repeat,
                               recorded=recorded, keep=keep, xlsx=xlsx)
    except KeyboardInterrupt as exc:
        exc.partial = None  # not an inner run's own partial result (run_smoke attaches one)
        try:
            exc.partial = _finish(out, say, _interrupted(exc, done, notes, out))
        except Exception:  # noqa: BLE001 - the signal still ends the command (migrate/cli.py says so)
            pass
        raise


def _interrupted(exc: KeyboardInterrupt, done: _Progress, notes: list[str], out: Path) -> ValidateResult:
    """The result of a validate a signal ended: verdict "interrupted", exit 128 + N, each run's steps."""
    from migrate.guard import exit_status

    runs = [_run_info(side, copy.original, smoke, copy) for side, (copy, smoke) in done.runs.items()]
    side_run = getattr(exc, "side_run", None)  # the run the signal ended (run_side)
    if side_run is not None and side_run[0] not in done.runs:
        side, copy, smoke = side_run
        run = (_run_info(side, copy.original, smoke, copy) if smoke is not None else
               RunInfo(side, copy.original, done.backends.get(side, "?"), 2, "?", 0, (), None, (), False, ""))
        runs.append(replace(run, verdict="interrupted", exit_code=exit_status(exc), reasons=()))
    runs.sort(key=lambda r: SIDES.index(r.side))
    ran = {r.side: r for r in runs}
    counts = ", ".join(f"{side} {ran[side].steps if side in ran else 0} of {done.steps}" + ("" if side in ran else " (not started)")
                       for side in SIDES)
    compared = "" if done.alignment is not None else "; nothing was compared"
    reason = (f"interrupted by {exc or 'SIGINT'} while {done.phase}: {counts} optimizer steps; "
              f"every process of the run was ended{compared}")
    return ValidateResult("interrupted", exit_status(exc), (reason,), out, done.equivalence,
                          tuple(runs), losses=done.alignment, notes=tuple(notes))


def _validate_steps(gpu_script, npu_script, out, say, stream, warm, scripts, side_env, backends, common, notes, done,
                    *, steps, rtol, atol, dump, repeat=0, recorded=None, keep=False, xlsx=False) -> ValidateResult:
    live = recorded is None  # the original runs on this host: recorded first, then compared as a bundle
    with tempfile.TemporaryDirectory(prefix="npu-validate-") as tmp:
        tmp_path = Path(tmp)
        # ---- pass 1: the original recorded into a bundle (here, or on the other host), the migrated run
        copies: dict[str, InstrumentedCopy] = {}
        smoke: dict[str, Any] = {}
        for side in SIDES:
            done.phase = f"running the {side} script ({scripts[side].name})"
            if side == "baseline" and live:
                folder = out / "baseline_bundle" if keep else tmp_path / "bundle"
                ran = _record_here(gpu_script, folder, tmp_path, backends["baseline"], steps=steps,
                                   env=side_env["baseline"], common=common, say=say, stream=stream,
                                   dump_steps=KEPT_DUMP_STEPS if keep and common.get("launch") is None else 0)
                if isinstance(ran, str):
                    return _finish(out, say, ValidateResult("error", 2, (ran,), out, False))
                if ran.manifest is None:  # the original failed: nothing recorded, its run is the error below
                    copies[side], smoke[side] = ran.copy, ran.smoke
                    _copy_files(folder, out / side, _SIDE_FILES + (f"instrumented_{gpu_script.name}",))
                else:
                    recorded = open_bundle(folder, tmp_path)
            if side == "baseline" and recorded is not None:
                copies[side], smoke[side] = _recorded_side(recorded, out / side, steps)
                _pack_steps_as_recorded(side_env, recorded.manifest)
            elif side == "migrated":
                ran = run_side(side, scripts[side], gpu_script.name, tmp_path / "run" / side, out / side, backends[side],
                               steps=steps, env={**side_env[side], **_compare_in_run(copies, smoke, out, tmp_path, common, xlsx)},
                               common=common, say=say, stream=stream)
                if isinstance(ran, str):
                    return _finish(out, say, ValidateResult("error", 2, (ran,), out, False))
                copies[side], smoke[side] = ran
            done.runs[side] = copies[side], smoke[side]
        runs = tuple(_run_info(side, scripts[side], smoke[side], copies[side]) for side in SIDES)
        base, mig = runs
        equivalence = base.backend in ("cpu", "cuda-emulated") and mig.backend == "emulated"
        done.equivalence = equivalence
        data, fingerprints = None, None
        if recorded is not None:  # the first batches before anything else (checks/validate/hosts.py)
            from checks.validate import bundle as bundle_format
            from checks.validate.hosts import compare_data

            fingerprint = recorded.fingerprint()
            now = bundle_format.data_fingerprint(copies["migrated"].zip_path, samples=bundle_format.run_samples(smoke["migrated"]),
                                                 carried=bundle_format.run_carried(smoke["migrated"]))
            data = compare_data(fingerprint, now, exact=equivalence)
            carried = validate_hosts.carried_input_difference(fingerprint, now, exact=equivalence) if data is None else None
            later = validate_hosts.later_input_difference(fingerprint, now, exact=equivalence) if data is None else None
            notes.extend(n for n in (carried, later) if n is not None)
            fingerprints = fingerprint, now
            if data is None and carried is None and later is None:
                whose = "rank 0's" if common.get("launch") is not None else "the"  # the others: config_check dataset
                notes.append(f"data: {whose} first {len(fingerprint.get('batches') or {})} batches match the recorded ones "
                             "(msprobe dataset statistics)" if fingerprint.get("observed")
                             else f"data: not compared, the baseline has no fingerprint ({fingerprint.get('why')})")
        for run in runs:
            if not run.config_check_hooks:
                notes.append(f"{run.side}: ConfigChecker could not be attached to a model ({run.instrument_message or 'model not found'}); the pack has no dataset/weights items")

        if base.exit_code != 0:
            why = "; ".join(base.reasons) or f"exit {base.exit_code}"
            return _finish(out, say, ValidateResult("error", 2, (f"the baseline {gpu_script.name} does not run ({why}): nothing to compare against",), out, equivalence, runs, notes=tuple(notes)))
        if mig.exit_code == 2:
            shutil.rmtree(out / "config_check", ignore_errors=True)  # a comparison the run began: not one validate did
            why = "; ".join(mig.reasons) or "exit 2"
            return _finish(out, say, ValidateResult("error", 2, (f"the migrated {npu_script.name} could not be run ({why})",), out, equivalence, runs, notes=tuple(notes)))

        # ---- losses
        judged, because = loss_compare.compute_dtype(base.loss_dtype or mig.loss_dtype, base.autocast_regions,
                                                     mig.autocast_regions)
        r, a, why = loss_compare.tolerances(judged, exact=equivalence, rtol=rtol, atol=atol)
        alignment = loss_compare.align_losses(list(base.losses), list(mig.losses), rtol=r, atol=a, note=why)
        if recorded is not None and rtol is None and atol is None:
            notes.append(f"loss tolerance rtol {r:g}, atol {a:g}: {loss_compare.tolerance_source(judged, exact=equivalence)}"
                         + (f" ({judged}: {because})" if because and not equivalence else ""))
        done.alignment = alignment
        spread = None
        if _worth_repeating(alignment, mig, repeat, common):
            done.phase = "running the original again (the losses differ)"
            spread = _repeat_original(scripts, gpu_script.name, tmp_path, smoke["baseline"], mig, backends, side_env,
                                      common, say, stream, steps=steps, repeat=repeat, rtol=r, atol=a)
            retry = _retry_migrated(spread, scripts, gpu_script.name, tmp_path, mig, backends, side_env, common, say,
                                    stream, steps=steps, rtol=r, atol=a)
            if retry is not None:
                notes.append(retry.statement())
                if retry.within is not None:
                    mig = replace(mig, losses=retry.losses, steps=len(retry.losses))
                    runs = (base, mig)
            if not spread.deterministic:
                alignment = loss_compare.align_losses(
                    list(base.losses), list(mig.losses), rtol=r, atol=a, band=validate_repeat.band(spread, rtol=r, atol=a),
                    note=f"{why}; widened by the original's own run-to-run spread ({len(spread.runs)} runs)")
            validate_repeat.write_csv(spread, out / "baseline_runs.csv")
            data = _excuse_data_the_original_varies(data, recorded, spread, tmp_path, notes, exact=equivalence)
        loss_csv = loss_compare.write_csv(alignment, out / "losses.csv") if alignment.rows else None
        labels = (f"baseline ({base.backend})", f"migrated ({mig.backend})")
        plotted = loss_plot.plot(alignment, out / "losses.svg", labels=labels) if alignment.rows else None

        # ---- config_check
        if os.environ.get("NPU_MIGRATE_CONFIG_CHECK") == "0":
            config = msprobe_bridge.ConfigCheckResult(None, (), None, "NPU_MIGRATE_CONFIG_CHECK=0 turned the config_check packs off")
        else:
            say("validate: comparing the config_check packs (msprobe)")
            done.phase = "comparing the config_check packs"
            config = msprobe_bridge.compare_config_packs(copies["baseline"].zip_path, copies["migrated"].zip_path,
                                                         out / "config_check", warm=warm, in_run=tmp_path / IN_RUN_RESULT,
                                                         xlsx=xlsx)
            imported = tuple(validate_hosts.imported_modules(smoke[side]) for side in SIDES)
            config, expected = validate_hosts.expected_across_hardware(config, same_hardware=equivalence,
                                                                       imported=imported, fingerprints=fingerprints)
            notes.extend(expected)
            if spread is not None and not spread.deterministic:
                config = _excuse_what_the_original_varies(config, copies["baseline"].zip_path, spread, tmp_path, out, notes,
                                                          xlsx=xlsx)
        plot_note = None if plotted else "no losses to plot"
        if recorded is not None and not equivalence:
            for dropout_note in (validate_hosts.dropout_as_written_note(recorded, alignment),
                                 validate_hosts.attention_dropout_recorded_note(recorded)):
                if dropout_note:
                    notes.append(dropout_note)

        # ---- API dump around the first divergence
        api, dump_steps = None, ()
        diverged_at = alignment.first_divergence
        # a side without a single step has nothing to dump: its failure is the finding
        if (dump or (dump is None and diverged_at is not None)) and base.losses and mig.losses:
            k = diverged_at if diverged_at is not None else 0
            k = min(k, max(len(base.losses), len(mig.losses), 1) - 1)
            dump_steps = tuple(sorted({max(k - 1, 0), k}))
            # the original's side of the dump as recorded with it (baseline --dump-steps); on this host, when the
            # bundle holds no dump of these steps, both sides run again with the dump
            recorded_dump, dump_steps = _recorded_dump(recorded, dump_steps, notes, live=live)
            if dump_steps:
                done.phase = "running the msprobe API dump"
                say(f"validate: msprobe API dump of step(s) {', '.join(str(s + 1) for s in dump_steps)} "
                    f"{'on both sides' if recorded_dump is None else 'of the migrated run, against the recorded one'}")
                api = _dump_and_compare(scripts, gpu_script.name, tmp_path, out, dump_steps, backends, side_env, common,
                                        rtol=r, atol=a, stream=stream, recorded_dump=recorded_dump)
                hint = None if equivalence or api is None else validate_hosts.random_api_note(api.first)
                if hint:
                    notes.append(hint)

    verdict, exit_code, reasons = judge(runs, alignment, config, api, equivalence,
                                        within_spread=spread is not None and not spread.deterministic, data=data)
    if common.get("launch") is not None:
        from checks.validate.dist import compare_ranks

        per_rank, rank_reasons = compare_ranks(smoke["baseline"], smoke["migrated"], rtol=r, atol=a, note=why)
        notes.append(f"{len(per_rank)} ranks compared rank by rank: "
                     + ", ".join(f"rank {c.rank} {'identical' if c.alignment.identical else 'within tolerance' if c.alignment.first_divergence is None else 'diverges'}"
                                 for c in per_rank))
        if rank_reasons:
            verdict, exit_code = ("fail", 1) if verdict != "error" else (verdict, exit_code)
            reasons = [x for x in reasons if not x.startswith(("identical losses", "losses within"))] + rank_reasons
    if spread is not None:
        reasons = validate_repeat.verdict_reasons(spread, alignment, reasons)
    notes[:0] = precision_notes(runs)
    if equivalence:
        original = "the CUDA twin" if base.backend == "cuda-emulated" else "plain CPU, CUDA hidden"
        same = ("losses must be identical" if spread is None or spread.deterministic
                else "losses must be identical, or within the original's own run-to-run spread when it does not repeat itself")
        notes.insert(0, f"both runs on this CPU (original: {original}; migrated: the torch_npu stand-in): this is an "
                        f"equivalence check of the rewrite, {same}")
    result = ValidateResult(verdict, exit_code, tuple(reasons), out, equivalence, runs, alignment, loss_csv, plotted,
                            plot_note, config, api, dump_steps, tuple(notes), repeat=spread,
                            baseline_runs=1 if spread is None else len(spread.runs))
    return _finish(out, say, result)


IN_RUN_RESULT = "config_compare_in_run.json"  # in validate's temporary folder: the migrated run's comparison


def _compare_in_run(copies, smoke, out: Path, tmp_path: Path, common: dict, xlsx: bool) -> dict[str, str]:
    """The environment entry asking the migrated run to compare the config_check packs itself after its report
    (msprobe_bridge.compare_in_run): a one-process run of a baseline that ran, packs on. Its pack is the one
    run_side writes (out/migrated/config_check_pack.zip); compare_config_packs takes the result only for the
    packs it is given."""
    base = copies.get("baseline")
    if (os.environ.get("NPU_MIGRATE_CONFIG_CHECK") == "0" or common.get("launch") is not None or base is None
            or int(getattr(smoke.get("baseline"), "exit_code", 2) or 0) != 0):
        return {}
    return msprobe_bridge.in_run_spec(base.zip_path, out / "migrated" / "config_check_pack.zip", out / "config_check",
                                      tmp_path / IN_RUN_RESULT, xlsx=xlsx)


PACK_LOG = "config_check_pack.log"  # the helper's log next to the pack: why an item is missing
_SIDE_FILES = ("config_check_pack.zip", "smoke.json", "manifest.json", PACK_LOG)  # with instrumented_<script>: out/<side>/


def _copy_files(source: Path, target: Path, names) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        if (source / name).is_file():
            shutil.copyfile(source / name, target / name)


def _pack_steps_as_recorded(side_env: dict, manifest: dict) -> None:
    """The runs made here collect the config_check pack's per-forward items for as many forwards as the recording
    did (manifest "pack_steps", checks/validate/hosts.py PACK_STEPS); a bundle without it packed every forward."""
    from checks.validate.hosts import PACK_STEPS_ENV

    limit = manifest.get("pack_steps")
    for env in side_env.values():
        env.pop(PACK_STEPS_ENV, None)
        if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
            env[PACK_STEPS_ENV] = str(limit)


def _record_here(script: Path, folder: Path, tmp_path: Path, backend: str, *, steps, env, common, say, stream,
                 dump_steps: int = 0):
    """The original on this host, recorded into the bundle `folder` (checks.validate.record.record_run,
    as `npu-migrate baseline` records it). Without a dump unless the bundle is kept (then the dump of
    `npu-migrate baseline`'s default steps, so the kept bundle names a diverging API later too): this host
    dumps both sides when it needs a dump the bundle does not hold."""
    from checks.validate.record import record_run

    return record_run(script, folder, tmp_path / "record", backend=backend, steps=steps, dump_steps=dump_steps,
                      common=common, env=env, notes=[], say=say, stream=stream, run_side=run_side)


def _recorded_side(recorded, side_dir: Path, steps: int) -> tuple[InstrumentedCopy, Any]:
    """The baseline of a bundle, as `run_side` gives a live one: its files in `side_dir`; the instrumented copy
    that ran, with its line map, so its frames in the recorded texts name the user's lines."""
    from checks.validate import bundle as bundle_format

    instrumented = f"instrumented_{recorded.script_name}"
    _copy_files(recorded.folder, side_dir, (bundle_format.PACK, bundle_format.SMOKE, bundle_format.MANIFEST, instrumented, PACK_LOG))
    manifest = recorded.manifest
    ran = manifest.get("copy") or {}
    copy = InstrumentedCopy(Path(manifest["script"]["path"]), Path(ran.get("path") or side_dir / instrumented),
                            side_dir / bundle_format.PACK, tuple(int(x) for x in ran.get("line_map") or ()),
                            bool(manifest.get("config_check_hooks")), str(manifest.get("instrument_message") or ""))
    return copy, recorded.smoke(steps)


def run_side(side: str, script: Path, name: str, workdir: Path, side_dir: Path, backend: str, *, steps: int,
              env: dict, common: dict, say, stream, heading: str | None = None) -> tuple[InstrumentedCopy, Any] | str:
    """One script through the smoke machinery in its instrumented copy: the copy, the smoke result,
    `side_dir` holding config_check_pack.zip, instrumented_<name> and smoke.json. A script that cannot
    be copied (does not parse, unreadable) gives the reason as a string instead. Used by validate for
    both sides and by `npu-migrate baseline` (checks/validate/baseline_record.py) for the original, whose
    progress line starts with its own `heading`."""
    side_dir.mkdir(parents=True, exist_ok=True)
    zip_path = side_dir / "config_check_pack.zip"
    say(f"{heading or f'validate: running the {side}'} ({script.name}, backend {backend}{_emulated_suffix(backend)}, {steps} steps)")
    stream.begin(f"{side} run: {script}")
    # The child starts at once and imports torch while this process writes its instrumented
    # copy (libcst's import alone takes seconds): the two overlap (bench: validate overhead).
    planned = InstrumentedCopy(script, copy_path(script, workdir, name), zip_path, (), False, "")
    pending = _Background(_smoke, planned, backend=backend, steps=steps, env=env, json_report=side_dir / "smoke.json",
                          stream=stream, wait_for_script=COPY_WAIT_S, **_for_side(common, side))
    try:
        copy = make_copy(script, workdir, name, zip_path)
    except KeyboardInterrupt as exc:  # a signal: the run waiting for its copy is ended (or told to give up)
        planned.copy.parent.mkdir(parents=True, exist_ok=True)
        Path(f"{planned.copy}.cancel").write_text("")
        exc.side_run = (side, planned, pending.settled(INTERRUPTED_RUN_WAIT_S))
        raise
    except (OSError, UnicodeDecodeError, ValueError, SyntaxError) as exc:
        planned.copy.parent.mkdir(parents=True, exist_ok=True)
        Path(f"{planned.copy}.cancel").write_text("")
        pending.result()
        if isinstance(exc, SyntaxError):
            where = f"{script}:{exc.lineno}" if exc.lineno else str(script)
            return f"could not run the {side} script: it does not parse: {where}: {exc.msg}"
        return f"could not prepare the {side} script {script}: {exc}"
    shutil.copyfile(copy.copy, side_dir / f"instrumented_{name}")
    try:
        return copy, pending.result()
    except KeyboardInterrupt as exc:  # a signal ended the run (kill_live, before this was raised): its steps done
        exc.side_run = (side, copy, pending.settled(INTERRUPTED_RUN_WAIT_S))
        raise


def _original_off_device(base: RunInfo, mig: RunInfo) -> str:
    """The migrated run failed for training off the NPU, and the original trained off its GPU too (a script that
    needs a switch of its own to use an accelerator): said beside the failure, so it is not read as the rewrite's."""
    if not base.param_device or any(device == "cuda" for device, _ in base.param_device):
        return ""
    if not any("not on the NPU" in reason for reason in mig.reasons):
        return ""
    where = ", ".join(f"{n} on {device}" for device, n in base.param_device)
    return (f" (the original did not train on the GPU either: its parameters were {where} in the baseline run; "
            "the script may need a switch of its own, such as --accel or --cuda, given to both runs)")


def judge(runs, alignment, config, api, equivalence, *, within_spread: bool = False,
          data: str | None = None) -> tuple[str, int, list[str]]:
    """data: the first batches differ from the recorded ones (two hosts): named before anything else."""
    base, mig = runs
    reasons: list[str] = [data] if data else []
    if mig.exit_code != 0:
        reasons.append(f"the migrated script failed its smoke run: {'; '.join(mig.reasons) or mig.verdict}"
                       f"{_original_off_device(base, mig)}")
    if not base.losses:
        return "error", 2, ["no loss was captured from the baseline run: cannot compare (does the script call backward on a scalar loss?)"]
    if alignment.first_divergence is not None:
        row = alignment.rows[alignment.first_divergence]
        if row.baseline is None or row.migrated is None:
            reasons.append(f"loss: the runs have different step counts ({len(base.losses)} baseline, {len(mig.losses)} migrated)")
        else:
            reasons.append(f"loss diverges at step {row.step}: baseline {row.baseline:.8g}, migrated {row.migrated:.8g} "
                           f"(abs {row.abs_err:.3g}, rel {row.rel_err:.3g}; rtol {alignment.rtol:g}, atol {alignment.atol:g})")
    if config is not None and config.error is None:
        for item in config.failed:
            if item.name == "weights" and not equivalence and (item.first_step or 0) > 0:
                continue  # on different hardware, weights after the first update differ in the last bits
            shown = item.details if item.name == "pip" else item.details[:1]  # pip: every package to align
            detail = f" ({'; '.join(shown)})" if shown else ""
            reasons.append(f"config_check {item.name}: differs{detail}")
    dtype_diff = getattr(api, "first_dtype", None) if api is not None else None
    if dtype_diff is not None:
        reasons.append(f"precision differs between the runs, not the rewrite: the first API whose dtype differs is "
                       f"{dtype_diff.api} in step {dtype_diff.step + 1} ({dtype_diff.message}); give both runs the same "
                       "autocast policy and dtypes (validate --autocast)")
    if api is not None and api.first is not None:
        first = api.first
        where = f" at {first.stack[-1]}" if first.stack else ""
        reasons.append(f"first diverging API: {first.api} in step {first.step + 1}: {first.message}{where}")
    failed = bool(data) or mig.exit_code != 0 or alignment.first_divergence is not None or any(
        r.startswith("config_check") for r in reasons)
    if not failed:
        what = ("losses within the original's own run-to-run spread" if within_spread
                else "identical losses" if alignment.identical else "losses within tolerance")
        config_text = config.statement() if config is not None else "config_check not run"
        return "pass", 0, [f"{what} over {len(alignment.rows)} steps; {config_text}"]
    return "fail", 1, reasons


def _worth_repeating(alignment, mig: RunInfo, repeat: int, common: dict) -> bool:
    """Run the original again only for a value difference of a finished migrated run (a crash or a
    missing step is the rewrite's whatever the original does); not for distributed jobs."""
    at = alignment.first_divergence
    if repeat < 1 or at is None or mig.exit_code != 0 or common.get("launch") is not None:
        return False
    row = alignment.rows[at]
    return row.baseline is not None and row.migrated is not None


def _repeat_original(scripts, name, tmp_path, first, mig, backends, side_env, common, say, stream, *, steps, repeat,
                     rtol, atol) -> validate_repeat.Repeat:
    """The original again, same seed and steps, until its own spread is known (checks/validate/repeat.py)."""
    count = iter(range(1, repeat + 1))

    def run_again() -> validate_repeat.BaselineRun:
        i = next(count)
        say(f"validate: the losses differ; running the original again to see whether it repeats itself ({i} of at most {repeat})")
        stream.begin(f"baseline run {i + 1}: {scripts['baseline']}")
        copy = make_copy(scripts["baseline"], tmp_path / "repeat" / str(i), name, tmp_path / f"repeat_pack_{i}.zip")
        smoke = _smoke(copy, backend=backends["baseline"], steps=steps, env=side_env["baseline"], json_report=None,
                       stream=stream, **_for_side(common, "baseline"))
        return validate_repeat.BaselineRun(tuple(float(x) for x in (getattr(smoke, "losses", None) or ())),
                                           float(getattr(smoke, "duration_s", 0.0) or 0.0), str(getattr(smoke, "stderr", "")),
                                           int(getattr(smoke, "child_steps", 0) or 0))

    spread = validate_repeat.repeat_original(
        run_again, first.losses, mig.losses, repeat=repeat, rtol=rtol, atol=atol,
        static_causes=validate_repeat.static_causes(scripts["baseline"]), first_log=str(getattr(first, "stderr", "")),
        first_child_steps=int(getattr(first, "child_steps", 0) or 0))
    say(f"validate: {spread.statement()}")
    return spread


def _retry_migrated(spread, scripts, name, tmp_path, mig, backends, side_env, common, say, stream, *, steps, rtol,
                    atol) -> validate_repeat.MigratedRetry | None:
    """A racing original: the migrated script again while it lies outside the spread (checks/validate/repeat.py)."""
    count = iter(range(1, validate_repeat.MIGRATED_RETRIES + 1))

    def run_again() -> tuple[float, ...]:
        i = next(count)
        say(f"validate: the original races; running the migrated script again ({i} of at most "
            f"{validate_repeat.MIGRATED_RETRIES}): its first run lies outside the original's spread")
        stream.begin(f"migrated run {i + 1}: {scripts['migrated']}")
        copy = make_copy(scripts["migrated"], tmp_path / "retry" / str(i), name, tmp_path / f"retry_pack_{i}.zip")
        smoke = _smoke(copy, backend=backends["migrated"], steps=steps, env=side_env["migrated"], json_report=None,
                       stream=stream, **_for_side(common, "migrated"))
        return tuple(float(x) for x in (getattr(smoke, "losses", None) or ()))

    retry = validate_repeat.retry_migrated(spread, mig.losses, run_again, rtol=rtol, atol=atol)
    if retry is not None:
        say(f"validate: {retry.statement()}")
    return retry


def _excuse_data_the_original_varies(data, recorded, spread, tmp_path, notes, *, exact):
    """The data fingerprint's difference, when the original's own runs differ there too (racing processes that
    each feed the model, or inputs that are not seeded), is not held against the migration: a note instead."""
    if data is None or spread.deterministic:
        return data
    from checks.validate import bundle as bundle_format
    from checks.validate.hosts import compare_data

    other = next((i for i, run in enumerate(spread.runs) if i and run != spread.runs[0]), None)
    pack = tmp_path / f"repeat_pack_{other}.zip"
    own = spread.racing or (other is not None and pack.is_file() and compare_data(
        recorded.fingerprint(), bundle_format.data_fingerprint(pack), exact=exact) is not None)
    if not own:
        return data
    notes.append(f"{data.removesuffix('.')} -- the original's own runs differ there too: not held against the migration")
    return None


def _excuse_what_the_original_varies(config, first_pack, spread, tmp_path, out, notes, *, xlsx=False):
    """config_check items that differ between two runs of the original itself (a racing original's
    weights and inputs after its first update) are not held against the migration: they are compared
    once more, original against original, and the items that differ there are kept as warnings (from
    the second step on; at the first step only when the original differs there too)."""
    if config is None or config.error is not None or not config.failed:
        return config
    if spread.racing:
        # every process of a hogwild run writes the same pack: whose inputs and weights it holds is
        # itself a race, so these items say nothing about the rewrite (the losses still judge it)
        raced = [i.name for i in config.failed if i.name in ("dataset", "weights")]
        if raced:
            notes.append(f"config_check {', '.join(raced)}: recorded by whichever of the original's racing processes "
                         "wrote the pack last, different from run to run: not held against the migration")
        return replace(config, items=tuple(replace(i, status="warning") if i.name in raced else i for i in config.items))
    other = next((i for i, run in enumerate(spread.runs) if i and run != spread.runs[0]), None)
    pack = tmp_path / f"repeat_pack_{other}.zip"
    own = msprobe_bridge.compare_config_packs(first_pack, pack, out / "config_check_original", xlsx=xlsx)
    if own.error is not None:
        notes.append(f"config_check of the original against itself not compared: {own.error}")
        return config
    items, excused = [], []
    for item in config.items:
        mine = own.item(item.name)
        # the first step (initial weights, first inputs) must match unless the original varies there too
        if item.status == "error" and mine is not None and mine.status == "error" and ((item.first_step or 0) > 0 or not mine.first_step):
            excused.append(f"{item.name} (from msprobe pack step {mine.first_step or 0})")
            item = replace(item, status="warning")
        items.append(item)
    if excused:
        notes.append(f"config_check {', '.join(excused)} differ between two runs of the original itself "
                     "(config_check_original/): not held against the migration")
    return replace(config, items=tuple(items))


def _recorded_dump(recorded, dump_steps: tuple[int, ...], notes: list[str], *,
                   live: bool = False) -> tuple[Path | None, tuple[int, ...]]:
    """The bundle's API dump folder and the steps to compare; when it lacks them: no folder and the same steps
    for a bundle recorded by this validate (`live`: both sides run again with the dump), else no steps (and a note)."""
    have = sorted(int(x) for x in recorded.manifest.get("dump_steps") or ())
    if have and set(dump_steps) <= set(have):
        return recorded.path("dump"), dump_steps
    if live:
        return None, dump_steps
    held = f"steps {have[0] + 1}-{have[-1] + 1}" if have else "no step"
    needed = ", ".join(str(x + 1) for x in dump_steps)
    notes.append(f"msprobe API dump not compared: the baseline bundle holds dumps of {held}, the comparison needs step(s) "
                 f"{needed} ({_why_dump_lacks(recorded, have, dump_steps)})")
    return None, ()


def _why_dump_lacks(recorded, have: list[int], dump_steps: tuple[int, ...]) -> str:
    """Why the bundle's dump lacks `dump_steps` and what to do: record with a larger `--dump-steps` only where the
    recording asked for fewer steps; where it asked for them and its dump holds fewer, what happened instead."""
    manifest = recorded.manifest
    asked = manifest.get("dump_steps_requested")  # absent in bundles recorded before it was kept
    wanted = max(dump_steps) + 1
    if asked is None and have == [0] and _step_source(recorded) == "backward":
        # recorded before the dump followed a loop's backward()-counted steps: its steps all went into step 1
        return ("the loop has no optimizer (its steps counted by backward()) and the npu-migrate that recorded it cut "
                "the dump at optimizer steps only, so the dumped steps all went into step 1; record it again with this "
                f"npu-migrate (`npu-migrate baseline --dump-steps {wanted}`), which cuts it at each backward()")
    if asked is None or wanted > len(asked):
        return f"record with `npu-migrate baseline --dump-steps {wanted}`"
    ran = int(manifest.get("recorded_steps") or 0)
    what = (f"the recorded run ended after step {ran}" if ran < wanted else
            "the original ran them, but its dump holds fewer steps (see record.log in the bundle for msprobe's lines)")
    return f"the recording asked for steps 1-{len(asked)} (`--dump-steps {len(asked)}`): {what}"


def _step_source(recorded) -> str | None:
    """The recorded run's step source (its smoke report's: "optimizer", or "backward" for a loop with no optimizer)."""
    try:
        return recorded.smoke_report().get("step_source")
    except (OSError, ValueError, AttributeError):
        return None


def _dump_and_compare(scripts, name, tmp_path, out, dump_steps, backends, side_env, common, *, rtol, atol, stream,
                      recorded_dump: Path | None = None):
    """Both sides again with msprobe's statistics dump of `dump_steps`, then msprobe compare; with
    `recorded_dump` (a baseline bundle's dump folder) only the migrated side runs."""
    user_files: dict[str, tuple[str, list[int]]] = {}
    for side in SIDES if recorded_dump is None else ("migrated",):
        dump_dir = out / "dump" / side
        config_path = msprobe_bridge.write_dump_config(tmp_path / f"dump_config_{side}.json", dump_dir, list(dump_steps))
        copy = make_copy(scripts[side], tmp_path / "dump_run" / side, name, tmp_path / f"dump_pack_{side}.zip")
        user_files[os.path.realpath(copy.copy)] = (str(scripts[side]), list(copy.line_map))
        _smoke(copy, backend=backends[side], steps=max(dump_steps) + 1,
               env={**side_env[side], "NPU_VALIDATE_DUMP_CONFIG": str(config_path)},
               json_report=None, stream=stream, **_for_side(common, side))
    bench = out / "dump" / "baseline" if recorded_dump is None else recorded_dump
    return msprobe_bridge.compare_dumps(bench, out / "dump" / "migrated", out / "dump" / "compare",
                                        list(dump_steps), rtol=rtol, atol=atol, user_files=user_files)


_TORCH_NPU_IMPORT = re.compile(r"^\s*(?:import\s+torch_npu\b|from\s+torch_npu\b)", re.M)


def swapped_hint(gpu_script: Path, npu_script: Path) -> str | None:
    """A hint when the migrated script was given as the baseline: it imports torch_npu, the other does not."""
    try:
        base, mig = (p.read_text(encoding="utf-8-sig", errors="replace") for p in (gpu_script, npu_script))
    except OSError:
        return None
    if _TORCH_NPU_IMPORT.search(base) and not _TORCH_NPU_IMPORT.search(mig):
        return (f"the arguments look swapped: the baseline {gpu_script} imports torch_npu (a migrated script) and "
                f"{npu_script} does not; the order is `npu-migrate validate ORIGINAL_GPU_SCRIPT MIGRATED_SCRIPT`, "
                f"e.g. `npu-migrate validate {npu_script} {gpu_script}`")
    return None



COPY_WAIT_S = 300.0
# a run a signal ended has its processes killed already: its result (the steps it did) follows within seconds
INTERRUPTED_RUN_WAIT_S = 15.0


class _Background:
    """fn(*args, **kwargs) in a thread; result() waits for it (and re-raises what it raised).

    Waits on an Event, not Thread.join: a join that a signal interrupts (migrate/guard.py raises in the
    main thread) marks a still-running thread as stopped in CPython 3.11 (the bpo-45274 clean-up), so a
    later join would return at once; settled() must still wait for the run the signal ended."""

    def __init__(self, fn, *args, **kwargs):
        self._out: dict = {}
        self._done = threading.Event()

        def run():
            try:
                self._out["value"] = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                self._out["error"] = exc
            finally:
                self._done.set()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def result(self):
        self._done.wait()
        if "error" in self._out:
            raise self._out["error"]
        return self._out["value"]

    def settled(self, timeout: float):
        """The value once fn returns within `timeout` seconds, else None (fn raised, or is still running)."""
        self._done.wait(timeout)
        return self._out.get("value")


def baseline_backend_for(requested: str, notes: list[str]) -> str:
    """The smoke backend of the original: the real GPU, the CUDA twin, or the plain CPU."""
    if requested == "auto":
        from checks.launch.backend import detect_cuda

        detection = detect_cuda()
        notes.append(f"baseline backend auto -> {'the real GPU' if detection.backend == 'cuda' else 'the CUDA twin (emulated)'}: {detection.reason}")
        return detection.backend
    return {"emulated": "cuda-emulated"}.get(requested, requested)


def precision_notes(runs) -> list[str]:
    """Precision parity: a dtype difference between the runs is named, as a property of the setup."""
    base, mig = runs
    out = []
    if base.loss_dtype and mig.loss_dtype and base.loss_dtype != mig.loss_dtype:
        out.append(f"precision differs between the runs: the loss is {base.loss_dtype} in the baseline and "
                   f"{mig.loss_dtype} in the migrated run (an autocast/dtype setting, not the rewrite)")
    if base.autocast != mig.autocast and base.autocast and mig.autocast:
        # a real device's own regions (policy "device", checks/child/autocast_regions.py) against an emulation's:
        # the dtypes the regions computed in, not the emulation's policy name, say whether they differ
        device = "device" in {p for p, _, _ in (*base.autocast_regions, *mig.autocast_regions)}
        if not device or {d for _, d, _ in base.autocast_regions} != {d for _, d, _ in mig.autocast_regions}:
            out.append(f"autocast differs between the runs: baseline {base.autocast}, migrated {mig.autocast}")
    return out


def _for_side(common: dict, side: str) -> dict:
    """The options of one side's run; `progress` (the quiet mode's status line): its label, "validate SIDE"
    unless the caller named one (`npu-migrate baseline`)."""
    progress = common.get("progress")
    label = progress if isinstance(progress, str) else f"validate {side}"
    picked = {**common, "script_args": common["script_args"][side], "progress": label if progress else False}
    if "cwd" in common:
        picked["cwd"] = common["cwd"][side]
    return picked


def _smoke(copy: InstrumentedCopy, *, backend, steps, env, json_report, stream, fake_data, script_args, timeout, seed,
           torch_npu_version, autocast, launch=None, progress_timeout=None, memory_limit=None,
           wait_for_script=0.0, cwd=None, progress=False):
    from checks.smoke.run import run_smoke

    child_env = dict(os.environ)
    child_env.update(env)
    # the packs are what validate compares, unless the user turned them off (NPU_MIGRATE_CONFIG_CHECK=0)
    child_env.setdefault("NPU_MIGRATE_CONFIG_CHECK", "1")
    # the data fingerprint's per-sample digests of the first DataLoader batches (checks/child/loop_observer.py)
    child_env.setdefault(SAMPLES_ENV, str(SAMPLE_BATCHES))
    # one str-hash order for every run (each Python process draws its own): a script whose data depends
    # on the iteration order of a set of strings (tkipf/pygcn: `set(labels)` picks the class indices)
    # otherwise feeds each run other labels; the user's own PYTHONHASHSEED is kept
    child_env.setdefault("PYTHONHASHSEED", "0")
    # one autocast policy for both sides (precision parity; no effect on real hardware). On the
    # plain-CPU baseline torch.cuda.amp is off, so the stand-in's autocast must be off too.
    policy = autocast if backend != "cpu" else "off"
    options = dict(autocast=policy, wait_for_script=wait_for_script, memory_limit=memory_limit, progress=progress)
    if launch is not None:
        from checks.child.bootstrap import wait_for_script as wait_for_copy
        from checks.validate.dist import smoke_ranks

        # the torchrun launcher starts from the finished copy (a missing one is its error to report)
        wait_for_copy(str(copy.copy), wait_for_script)
        options = dict(autocast=policy, memory_limit=memory_limit, progress=progress)
        run_smoke = functools.partial(smoke_ranks, launch=launch, progress_timeout=progress_timeout)
    return run_smoke(
        str(copy.copy), steps=steps, timeout=timeout, backend=backend, fake_data=fake_data,
        torch_npu_version=torch_npu_version, script_args=list(script_args),
        json_report=str(json_report) if json_report else None, env=child_env,
        cwd=str(cwd or copy.original.parent), stream=stream, seed=seed, **options,
    )


def _run_info(side: str, script: Path, smoke, copy: InstrumentedCopy) -> RunInfo:
    losses = tuple(float(x) for x in (getattr(smoke, "losses", None) or ()))
    return RunInfo(
        side, script, str(getattr(smoke, "backend", "?")), int(getattr(smoke, "exit_code", 2)),
        str(getattr(smoke, "verdict", "?")), int(getattr(smoke, "steps", len(losses)) or 0), losses,
        getattr(smoke, "loss_dtype", None), tuple(user_text(str(r), copy) for r in (getattr(smoke, "reasons", None) or ())),
        copy.config_check, copy.message, _autocast_text(getattr(smoke, "autocast", None)),
        _autocast_regions(getattr(smoke, "autocast", None)),
        tuple(sorted((str(k), int(v)) for k, v in (getattr(smoke, "param_device", None) or {}).items())),
    )


def _autocast_regions(info) -> tuple[tuple[str, str, int], ...]:
    if not isinstance(info, dict):
        return ()
    policy = str(info.get("policy"))
    return tuple((policy, str(k), int(v)) for k, v in sorted((info.get("requested") or {}).items()))


def _autocast_text(info) -> str | None:
    if not info:
        return None
    requested = ", ".join(f"{k} x{v}" for k, v in sorted((info.get("requested") or {}).items())) or "no autocast region"
    return f"policy {info.get('policy')}; {requested}"


def _emulated_suffix(backend: str) -> str:
    from checks.verdict.smoke import emulated_note

    note = emulated_note(backend)
    return f" ({note})" if note else ""


def _finish(out: Path, say, result: ValidateResult) -> ValidateResult:
    from checks.validate import report as validate_report

    final = ("summary.md", "summary.html", "validate.json", LOG_NAME)
    result = ValidateResult(**{**result.__dict__, "summary_md": out / "summary.md", "summary_html": out / "summary.html",
                               "files": validate_report.files_written(out, final)})
    validate_report.write_summary(result)
    (out / "validate.json").write_text(json.dumps(validate_report.to_json(result), indent=1), encoding="utf-8")
    return result
