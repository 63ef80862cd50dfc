"""JSON (`--json REPORT`, `--format json`)."""
from __future__ import annotations

import json
from typing import TextIO

from migrate.doctor.result import DoctorReport


def report(result: DoctorReport, stream: TextIO) -> None:
    json.dump(result.to_dict(), stream, indent=2)
    stream.write("\n")


def report_explain(matches, stream: TextIO) -> None:
    json.dump({"matches": [m.to_dict() for m in matches]}, stream, indent=2)
    stream.write("\n")


def report_timeline(timeline, stream: TextIO) -> None:
    json.dump(timeline.to_dict(), stream, indent=2)
    stream.write("\n")
