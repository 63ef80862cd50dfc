"""One profiled run's result from what its child measured (parent side, never imports torch).

Used by a single run (checks/profile/run.py) and by each rank of a torchrun job (checks/profile/dist.py).
"""
from __future__ import annotations

import dataclasses
import json
import os

from checks.profile import cost
from checks.profile.ascend import DEFAULT_SCHEDULE
from checks.profile.findings import EMULATION_CANNOT_SEE, SEVERITIES, PerfFinding, ProfileResult
from checks.verdict.smoke import emulated_note
from migrate.report import plural

PROFILE_ENV = "NPU_MIGRATE_PROFILE"


def fails(finding, fail_on: tuple[str, ...]) -> bool:
    if not fail_on:
        return False
    if "any" in fail_on or finding.kind in fail_on:
        return True
    levels = [SEVERITIES.index(w) for w in fail_on if w in SEVERITIES]
    return bool(levels) and SEVERITIES.index(finding.severity) >= min(levels)


def child_config(report: str, backend: str, version: str, op_trace: bool, trace_dir: str | None,
                 fusion: bool = True) -> str:
    """The NPU_MIGRATE_PROFILE value: where the child writes its report (and the NPU trace); `fusion`:
    record the op sequence for fusion chances (emulated, with the op trace)."""
    return json.dumps({"report": report, "backend": backend, "torch_npu_version": version,
                       "op_trace": bool(op_trace), "trace_dir": trace_dir, "schedule": DEFAULT_SCHEDULE,
                       "fusion": bool(fusion)})


def build_result(script, backend, version, child, smoke, steps_run: int, *, warnings, out_dir, fail_words,
                 trace_dir, advisor, rank: int | None = None) -> ProfileResult:
    """One run's ProfileResult from the child's report and the smoke verdict of that run (for a rank of a
    distributed job: that rank's smoke result); writes OUT_DIR/summary.md when something was measured."""
    warnings = list(warnings)
    warnings += [w for w in smoke.warnings if not w.startswith("ops with no NPU kernel")]
    note = emulated_note(backend)
    common = {"note": note, "torch_npu_version": version, "out_dir": out_dir, "smoke_verdict": smoke.verdict,
              "smoke_reasons": smoke.reasons, "steps_run": steps_run, "rank": rank,
              "cannot_see": EMULATION_CANNOT_SEE if backend == "emulated" else ()}
    if smoke.verdict == "interrupted":  # a signal ended the run: what it measured, with the signal's exit status
        return _interrupted(script, backend, version, child, smoke, steps_run, warnings=warnings, out_dir=out_dir,
                            fail_words=fail_words, trace_dir=trace_dir, advisor=advisor, rank=rank)
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
        # the trace, and so the advisor's counts, cover the profiler's active steps only
        traced = DEFAULT_SCHEDULE["active"] * max(DEFAULT_SCHEDULE["repeat"], 1)
        findings = findings + advisor_findings(trace, script, traced, version, warnings)
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


def advisor_findings(trace: dict, script: str, steps: int, version: str, warnings: list) -> list:
    """msprof-analyze advisor's fused-API rows of each run (its xlsx) as `fusion` findings at the user's
    lines (checks/profile/advisor_affinity.py); what could not be read is said in `warnings`."""
    from checks.profile import advisor_affinity

    raw = []
    for run in trace.get("advisor", ()):
        for xlsx in run.get("xlsx", ()):
            try:
                rows = advisor_affinity.read_rows(xlsx)
            except ImportError:
                warnings.append("openpyxl is not installed: the advisor's fused-API answers are in its report only")
                return []
            except Exception as exc:  # noqa: BLE001 - a damaged or foreign workbook never breaks the result
                warnings.append(f"could not read the advisor's {xlsx} ({type(exc).__name__}: {exc})")
                continue
            found, outside = advisor_affinity.findings(rows, script, steps, version)
            raw += found
            if outside:
                warnings.append(f"msprof-analyze advisor: {plural(outside, 'fused-API stack')} outside the "
                                f"script's folder, in its report only ({xlsx})")
    return [PerfFinding(kind=k, path=p, line=ln, per_step=round(ps, 3), message=m, advice=a, cost_ms=round(c, 3),
                        severity=cost.severity(c), what=w, detail=det) for k, p, ln, ps, m, a, c, w, det in raw]


def _interrupted(script, backend, version, child, smoke, steps_run, **kw) -> ProfileResult:
    """The steps measured before the signal, ranked as usual (none measured: no findings), with the
    signal's exit status (128 + N) and its reason; OUT_DIR/summary.md says it was interrupted."""
    from checks.profile.report import write_summary

    if child is not None and int(child.get("measured_steps") or 0) >= 1:
        ran = build_result(script, backend, version, child, dataclasses.replace(smoke, verdict="pass", exit_code=0, reasons=()),
                           steps_run, **kw)
    else:
        ran = ProfileResult(script, backend, 2, note=emulated_note(backend), torch_npu_version=version, out_dir=kw["out_dir"],
                            steps_run=steps_run, rank=kw.get("rank"), warnings=tuple(kw["warnings"]),
                            cannot_see=EMULATION_CANNOT_SEE if backend == "emulated" else (),
                            reasons=("nothing measured: the signal came before the first measured step (step 2)",))
    result = dataclasses.replace(ran, exit_code=smoke.exit_code, smoke_verdict=smoke.verdict, smoke_reasons=smoke.reasons,
                                 reasons=(*smoke.reasons, *(ran.reasons if ran.exit_code == 2 else ())))
    os.makedirs(kw["out_dir"], exist_ok=True)
    return dataclasses.replace(result, summary_path=write_summary(result, os.path.join(kw["out_dir"], "summary.md")))


def read_child_report(path: str):
    """The profile child's JSON report (None: none written), removed once read."""
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
