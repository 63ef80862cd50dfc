"""`npu-migrate profile --nproc-per-node N`: every rank of a torchrun job profiled (parent side, no torch).

The job starts through the distributed smoke (checks/distributed/run.py: torch's own launcher, the
bootstrap in every rank, one log per rank, the job verdict with hang naming and replica checks). Each
rank's profile child (checks/profile/child.py) writes its own report, `rank{RANK}.profile.json`, and on
an NPU its own trace folder, `OUT/rank{RANK}/trace`. Each rank then gets the single-run result
(checks/profile/run.build_result) with its own `OUT/rank{RANK}/summary.md`; the job's result holds
those in `ranks`, the findings merged across ranks (one finding per kind, line and call, with the
ranks that showed it), the slowest rank's median step time (the ranks wait for each other in the
collectives, so the job goes at the slowest rank's pace) and the distributed smoke verdict in `job`.
"""
from __future__ import annotations

import dataclasses
import os
import tempfile

from checks.profile.findings import EMULATION_CANNOT_SEE, PerfFinding, ProfileResult
from checks.verdict.smoke import emulated_note


def run_distributed_profile(script, *, launch, steps, backend, fake_data, version, script_args, out_dir, fail_words,
                            timeout, stream, python, env, op_trace, advisor, seed, warnings,
                            progress_timeout=None, fusion=True, progress: bool = False) -> ProfileResult:
    from checks.distributed.run import run_distributed_smoke
    from checks.profile.result import PROFILE_ENV, child_config, read_child_report
    from checks.verdict.dist_result import LaunchSpec

    if isinstance(launch, dict):
        launch = LaunchSpec(**launch)
    with tempfile.TemporaryDirectory(prefix="npu-migrate-profile-ranks-") as tmp:
        report = os.path.join(tmp, "rank{rank}.profile.json")
        trace_dir = os.path.join(out_dir, "rank{rank}", "trace") if backend == "npu" else None
        child_env = dict(env or {})
        child_env[PROFILE_ENV] = child_config(report, backend, version, op_trace, trace_dir, fusion)
        interrupted = None
        try:
            job = run_distributed_smoke(script, launch=launch, steps=steps, timeout=timeout,
                                        progress_timeout=progress_timeout, backend=backend, fake_data=fake_data,
                                        torch_npu_version=version, script_args=tuple(script_args), op_trace=False,
                                        env=child_env, stream=stream, python=python, seed=seed,
                                        log_dir=os.path.join(out_dir, "logs"), progress="profile" if progress else False)
        except KeyboardInterrupt as exc:  # a signal: the job is ended; rank what each rank measured
            interrupted, job = exc, getattr(exc, "partial", None)
            if job is None:
                raise
        children = {rank: read_child_report(report.replace("{rank}", str(rank))) for rank in job.rank_ids}
    if interrupted is not None:  # each rank's steps as an interrupted run's (checks/profile/result.py)
        job = dataclasses.replace(job, ranks=tuple(dataclasses.replace(r, verdict="interrupted", exit_code=job.exit_code,
                                                                       reasons=()) for r in job.ranks))
        result = _job_result(script, backend, version, job, children, warnings=warnings, out_dir=out_dir,
                             fail_words=fail_words, trace_dir=trace_dir, advisor=advisor)
        result = dataclasses.replace(result, exit_code=job.exit_code,
                                     reasons=(*job.reasons, *(result.reasons if result.exit_code == 2 else ())))
        from checks.profile.report import write_summary

        interrupted.partial = dataclasses.replace(result, summary_path=write_summary(result, os.path.join(out_dir, "summary.md")))
        raise interrupted
    return _job_result(script, backend, version, job, children, warnings=warnings, out_dir=out_dir,
                       fail_words=fail_words, trace_dir=trace_dir, advisor=advisor)


