"""Plain text (not a terminal: logs, CI, pipes)."""
from __future__ import annotations

from typing import TextIO

from migrate.doctor.result import DoctorReport
from migrate.report import plural

MARK = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "skip": "SKIP"}


def report(result: DoctorReport, stream: TextIO) -> None:
    if result.headline:
        stream.write(result.headline + "\n\n")
    for r in result.results:
        stream.write(f"[{MARK[r.status.value]}] {r.title}: {r.summary}\n")
        for line in r.evidence:
            stream.write(f"       {line}\n")
        if r.fix and r.status.value != "pass":
            stream.write(f"       fix: {r.fix}\n")
    blocking = [r for r in result.results if r.blocking]
    if blocking:
        stream.write(f"\nNOT READY: {plural(len(blocking), 'blocking problem')}:\n")
        for r in blocking:
            stream.write(f"  - {r.title}: {r.fix or r.summary}\n")
    else:
        stream.write("\nREADY: this machine can train on Ascend.\n")


def report_explain(matches, stream: TextIO) -> None:
    if not matches:
        stream.write("no known Ascend / torch_npu error in the log\n")
        return
    for m in matches:
        times = f" (x{m.count})" if m.count > 1 else ""
        stream.write(f"line {m.line_no}{times}: {m.id}\n  {m.line}\n  why: {m.explanation}\n"
                     f"  fix: {m.fix}\n  source: {m.source}\n")


def report_timeline(timeline, stream: TextIO) -> None:
    stream.write(f"{plural(len(timeline.files), 'log file')} read\n")
    if timeline.first is None:
        stream.write("no known Ascend / torch_npu error in the logs\n")
        return
    who = f"rank {timeline.first.rank}" if timeline.first.rank is not None else "an unknown rank"
    stream.write(f"first failing: {who} ({timeline.first.id}, {timeline.first.file}:"
                 f"{timeline.first.line_no}); {timeline.why}\n\n")
    for e in timeline.events:
        rank = f"rank {e.rank}" if e.rank is not None else "rank ?"
        role = f"  [{e.role}]" if e.role else ""
        stream.write(f"{e.time or '(no time)'}  {rank}  {e.id}{role}\n  {e.file}:{e.line_no}: "
                     f"{e.line}\n  why: {e.explanation}\n  fix: {e.fix}\n  source: {e.source}\n")
