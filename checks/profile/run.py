"""`npu-migrate profile` (parent side): run the script through the smoke machinery with the profile hooks,
then rank what the child measured. Never imports torch.

The child's measurement (checks/profile/child.py) is switched on by the NPU_MIGRATE_PROFILE
environment variable, handed to checks.smoke.run.run_smoke through its `env` argument; the child writes its
own report next to the smoke report. On a real NPU the trace goes to OUT/trace and, when
`msprof-analyze` is on PATH, `msprof-analyze advisor all` runs on it (checks/profile/advisor.py).
"""
from __future__ import annotations

import os
import tempfile

from checks.launch.backend import detect
from checks.profile.ascend import DEFAULT_SCHEDULE, steps_needed
from checks.profile.findings import KINDS, SEVERITIES, ProfileResult
from checks.profile.result import PROFILE_ENV, build_result, child_config, read_child_report

# one run's result from its child's report: checks/profile/result.py
from checks.verdict.smoke import emulated_note

BACKENDS = ("auto", "npu", "emulated")
MIN_STEPS = 3  # step 1 (set-up) is never measured; dynamic shapes need two measured steps to compare


def parse_fail_on(text: str | None) -> tuple[str, ...]:
    """`--fail-on`: kinds and/or a severity (low|medium|high: that one and above), `any`, or `none`,
    separated by `,` or `|`. Raises ValueError on an unknown word."""
    if not text:
        return ()
    words = tuple(w.strip() for w in text.replace("|", ",").split(",") if w.strip())
    for w in words:
        if w not in (*KINDS, *SEVERITIES, "any", "none"):
            raise ValueError(f"--fail-on: unknown {w!r} (kinds: {', '.join(KINDS)}; severities: "
                             f"{', '.join(SEVERITIES)}; any; none)")
    return tuple(w for w in words if w != "none")


def run_profile(script, *, steps: int = 8, backend: str = "auto", fake_data: bool = False,
                torch_npu_version: str | None = None, script_args=(), out_dir=None, fail_on: str | None = None,
                timeout: float = 600, stream=None, python: str | None = None, env: dict | None = None,
                op_trace: bool = True, advisor: bool = True, seed: int | None = None, launch=None,
                progress_timeout: float | None = None, fusion: bool = True, progress: bool = False) -> ProfileResult:
    """Profile `script` for `steps` optimizer steps. Never raises for a bad script (exit 2 instead).
    A signal (SIGINT, SIGTERM, SIGHUP: migrate/guard.Interrupted) ends the run and is re-raised with the
    result of the steps measured so far as `partial` (verdict "interrupted", exit 128 + N).

    `fusion`: look for fused-operator chances (emulated; checks/profile/fusion.py); off, for measuring its cost.
    `progress`: "profile: step k/N" on a terminal while it runs (the quiet mode's status line, checks/smoke/progress.py).

    `launch` (a checks.distributed.run.LaunchSpec): run it as N ranks under torchrun and profile every rank;
    the result then carries one ProfileResult per rank in `ranks` and the findings merged across them."""
    from checks.smoke.run import run_smoke
    from migrate import knowledge

    script = str(script)

    def error(reason: str, **kw) -> ProfileResult:
        return ProfileResult(script, backend, 2, reasons=(reason,), note=emulated_note(backend), **kw)

    try:
        fail_words = parse_fail_on(fail_on)
    except ValueError as exc:
        return error(str(exc))
    if backend not in BACKENDS:
        return error(f"unknown backend {backend!r} (one of {', '.join(BACKENDS)})")
    if not os.path.isfile(script):
        return error(f"script not found: {script}")
    try:
        version = knowledge.resolve_version(torch_npu_version)
    except ValueError as exc:
        return error(str(exc))
    warnings = []
    if backend == "auto":
        detection = detect(python)
        backend = detection.backend
        warnings.append(f"backend auto -> {backend}: {detection.reason}")
    needed = steps_needed(DEFAULT_SCHEDULE) if backend == "npu" else MIN_STEPS
    if steps < needed:
        why = ("the Ascend profiler's schedule (wait 1, warmup 1, active 2) needs" if backend == "npu"
               else "step 1 includes the set-up and is not measured; comparing steps needs")
        return error(f"--steps {steps}: {why} at least {needed} optimizer steps")
    out_dir = os.path.abspath(out_dir or "npu_profile_out")
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        return error(f"cannot create the output folder {out_dir}: {exc}")
    if launch is not None:  # N ranks under torchrun, each profiled (checks/profile/dist.py)
        from checks.profile.dist import run_distributed_profile

        return run_distributed_profile(
            script, launch=launch, steps=steps, backend=backend, fake_data=fake_data, version=version,
            script_args=tuple(script_args), out_dir=out_dir, fail_words=fail_words, timeout=timeout, stream=stream,
            python=python, env=env, op_trace=op_trace, advisor=advisor, seed=seed, warnings=warnings,
            progress_timeout=progress_timeout, fusion=fusion, progress=progress)
    trace_dir = os.path.join(out_dir, "trace") if backend == "npu" else None

    fd, report = tempfile.mkstemp(prefix="npu-migrate-profile-", suffix=".json")
    os.close(fd)
    os.unlink(report)
    child_env = dict(env or {})
    child_env[PROFILE_ENV] = child_config(report, backend, version, op_trace, trace_dir, fusion)
    interrupted = None
    try:
        smoke = run_smoke(script, steps=steps, timeout=timeout, backend=backend, fake_data=fake_data,
                          torch_npu_version=version, script_args=tuple(script_args), op_trace=False,
                          env=child_env, stream=stream, python=python, seed=seed, progress="profile" if progress else False)
    except KeyboardInterrupt as exc:  # a signal (migrate/guard.py): the run is ended; rank the steps it measured
        interrupted, smoke = exc, getattr(exc, "partial", None)
        if smoke is None:
            raise
    finally:
        child = read_child_report(report)
    result = build_result(script, backend, version, child, smoke, smoke.steps, warnings=warnings, out_dir=out_dir,
                          fail_words=fail_words, trace_dir=trace_dir, advisor=advisor)
    if interrupted is not None:  # the partial result travels on the exception, as smoke's does
        interrupted.partial = result
        raise interrupted
    return result
