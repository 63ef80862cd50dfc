"""Doctor output formats, one module per format, all with the same three functions:

    report(result: DoctorReport, stream: TextIO) -> None
    report_explain(matches: list[explain.Match], stream: TextIO) -> None
    report_timeline(timeline: timeline.Timeline, stream: TextIO) -> None   (--explain DIR)
"""
from __future__ import annotations

import importlib

FORMATS = {
    "text": "migrate.doctor.report.text",
    "rich": "migrate.doctor.report.rich_table",
    "json": "migrate.doctor.report.json_format",
}


def get(name: str):
    return importlib.import_module(FORMATS[name])
