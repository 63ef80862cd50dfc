"""GitHub Actions workflow commands: `::error file=...,line=...,col=...,title=CODE::message`."""

from __future__ import annotations

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def report(result, stream, *, verdict, rules) -> None:
    for error in result.errors:
        stream.write(f"::error file={_escape_property(error.path)},line={error.line},col={error.column},"
                     f"title={error.code}::{_escape_data(error.message)}\n")
    for f in result.findings:
        where = f" (cell {f.cell})" if f.cell is not None else ""
        stream.write(
            f"::{_LEVEL[str(f.severity)]} file={_escape_property(f.path)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={f.code}::{_escape_data(f.message + where)}\n"
        )
