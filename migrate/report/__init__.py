"""Output formats. One module per format, all with the same `report(...)` signature:

    report(result: ScanResult, stream: TextIO, *, verdict: Verdict, rules: dict[str, type[Rule]]) -> None

apply's change list (`apply --report FILE.json|FILE.csv`) is `migrate.report.changes`.
"""

from __future__ import annotations

import importlib

FORMATS = {
    "text": "migrate.report.text",
    "json": "migrate.report.json_format",
    "sarif": "migrate.report.sarif",
    "github": "migrate.report.github",
    "csv": "migrate.report.csv_format",
}


def get_reporter(name: str):
    try:
        module = FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown format {name!r}; choose from {', '.join(FORMATS)}") from None
    return importlib.import_module(module).report


def location(f) -> str:
    """`path:line:col`, with the notebook cell when there is one (`nb.ipynb[cell 3]:2:1`)."""
    path = f.path if f.cell is None else f"{f.path}[cell {f.cell}]"
    return f"{path}:{f.line}:{f.column}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 file`, `2 files`, `1 manual item`: counts in messages read as English."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"
