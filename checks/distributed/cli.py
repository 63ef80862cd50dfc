"""The distributed branch of the `smoke` command (kept out of migrate/commands/smoke.py)."""
from __future__ import annotations


def smoke_distributed(script, *, launch: dict, progress_timeout, target, **options) -> int:
    """`options`: those of checks.smoke.run.run_smoke, the same object the single-process branch gets;
    `target`: where the report goes (migrate/commands/_report_options.ReportTarget)."""
    from checks.distributed.run import run_distributed_smoke
    from checks.launch.report import write_json
    from checks.verdict.dist import render
    from checks.verdict.dist_result import LaunchSpec

    try:
        result = run_distributed_smoke(script, launch=LaunchSpec(**launch), progress_timeout=progress_timeout, **options)
    except KeyboardInterrupt as exc:  # a signal: the job is ended; report the steps its ranks had done
        result = getattr(exc, "partial", None)
        if result is None:
            raise
    if target.json:
        write_json(result, target.json)
    target.render(render, result)
    return result.exit_code
