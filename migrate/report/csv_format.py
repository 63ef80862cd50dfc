"""CSV: one row per finding (file errors as rows with category `file`)."""

from __future__ import annotations

import csv

COLUMNS = ["path", "cell", "line", "column", "end_line", "end_column", "code", "severity", "category", "fixable", "message", "replacement", "package"]


def report(result, stream, *, verdict, rules) -> None:
    writer = csv.DictWriter(stream, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for error in result.errors:
        writer.writerow({"path": error.path, "line": error.line, "column": error.column, "end_line": error.line,
                         "end_column": error.column, "code": error.code, "severity": "error", "category": "file",
                         "fixable": False, "message": error.message})
    for f in result.findings:
        writer.writerow({k: v for k, v in f.to_dict().items() if k in COLUMNS})