def _job_result(script, backend, version, job, children, *, warnings, out_dir, fail_words, trace_dir,
                advisor) -> ProfileResult:
    from checks.profile.result import build_result, fails

    note = emulated_note(backend)
    summary_job = {"verdict": job.verdict, "reasons": list(job.reasons), "hanging": list(job.hanging),
                   "replicas": job.replicas, "world_size": job.world_size, "log_dir": job.log_dir}
    common = {"note": note, "torch_npu_version": version, "out_dir": out_dir, "smoke_verdict": job.verdict,
              "smoke_reasons": job.reasons, "steps_run": job.steps, "job": summary_job,
              "cannot_see": EMULATION_CANNOT_SEE if backend == "emulated" else ()}
    warnings = [*warnings, *job.warnings]
    if job.exit_code == 2 and not job.ranks:
        return ProfileResult(script, backend, 2, reasons=job.reasons, warnings=tuple(warnings), **common)
    ranks = []
    for rank, smoke in zip(job.rank_ids, job.ranks):
        rank_dir = os.path.join(out_dir, f"rank{rank}")
        ranks.append(build_result(script, backend, version, children.get(rank), smoke, smoke.steps, warnings=(),
                                  out_dir=rank_dir, fail_words=fail_words,
                                  trace_dir=trace_dir.replace("{rank}", str(rank)) if trace_dir else None,
                                  advisor=advisor, rank=rank))
    measured = [r for r in ranks if r.exit_code != 2]
    for r in ranks:
        if r.exit_code == 2:
            warnings.append(f"rank {r.rank}: " + "; ".join(r.reasons))
    if job.verdict != "pass" and measured:
        warnings.append("the job did not pass smoke (profiled what ran): " + "; ".join(job.reasons))
    if not measured:
        reasons = tuple(f"rank {r.rank}: {'; '.join(r.reasons)}" for r in ranks) or job.reasons
        return ProfileResult(script, backend, 2, reasons=reasons, warnings=tuple(dict.fromkeys(warnings)),
                             ranks=tuple(ranks), **common)
    findings = merge_findings(measured)
    failing = sum(1 for f in findings if fails(f, fail_words))
    slowest = max((r for r in measured if r.step_time_ms), key=lambda r: r.step_time_ms, default=None)
    if slowest is not None and len(measured) > 1:
        fastest = min(r.step_time_ms for r in measured if r.step_time_ms)
        warnings.append(f"slowest rank {slowest.rank}: {slowest.step_time_ms:.1f} ms median step "
                        f"(fastest {fastest:.1f} ms); the ranks wait for each other in collectives")
    result = ProfileResult(script, backend, 1 if failing else 0, steps=min(r.steps for r in measured),
                           traced_steps=min(r.traced_steps for r in measured), findings=findings,
                           step_time_ms=slowest.step_time_ms if slowest else None,
                           warnings=tuple(dict.fromkeys(warnings)), fail_on=fail_words, failing=failing,
                           ranks=tuple(ranks), **common)
    from checks.profile.report import write_summary

    return dataclasses.replace(result, summary_path=write_summary(result, os.path.join(out_dir, "summary.md")))


def merge_findings(results) -> tuple[PerfFinding, ...]:
    """One finding per (kind, file, line, call) across the ranks: the costliest rank's finding, with
    `detail["ranks"]` (the ranks that showed it) and `detail["per_rank"]` ({rank: per step})."""
    groups: dict[tuple, list[tuple[int, PerfFinding]]] = {}
    for r in results:
        for f in r.findings:
            groups.setdefault((f.kind, f.path, f.line, f.what), []).append((r.rank, f))
    merged = []
    for found in groups.values():
        _, top = max(found, key=lambda rf: rf[1].cost_ms)
        detail = dict(top.detail, ranks=sorted(rank for rank, _ in found),
                      per_rank={str(rank): f.per_step for rank, f in sorted(found, key=lambda rf: rf[0])})
        merged.append(dataclasses.replace(top, per_step=max(f.per_step for _, f in found), detail=detail))
    return tuple(sorted(merged, key=lambda f: (-f.cost_ms, f.path, f.line)))
