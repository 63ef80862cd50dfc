"""A rich table, for a terminal."""
from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from migrate.doctor.result import DoctorReport
from migrate.report import plural

STYLE = {"pass": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def report(result: DoctorReport, stream: TextIO) -> None:
    console = Console(file=stream)
    if result.headline:
        console.print(result.headline, style="bold")
    table = Table(title="npu-migrate doctor", show_lines=True)
    for column in ("check", "status", "finding", "fix"):
        table.add_column(column, overflow="fold")
    for r in result.results:
        finding = _esc(r.summary) + ("".join(f"\n[dim]{_esc(e)}[/dim]" for e in r.evidence))
        table.add_row(r.title, f"[{STYLE[r.status.value]}]{r.status.value}[/]", finding,
                      _esc(r.fix) if r.fix and r.status.value != "pass" else "")
    console.print(table)
    if result.ready:
        console.print("READY: this machine can train on Ascend.", style="green")
    else:
        n = sum(r.blocking for r in result.results)
        console.print(f"NOT READY: {plural(n, 'blocking problem')}; the fix column says what to do.",
                      style="bold red")


def report_explain(matches, stream: TextIO) -> None:
    console = Console(file=stream)
    if not matches:
        console.print("no known Ascend / torch_npu error in the log")
        return
    table = Table(title="known errors in the log", show_lines=True)
    for column in ("line", "error", "why", "fix", "source"):
        table.add_column(column, overflow="fold")
    for m in matches:
        table.add_row(str(m.line_no), _esc(m.id), _esc(m.explanation), _esc(m.fix),
                      _esc(m.source))
    console.print(table)


def report_timeline(timeline, stream: TextIO) -> None:
    from migrate.report.terminal import make_console

    console = make_console(file=stream)  # paths in the `where` column are not folded when piped
    if timeline.first is None:
        console.print(f"{len(timeline.files)} log file(s): no known Ascend / torch_npu error")
        return
    who = f"rank {timeline.first.rank}" if timeline.first.rank is not None else "an unknown rank"
    console.print(f"first failing: [bold]{who}[/bold] ({_esc(timeline.first.id)}); "
                  f"{_esc(timeline.why)}")
    table = Table(title="errors by time, every rank", show_lines=True)
    for column in ("time", "rank", "error", "role", "where", "why", "fix"):
        table.add_column(column, overflow="fold")
    for e in timeline.events:
        table.add_row(e.time or "-", "?" if e.rank is None else str(e.rank), _esc(e.id),
                      _esc(e.role), _esc(f"{e.file}:{e.line_no}"), _esc(e.explanation),
                      _esc(e.fix))
    console.print(table)


def _esc(text: str | None) -> str:
    return escape(text or "")
