"""`npu-migrate check PATH...`: the CI gate on migrated code."""

from __future__ import annotations

import sys

import click

from migrate.commands._scan_options import emit, emit_statistics, run_scan, scan_options
from migrate.findings import Severity
from migrate.report import plural


@click.command()
@scan_options
@click.option("--fail-on", type=click.Choice(["info", "warning", "error"]), help="Lowest severity that fails (default: error, or the config's fail-on).")
@click.option("--baseline", type=click.Path(dir_okay=False), help="Accepted findings: only findings not in it fail. Created when missing.")
@click.option("--update-baseline", is_flag=True, help="Rewrite the baseline with the current findings and exit 0.")
def check(paths, fmt, output, fail_on, baseline, update_baseline, statistics, exit_zero, quiet, **options):
    """Fail (exit 1) when findings at or above --fail-on remain; exit 0 when clean, 2 when it could not run."""
    from migrate import baseline as baseline_mod
    from migrate.verdict import judge

    result, config = run_scan(paths, fmt=fmt, output=output, quiet=quiet, **options)
    say = (lambda text: None) if quiet else (lambda text: click.echo(text, err=True))  # -q: the report only
    threshold = Severity.parse(fail_on) if fail_on else config.fail_on
    findings = result.findings
    accepted = 0
    if baseline:
        if update_baseline or not baseline_mod.exists(baseline):
            try:
                baseline_mod.write(baseline, findings)
            except (ValueError, OSError) as exc:
                raise click.BadParameter(str(exc), param_hint="--baseline") from None
            if update_baseline:
                say(f"baseline with {plural(len(findings), 'finding')} written to {baseline}")
                sys.exit(0)
            say(f"baseline with {plural(len(findings), 'finding')} written to {baseline}: accepted from the next "
                "run on; this first run still gates on them (--update-baseline writes it and exits 0)")
        else:
            try:
                known = baseline_mod.read(baseline)
            except ValueError as exc:
                raise click.BadParameter(str(exc), param_hint="--baseline") from None
            new = baseline_mod.new_findings(findings, known)
            accepted = len(findings) - len(new)
            result = baseline_mod.only(result, new)
            findings = result.findings
    # the text report of a CI gate ends with the PASS/FAIL line below, not a migration-feasibility verdict
    verdict = judge(findings, scanned=result.scanned_files > 0) if fmt != "text" else None
    if statistics:
        emit_statistics(findings, fmt, output)
    else:
        emit(result, verdict, fmt, output, quiet)
    failing = [f for f in findings if f.severity >= threshold]
    if accepted:
        say(f"{plural(accepted, 'finding')} accepted by the baseline")
    if result.scanned_files == 0:
        sys.exit(2)
    say(f"check: {plural(len(failing), 'finding')} at or above {threshold} -> {'FAIL' if failing else 'PASS'}")
    sys.exit(1 if failing and not exit_zero else 0)
