"""JSON: a top-level `findings` list, `errors`, `summary` and `verdict`."""

from __future__ import annotations

import json

from migrate import __version__
from migrate.verdict import summary


def report(result, stream, *, verdict, rules) -> None:
    payload = {
        "tool": {"name": "npu-migrate", "version": __version__},
        "findings": [f.to_dict() for f in result.findings],
        "errors": [e.to_dict() for e in result.errors],
        "summary": summary(result),
        "verdict": verdict.to_dict(),
    }
    json.dump(payload, stream, indent=2, ensure_ascii=False)
    stream.write("\n")
