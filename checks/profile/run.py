"""`npu-migrate profile` (parent side): run the script through the smoke machinery with the profile hooks,
then rank what the child measured. Never imports torch.

The child's measurement (checks/profile/child.py) is switched on by the NPU_MIGRATE_PROFILE
environment variable, handed to checks.smoke.run_smoke through its `env` argument; the child writes its
own report next to the smoke report. On a real NPU the trace goes to OUT/trace and, when
`msprof-analyze` is on PATH, `msprof-analyze advisor all` runs on it (checks/profile/advisor.py).
"""
from __future__ import annotations

import dataclasses
import json
import os
import tempfile

from checks.backend import EMULATED_NOTE, detect
from checks.profile import cost
from checks.profile.ascend import DEFAULT_SCHEDULE, steps_needed
from checks.profile.findings import (
    EMULATION_CANNOT_SEE,
    KINDS,
    SEVERITIES,
    ProfileResult,
)
from migrate.report import plural

PROFILE_ENV = "NPU_MIGRATE_PROFILE"
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


def fails(finding, fail_on: tuple[str, ...]) -> bool:
    if not fail_on:
        return False
    if "any" in fail_on or finding.kind in fail_on:
        return True
    levels = [SEVERITIES.index(w) for w in fail_on if w in SEVERITIES]
    return bool(levels) and SEVERITIES.index(finding.severity) >= min(levels)


def run_profile(script, *, steps: int = 8, backend: str = "auto", fake_data: bool = False,
                torch_npu_version: str | None = None, script_args=(), out_dir=None, fail_on: str | None = None,
                timeout: float = 600, stream=None, python: str | None = None, env: dict | None = None,
                op_trace: bool = True, advisor: bool = True, seed: int | None = None, launch=None,
                progress_timeout: float | None = None) -> ProfileResult:
    """Profile `script` for `steps` optimizer steps. Never raises for a bad script (exit 2 instead).

    `launch` (a checks.distributed.LaunchSpec): run it as N ranks under torchrun and profile every rank;
    the result then carries one ProfileResult per rank in `ranks` and the findings merged across them."""
    from checks.smoke import run_smoke
    from migrate import knowledge

    script = str(script)

    def error(reason: str, **kw) -> ProfileResult:
        note = EMULATED_NOTE if backend == "emulated" else None
        return ProfileResult(script, backend, 2, reasons=(reason,), note=note, **kw)

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
            progress_timeout=progress_timeout)
    trace_dir = os.path.join(out_dir, "trace") if backend == "npu" else None

    fd, report = tempfile.mkstemp(prefix="npu-migrate-profile-", suffix=".json")
    os.close(fd)
    os.unlink(report)
    child_env = dict(env or {})
    child_env[PROFILE_ENV] = child_config(report, backend, version, op_trace, trace_dir)
    try:
        smoke = run_smoke(script, steps=steps, timeout=timeout, backend=backend, fake_data=fake_data,
                          torch_npu_version=version, script_args=tuple(script_args), op_trace=False,
                          env=child_env, stream=stream, python=python, seed=seed)
    finally:
        child = _read(report)
    return build_result(script, backend, version, child, smoke, smoke.steps, warnings=warnings, out_dir=out_dir,
                        fail_words=fail_words, trace_dir=trace_dir, advisor=advisor)


def child_config(report: str, backend: str, version: str, op_trace: bool, trace_dir: str | None) -> str:
    """The NPU_MIGRATE_PROFILE value: where the child writes its report (and the NPU trace)."""
    return json.dumps({"report": report, "backend": backend, "torch_npu_version": version,
                       "op_trace": bool(op_trace), "trace_dir": trace_dir, "schedule": DEFAULT_SCHEDULE})


def build_result(script, backend, version, child, smoke, steps_run: int, *, warnings, out_dir, fail_words,
                 trace_dir, advisor, rank: int | None = None) -> ProfileResult:
    """One run's ProfileResult from the child's report and the smoke verdict of that run (for a rank of a
    distributed job: that rank's smoke result); writes OUT_DIR/summary.md when something was measured."""
    warnings = list(warnings)
    warnings += [w for w in smoke.warnings if not w.startswith("ops with no NPU kernel")]
    note = EMULATED_NOTE if backend == "emulated" else None
    common = {"note": note, "torch_npu_version": version, "out_dir": out_dir, "smoke_verdict": smoke.verdict,
              "smoke_reasons": smoke.reasons, "steps_run": steps_run, "rank": rank,
              "cannot_see": EMULATION_CANNOT_SEE if backend == "emulated" else ()}
    if smoke.exit_code == 2:
        return ProfileResult(script, backend, 2, reasons=smoke.reasons, warnings=tuple(warnings), **common)
    if child is None or int(child.get("measured_steps") or 0) < 1:
        why = "; ".join(smoke.reasons) or "the script stopped before a measured step"
        return ProfileResult(script, backend, 2, warnings=tuple(warnings), **common,
                             reasons=(f"nothing measured: {plural(steps_run, 'optimizer step')} ran ({why})",))
    if smoke.reasons:
        warnings.append("the run did not pass smoke (profiled what ran): " + "; ".join(smoke.reasons))
    warnings += child.get("warnings", [])
    if child.get("trace_stopped_after"):
        warnings.append(f"op tracing stopped after step {child['trace_stopped_after']}: two steps in a row showed "
                        "nothing new (cpu_fallback, float64 and dynamic_shape are per traced step)")
    child["script"] = os.path.abspath(script)
    findings, step_ms = cost.build(child, torch_npu_version=version)
    trace = None
    if backend == "npu":
        from checks.profile.advisor import collect

        trace = collect(trace_dir, child.get("ascend"), child.get("ascend_error"), run_advisor=advisor)
        if not trace["folders"]:
            return ProfileResult(script, backend, 2, reasons=tuple(trace["warnings"]), warnings=tuple(warnings),
                                 trace=trace, **common)
        warnings += trace.get("warnings", [])
    failing = sum(1 for f in findings if fails(f, fail_words))
    result = ProfileResult(script, backend, 1 if failing else 0, steps=int(child["measured_steps"]),
                           traced_steps=int(child.get("traced_steps") or 0), findings=tuple(findings),
                           step_time_ms=round(step_ms, 3) if step_ms else None,
                           step_times_ms=tuple(round(t * 1000, 3) for t in child.get("step_seconds", ())), warnings=tuple(dict.fromkeys(warnings)),
                           fail_on=fail_words, failing=failing, trace=trace, **common)
    from checks.profile.report import write_summary

    os.makedirs(out_dir, exist_ok=True)
    summary = write_summary(result, os.path.join(out_dir, "summary.md"))
    return dataclasses.replace(result, summary_path=summary)


def _read(path: str):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
