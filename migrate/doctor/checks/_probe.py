"""Reading the result line of a `python -m checks.child.doctor_probe` child."""
from __future__ import annotations

import json

from migrate.doctor.host import ProbeOutput

MARKER = "DOCTOR_PROBE_RESULT "  # same as checks.child.doctor_probe.MARKER (that module imports torch)


def parse(out: ProbeOutput) -> dict | None:
    for line in reversed(out.stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                return json.loads(line[len(MARKER):])
            except ValueError:
                return None
    return None


def tail(out: ProbeOutput, chars: int = 600) -> str:
    text = (out.stderr.strip() or out.stdout.strip())
    return text[-chars:]
