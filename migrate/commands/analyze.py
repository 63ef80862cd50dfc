"""`npu-migrate analyze PATH...`: the inventory."""

from __future__ import annotations

import sys

import click

from migrate.commands._scan_options import emit, emit_statistics, run_scan, scan_options


@click.command()
@scan_options
def analyze(paths, fmt, output, statistics, exit_zero, quiet, **options):
    """Inventory of a script or a repo: every CUDA-specific construct, every op the NPU lacks,
    every GPU-only dependency, and a feasibility verdict.

    PATHS are files, directories (recursive, .gitignore honoured) or '-' for stdin.
    Exit 0 without findings, 1 with findings (0 with --exit-zero), 2 when nothing could be scanned.
    """
    from migrate.report import plural
    from migrate.verdict import judge

    result, _ = run_scan(paths, fmt=fmt, output=output, quiet=quiet, **options)
    verdict = judge(result.findings, scanned=result.scanned_files > 0)
    if statistics:
        emit_statistics(result.findings, fmt, output)
    else:
        emit(result, verdict, fmt, output, quiet)
    if output and fmt != "text" and not statistics and not quiet:
        # the file gets the machine-readable report; the terminal still gets the verdict line
        click.echo(f"{plural(len(result.findings), 'finding')}, verdict: {verdict.status}; report written to {output}", err=True)
    if result.files and result.scanned_files == 0:
        sys.exit(2)
    if not result.files:
        click.echo("npu-migrate: no files to analyze", err=True)
        sys.exit(2)
    sys.exit(1 if result.findings and not exit_zero else 0)
