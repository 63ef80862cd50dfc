"""`npu-migrate doctor`: is this machine ready to train on Ascend; `--explain LOG`: what an error
means. Thin: options -> migrate.doctor (runner / explain) -> a reporter."""
from __future__ import annotations

import dataclasses
import sys
from io import StringIO
from pathlib import Path

import click

from migrate import fileio
from migrate.commands._report_options import deprecated
from migrate.doctor import explain, releases, report, timeline
from migrate.doctor.host import Host
from migrate.doctor.runner import run_checks


def _format(name: str) -> str:
    if name != "auto":
        return name
    return "rich" if sys.stdout.isatty() else "text"


@click.command("doctor")
@click.option("--json", "json_path", metavar="REPORT", default=None,
              help="Deprecated: --format json -o REPORT (--json -: --format json).")
@click.option("--torch-npu-version", "torch_npu_version", metavar="V", default=None,
              help="Check against this torch_npu release instead of the installed one.")
@click.option("--explain", "explain_source", metavar="LOG|DIR|-", default=None,
              help="Explain the known Ascend/torch_npu errors found in a log file (or stdin); "
                   "with a folder of every rank's logs (and plog files): the errors by time and "
                   "the first failing rank.")
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "rich", "json"]),
              default="auto", show_default=True, help="auto: a table on a terminal, else text.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Write the report to FILE (with --format json: the JSON, the text summary still shows; "
                   "otherwise the text report), the convention of every command.")
@click.option("--timeout", type=float, default=180.0, show_default=True,
              help="Seconds for each torch probe (import, matmul, HCCL all-reduce).")
def doctor(json_path, torch_npu_version, explain_source, fmt, output, timeout):
    """Check this machine for Ascend training: Python, torch/torch_npu/torchvision pairing, CANN,
    driver and devices, torch_npu import, NPU matmul and HCCL, environment, optional tools.

    Exit 0 ready, 1 not ready (each blocking problem listed with its fix), 2 could not run.
    With --explain: exit 0 no known error in the log, 1 known errors explained, 2 unreadable.
    With --explain DIR: the same over every log in DIR, ordered by time, first failing rank named.
    """
    text_path = None
    if json_path is not None:  # the older spelling: works this release, says what replaces it (on stderr)
        click.echo(deprecated("--json REPORT", "--format json -o REPORT" if json_path != "-" else "--format json"), err=True)
    if output is not None:  # -o FILE: --format json -o FILE is the older --json FILE
        if json_path is not None:
            raise click.UsageError("--json REPORT is --format json -o REPORT: give one or the other")
        if fmt == "json":
            json_path, fmt = output, "auto"
        elif output != "-":
            text_path = output
    fmt = _format(fmt)
    if explain_source is not None:
        _explain(explain_source, fmt, json_path, text_path)
        return
    if torch_npu_version is not None and releases.find(torch_npu_version) is None:
        known = ", ".join(r.version for r in releases.releases()[:6])
        raise click.UsageError(f"unknown torch_npu release {torch_npu_version!r} (newest known: "
                               f"{known} ...)")
    if json_path and json_path != "-" and not Path(json_path).parent.is_dir():
        click.echo(f"npu-migrate doctor: cannot write {json_path}: no such directory", err=True)
        raise SystemExit(2)
    host = dataclasses.replace(Host(), target_torch_npu=torch_npu_version,
                               probe_timeout=timeout, allreduce_timeout=timeout)
    try:
        result = run_checks(host)
    except Exception as exc:  # noqa: BLE001 - exit 2 with one line, never a traceback
        click.echo(f"npu-migrate doctor could not run: {type(exc).__name__}: {exc}", err=True)
        raise SystemExit(2) from None
    _emit("report", result, fmt, json_path, text_path)
    raise SystemExit(result.exit_code)


def _explain(source: str, fmt: str, json_path: str | None, text_path: str | None = None) -> None:
    if source != "-" and Path(source).is_dir():
        result = timeline.build(Path(source))
        _emit("report_timeline", result, fmt, json_path, text_path)
        raise SystemExit(1 if result.events else 0)
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(errors="replace")
    except OSError as exc:
        click.echo(f"npu-migrate doctor --explain: cannot read {source}: {exc.strerror}", err=True)
        raise SystemExit(2) from None
    matches = explain.explain(text)
    _emit("report_explain", matches, fmt, json_path, text_path)
    raise SystemExit(1 if matches else 0)


def _emit(method: str, payload, fmt: str, json_path: str | None, text_path: str | None = None) -> None:
    """Print `payload` through the `fmt` reporter's `method` (the JSON one only, for `--json -`),
    and write it as JSON to `json_path` (migrate.fileio.write_report: whole or not at all)."""
    if json_path == "-":
        getattr(report.get("json"), method)(payload, sys.stdout)
        return
    if text_path:  # -o FILE with a text format: the report goes to FILE, whole or not at all
        buffer = StringIO()
        getattr(report.get("text" if fmt == "rich" else fmt), method)(payload, buffer)
        try:
            fileio.write_report(text_path, buffer.getvalue())
        except OSError as exc:
            click.echo(f"npu-migrate doctor: cannot write {text_path}: {exc.strerror}", err=True)
            raise SystemExit(2) from None
    else:
        getattr(report.get(fmt), method)(payload, sys.stdout)
    if not json_path:
        return
    buffer = StringIO()
    getattr(report.get("json"), method)(payload, buffer)
    try:
        fileio.write_report(json_path, buffer.getvalue())
    except OSError as exc:
        click.echo(f"npu-migrate doctor: cannot write {json_path}: {exc.strerror}", err=True)
        raise SystemExit(2) from None
