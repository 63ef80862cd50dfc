"""The distributed branch of the `smoke` command (kept out of migrate/commands/smoke.py)."""
from __future__ import annotations


def smoke_distributed(script, *, launch: dict, progress_timeout, json_report, **options) -> int:
    """`options`: those of checks.smoke.run_smoke, the same object the single-process branch gets."""
    from checks.dist_result import LaunchSpec
    from checks.dist_verdict import render
    from checks.distributed import run_distributed_smoke
    from checks.smoke_report import write_json

    result = run_distributed_smoke(script, launch=LaunchSpec(**launch), progress_timeout=progress_timeout, **options)
    if json_report:
        write_json(result, json_report)
    if json_report != "-":
        from migrate.report.terminal import make_console

        render(result, make_console())
    return result.exit_code
